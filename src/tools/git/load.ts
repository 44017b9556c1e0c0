/** isomorphic-git's API, loaded on first use so the worker boots without it. */
export type Git = typeof import("isomorphic-git");

let loading: Promise<Git> | undefined;

/**
 * Loads isomorphic-git. In a browser it needs a global Buffer, which only the browser lacks: the
 * `buffer` package fills it there. Deflate is pinned to pako (isomorphic-git's fallback), which is
 * about twice as fast as CompressionStream for many small objects (FIELD-NOTES).
 */
export function loadGit(): Promise<Git> {
  loading ??= (async () => {
    if (typeof (globalThis as { Buffer?: unknown }).Buffer === "undefined") {
      const { Buffer } = await import("buffer");
      (globalThis as { Buffer?: unknown }).Buffer = Buffer;
    }
    const git = (await import("isomorphic-git")) as Git & { default?: Git };
    const api = (git.default ?? git) as Git;
    await pinPakoDeflate(api);
    return api;
  })();
  return loading;
}

/** isomorphic-git decides once, at its first deflate, whether to use CompressionStream: decide now, without it. */
async function pinPakoDeflate(git: Git): Promise<void> {
  const scope = globalThis as { CompressionStream?: unknown };
  if (scope.CompressionStream === undefined) return;
  const saved = scope.CompressionStream;
  const missing = () => Promise.reject(Object.assign(new Error("ENOENT"), { code: "ENOENT" }));
  const nowhere = {
    promises: {
      readFile: missing,
      writeFile: missing,
      mkdir: missing,
      rmdir: missing,
      unlink: missing,
      stat: missing,
      lstat: missing,
      readdir: missing,
      readlink: missing,
      symlink: missing,
    },
  };
  scope.CompressionStream = undefined;
  try {
    // Deflates (deciding), then fails to write to the fs that has nothing: only the decision stays.
    await git
      .writeObject({
        fs: nowhere,
        gitdir: "/nowhere/.git",
        type: "blob",
        object: new Uint8Array(),
        format: "content",
      })
      .catch(() => undefined);
  } finally {
    scope.CompressionStream = saved;
  }
}
