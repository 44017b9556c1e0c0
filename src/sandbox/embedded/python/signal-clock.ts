/**
 * Where CPython keeps its Emscripten signal clock, read from the interpreter's WebAssembly code.
 *
 * CPython on Emscripten looks at the interrupt buffer only every 50th eval-breaker check (the
 * static `emscripten_signal_clock` in Python/emscripten_signal.c counts them down). A sleep cut
 * short by Ctrl-C returns no EINTR here (Emscripten's sleep is a spin that cannot fail), so the
 * program would run on for up to 49 checks before its KeyboardInterrupt, printing what the real
 * python3 never prints. Setting the clock to 1 makes the very next check, the one right after the
 * sleep's call returns, raise it, as the real one raises it from inside time.sleep.
 *
 * The clock's address is not exported. The code that resets it reads, in order:
 *   i32.const CLOCK; i32.const 50; i32.store; i32.const FLAG; i32.load; i32.eqz; br_if
 * (FLAG: the exported Py_EMSCRIPTEN_SIGNAL_HANDLING). Each such place found is a candidate; the
 * engine uses the one whose FLAG is the exported address, and only when its memory holds a count
 * (1…50), so a different build finds none and keeps the slower check rather than write elsewhere.
 */
export interface SignalClockCandidate {
  clock: number;
  flag: number;
}

/** i32.const 50; i32.store align=2 offset=0; i32.const … */
const RESET = [0x41, 0x32, 0x36, 0x02, 0x00, 0x41];
/** i32.load align=2 offset=0; i32.eqz; br_if */
const FLAG_TEST = [0x28, 0x02, 0x00, 0x45, 0x0d];

export function findSignalClock(wasm: Uint8Array): SignalClockCandidate[] {
  const found: SignalClockCandidate[] = [];
  const code = codeSection(wasm);
  if (!code) return found;
  for (let at = code.start; at < code.end - 16; at++) {
    if (!matches(wasm, at, RESET)) continue;
    const flag = readSleb(wasm, at + RESET.length);
    if (!flag || !matches(wasm, flag.end, FLAG_TEST)) continue;
    const clock = slebEndingAt(wasm, at);
    if (clock !== undefined && clock > 0 && flag.value > 0) found.push({ clock, flag: flag.value });
  }
  return found;
}

function matches(bytes: Uint8Array, at: number, pattern: readonly number[]): boolean {
  for (let i = 0; i < pattern.length; i++) if (bytes[at + i] !== pattern[i]) return false;
  return true;
}

/** The code section's bytes (section id 10), walking the module's sections. */
function codeSection(wasm: Uint8Array): { start: number; end: number } | undefined {
  if (wasm.length < 8 || wasm[0] !== 0x00 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d)
    return undefined;
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at]!;
    const size = readLeb(wasm, at + 1);
    if (!size) return undefined;
    if (id === 10) return { start: size.end, end: Math.min(wasm.length, size.end + size.value) };
    at = size.end + size.value;
  }
  return undefined;
}

function readLeb(bytes: Uint8Array, at: number): { value: number; end: number } | undefined {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    const byte = bytes[at++];
    if (byte === undefined) return undefined;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, end: at };
  }
  return undefined;
}

/** A signed LEB128 i32 (addresses here are positive, below 2^31). */
function readSleb(bytes: Uint8Array, at: number): { value: number; end: number } | undefined {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    const byte = bytes[at++];
    if (byte === undefined) return undefined;
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) {
      if (shift + 7 < 32 && byte & 0x40) value |= -1 << (shift + 7);
      return { value, end: at };
    }
  }
  return undefined;
}

/** The operand of an `i32.const` whose LEB bytes end just before `end`, if there is one. */
function slebEndingAt(bytes: Uint8Array, end: number): number | undefined {
  let start = end - 1;
  if (start < 1 || bytes[start]! & 0x80) return undefined;
  while (start - 1 >= 0 && bytes[start - 1]! & 0x80 && end - start < 5) start--;
  if (bytes[start - 1] !== 0x41) return undefined;
  const read = readSleb(bytes, start);
  return read && read.end === end ? read.value : undefined;
}
