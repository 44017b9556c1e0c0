import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cpythonFolder } from "./node-platform.ts";
import { findSignalClock } from "./signal-clock.ts";

describe("where CPython's signal clock is", () => {
  it("is one place in the vendored interpreter, tested against its exported flag", async () => {
    const wasm = new Uint8Array(readFileSync(join(cpythonFolder(), "python.wasm")));
    const found = findSignalClock(wasm);
    expect(found).toHaveLength(1);
    // The flag is the exported Py_EMSCRIPTEN_SIGNAL_HANDLING global's address.
    const module = await WebAssembly.compile(wasm);
    expect(WebAssembly.Module.exports(module).map((entry) => entry.name)).toContain(
      "Py_EMSCRIPTEN_SIGNAL_HANDLING",
    );
    expect(found[0]!.clock % 4).toBe(0);
    expect(found[0]!.flag).not.toBe(found[0]!.clock);
  });

  it("finds nothing in bytes that are not such a module", () => {
    expect(findSignalClock(new Uint8Array([1, 2, 3]))).toEqual([]);
    // A module with a code section but no such code.
    const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x0a, 0x01, 0x00]);
    expect(findSignalClock(empty)).toEqual([]);
  });
});
