import type { QuickJSWASMModule } from "quickjs-emscripten-core";

/**
 * The QuickJS engine behind the embedded `node`. The single-file CommonJS build carries its wasm as
 * an embedded string, so the same import works in a Vite-bundled module Worker and in Node with no
 * `.wasm` asset to locate. One module instance serves many commands (each gets its own runtime);
 * an instance whose wasm trapped or ran out of memory is dropped and the next command gets a fresh one.
 * Both packages are imported on first use: the worker boots (and answers its first call) without them.
 */
let current: { promise: Promise<QuickJSWASMModule>; instance?: QuickJSWASMModule } | null = null;

/** The shared QuickJS module, instantiated on first use (~20 ms). */
export function loadQuickJS(): Promise<QuickJSWASMModule> {
  if (!current) {
    const entry: { promise: Promise<QuickJSWASMModule>; instance?: QuickJSWASMModule } = {
      promise: (async () => {
        const [{ default: variant }, { newQuickJSWASMModuleFromVariant }] = await Promise.all([
          import("@jitl/quickjs-singlefile-cjs-release-sync"),
          import("quickjs-emscripten-core"),
        ]);
        return newQuickJSWASMModuleFromVariant(variant);
      })(),
    };
    entry.promise.then(
      (instance) => {
        entry.instance = instance;
      },
      // A failed instantiation must not stick: the next command tries again.
      () => {
        if (current === entry) current = null;
      },
    );
    current = entry;
  }
  return current.promise;
}

/** Forgets `instance` (after a trap or an out-of-memory): its wasm memory can then be collected. */
export function discardQuickJS(instance: QuickJSWASMModule): void {
  if (current?.instance === instance) current = null;
}
