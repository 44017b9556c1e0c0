/** Connecting a model: providers, the agent loop, its controller for the UI, and saved settings. */
export { ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION, AnthropicProvider } from "./anthropic.ts";
export {
  AgentController,
  type AgentControllerOptions,
  type AgentErrorInfo,
  type AgentRunSummary,
  type AgentStatus,
  type AgentUpdate,
} from "./controller.ts";
export { createProvider } from "./create-provider.ts";
export { isProviderError, ProviderError, type ProviderErrorKind } from "./errors.ts";
export {
  type AgentHandlers,
  type AgentOptions,
  type AgentResult,
  type AgentStopReason,
  DEFAULT_MAX_ITERATIONS,
  defaultSystemPrompt,
  runAgent,
} from "./loop.ts";
export { OpenAiProvider } from "./openai.ts";
export {
  type FetchLike,
  type ModelRequest,
  type ModelTurn,
  PROVIDER_PRESETS,
  type Provider,
  type ProviderKind,
  type ProviderPreset,
  type ProviderSettings,
  providerLabel,
  type StreamHandlers,
  settingsProblems,
} from "./provider.ts";
export {
  forgetProviderKey,
  isKeyRemembered,
  type KeyValueStorage,
  loadProviderSettings,
  SETTINGS_STORAGE_KEY,
  saveProviderSettings,
  withoutKey,
} from "./settings.ts";
export { readSse, type SseMessage, SseParser } from "./sse.ts";
export { toolResultForModel } from "./tool-results.ts";
export * from "./transcript.ts";
