/**
 * The real jq 1.7.1 (the jq-wasm package's Emscripten build) run on a small system interface of
 * our own instead of Emscripten's generated JavaScript: its files are the bytes we hand it, stdin
 * is a byte array, stdout/stderr are collected as bytes, its heap may not grow past a cap, and each
 * run gets a fresh instance (no state, no leak carried from one filter to the next). The package's
 * loader is only read for the module's bytes and for the names its minifier gave the imports.
 * This file runs synchronously inside a jq worker; the host stops a runaway filter by terminating it.
 */

/** The module and the names of its minified imports and exports, read from jq-wasm's loader. */
export interface JqAssets {
  module: WebAssembly.Module;
  /** Minified import name → Emscripten's name (e.g. "f" → "___syscall_openat"). */
  imports: Record<string, string>;
  /** Emscripten's name → minified export name (memory, table, main, ctors, stack alloc). */
  exports: Record<"memory" | "table" | "main" | "ctors" | "stackAlloc" | "tempRet", string>;
}

export interface JqAssetSource {
  wasm: Uint8Array;
  imports: Record<string, string>;
  exports: JqAssets["exports"];
}

/** Reads jq-wasm's loader (dist/build/jq.js): the module is inlined as base64, the names in its tables. */
export function parseJqLoader(loader: string): JqAssetSource {
  const data = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/u.exec(loader);
  const table = /var wasmImports = \{([^}]*)\}/u.exec(loader);
  const memory = /wasmMemory = wasmExports\["(\w+)"\]/u.exec(loader);
  const wasmTable = /wasmTable = wasmExports\["(\w+)"\]/u.exec(loader);
  const exported = (name: string) =>
    new RegExp(`var ${name} = [^;]*?wasmExports\\["(\\w+)"\\]`, "u").exec(loader)?.[1];
  const main = exported("_main");
  const ctors = exported("___wasm_call_ctors");
  const stackAlloc = exported("__emscripten_stack_alloc");
  const tempRet = exported("__emscripten_tempret_set");
  if (
    !data?.[1] ||
    !table?.[1] ||
    !memory?.[1] ||
    !wasmTable?.[1] ||
    !main ||
    !ctors ||
    !stackAlloc ||
    !tempRet
  ) {
    throw new Error("jq-wasm's loader is not the one this build reads (jq-wasm 1.0.1 expected)");
  }
  const imports: Record<string, string> = {};
  for (const pair of table[1].split(",")) {
    const [short, name] = pair.split(":").map((part) => part.trim());
    if (short && name) imports[short] = name;
  }
  const binary = atob(data[1]);
  const wasm = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) wasm[i] = binary.charCodeAt(i);
  return {
    wasm,
    imports,
    exports: { memory: memory[1], table: wasmTable[1], main, ctors, stackAlloc, tempRet },
  };
}

export interface JqRun {
  /** jq's arguments, without the program name. */
  args: string[];
  stdin: Uint8Array;
  /** Files jq may open, by absolute path. */
  files: Record<string, Uint8Array>;
  cwd: string;
  env: Record<string, string>;
  /** The heap may not grow past this (jq then says "cannot allocate memory"). */
  memoryLimitBytes: number;
  /** Output past this many bytes (stdout + stderr) stops the run. */
  maxOutputBytes: number;
}

export interface JqResult {
  exitCode: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  outOfMemory?: boolean;
  outputLimited?: boolean;
  /** A crash of the WebAssembly program (an abort, a trap): said on stderr too. */
  crash?: string;
}

class Exit {
  constructor(readonly code: number) {}
}
class Abort {
  constructor(readonly message: string) {}
}
class OutputLimit {}

// Emscripten's errno numbers (its own table, not Linux's).
const EBADF = 8;
const EINVAL = 28;
const ENOENT = 44;
const ENOTTY = 59;
const ESPIPE = 70;
const EACCES = 2;
const ERANGE = 68;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

