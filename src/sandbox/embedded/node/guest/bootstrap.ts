import { GUEST_ENCODING } from "./encoding.ts";
import { GUEST_INSPECT } from "./inspect.ts";

/**
 * Guest source (runs inside QuickJS): evaluated once per program, it returns a function that takes
 * the host bridge and the program's description, installs Node's globals (process, console, timers,
 * require, Buffer, TextEncoder, URL, …) and returns the entry points the host drives:
 * runMain, tick (one macrotask), beforeExit, emitExit, uncaught and exportNames (for ESM facades).
 */
export const GUEST_BOOTSTRAP = String.raw`(function bootstrap(host, infoJson) {
"use strict";
const info = JSON.parse(infoJson);
const NODE_VERSION = info.version;
const BT = String.fromCharCode(96);
/*@ENCODING@*/
/*@INSPECT@*/
// ---- errors: Node-style stack headers, computed lazily like V8 -------------------------------
function headerOf(err) {
  let name, message;
  try { name = err.name; } catch {}
  try { message = err.message; } catch {}
  name = name === undefined ? "Error" : String(name);
  message = message === undefined ? "" : String(message);
  return message === "" ? name : name === "" ? message : name + ": " + message;
}
const internalFrame = /\((node:|<native>)|^\s*at node:|\(native\)|at <eval> \(node:/;
function cleanFrames(raw) {
  return raw.split("\n").filter((line) => line.trim() !== "" && !internalFrame.test(line)).slice(0, NativeError.stackTraceLimit)
    .map((line) => line.replace(/^\s*at /, "    at ").replace(/^    at <anonymous> \(/, "    at Object.<anonymous> (")).join("\n");
}
function withLazyStack(err) {
  const desc = Object.getOwnPropertyDescriptor(err, "stack");
  if (!desc || typeof desc.value !== "string") return err;
  const frames = cleanFrames(desc.value);
  let cached;
  Object.defineProperty(err, "stack", {
    configurable: true, enumerable: false,
    get() {
      if (cached === undefined) cached = headerOf(this) + (frames ? "\n" + frames : "");
      return cached;
    },
    set(value) { Object.defineProperty(this, "stack", { value, writable: true, configurable: true, enumerable: false }); },
  });
  return err;
}
function errorStack(err) {
  let stack;
  try { stack = err.stack; } catch {}
  if (typeof stack !== "string" || stack === "") return Error.prototype.toString.call(err);
  if (/^\s+at /.test(stack)) {
    const frames = cleanFrames(stack);
    return headerOf(err) + (frames ? "\n" + frames : "");
  }
  return stack;
}
const NativeError = Error;
for (const name of ["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]) {
  const Native = globalThis[name];
  if (typeof Native !== "function") continue;
  globalThis[name] = new Proxy(Native, {
    construct(target, args, newTarget) { return withLazyStack(Reflect.construct(target, args, newTarget)); },
    apply(target, thisArg, args) { return withLazyStack(Reflect.construct(target, args)); },
  });
}
NativeError.stackTraceLimit = 10;
NativeError.captureStackTrace = function captureStackTrace(target) {
  const frames = cleanFrames(new NativeError().stack || "").split("\n").slice(1).join("\n");
  let cached;
  Object.defineProperty(target, "stack", {
    configurable: true, enumerable: false,
    get() { if (cached === undefined) cached = headerOf(this) + (frames ? "\n" + frames : ""); return cached; },
    set(value) { Object.defineProperty(this, "stack", { value, writable: true, configurable: true }); },
  });
};
function makeError(Type, code, message, props) {
  const err = new Type(message);
  Object.defineProperty(err, "code", { value: code, enumerable: true, writable: true, configurable: true });
  if (props) Object.assign(err, props);
  return err;
}
/** Host errors carry code/syscall/path as own properties; Node shows them as enumerable props. */
function hostError(err) {
  if (err && typeof err === "object" && typeof err.code === "string") {
    const copy = new Error(err.message);
    for (const key of ["errno", "code", "syscall", "path", "dest"]) if (err[key] !== undefined) copy[key] = err[key];
    return copy;
  }
  return err;
}
function hostCall(...args) {
  try { return host(...args); } catch (err) { throw hostError(err); }
}

// ---- paths -------------------------------------------------------------------------------------
function normalize(path) {
  const out = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop(); else out.push(segment);
  }
  return "/" + out.join("/");
}
function dirname(path) {
  const index = path.lastIndexOf("/");
  return index <= 0 ? "/" : path.slice(0, index);
}
let currentDir = info.cwd;
function resolvePath(path) {
  return normalize(String(path).startsWith("/") ? String(path) : currentDir + "/" + path);
}

// ---- output ------------------------------------------------------------------------------------
function writeOut(fd, text) { host("write", fd, String(text)); }

// ---- a small emitter for process (node:events is loaded lazily) ------------------------------
const listeners = new Map();
function on(name, fn) { if (!listeners.has(name)) listeners.set(name, []); listeners.get(name).push(fn); return process; }
function emit(name, ...args) {
  const list = listeners.get(name);
  if (!list || list.length === 0) return false;
  for (const fn of list.slice()) {
    if (fn.__once) off(name, fn);
    fn.apply(process, args);
  }
  return true;
}
function off(name, fn) {
  const list = listeners.get(name);
  if (list) { const i = list.findIndex((f) => f === fn || f.__listener === fn); if (i >= 0) list.splice(i, 1); }
  return process;
}

// ---- timers and the task queues the host drains ------------------------------------------------
const timers = new Map();
let timerSeq = 0;
const immediates = [];
const ticks = [];
class Timeout {
  constructor(id, callback, delay, args, repeat) {
    this._id = id; this._onTimeout = callback; this._idleTimeout = delay; this._args = args;
    this._repeat = repeat; this._ref = true; this._due = host("now") + delay;
  }
  ref() { this._ref = true; return this; }
  unref() { this._ref = false; return this; }
  hasRef() { return this._ref; }
  refresh() { this._due = host("now") + this._idleTimeout; return this; }
  close() { timers.delete(this._id); return this; }
  [Symbol.toPrimitive]() { return this._id; }
}
class Immediate {
  constructor(callback, args) { this._onImmediate = callback; this._argv = args; this._ref = true; this._cleared = false; }
  ref() { this._ref = true; return this; }
  unref() { this._ref = false; return this; }
  hasRef() { return this._ref; }
}
function delayOf(ms) {
  ms = Number(ms);
  return !(ms >= 1 && ms <= 2147483647) ? 1 : ms;
}
function setTimeout(callback, ms, ...args) {
  if (typeof callback !== "function") throw makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "callback" argument must be of type function. Received ' + inspect(callback));
  const timer = new Timeout(++timerSeq, callback, delayOf(ms), args, false);
  timers.set(timer._id, timer);
  return timer;
}
const promisifyCustom = Symbol.for("nodejs.util.promisify.custom");
Object.defineProperty(setTimeout, promisifyCustom, { value: (ms, value) => new Promise((resolve) => setTimeout(resolve, ms, value)) });
function setInterval(callback, ms, ...args) {
  const timer = setTimeout(callback, ms, ...args);
  timer._repeat = true;
  return timer;
}
function clearTimeout(timer) {
  if (timer == null) return;
  const id = typeof timer === "object" ? timer._id : Number(timer);
  timers.delete(id);
}
function setImmediate(callback, ...args) {
  const immediate = new Immediate(callback, args);
  immediates.push(immediate);
  return immediate;
}
function clearImmediate(immediate) { if (immediate) immediate._cleared = true; }
Object.defineProperty(setImmediate, promisifyCustom, { value: (value) => new Promise((resolve) => setImmediate(resolve, value)) });
/** Runs the nextTick queue; the host calls it before each microtask checkpoint, as Node does. */
function runTicks() {
  let ran = 0;
  while (ticks.length > 0) {
    const [fn, args] = ticks.shift();
    ran++;
    try { fn(...args); } catch (err) { uncaught(err, "uncaughtException"); }
  }
  return ran;
}
function nextTick(fn, ...args) {
  ticks.push([fn, args]);
}
function queueMicrotask(fn) {
  Promise.resolve().then(() => { try { fn(); } catch (err) { uncaught(err, "uncaughtException"); } });
}
/** Runs one macrotask; returns 0 when one ran, else ms until the next timer, or -1 when idle. */
function tick() {
  const now = host("now");
  let due = null;
  let nextDue = Infinity;
  for (const timer of timers.values()) {
    if (timer._due <= now && (due === null || timer._due < due._due)) due = timer;
    if (timer._ref && timer._due < nextDue) nextDue = timer._due;
  }
  if (due !== null) {
    if (due._repeat) due._due = now + due._idleTimeout; else timers.delete(due._id);
    try { due._onTimeout(...due._args); } catch (err) { uncaught(err, "uncaughtException"); }
    return 0;
  }
  while (immediates.length > 0) {
    const immediate = immediates.shift();
    if (immediate._cleared) continue;
    try { immediate._onImmediate(...immediate._argv); } catch (err) { uncaught(err, "uncaughtException"); }
    return 0;
  }
  if (nextDue === Infinity) return -1;
  return Math.max(1, Math.ceil(nextDue - now));
}

// ---- process -----------------------------------------------------------------------------------
const EXIT = { exit: true };
let exitCode;
const startTime = host("now");
const makeStream = (fd) => ({
  fd, isTTY: false, columns: 80, rows: 24, writable: true,
  write(chunk, encoding, callback) {
    if (typeof encoding === "function") callback = encoding;
    writeOut(fd, typeof chunk === "string" ? chunk : decodeUtf8(chunk));
    if (typeof callback === "function") nextTick(callback);
    return true;
  },
  end(chunk) { if (chunk !== undefined) this.write(chunk); },
  on() { return this; }, once() { return this; }, off() { return this; }, emit() { return false; },
  removeListener() { return this; }, getWindowSize() { return [80, 24]; }, hasColors() { return false; },
  getColorDepth() { return 1; }, cork() {}, uncork() {},
});
function hrtime(previous) {
  const now = host("now");
  let seconds = Math.floor(now / 1000);
  let nanos = Math.floor((now % 1000) * 1e6);
  if (previous) {
    seconds -= previous[0];
    nanos -= previous[1];
    if (nanos < 0) { seconds -= 1; nanos += 1e9; }
  }
  return [seconds, nanos];
}
hrtime.bigint = () => BigInt(Math.floor(host("now") * 1e6));
/**
 * process.stdin. Piped input (a string the shell gave) arrives whole once the stream is read; a live
 * terminal (a session) is a TTY whose lines arrive as they are typed, pushed by the host, and a
 * program keeps running while it listens (until end of input or pause()), as in Node.
 */
const stdinLive = host("stdinLive") === true;
const stdinStream = {
  fd: 0, isTTY: stdinLive, isRaw: false, readable: true,
  _listeners: {}, _queue: [], _ended: false, _endEmitted: false, _flowing: false, _started: false, _encoding: null,
  setEncoding(encoding) { this._encoding = encoding || "utf8"; return this; },
  setRawMode(mode) { this.isRaw = Boolean(mode); return this; },
  ref() { return this; }, unref() { return this; },
  _want(on) { if (stdinLive) host("stdinWant", on && !this._ended ? 1 : 0); },
  _start() {
    if (this._started) return;
    this._started = true;
    // The end of piped input comes in a later I/O turn than its data, as in Node: promise
    // continuations of the data (an awaited question) run before 'end' and 'close'.
    if (!stdinLive) setImmediate(() => { const text = host("stdin"); if (text !== "") this._push(text); setImmediate(() => this._push(null)); });
  },
  _push(chunk) {
    if (chunk === null) { this._ended = true; this._want(false); } else this._queue.push(chunk);
    if (this._listeners.readable && this._listeners.readable.length) this._emit("readable");
    this._drain();
  },
  _chunk(text) { return this._encoding ? text : Buffer.from(text); },
  _drain() {
    while (this._flowing && this._queue.length) this._emit("data", this._chunk(this._queue.shift()));
    if (this._ended && !this._queue.length && !this._endEmitted && (this._flowing || (this._listeners.readable || []).length)) {
      this._endEmitted = true;
      this._emit("end");
      this._emit("close");
    }
  },
  _emit(name, ...args) {
    for (const fn of (this._listeners[name] || []).slice()) {
      try { fn.apply(this, args); } catch (err) { uncaught(err, "uncaughtException"); }
    }
    return (this._listeners[name] || []).length > 0;
  },
  emit(name, ...args) { return this._emit(name, ...args); },
  on(name, fn) {
    (this._listeners[name] = this._listeners[name] || []).push(fn);
    if (name === "data") this.resume();
    else if (name === "readable") { this._start(); this._want(true); }
    else if (name === "end" || name === "close") this._start();
    return this;
  },
  addListener(name, fn) { return this.on(name, fn); },
  once(name, fn) {
    const wrapper = (...args) => { this.off(name, wrapper); fn.apply(this, args); };
    wrapper.listener = fn;
    return this.on(name, wrapper);
  },
  off(name, fn) {
    const list = this._listeners[name] || [];
    const at = list.findIndex((f) => f === fn || f.listener === fn);
    if (at >= 0) list.splice(at, 1);
    return this;
  },
  removeListener(name, fn) { return this.off(name, fn); },
  removeAllListeners(name) { if (name === undefined) this._listeners = {}; else delete this._listeners[name]; return this; },
  listenerCount(name) { return (this._listeners[name] || []).length; },
  resume() { this._flowing = true; this._start(); this._want(true); nextTick(() => this._drain()); return this; },
  pause() { this._flowing = false; this._want(false); return this; },
  isPaused() { return !this._flowing; },
  destroy() { this._queue.length = 0; this._push(null); return this; },
  read() {
    if (!this._queue.length) return null;
    return this._chunk(this._queue.splice(0).join(""));
  },
  pipe(destination) { this.on("data", (chunk) => destination.write(chunk)); this.on("end", () => { if (destination !== process.stdout && destination !== process.stderr) destination.end(); }); return destination; },
  [Symbol.asyncIterator]() {
    const chunks = [];
    let done = false;
    let wake = null;
    this.on("data", (chunk) => { chunks.push(chunk); if (wake) wake(); });
    this.on("end", () => { done = true; if (wake) wake(); });
    const stream = this;
    return {
      async next() {
        for (;;) {
          if (chunks.length) return { done: false, value: chunks.shift() };
          if (done) return { done: true, value: undefined };
          await new Promise((resolve) => { wake = resolve; });
          wake = null;
        }
      },
      async return() { stream.pause(); return { done: true, value: undefined }; },
      [Symbol.asyncIterator]() { return this; },
    };
  },
};
/** The host hands typed input (null: end of input) to the program's stdin. */
function pushStdin(chunk) { stdinStream._push(chunk); }
const process = {
  title: "node", version: NODE_VERSION,
  versions: { node: NODE_VERSION.slice(1), quickjs: "2025-09-13", v8: "embedded", modules: "115" },
  arch: "x64", platform: "linux", release: { name: "node", lts: "Iron" },
  argv: info.argv.slice(), argv0: "node", execArgv: info.execArgv.slice(), execPath: info.argv[0],
  env: Object.assign({}, info.env), pid: 42, ppid: 1, exitCode: undefined,
  config: { variables: {} }, features: {},
  stdout: makeStream(1), stderr: makeStream(2), stdin: stdinStream,
  cwd() { return currentDir; },
  chdir(dir) {
    const target = resolvePath(dir);
    const stat = JSON.parse(hostCall("fs", "stat", target));
    if (stat.kind !== "directory") throw makeError(Error, "ENOTDIR", "ENOTDIR: not a directory, chdir " + currentDir + " -> '" + dir + "'");
    currentDir = target;
  },
  exit(code) {
    if (code !== undefined) process.exitCode = code;
    host("exit", Number(process.exitCode ?? 0) || 0);
    throw EXIT;
  },
  abort() { host("exit", 134); throw EXIT; },
  kill() { return true; },
  nextTick, hrtime,
  uptime() { return (host("now") - startTime) / 1000; },
  memoryUsage() { return { rss: 50e6, heapTotal: 20e6, heapUsed: 10e6, external: 0, arrayBuffers: 0 }; },
  cpuUsage() { return { user: 0, system: 0 }; },
  umask() { return 18; },
  getuid() { return 1000; }, getgid() { return 1000; }, geteuid() { return 1000; }, getegid() { return 1000; },
  emitWarning(warning, type) {
    const name = typeof warning === "object" ? warning.name : typeof type === "string" ? type : (type && type.type) || "Warning";
    const message = typeof warning === "object" ? warning.message : warning;
    if (!emit("warning", Object.assign(new Error(message), { name }))) writeOut(2, "(node:42) " + name + ": " + message + "\n");
  },
  on, addListener: on, prependListener: on,
  once(name, fn) { const wrapper = (...args) => fn(...args); wrapper.__once = true; wrapper.__listener = fn; return on(name, wrapper); },
  off, removeListener: off,
  removeAllListeners(name) { if (name === undefined) listeners.clear(); else listeners.delete(name); return process; },
  emit,
  listenerCount(name) { return (listeners.get(name) || []).length; },
  listeners(name) { return (listeners.get(name) || []).slice(); },
  binding() { throw new Error("No such module"); },
};
Object.defineProperty(process, "exitCode", {
  get() { return exitCode; },
  set(value) { exitCode = value === undefined || value === null ? undefined : Number(value); },
  enumerable: true, configurable: true,
});
Object.defineProperty(process, Symbol.toStringTag, { value: "process", configurable: true });

// ---- console -----------------------------------------------------------------------------------
let groupIndent = "";
const counts = new Map();
const timeLabels = new Map();
function printTo(fd, text) {
  if (groupIndent !== "") text = groupIndent + text.split("\n").join("\n" + groupIndent);
  writeOut(fd, text + "\n");
}
function renderTable(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] || "").length)) + 2);
  const center = (text, width) => " " + text + " ".repeat(Math.max(0, width - text.length - 1));
  const line = (l, m, r) => l + widths.map((w) => "\u2500".repeat(w)).join(m) + r;
  const row = (cells) => "\u2502" + widths.map((w, i) => center(cells[i] || "", w)).join("\u2502") + "\u2502";
  return [line("\u250c", "\u252c", "\u2510"), row(head), line("\u251c", "\u253c", "\u2524"), ...rows.map(row), line("\u2514", "\u2534", "\u2518")].join("\n");
}
const cell = (v) => (typeof v === "string" ? strEscape(v) : inspect(v, { depth: 1, breakLength: Infinity, compact: 3 }));
const console = {
  log(...args) { printTo(1, format(...args)); },
  info(...args) { printTo(1, format(...args)); },
  debug(...args) { printTo(1, format(...args)); },
  error(...args) { printTo(2, format(...args)); },
  warn(...args) { printTo(2, format(...args)); },
  trace(...args) {
    const err = new Error(format(...args));
    err.name = "Trace";
    printTo(2, errorStack(err));
  },
  dir(value, options) { printTo(1, inspect(value, Object.assign({ customInspect: false }, options))); },
  dirxml(...args) { printTo(1, format(...args)); },
  assert(condition, ...args) {
    if (!condition) printTo(2, args.length ? "Assertion failed: " + format(...args) : "Assertion failed");
  },
  count(label = "default") { const n = (counts.get(label) || 0) + 1; counts.set(label, n); printTo(1, label + ": " + n); },
  countReset(label = "default") { counts.delete(label); },
  group(...args) { if (args.length) printTo(1, format(...args)); groupIndent += "  "; },
  groupCollapsed(...args) { console.group(...args); },
  groupEnd() { groupIndent = groupIndent.slice(2); },
  time(label = "default") { timeLabels.set(label, host("now")); },
  timeEnd(label = "default") { console.timeLog(label); timeLabels.delete(label); },
  timeLog(label = "default", ...data) {
    const start = timeLabels.get(label);
    if (start === undefined) { process.emitWarning("No such label '" + label + "' for console.timeLog()"); return; }
    const ms = host("now") - start;
    const text = ms >= 1000 ? (ms / 1000).toFixed(3) + "s" : ms.toFixed(3) + "ms";
    printTo(1, format(label + ": " + text, ...data));
  },
  table(data, properties) {
    if (data === null || typeof data !== "object") return console.log(data);
    const keys = [];
    const rows = [];
    let hasValues = false;
    const entries = data instanceof Map ? Array.from(data.entries()) : Object.entries(data);
    for (const [index, value] of entries) {
      const row = { "(index)": String(index) };
      if (value !== null && typeof value === "object") {
        for (const key of properties || Object.keys(value)) {
          if (!keys.includes(key)) keys.push(key);
          row[key] = cell(value[key]);
        }
      } else {
        hasValues = true;
        row.Values = cell(value);
      }
      rows.push(row);
    }
    const head = ["(index)", ...keys, ...(hasValues ? ["Values"] : [])];
    printTo(1, renderTable(head, rows.map((r) => head.map((h) => (r[h] === undefined ? "" : r[h])))));
  },
};

// ---- modules -----------------------------------------------------------------------------------
const builtinCache = new Map();
const internal = {
  host: hostCall, rawHost: host, inspect, format, formatWithOptions, strEscape, errorStack, headerOf, cleanFrames,
  makeError, hostError, process, console, nextTick, resolvePath, normalize, dirname, info,
  encodeUtf8, decodeUtf8, base64Encode, base64Decode,
  timers: { setTimeout, setInterval, setImmediate, clearTimeout, clearInterval: clearTimeout, clearImmediate, Timeout, Immediate },
  beforeExitHooks: [],
  readSourceLine(path, line) {
    try {
      const text = decodeUtf8(new Uint8Array(host("fs", "read", path)));
      const lines = text.split("\n");
      return lines[line - 1] === undefined ? null : lines[line - 1];
    } catch { return null; }
  },
};
function loadBuiltin(name) {
  if (builtinCache.has(name)) return builtinCache.get(name).exports;
  const source = host("builtin", name);
  if (source === undefined) throw makeError(Error, "ERR_UNKNOWN_BUILTIN_MODULE", "No such built-in module: node:" + name);
  const module = { exports: {} };
  builtinCache.set(name, module);
  const fn = host("compile", "(function (module, exports, require, internal) {" + source + "\n})", "node:" + name);
  fn(module, module.exports, loadBuiltin, internal);
  return module.exports;
}
internal.require = loadBuiltin;

class Module {
  constructor(id, parent) {
    this.id = id; this.path = dirname(id); this.exports = {}; this.filename = id; this.loaded = false;
    this.children = []; this.paths = []; this.parent = parent;
    for (let dir = this.path; ; dir = dirname(dir)) {
      if (!dir.endsWith("/node_modules")) this.paths.push((dir === "/" ? "" : dir) + "/node_modules");
      if (dir === "/") break;
    }
  }
  require(request) { return requireFrom(this, request); }
}
Module._cache = Object.create(null);
Module.builtinModules = ["assert", "assert/strict", "buffer", "child_process", "console", "crypto", "events", "fs", "fs/promises", "module", "os", "path", "path/posix", "process", "readline", "readline/promises", "stream", "string_decoder", "timers", "timers/promises", "url", "util", "util/types"];
Module.isBuiltin = (name) => Module.builtinModules.includes(String(name).replace(/^node:/, "")) || name === "node:test";
Module.wrap = (source) => "(function (exports, require, module, __filename, __dirname) { " + source + "\n});";
Module.createRequire = (filename) => {
  const path = String(filename).replace(/^file:\/\//, "");
  return makeRequire(new Module(path.endsWith("/") ? path + "[eval]" : path, null));
};
Module.Module = Module;
internal.Module = Module;

function requireStackOf(module) {
  const stack = [];
  for (let m = module; m && m.filename; m = m.parent) stack.push(m.filename);
  return stack;
}
function resolveFilename(request, parent) {
  if (typeof request !== "string") {
    throw makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "id" argument must be of type string. Received ' + inspect(request));
  }
  const found = JSON.parse(hostCall("resolve", request, parent ? parent.path : currentDir));
  if (found === null) {
    const stack = requireStackOf(parent);
    let message = "Cannot find module '" + request + "'";
    if (stack.length > 0) message += "\nRequire stack:\n- " + stack.join("\n- ");
    throw makeError(Error, "MODULE_NOT_FOUND", message, { requireStack: stack });
  }
  return found;
}
function makeRequire(module) {
  const require = (request) => requireFrom(module, request);
  require.resolve = (request) => {
    const found = resolveFilename(request, module);
    return found.format === "builtin" ? found.path.replace(/^node:(?!test)/, "") : found.path;
  };
  require.resolve.paths = () => module.paths.slice();
  require.cache = Module._cache;
  require.main = mainModule;
  return require;
}
function readText(path) { return decodeUtf8(new Uint8Array(hostCall("fs", "read", path))); }
function requireFrom(parent, request) {
  const found = resolveFilename(request, parent);
  if (found.format === "builtin") return loadBuiltin(found.path.slice(5));
  return loadFile(found, parent);
}
function loadFile(found, parent) {
  const cached = Module._cache[found.path];
  if (cached) return cached.exports;
  if (found.format === "module") {
    const from = parent && parent.filename ? parent.filename : currentDir;
    throw makeError(Error, "ERR_REQUIRE_ESM", "require() of ES Module " + found.path + " from " + from + " not supported.\n" +
      "Instead change the require of " + found.path + " in " + from + " to a dynamic import() which is available in all CommonJS modules.");
  }
  const module = new Module(found.path, parent);
  if (parent) parent.children.push(module);
  Module._cache[found.path] = module;
  let ok = false;
  try {
    if (found.format === "json") {
      try { module.exports = JSON.parse(readText(found.path)); }
      catch (err) { err.message = found.path + ": " + err.message; throw err; }
    } else {
      compileAndRun(module, readText(found.path));
    }
    ok = true;
  } finally {
    if (!ok) delete Module._cache[found.path];
  }
  module.loaded = true;
  return module.exports;
}
function compileAndRun(module, source) {
  if (source.startsWith("#!")) source = "//" + source.slice(2);
  let fn;
  try {
    fn = host("compile", "(function (exports, require, module, __filename, __dirname) {" + source + "\n})", module.filename);
  } catch (err) {
    if (err instanceof SyntaxError && /^\s*(import\s*[\w{*'"]|export\s)/m.test(source)) {
      const wrapped = new SyntaxError("Cannot use import statement outside a module");
      wrapped.stack = "SyntaxError: Cannot use import statement outside a module\n    at " + module.filename;
      throw wrapped;
    }
    throw err;
  }
  const require = makeRequire(module);
  fn.call(module.exports, module.exports, require, module, module.filename, module.path);
}
function loadForImport(path) {
  if (path.startsWith("node:")) return loadBuiltin(path.slice(5));
  return requireFrom(null, path);
}
globalThis[Symbol.for("node.loadForImport")] = loadForImport;
globalThis[Symbol.for("node.importMeta")] = (meta, path) => {
  if (meta.url === undefined) {
    meta.url = "file://" + encodeURI(path);
    meta.filename = path;
    meta.dirname = dirname(path);
    meta.resolve = (specifier) => {
      const found = JSON.parse(hostCall("resolve", specifier, dirname(path)));
      if (!found) throw makeError(Error, "ERR_MODULE_NOT_FOUND", "Cannot find module '" + specifier + "' imported from " + path);
      return found.format === "builtin" ? found.path : "file://" + encodeURI(found.path);
    };
  }
  return meta;
};
function exportNames(path) {
  const value = loadForImport(path);
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return "[]";
  return JSON.stringify(Object.keys(value));
}

// ---- globals -----------------------------------------------------------------------------------
let mainModule;
function defineGlobal(name, value) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
defineGlobal("global", globalThis);
defineGlobal("process", process);
defineGlobal("console", console);
defineGlobal("setTimeout", setTimeout);
defineGlobal("setInterval", setInterval);
defineGlobal("setImmediate", setImmediate);
defineGlobal("clearTimeout", clearTimeout);
defineGlobal("clearInterval", clearTimeout);
defineGlobal("clearImmediate", clearImmediate);
defineGlobal("queueMicrotask", queueMicrotask);
defineGlobal("TextEncoder", TextEncoder);
defineGlobal("TextDecoder", TextDecoder);
defineGlobal("atob", (text) => latin1FromBytes(base64Decode(String(text))));
defineGlobal("btoa", (text) => base64Encode(bytesFromLatin1(String(text))));
defineGlobal("structuredClone", structuredCloneImpl);
defineGlobal("performance", { now: () => host("now"), timeOrigin: Date.now() - host("now"), mark() {}, measure() {} });
for (const name of ["Buffer", "URL", "URLSearchParams", "AbortController", "AbortSignal", "EventTarget", "Event"]) {
  Object.defineProperty(globalThis, name, {
    configurable: true, enumerable: false,
    get() {
      const source = name === "Buffer" ? loadBuiltin("buffer") : name.startsWith("URL") ? loadBuiltin("url") : loadBuiltin("events");
      const value = source[name];
      defineGlobal(name, value);
      return value;
    },
    set(value) { defineGlobal(name, value); },
  });
}
Object.defineProperty(globalThis, "fetch", {
  configurable: true, writable: true, enumerable: false,
  value: () => Promise.reject(makeError(TypeError, "ERR_EMBEDDED_NO_NETWORK", "fetch failed: the embedded sandbox has no network")),
});
function structuredCloneImpl(value, seen = new Map()) {
  if (value === null || typeof value !== "object") {
    if (typeof value === "function" || typeof value === "symbol") {
      throw Object.assign(new Error(String(value) + " could not be cloned."), { name: "DataCloneError" });
    }
    return value;
  }
  if (seen.has(value)) return seen.get(value);
  let copy;
  if (value instanceof Date) copy = new Date(value.getTime());
  else if (value instanceof RegExp) copy = new RegExp(value.source, value.flags);
  else if (value instanceof Map) { copy = new Map(); seen.set(value, copy); for (const [k, v] of value) copy.set(structuredCloneImpl(k, seen), structuredCloneImpl(v, seen)); return copy; }
  else if (value instanceof Set) { copy = new Set(); seen.set(value, copy); for (const v of value) copy.add(structuredCloneImpl(v, seen)); return copy; }
  else if (ArrayBuffer.isView(value)) copy = new value.constructor(value);
  else if (value instanceof ArrayBuffer) copy = value.slice(0);
  else if (value instanceof Error) { copy = new Error(value.message); copy.name = value.name; }
  else copy = Array.isArray(value) ? [] : {};
  seen.set(value, copy);
  if (!(copy instanceof Date) && !(copy instanceof RegExp) && !ArrayBuffer.isView(copy) && !(copy instanceof ArrayBuffer)) {
    for (const key of Object.keys(value)) copy[key] = structuredCloneImpl(value[key], seen);
  }
  return copy;
}

// ---- unhandled rejections ------------------------------------------------------------------------
// QuickJS gives the host no rejection tracker, so promises are made through a constructor that
// watches their reject function, and "then" marks a promise handled. Promises that async functions
// return come from the engine itself and are not watched.
const NativePromise = Promise;
const nativeThen = NativePromise.prototype.then;
const rejected = new Map();
const handled = new WeakSet();
function TrackedPromise(executor) {
  if (new.target === undefined) throw new TypeError("Promise constructor cannot be invoked without 'new'");
  let promise = null;
  let early;
  const result = Reflect.construct(NativePromise, [(resolve, reject) => {
    executor(resolve, (reason) => {
      if (promise === null) early = { reason };
      else if (!handled.has(promise)) rejected.set(promise, reason);
      reject(reason);
    });
  }], new.target);
  promise = result;
  if (early && !handled.has(result)) rejected.set(result, early.reason);
  return result;
}
TrackedPromise.prototype = NativePromise.prototype;
for (const key of Reflect.ownKeys(NativePromise)) {
  if (key !== "prototype" && key !== "length" && key !== "name") {
    Object.defineProperty(TrackedPromise, key, Object.getOwnPropertyDescriptor(NativePromise, key));
  }
}
Object.defineProperty(NativePromise.prototype, "constructor", { value: TrackedPromise, writable: true, configurable: true });
Object.defineProperty(NativePromise.prototype, "then", {
  value: function then(onFulfilled, onRejected) {
    handled.add(this);
    rejected.delete(this);
    return nativeThen.call(this, onFulfilled, onRejected);
  },
  writable: true, configurable: true,
});
defineGlobal("Promise", TrackedPromise);
function checkRejections() {
  if (rejected.size === 0) return;
  const list = Array.from(rejected);
  rejected.clear();
  for (const [promise, reason] of list) {
    if (handled.has(promise)) continue;
    if (emit("unhandledRejection", reason, promise)) continue;
    if (reason instanceof NativeError || (reason && typeof reason === "object" && typeof reason.stack === "string")) {
      uncaught(reason, "uncaughtRejection");
    } else {
      writeOut(2, "node:internal/process/promises:289\n            triggerUncaughtException(err, true /* fromPromise */);\n            ^\n\n" +
        "[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, " +
        "or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"" + inspect(reason) + "\".] {\n" +
        "  code: 'ERR_UNHANDLED_REJECTION'\n}\n\nNode.js " + NODE_VERSION + "\n");
      host("exit", 1);
    }
    return;
  }
}

// ---- uncaught errors and the entry points ------------------------------------------------------
let reportingUncaught = false;
function describeUncaught(err) {
  let header = "";
  const stack = err instanceof NativeError ? errorStack(err) : "";
  const frame = /\((\/[^():]+):(\d+):(\d+)\)/.exec(stack) || /at (\/[^():]+):(\d+):(\d+)/.exec(stack);
  if (frame) {
    const line = internal.readSourceLine(frame[1], Number(frame[2]));
    if (line !== null) {
      let column = Math.max(0, Number(frame[3]) - 1);
      const throwAt = line.lastIndexOf("throw", column);
      if (throwAt >= 0) column = throwAt;
      header = frame[1] + ":" + frame[2] + "\n" + line + "\n" + " ".repeat(column) + "^\n\n";
    }
  } else if (err instanceof SyntaxError && typeof err.fileName === "string" && err.fileName.startsWith("/")) {
    const line = internal.readSourceLine(err.fileName, err.lineNumber);
    if (line !== null) header = err.fileName + ":" + err.lineNumber + "\n" + line + "\n\n\n";
  }
  let body;
  if (err instanceof NativeError && err.name === "InternalError" && err.message === "stack overflow") {
    // QuickJS's name for what V8 reports as a RangeError.
    body = "RangeError: Maximum call stack size exceeded\n" + errorStack(err).split("\n").slice(1).join("\n");
  } else if (err instanceof NativeError || (err && typeof err === "object" && typeof err.stack === "string")) {
    body = inspect(err);
    if (err.name === "InternalError" && err.message === "out of memory") {
      body += "\n(the embedded node's heap is capped at " + Math.round(info.memoryLimitBytes / 1048576) + " MB; this allocation did not fit)";
    }
    if (err instanceof SyntaxError && err.fileName && !header) body = err.fileName + ":" + err.lineNumber + "\n" + body;
  } else {
    body = "Uncaught " + inspect(err);
  }
  return header + body + "\n\nNode.js " + NODE_VERSION + "\n";
}
function uncaught(err, origin) {
  if (err === EXIT) return;
  if (origin !== "unhandledRejection" && process.listenerCount("uncaughtException") > 0 && !reportingUncaught) {
    reportingUncaught = true;
    try { emit("uncaughtException", err, origin || "uncaughtException"); }
    catch (again) { if (again !== EXIT) { writeOut(2, describeUncaught(again)); host("exit", 7); } }
    finally { reportingUncaught = false; }
    return;
  }
  if (origin === "unhandledRejection" && emit("unhandledRejection", err, null)) return;
  writeOut(2, describeUncaught(err));
  host("exit", 1);
}
internal.uncaught = uncaught;
internal.EXIT = EXIT;

function runMain() {
  const main = info.main;
  try {
    if (main.kind === "eval") {
      mainModule = new Module(currentDir + "/[eval]", null);
      mainModule.filename = "[eval]";
      mainModule.id = "[eval]";
      defineGlobal("module", mainModule);
      defineGlobal("exports", mainModule.exports);
      defineGlobal("require", makeRequire(mainModule));
      defineGlobal("__filename", "[eval]");
      defineGlobal("__dirname", ".");
      const result = host("compile", main.code, "[eval]");
      if (main.print) console.log(result);
      return;
    }
    if (main.kind === "test-file") internal.testFile = { startNumber: main.startNumber, path: main.path };
    const path = resolvePath(main.path);
    const found = JSON.parse(hostCall("resolve", path, currentDir));
    if (found === null) {
      throw makeError(Error, "MODULE_NOT_FOUND", "Cannot find module '" + path + "'", { requireStack: [] });
    }
    process.argv[1] = found.path;
    if (found.format === "module") {
      import(found.path).catch((err) => uncaught(err, "uncaughtException"));
      return;
    }
    mainModule = new Module(found.path, null);
    mainModule.id = ".";
    Module._cache[found.path] = mainModule;
    if (found.format === "json") mainModule.exports = JSON.parse(readText(found.path));
    else compileAndRun(mainModule, readText(found.path));
    mainModule.loaded = true;
  } catch (err) {
    uncaught(err, "uncaughtException");
  }
}
function beforeExit() {
  let more = 0;
  try {
    for (const hook of internal.beforeExitHooks) if (hook()) more = 1;
    if (more) return 1;
    emit("beforeExit", process.exitCode ?? 0);
  } catch (err) { uncaught(err, "uncaughtException"); }
  return more || timers.size > 0 || immediates.length > 0 || ticks.length > 0 ? 1 : 0;
}
function emitExit(code) {
  if (code >= 0) process.exitCode = code;
  try { emit("exit", process.exitCode ?? 0); } catch (err) { if (err !== EXIT) uncaught(err); }
  return Number(process.exitCode ?? 0) || 0;
}
return { runMain, tick, beforeExit, emitExit, uncaught: (err) => uncaught(err, "uncaughtException"), exportNames, checkRejections, runTicks, pushStdin };
})`
  .replace("/*@ENCODING@*/", () => GUEST_ENCODING)
  .replace("/*@INSPECT@*/", () => GUEST_INSPECT);
