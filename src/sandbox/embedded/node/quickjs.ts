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

/** Caps on one wasm memory's growth, one per engine running on it (the largest holds). */
const growthCaps = new WeakMap<WebAssembly.Memory, Set<{ bytes: number }>>();

/**
 * Refuses to grow `instance`'s wasm memory past `maxBytes` until the returned release is called.
 * QuickJS's own memory limit cannot hold in this build (it counts blocks by malloc_usable_size,
 * which emscripten's malloc lacks): a program under a 256 MB limit grew the heap to 2 GB. A refused
 * growth makes malloc fail, which QuickJS reports as "out of memory" to the program.
 */
export function capWasmMemory(instance: QuickJSWASMModule, maxBytes: number): () => void {
  const memory = instance.getWasmMemory();
  let caps = growthCaps.get(memory);
  if (!caps) {
    const active = new Set<{ bytes: number }>();
    caps = active;
    growthCaps.set(memory, active);
    const grow = memory.grow.bind(memory);
    // Emscripten grows the heap through this method (emscripten_resize_heap), catching a throw as "no".
    Object.defineProperty(memory, "grow", {
      value: (pages: number) => {
        if (active.size > 0) {
          const limit = Math.max(...[...active].map((cap) => cap.bytes));
          if (memory.buffer.byteLength + pages * 65536 > limit)
            throw new RangeError("the embedded node's memory cap is reached");
        }
        return grow(pages);
      },
    });
  }
  const cap = { bytes: maxBytes };
  caps.add(cap);
  return () => {
    caps.delete(cap);
  };
}