const MONTH_DAYS_LEAP = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_DAYS_REGULAR = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const arraySum = (array: number[], index: number) => {
  let sum = 0;
  for (let i = 0; i <= index; i++) sum += array[i]!;
  return sum;
};

function joinPath(cwd: string, path: string): string {
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${cwd}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** Runs jq once, on a fresh instance of the module. Synchronous: a filter that loops never returns. */
export function runJqOnce(assets: JqAssets, run: JqRun): JqResult {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let memory: WebAssembly.Memory;
  let table: WebAssembly.Table;
  const heap = () => new Uint8Array(memory.buffer);
  const view = () => new DataView(memory.buffer);
  const cString = (pointer: number) => {
    const bytes = heap();
    let end = pointer;
    while (bytes[end] !== 0) end++;
    return decoder.decode(bytes.subarray(pointer, end));
  };
  const writeCString = (text: string, pointer: number, max: number) => {
    const bytes = encoder.encode(text);
    const length = Math.min(bytes.length, max - 1);
    heap().set(bytes.subarray(0, length), pointer);
    heap()[pointer + length] = 0;
  };

  const stdout: Uint8Array[] = [];
  const stderr: Uint8Array[] = [];
  let written = 0;
  let outOfMemory = false;
  let outputLimited = false;

  const directories = new Set<string>(["/"]);
  for (const path of Object.keys(run.files)) {
    let dir = path;
    for (;;) {
      dir = dir.slice(0, dir.lastIndexOf("/")) || "/";
      if (dir === "/") break;
      directories.add(dir);
    }
  }
  directories.add(run.cwd);
  interface Open {
    data: Uint8Array;
    position: number;
  }
  const open = new Map<number, Open>([[0, { data: run.stdin, position: 0 }]]);
  let nextFd = 3;

  const stat = (path: string, buffer: number): number => {
    const file = run.files[path];
    if (!file && !directories.has(path)) return -ENOENT;
    const data = view();
    for (let i = 0; i < 96; i += 4) data.setInt32(buffer + i, 0, true);
    data.setInt32(buffer + 4, file ? S_IFREG | 0o644 : S_IFDIR | 0o755, true);
    data.setUint32(buffer + 8, 1, true);
    data.setUint32(buffer + 24, file?.length ?? 4096, true);
    data.setInt32(buffer + 32, 4096, true);
    return 0;
  };

  const envStrings = Object.entries(run.env).map(([key, value]) => `${key}=${value}`);

  const system: Record<string, (...args: number[]) => number | undefined> = {
    ___assert_fail: (condition, file, line) => {
      throw new Abort(`assertion failed: ${cString(condition)} at ${cString(file)}:${line}`);
    },
    ___call_sighandler: (pointer, signal) =>
      (table.get(pointer) as (signal: number) => void)(signal) as never,
    ___syscall_fcntl64: (_fd, command) => (command <= 4 ? 0 : -EINVAL),
    ___syscall_fstat64: (fd, buffer) => {
      const file = open.get(fd);
      if (!file) return fd <= 2 ? 0 : -EBADF;
      const data = view();
      for (let i = 0; i < 96; i += 4) data.setInt32(buffer + i, 0, true);
      data.setInt32(buffer + 4, S_IFREG | 0o644, true);
      data.setUint32(buffer + 24, file.data.length, true);
      return 0;
    },
    ___syscall_getcwd: (buffer, size) => {
      const length = encoder.encode(run.cwd).length + 1;
      if (size === 0) return -EINVAL;
      if (size < length) return -ERANGE;
      writeCString(run.cwd, buffer, size);
      return length;
    },
    ___syscall_ioctl: () => -ENOTTY,
    ___syscall_lstat64: (path, buffer) => stat(joinPath(run.cwd, cString(path)), buffer),
    ___syscall_stat64: (path, buffer) => stat(joinPath(run.cwd, cString(path)), buffer),
    ___syscall_newfstatat: (_dirfd, path, buffer) => stat(joinPath(run.cwd, cString(path)), buffer),
    ___syscall_openat: (_dirfd, pathPointer, flags) => {
      const path = joinPath(run.cwd, cString(pathPointer));
      if ((flags & 3) !== 0) return -EACCES;
      const data = run.files[path];
      if (!data) return -ENOENT;
      const fd = nextFd++;
      open.set(fd, { data, position: 0 });
      return fd;
    },
    ___syscall_readlinkat: () => -EINVAL,
    __abort_js: () => {
      throw new Abort("aborted");
    },
    __emscripten_memcpy_js: (dest, src, count) => {
      heap().copyWithin(dest, src, src + count);
      return undefined;
    },
    __emscripten_runtime_keepalive_clear: () => undefined,
    __gmtime_js: (low, high, pointer) => {
      const date = new Date((low >>> 0) * 1000 + high * 4294967296000);
      const data = view();
      data.setInt32(pointer, date.getUTCSeconds(), true);
      data.setInt32(pointer + 4, date.getUTCMinutes(), true);
      data.setInt32(pointer + 8, date.getUTCHours(), true);
      data.setInt32(pointer + 12, date.getUTCDate(), true);
      data.setInt32(pointer + 16, date.getUTCMonth(), true);
      data.setInt32(pointer + 20, date.getUTCFullYear() - 1900, true);
      data.setInt32(pointer + 24, date.getUTCDay(), true);
      const start = Date.UTC(date.getUTCFullYear(), 0, 1, 0, 0, 0, 0);
      data.setInt32(pointer + 28, ((date.getTime() - start) / 86_400_000) | 0, true);
      return undefined;
    },
    __localtime_js: (low, high, pointer) => {
      const date = new Date((low >>> 0) * 1000 + high * 4294967296000);
      const data = view();
      data.setInt32(pointer, date.getSeconds(), true);
      data.setInt32(pointer + 4, date.getMinutes(), true);
      data.setInt32(pointer + 8, date.getHours(), true);
      data.setInt32(pointer + 12, date.getDate(), true);
      data.setInt32(pointer + 16, date.getMonth(), true);
      data.setInt32(pointer + 20, date.getFullYear() - 1900, true);
      data.setInt32(pointer + 24, date.getDay(), true);
      const days = isLeapYear(date.getFullYear()) ? MONTH_DAYS_LEAP : MONTH_DAYS_REGULAR;
      data.setInt32(pointer + 28, arraySum(days, date.getMonth() - 1) + date.getDate() - 1, true);
      data.setInt32(pointer + 36, -(date.getTimezoneOffset() * 60), true);
      const summer = new Date(date.getFullYear(), 6, 1).getTimezoneOffset();
      const winter = new Date(date.getFullYear(), 0, 1).getTimezoneOffset();
      const dst = summer !== winter && date.getTimezoneOffset() === Math.min(winter, summer);
      data.setInt32(pointer + 32, dst ? 1 : 0, true);
      return undefined;
    },
    __timegm_js: (pointer) => {
      const data = view();
      const time = Date.UTC(
        data.getInt32(pointer + 20, true) + 1900,
        data.getInt32(pointer + 16, true),
        data.getInt32(pointer + 12, true),
        data.getInt32(pointer + 8, true),
        data.getInt32(pointer + 4, true),
        data.getInt32(pointer, true),
        0,
      );
      const date = new Date(time);
      data.setInt32(pointer + 24, date.getUTCDay(), true);
      const start = Date.UTC(date.getUTCFullYear(), 0, 1, 0, 0, 0, 0);
      data.setInt32(pointer + 28, ((date.getTime() - start) / 86_400_000) | 0, true);
      const seconds = date.getTime() / 1000;
      setTempRet0(Math.floor(seconds / 4294967296) >>> 0);
      return seconds >>> 0;
    },
    __tzset_js: (timezone, daylight, stdName, dstName) => {
      const year = new Date().getFullYear();
      const winter = new Date(year, 0, 1).getTimezoneOffset();
      const summer = new Date(year, 6, 1).getTimezoneOffset();
      const data = view();
      data.setUint32(timezone, Math.max(winter, summer) * 60, true);
      data.setInt32(daylight, Number(winter !== summer), true);
      const zone = (offset: number) => {
        const sign = offset >= 0 ? "-" : "+";
        const abs = Math.abs(offset);
        return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
      };
      const [std, dst] = summer < winter ? [winter, summer] : [summer, winter];
      writeCString(zone(std), stdName, 17);
      writeCString(zone(dst), dstName, 17);
      return undefined;
    },
    _emscripten_date_now: () => Date.now(),
    _emscripten_resize_heap: (requested) => {
      const wanted = requested >>> 0;
      if (wanted > run.memoryLimitBytes) {
        outOfMemory = true;
        return 0;
      }
      const current = memory.buffer.byteLength;
      // Grow by a fifth at least, as Emscripten does, within the cap.
      const target = Math.min(
        run.memoryLimitBytes,
        Math.max(wanted, current + Math.min(current / 5, 96 << 20)),
      );
      const pages = Math.ceil((target - current) / 65536);
      try {
        memory.grow(pages);
        return 1;
      } catch {
        try {
          memory.grow(Math.ceil((wanted - current) / 65536));
          return 1;
        } catch {
          outOfMemory = true;
          return 0;
        }
      }
    },
    _environ_sizes_get: (countPointer, sizePointer) => {
      const data = view();
      data.setUint32(countPointer, envStrings.length, true);
      data.setUint32(
        sizePointer,
        envStrings.reduce((sum, entry) => sum + encoder.encode(entry).length + 1, 0),
        true,
      );
      return 0;
    },
    _environ_get: (environ, buffer) => {
      let offset = 0;
      for (const [i, entry] of envStrings.entries()) {
        const bytes = encoder.encode(entry);
        view().setUint32(environ + i * 4, buffer + offset, true);
        heap().set(bytes, buffer + offset);
        heap()[buffer + offset + bytes.length] = 0;
        offset += bytes.length + 1;
      }
      return 0;
    },
    _exit: (code) => {
      throw new Exit(code);
    },
    _proc_exit: (code) => {
      throw new Exit(code);
    },
    _fd_close: (fd) => {
      if (fd > 2) open.delete(fd);
      return 0;
    },
    _fd_fdstat_get: (fd, pointer) => {
      const data = view();
      // A regular file with no rights: musl's isatty() says no, so jq never colours or prompts.
      data.setUint8(pointer, fd <= 2 || open.has(fd) ? 4 : 0);
      data.setUint16(pointer + 2, 0, true);
      for (let i = 8; i < 24; i += 4) data.setUint32(pointer + i, 0, true);
      return fd <= 2 || open.has(fd) ? 0 : EBADF;
    },
    _fd_read: (fd, iov, count, readPointer) => {
      const file = open.get(fd);
      if (!file) return EBADF;
      const data = view();
      let total = 0;
      for (let i = 0; i < count; i++) {
        const pointer = data.getUint32(iov + i * 8, true);
        const length = data.getUint32(iov + i * 8 + 4, true);
        const chunk = file.data.subarray(file.position, file.position + length);
        heap().set(chunk, pointer);
        file.position += chunk.length;
        total += chunk.length;
        if (chunk.length < length) break;
      }
      data.setUint32(readPointer, total, true);
      return 0;
    },
    _fd_seek: (fd, low, high, whence, resultPointer) => {
      const file = fd > 2 ? open.get(fd) : undefined;
      if (!file) return fd <= 2 ? ESPIPE : EBADF;
      const offset = (low >>> 0) + high * 4294967296;
      const base = whence === 0 ? 0 : whence === 1 ? file.position : file.data.length;
      if (base + offset < 0) return EINVAL;
      file.position = base + offset;
      view().setUint32(resultPointer, file.position >>> 0, true);
      view().setUint32(resultPointer + 4, Math.floor(file.position / 4294967296), true);
      return 0;
    },
    _fd_write: (fd, iov, count, writtenPointer) => {
      if (fd !== 1 && fd !== 2) return EBADF;
      const data = view();
      let total = 0;
      for (let i = 0; i < count; i++) {
        const pointer = data.getUint32(iov + i * 8, true);
        const length = data.getUint32(iov + i * 8 + 4, true);
        if (length === 0) continue;
        written += length;
        if (written > run.maxOutputBytes) {
          outputLimited = true;
          throw new OutputLimit();
        }
        (fd === 1 ? stdout : stderr).push(heap().slice(pointer, pointer + length));
        total += length;
      }
      data.setUint32(writtenPointer, total, true);
      return 0;
    },
    _strptime: (buffer, format, tm) =>
      strptime(buffer, cString(buffer), cString(format), tm, view(), encoder),
  };

  const env: Record<string, (...args: number[]) => number | undefined> = {};
  for (const [short, name] of Object.entries(assets.imports)) {
    const implementation = system[name];
    if (!implementation) throw new Error(`jq's WebAssembly module asks for ${name}, which this host lacks`);
    env[short] = implementation;
  }
  const moduleName = WebAssembly.Module.imports(assets.module)[0]?.module ?? "a";
  const instance = new WebAssembly.Instance(assets.module, { [moduleName]: env });
  const exports = instance.exports as Record<string, unknown>;
  memory = exports[assets.exports.memory] as WebAssembly.Memory;
  table = exports[assets.exports.table] as WebAssembly.Table;
  const tempRet = exports[assets.exports.tempRet] as (value: number) => void;
  function setTempRet0(value: number) {
    tempRet(value);
  }
  const stackAlloc = exports[assets.exports.stackAlloc] as (size: number) => number;
  const main = exports[assets.exports.main] as (argc: number, argv: number) => number;
  (exports[assets.exports.ctors] as () => void)();

  let exitCode = 0;
  let crash: string | undefined;
  try {
    const argv = ["jq", ...run.args];
    const pointers = argv.map((arg) => {
      const bytes = encoder.encode(arg);
      const pointer = stackAlloc(bytes.length + 1);
      heap().set(bytes, pointer);
      heap()[pointer + bytes.length] = 0;
      return pointer;
    });
    const argvPointer = stackAlloc((argv.length + 1) * 4);
    for (const [i, pointer] of pointers.entries()) view().setUint32(argvPointer + i * 4, pointer, true);
    view().setUint32(argvPointer + argv.length * 4, 0, true);
    exitCode = main(argv.length, argvPointer);
  } catch (error) {
    if (error instanceof Exit) exitCode = error.code;
    else if (error instanceof OutputLimit) exitCode = 1;
    else if (error instanceof Abort) {
      exitCode = 134;
      crash = error.message;
    } else if (error instanceof RangeError && /call stack/u.test(error.message)) {
      exitCode = 134;
      crash = "stack overflow (the filter or the data is nested too deeply)";
    } else if (error instanceof WebAssembly.RuntimeError) {
      exitCode = 134;
      crash = error.message;
    } else throw error;
  }
  return {
    exitCode,
    stdout: concat(stdout),
    stderr: concat(stderr),
    ...(outOfMemory ? { outOfMemory } : {}),
    ...(outputLimited ? { outputLimited } : {}),
    ...(crash ? { crash } : {}),
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Emscripten's strptime (library.js, MIT), which jq-wasm's build links: the same answers as jq-wasm. */
function strptime(
  buffer: number,
  input: string,
  format: string,
  tm: number,
  data: DataView,
  encoder: TextEncoder,
): number {
  let pattern = format;
  for (const special of "\\!@#$^&*()+=-[]/{}|:<>?,.") {
    pattern = pattern.split(special).join(`\\${special}`);
  }
  const EQUIVALENT: Record<string, string> = {
    A: "%a",
    B: "%b",
    c: "%a %b %d %H:%M:%S %Y",
    D: "%m\\/%d\\/%y",
    e: "%d",
    F: "%Y-%m-%d",
    h: "%b",
    R: "%H\\:%M",
    r: "%I\\:%M\\:%S\\s%p",
    T: "%H\\:%M\\:%S",
    x: "%m\\/%d\\/(?:%y|%Y)",
    X: "%H\\:%M\\:%S",
  };
  const PATTERNS: Record<string, string> = {
    a: "(?:Sun(?:day)?)|(?:Mon(?:day)?)|(?:Tue(?:sday)?)|(?:Wed(?:nesday)?)|(?:Thu(?:rsday)?)|(?:Fri(?:day)?)|(?:Sat(?:urday)?)",
    b: "(?:Jan(?:uary)?)|(?:Feb(?:ruary)?)|(?:Mar(?:ch)?)|(?:Apr(?:il)?)|May|(?:Jun(?:e)?)|(?:Jul(?:y)?)|(?:Aug(?:ust)?)|(?:Sep(?:tember)?)|(?:Oct(?:ober)?)|(?:Nov(?:ember)?)|(?:Dec(?:ember)?)",
    C: "\\d\\d",
    d: "0[1-9]|[1-9](?!\\d)|1\\d|2\\d|30|31",
    H: "\\d(?!\\d)|[0,1]\\d|20|21|22|23",
    I: "\\d(?!\\d)|0\\d|10|11|12",
    j: "00[1-9]|0?[1-9](?!\\d)|0?[1-9]\\d(?!\\d)|[1,2]\\d\\d|3[0-6]\\d",
    m: "0[1-9]|[1-9](?!\\d)|10|11|12",
    M: "0\\d|\\d(?!\\d)|[1-5]\\d",
    n: " ",
    p: "AM|am|PM|pm|A\\.M\\.|a\\.m\\.|P\\.M\\.|p\\.m\\.",
    S: "0\\d|\\d(?!\\d)|[1-5]\\d|60",
    U: "0\\d|\\d(?!\\d)|[1-4]\\d|50|51|52|53",
    W: "0\\d|\\d(?!\\d)|[1-4]\\d|50|51|52|53",
    w: "[0-6]",
    y: "\\d\\d",
    Y: "\\d\\d\\d\\d",
    t: " ",
    z: "Z|(?:[\\+\\-]\\d\\d:?(?:\\d\\d)?)",
  };
  const MONTHS: Record<string, number> = {
    JAN: 0,
    FEB: 1,
    MAR: 2,
    APR: 3,
    MAY: 4,
    JUN: 5,
    JUL: 6,
    AUG: 7,
    SEP: 8,
    OCT: 9,
    NOV: 10,
    DEC: 11,
  };
  const SUN_FIRST: Record<string, number> = { SUN: 0, MON: 1, TUE: 2, WED: 3, THU: 4, FRI: 5, SAT: 6 };
  const MON_FIRST: Record<string, number> = { MON: 0, TUE: 1, WED: 2, THU: 3, FRI: 4, SAT: 5, SUN: 6 };
  const capture: string[] = [];
  const source = pattern
    .replace(/%(.)/gu, (match, c: string) => EQUIVALENT[c] ?? match)
    .replace(/%(.)/gu, (_, c: string) => {
      const part = PATTERNS[c];
      if (!part) return c;
      capture.push(c);
      return `(${part})`;
    })
    .replace(/\s+/gu, "\\s*");
  const matches = new RegExp(`^${source}`, "i").exec(input);
  if (!matches) return 0;
  const get = (symbol: string) => {
    const index = capture.indexOf(symbol);
    return index >= 0 ? matches[index + 1] : undefined;
  };
  const fix = (value: number, min: number, max: number) =>
    Number.isNaN(value) ? min : value >= min ? (value <= max ? value : max) : min;
  const date = {
    year: fix(data.getInt32(tm + 20, true) + 1900, 1970, 9999),
    month: fix(data.getInt32(tm + 16, true), 0, 11),
    day: fix(data.getInt32(tm + 12, true), 1, 31),
    hour: fix(data.getInt32(tm + 8, true), 0, 23),
    min: fix(data.getInt32(tm + 4, true), 0, 59),
    sec: fix(data.getInt32(tm, true), 0, 59),
    gmtoff: 0,
  };
  const num = (symbol: string) => {
    const text = get(symbol);
    return text ? Number.parseInt(text, 10) : undefined;
  };
  date.sec = num("S") ?? date.sec;
  date.min = num("M") ?? date.min;
  const hour24 = num("H");
  const hour12 = num("I");
  if (hour24 !== undefined) date.hour = hour24;
  else if (hour12 !== undefined) date.hour = hour12 + (get("p")?.toUpperCase()[0] === "P" ? 12 : 0);
  const year = num("Y");
  const shortYear = num("y");
  if (year !== undefined) date.year = year;
  else if (shortYear !== undefined) {
    const century = num("C");
    date.year = shortYear + (century !== undefined ? century * 100 : shortYear < 69 ? 2000 : 1900);
  }
  const month = num("m");
  const monthName = get("b");
  if (month !== undefined) date.month = month - 1;
  else if (monthName) date.month = MONTHS[monthName.substring(0, 3).toUpperCase()] ?? 0;
  const dayOfMonth = num("d");
  const dayOfYear = num("j");
  const weekDayName = get("a");
  if (dayOfMonth !== undefined) date.day = dayOfMonth;
  else if (dayOfYear !== undefined) {
    const days = isLeapYear(date.year) ? MONTH_DAYS_LEAP : MONTH_DAYS_REGULAR;
    for (let m = 0; m < 12; ++m) {
      const until = arraySum(days, m - 1);
      if (dayOfYear <= until + days[m]!) date.day = dayOfYear - until;
    }
  } else if (weekDayName) {
    const weekDay = weekDayName.substring(0, 3).toUpperCase();
    const addDays = (start: Date, count: number) => new Date(start.getTime() + count * 86_400_000);
    const sundayWeek = num("U");
    const mondayWeek = num("W");
    const janFirst = new Date(date.year, 0, 1);
    let end: Date | undefined;
    if (sundayWeek !== undefined) {
      const number = SUN_FIRST[weekDay]!;
      end =
        janFirst.getDay() === 0
          ? addDays(janFirst, number + 7 * (sundayWeek - 1))
          : addDays(janFirst, 7 - janFirst.getDay() + number + 7 * (sundayWeek - 1));
    } else if (mondayWeek !== undefined) {
      const number = MON_FIRST[weekDay]!;
      end =
        janFirst.getDay() === 1
          ? addDays(janFirst, number + 7 * (mondayWeek - 1))
          : addDays(janFirst, 7 - janFirst.getDay() + 1 + number + 7 * (mondayWeek - 1));
    }
    if (end) {
      date.day = end.getDate();
      date.month = end.getMonth();
    }
  }
  const zone = get("z");
  if (zone && zone.toLowerCase() !== "z") {
    const match = /^((?:-|\+)\d\d):?(\d\d)?/u.exec(zone)!;
    date.gmtoff = Number(match[1]) * 3600;
    if (match[2]) date.gmtoff += date.gmtoff > 0 ? Number(match[2]) * 60 : -Number(match[2]) * 60;
  }
  const full = new Date(date.year, date.month, date.day, date.hour, date.min, date.sec, 0);
  data.setInt32(tm, full.getSeconds(), true);
  data.setInt32(tm + 4, full.getMinutes(), true);
  data.setInt32(tm + 8, full.getHours(), true);
  data.setInt32(tm + 12, full.getDate(), true);
  data.setInt32(tm + 16, full.getMonth(), true);
  data.setInt32(tm + 20, full.getFullYear() - 1900, true);
  data.setInt32(tm + 24, full.getDay(), true);
  const days = isLeapYear(full.getFullYear()) ? MONTH_DAYS_LEAP : MONTH_DAYS_REGULAR;
  data.setInt32(tm + 28, arraySum(days, full.getMonth() - 1) + full.getDate() - 1, true);
  data.setInt32(tm + 32, 0, true);
  data.setInt32(tm + 36, date.gmtoff, true);
  // The pointer past what was read: the buffer's start plus the match's length in bytes.
  return buffer + encoder.encode(matches[0]).length;
}
