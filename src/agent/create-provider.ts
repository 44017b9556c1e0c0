import { AnthropicProvider } from "./anthropic.ts";
import { OpenAiProvider } from "./openai.ts";
import { type FetchLike, type Provider, type ProviderSettings, settingsProblems } from "./provider.ts";

/**
 * The provider for these settings. `fetch` comes from the caller (the page's, a test server's, a
 * session's), never from a global, so tests and sessions can drive it.
 */
export function createProvider(settings: ProviderSettings, fetch: FetchLike): Provider {
  const problems = settingsProblems(settings);
  if (problems.length > 0) throw new Error(problems.join(" "));
  return settings.kind === "anthropic"
    ? new AnthropicProvider(settings, fetch)
    : new OpenAiProvider(settings, fetch);
}
