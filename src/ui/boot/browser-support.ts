/** What the browser offers, checked before boot; each line says what it means for this page. */
export interface BrowserSupport {
  crossOriginIsolated: boolean;
  sharedArrayBuffer: boolean;
  indexedDb: boolean;
  fileSystemAccess: boolean;
  online: boolean;
  moduleWorkers: boolean;
}

export interface SupportLine {
  key: keyof BrowserSupport;
  label: string;
  ok: boolean;
  meaning: string;
}

/** Reads the globals of a page (or of a stand-in in tests). */
export function detectBrowserSupport(scope: Record<string, unknown> = globalThis as never): BrowserSupport {
  const navigator = scope.navigator as { onLine?: boolean } | undefined;
  return {
    crossOriginIsolated: scope.crossOriginIsolated === true,
    sharedArrayBuffer: typeof scope.SharedArrayBuffer === "function",
    indexedDb: typeof scope.indexedDB === "object" && scope.indexedDB !== null,
    fileSystemAccess: typeof scope.showDirectoryPicker === "function",
    online: navigator?.onLine !== false,
    moduleWorkers: typeof scope.Worker === "function",
  };
}

export function describeSupport(support: BrowserSupport): SupportLine[] {
  return [
    {
      key: "moduleWorkers",
      label: "Web Workers",
      ok: support.moduleWorkers,
      meaning: support.moduleWorkers
        ? "Tools run in a worker, so the page stays responsive."
        : "This browser cannot run the tool worker; use a current Chrome, Edge, Firefox or Safari.",
    },
    {
      key: "crossOriginIsolated",
      label: "Cross-origin isolation",
      ok: support.crossOriginIsolated,
      meaning: support.crossOriginIsolated
        ? "The page is isolated (COOP/COEP): a WebContainer may boot."
        : "The page is not isolated (its server sends no COOP/COEP headers): WebContainer cannot boot, the embedded sandbox will run.",
    },
    {
      key: "sharedArrayBuffer",
      label: "SharedArrayBuffer",
      ok: support.sharedArrayBuffer,
      meaning: support.sharedArrayBuffer
        ? "Available: WebContainer's Node.js can share memory with its threads."
        : "Missing: WebContainer cannot run Node.js here.",
    },
    {
      key: "indexedDb",
      label: "IndexedDB",
      ok: support.indexedDb,
      meaning: support.indexedDb
        ? "Workspaces, logs and settings are saved in this browser and survive a reload."
        : "Storage is off (private window?): nothing will survive a reload.",
    },
    {
      key: "fileSystemAccess",
      label: "File System Access",
      ok: support.fileSystemAccess,
      meaning: support.fileSystemAccess
        ? "Open folder reads a local folder directly."
        : "Open folder uses an upload of the folder instead (same result, one copy).",
    },
    {
      key: "online",
      label: "Network",
      ok: support.online,
      meaning: support.online
        ? "The browser reports a network; WebContainer still needs StackBlitz to be reachable."
        : "Offline: WebContainer loads from StackBlitz, so it is skipped.",
    },
  ];
}
