import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * Cross-origin isolation on every server that serves the app (WebContainer needs it; it also
 * buys SharedArrayBuffer and fine timers). COEP "credentialless" keeps cross-origin fetches that do
 * not opt in working; WebContainer is booted with the same value (src/sandbox/webcontainer/boot.ts).
 */
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "credentialless",
};

/**
 * just-bash's browser entry bundles its shell parser but does not export `parse`, which the
 * shell session needs to know when a command line is complete. Re-export it by the name it has
 * in the bundle; fail the build loudly if a new version changes the shape.
 */
function justBashParse(): Plugin {
  return {
    name: "toolroom:just-bash-parse",
    transform(code, id) {
      if (!/just-bash[\\/]dist[\\/]bundle[\\/]browser\.js$/u.test(id)) return null;
      if (/\bas parse\b/u.test(code.slice(-4000))) return null;
      const match =
        /function ([A-Za-z_$][\w$]*)\((\w),(\w)\)\{return new [A-Za-z_$][\w$]*\(\)\.parse\(\2,\3\)\}/u.exec(
          code,
        );
      if (!match)
        throw new Error(
          "just-bash/browser: could not find its parse function to re-export; update vite.config.ts",
        );
      return { code: `${code}\nexport { ${match[1]} as parse };\n`, map: null };
    },
  };
}

/** Dependencies of the worker, pre-bundled up front so the dev server does not reload the page on first use. */
const WORKER_DEPS = [
  "just-bash",
  "comlink",
  "idb",
  "ajv",
  "diff",
  "fflate",
  "ignore",
  "picomatch",
  "@noble/hashes/hmac.js",
  "@noble/hashes/legacy.js",
  "@noble/hashes/sha2.js",
  "@noble/hashes/sha3.js",
  "@noble/hashes/utils.js",
  "rregex",
  "picomatch/posix",
  "smol-toml",
  "@lezer/python",
  "@astral-sh/ruff-wasm-web",
  "typescript",
  "isomorphic-git",
  "buffer",
];

/** just-bash's CPython for Emscripten; its package's exports map hides the folder, so it gets a name of its own. */
const CPYTHON = fileURLToPath(new URL("./node_modules/just-bash/vendor/cpython-emscripten", import.meta.url));

const WORKER_ENTRY = fileURLToPath(new URL("./src/worker/worker.ts", import.meta.url));

/**
 * A worker has no <link rel="modulepreload">: chunks it imports were fetched one after another, each
 * found by compiling the one before, a round trip apiece on a loaded machine (the runtime's facade,
 * the runtime, the bundler's helpers under the first module's own imports). The tool worker's first
 * module names them all at once instead, as Vite's preload does for the page: what its imports
 * import, as static imports of its own (evaluated after them, so the order is unchanged), and what
 * its dynamic import of the runtime brings, as dynamic imports started at once.
 */
function preloadRuntime(): Plugin {
  return {
    name: "toolroom:preload-runtime",
    renderChunk(code, chunk, _options, meta) {
      if (chunk.facadeModuleId !== WORKER_ENTRY) return null;
      const chunks = meta.chunks as Record<string, { imports: string[] }>;
      const closure = (from: readonly string[]): Set<string> => {
        const found = new Set<string>();
        const add = (file: string) => {
          if (found.has(file)) return;
          found.add(file);
          for (const dependency of chunks[file]?.imports ?? []) add(dependency);
        };
        for (const file of from) add(file);
        return found;
      };
      const name = (file: string) => JSON.stringify(`./${file.slice(file.lastIndexOf("/") + 1)}`);
      const imported = closure(chunk.imports);
      const deeper = [...imported].filter((file) => !chunk.imports.includes(file));
      const later = [...closure(chunk.dynamicImports)].filter((file) => !imported.has(file));
      if (deeper.length === 0 && later.length === 0) return null;
      const start =
        later.length > 0 ? `for(const u of[${later.map(name).join(",")}])import(u).catch(()=>{});\n` : "";
      const statics = deeper.map((file) => `\nimport${name(file)};`).join("");
      return { code: `${start}${code}${statics}`, map: null };
    },
  };
}

export default defineConfig({
  plugins: [react(), justBashParse()],
  resolve: { alias: { "cpython-emscripten": CPYTHON } },
  worker: {
    format: "es",
    plugins: () => [justBashParse(), preloadRuntime()],
    // The runtime that answers the worker's first calls is one chunk (modules it shares with the shell
    // included): split into chunks that name each other, it was fetched a level at a time.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // What the worker's first module imports, apart: the store opens and the first workspace is
            // chosen (on a first visit, made) while the runtime downloads.
            {
              name: "worker-start",
              test: /node_modules[\\/](comlink|idb)[\\/]|src[\\/]worker[\\/](store|when-loaded|first-workspace)\.ts$/u,
              priority: 2,
            },
            { name: "runtime", test: /src[\\/]worker[\\/]browser-runtime\.ts$/u, priority: 1 },
          ],
        },
      },
    },
  },
  server: { headers: isolation },
  preview: { headers: isolation },
  optimizeDeps: {
    include: [...WORKER_DEPS, "react", "react-dom/client", "@xterm/xterm", "@xterm/addon-fit"],
    rolldownOptions: { plugins: [justBashParse()] },
  },
  build: {
    target: "es2022",
    // Monaco's TypeScript worker alone is ~7 MB; it loads lazily, off the boot path.
    chunkSizeWarningLimit: 8000,
  },
});
