import { describe, expect, it } from "vitest";
import type { ProviderSettings } from "./provider.ts";
import {
  forgetProviderKey,
  isKeyRemembered,
  type KeyValueStorage,
  loadProviderSettings,
  SETTINGS_STORAGE_KEY,
  saveProviderSettings,
  withoutKey,
} from "./settings.ts";

function memoryStorage(): KeyValueStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => {
      data.set(key, value);
    },
    removeItem: (key) => {
      data.delete(key);
    },
  };
}

const KEY = "sk-or-v1-abcdef0123456789abcdef0123456789";
const SETTINGS: ProviderSettings = {
  kind: "openai",
  baseUrl: "https://openrouter.ai/api/v1",
  apiKey: KEY,
  model: "openai/gpt-4.1-mini",
  headers: { "HTTP-Referer": "https://toolroom.test", Authorization: "Bearer proxy-secret-0000000000000" },
};

describe("provider settings", () => {
  it("saves settings without the key (nor credential headers) unless asked to remember it", () => {
    const storage = memoryStorage();
    saveProviderSettings(storage, SETTINGS);
    const raw = storage.data.get(SETTINGS_STORAGE_KEY)!;
    expect(raw).not.toContain(KEY);
    expect(raw).not.toContain("proxy-secret");
    expect(loadProviderSettings(storage)).toEqual({
      kind: "openai",
      baseUrl: "https://openrouter.ai/api/v1",
      model: "openai/gpt-4.1-mini",
      headers: { "HTTP-Referer": "https://toolroom.test" },
    });
    expect(isKeyRemembered(storage)).toBe(false);
  });

  it("remembers the key when the person asks, and forgets it on request", () => {
    const storage = memoryStorage();
    saveProviderSettings(storage, SETTINGS, { rememberKey: true });
    expect(loadProviderSettings(storage)).toEqual(SETTINGS);
    expect(isKeyRemembered(storage)).toBe(true);
    forgetProviderKey(storage);
    expect(storage.data.get(SETTINGS_STORAGE_KEY)).not.toContain(KEY);
    expect(loadProviderSettings(storage)?.apiKey).toBeUndefined();
    expect(loadProviderSettings(storage)?.model).toBe("openai/gpt-4.1-mini");
  });

  it("reads nothing from missing, damaged or foreign storage", () => {
    const storage = memoryStorage();
    expect(loadProviderSettings(storage)).toBeNull();
    storage.setItem(SETTINGS_STORAGE_KEY, "{not json");
    expect(loadProviderSettings(storage)).toBeNull();
    storage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify({ version: 1, settings: { kind: "gemini" } }));
    expect(loadProviderSettings(storage)).toBeNull();
  });

  it("withoutKey keeps what may be shown", () => {
    expect(withoutKey(SETTINGS)).toEqual({
      kind: "openai",
      baseUrl: "https://openrouter.ai/api/v1",
      model: "openai/gpt-4.1-mini",
      headers: { "HTTP-Referer": "https://toolroom.test" },
    });
  });
});
