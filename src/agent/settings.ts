import type { ProviderKind, ProviderSettings } from "./provider.ts";

/** The part of the Web Storage API the settings need; localStorage fits, tests pass a Map-backed one. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export const SETTINGS_STORAGE_KEY = "toolroom.agent.provider";

interface StoredSettings {
  version: 1;
  settings: Omit<ProviderSettings, "apiKey">;
  /** Present only when the person asked to remember the key on this device. */
  apiKey?: string;
}

/**
 * Saves provider settings. The key is left out unless `rememberKey` is set: by default it lives
 * only in memory, for this page, and a new visit asks for it again.
 */
export function saveProviderSettings(
  storage: KeyValueStorage,
  settings: ProviderSettings,
  options: { rememberKey?: boolean } = {},
): void {
  const stored: StoredSettings = {
    version: 1,
    settings: options.rememberKey ? omitKey(settings) : withoutKey(settings),
    ...(options.rememberKey && settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
  storage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(stored));
}

/** The saved settings (with the key only if it was remembered), or null when none or unreadable. */
export function loadProviderSettings(storage: KeyValueStorage): ProviderSettings | null {
  const text = storage.getItem(SETTINGS_STORAGE_KEY);
  if (text === null) return null;
  try {
    const stored = JSON.parse(text) as Partial<StoredSettings>;
    const settings = stored.settings as Partial<ProviderSettings> | undefined;
    const kind: ProviderKind | undefined =
      settings?.kind === "openai" || settings?.kind === "anthropic" ? settings.kind : undefined;
    if (!settings || !kind || typeof settings.baseUrl !== "string" || typeof settings.model !== "string") {
      return null;
    }
    return {
      ...settings,
      kind,
      baseUrl: settings.baseUrl,
      model: settings.model,
      ...(typeof stored.apiKey === "string" ? { apiKey: stored.apiKey } : {}),
    };
  } catch {
    return null;
  }
}

/** Whether a key is remembered on this device (the settings form shows a "forget" button). */
export function isKeyRemembered(storage: KeyValueStorage): boolean {
  return typeof loadProviderSettings(storage)?.apiKey === "string";
}

/** Drops a remembered key, keeping the rest of the settings. */
export function forgetProviderKey(storage: KeyValueStorage): void {
  const settings = loadProviderSettings(storage);
  if (settings) saveProviderSettings(storage, settings, { rememberKey: false });
}

const SECRET_HEADER = /auth|key|token|secret|cookie|password/iu;

/**
 * Settings without their key, nor extra headers that carry credentials (a proxy's Authorization):
 * what may be shown, logged, saved without consent or put in a session's meta.
 */
export function withoutKey(settings: ProviderSettings): Omit<ProviderSettings, "apiKey"> {
  const rest = omitKey(settings);
  if (!rest.headers) return rest;
  const headers = Object.fromEntries(
    Object.entries(rest.headers).filter(([name]) => !SECRET_HEADER.test(name)),
  );
  return { ...rest, headers };
}

function omitKey(settings: ProviderSettings): Omit<ProviderSettings, "apiKey"> {
  const { apiKey: _apiKey, ...rest } = settings;
  return rest;
}
