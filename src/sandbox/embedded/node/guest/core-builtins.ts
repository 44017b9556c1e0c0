/**
 * Guest sources (run inside QuickJS) of events, util and buffer: bodies of
 * `function (module, exports, require, internal)`.
 */
export const GUEST_EVENTS = `
const kCapture = Symbol("kCapture");
class EventEmitter {
  constructor() { this._events = Object.create(null); this._maxListeners = undefined; }
  _list(name) {
    if (!this._events) this._events = Object.create(null);
    return this._events[name] || (this._events[name] = []);
  }
  setMaxListeners(n) { this._maxListeners = n; return this; }
  getMaxListeners() { return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners; }
  emit(name, ...args) {
    const list = this._events && this._events[name];
    if (!list || list.length === 0) {
      if (name === "error") {
        const err = args[0];
        if (err instanceof Error) throw err;
        const wrapped = new Error("Unhandled error." + (err === undefined ? "" : " (" + internal.inspect(err) + ")"));
        wrapped.code = "ERR_UNHANDLED_ERROR"; wrapped.context = err;
        throw wrapped;
      }
      return false;
    }
    for (const entry of list.slice()) {
      if (entry.once) this.removeListener(name, entry.fn);
      entry.fn.apply(this, args);
    }
    return true;
  }
  _add(name, fn, once, prepend) {
    if (typeof fn !== "function") throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "listener" argument must be of type function. Received ' + internal.inspect(fn));
    if (this._events && this._events.newListener) this.emit("newListener", name, fn);
    const list = this._list(name);
    const entry = { fn, once };
    if (prepend) list.unshift(entry); else list.push(entry);
    const max = this.getMaxListeners();
    if (max > 0 && list.length > max && !list.warned) {
      list.warned = true;
      internal.process.emitWarning("Possible EventEmitter memory leak detected. " + list.length + " " + String(name) + " listeners added to " + internal.inspect(this, { depth: -1 }) + ". Use emitter.setMaxListeners() to increase limit", "MaxListenersExceededWarning");
    }
    return this;
  }
  on(name, fn) { return this._add(name, fn, false, false); }
  addListener(name, fn) { return this._add(name, fn, false, false); }
  prependListener(name, fn) { return this._add(name, fn, false, true); }
  once(name, fn) { return this._add(name, fn, true, false); }
  prependOnceListener(name, fn) { return this._add(name, fn, true, true); }
  removeListener(name, fn) {
    const list = this._events && this._events[name];
    if (!list) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i].fn === fn) {
        list.splice(i, 1);
        if (list.length === 0) delete this._events[name];
        if (this._events.removeListener) this.emit("removeListener", name, fn);
        break;
      }
    }
    return this;
  }
  off(name, fn) { return this.removeListener(name, fn); }
  removeAllListeners(name) {
    if (!this._events) return this;
    if (name === undefined) this._events = Object.create(null); else delete this._events[name];
    return this;
  }
  listeners(name) { return ((this._events && this._events[name]) || []).map((e) => e.fn); }
  rawListeners(name) { return this.listeners(name); }
  listenerCount(name) { return ((this._events && this._events[name]) || []).length; }
  eventNames() { return this._events ? Reflect.ownKeys(this._events) : []; }
}
EventEmitter.defaultMaxListeners = 10;
EventEmitter.EventEmitter = EventEmitter;
EventEmitter.captureRejections = false;
EventEmitter.errorMonitor = Symbol("events.errorMonitor");
EventEmitter.once = function once(emitter, name) {
  return new Promise((resolve, reject) => {
    const onError = (err) => { emitter.removeListener(name, onEvent); reject(err); };
    const onEvent = (...args) => { if (name !== "error") emitter.removeListener("error", onError); resolve(args); };
    emitter.once(name, onEvent);
    if (name !== "error" && typeof emitter.once === "function") emitter.once("error", onError);
  });
};
EventEmitter.on = function on(emitter, name) {
  const queue = [];
  const waiting = [];
  emitter.on(name, (...args) => { if (waiting.length) waiting.shift()({ value: args, done: false }); else queue.push(args); });
  return { next: () => (queue.length ? Promise.resolve({ value: queue.shift(), done: false }) : new Promise((r) => waiting.push(r))),
    return: () => Promise.resolve({ done: true, value: undefined }), [Symbol.asyncIterator]() { return this; } };
};
EventEmitter.listenerCount = (emitter, name) => emitter.listenerCount(name);
class Event {
  constructor(type, options) { this.type = type; this.defaultPrevented = false; this.cancelable = Boolean(options && options.cancelable); this.timeStamp = internal.host("now"); }
  preventDefault() { if (this.cancelable) this.defaultPrevented = true; }
  stopPropagation() {} stopImmediatePropagation() { this._stop = true; }
}
class EventTarget {
  constructor() { this._listeners = new Map(); }
  addEventListener(type, fn, options) {
    if (!fn) return;
    if (!this._listeners.has(type)) this._listeners.set(type, []);
    this._listeners.get(type).push({ fn, once: Boolean(options && options.once) });
  }
  removeEventListener(type, fn) { const list = this._listeners.get(type); if (list) this._listeners.set(type, list.filter((e) => e.fn !== fn)); }
  dispatchEvent(event) {
    Object.defineProperty(event, "target", { value: this, configurable: true });
    for (const entry of (this._listeners.get(event.type) || []).slice()) {
      if (entry.once) this.removeEventListener(event.type, entry.fn);
      if (typeof entry.fn === "function") entry.fn.call(this, event); else entry.fn.handleEvent(event);
      if (event._stop) break;
    }
    const handler = this["on" + event.type];
    if (typeof handler === "function") handler.call(this, event);
    return !event.defaultPrevented;
  }
}
class AbortSignal extends EventTarget {
  constructor() { super(); this.aborted = false; this.reason = undefined; this.onabort = null; }
  throwIfAborted() { if (this.aborted) throw this.reason; }
  static abort(reason) { const c = new AbortController(); c.abort(reason); return c.signal; }
  static timeout(ms) {
    const c = new AbortController();
    internal.timers.setTimeout(() => { const e = new Error("The operation was aborted due to timeout"); e.name = "TimeoutError"; e.code = 23; c.abort(e); }, ms).unref();
    return c.signal;
  }
  static any(signals) {
    const c = new AbortController();
    for (const s of signals) { if (s.aborted) { c.abort(s.reason); break; } s.addEventListener("abort", () => c.abort(s.reason), { once: true }); }
    return c.signal;
  }
}
class AbortController {
  constructor() { this.signal = new AbortSignal(); }
  abort(reason) {
    if (this.signal.aborted) return;
    if (reason === undefined) { reason = new Error("This operation was aborted"); reason.name = "AbortError"; reason.code = 20; }
    this.signal.aborted = true;
    this.signal.reason = reason;
    this.signal.dispatchEvent(new Event("abort"));
  }
}
EventEmitter.Event = Event;
EventEmitter.EventTarget = EventTarget;
EventEmitter.AbortController = AbortController;
EventEmitter.AbortSignal = AbortSignal;
module.exports = EventEmitter;
`;

export const GUEST_UTIL = String.raw`
const types = require("util/types");
function promisify(original) {
  if (typeof original !== "function") throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "original" argument must be of type function');
  if (original[promisify.custom]) return original[promisify.custom];
  function fn(...args) {
    return new Promise((resolve, reject) => {
      original.call(this, ...args, (err, ...values) => {
        if (err) reject(err); else resolve(values.length > 1 ? values : values[0]);
      });
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  return Object.defineProperties(fn, Object.getOwnPropertyDescriptors(original));
}
promisify.custom = Symbol.for("nodejs.util.promisify.custom");
function callbackify(original) {
  return function (...args) {
    const callback = args.pop();
    original.apply(this, args).then((value) => internal.nextTick(callback, null, value), (err) => internal.nextTick(callback, err));
  };
}
function inherits(ctor, superCtor) {
  Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}
const warned = new Set();
function deprecate(fn, message, code) {
  return function (...args) {
    if (!warned.has(code || message)) {
      warned.add(code || message);
      internal.process.emitWarning(message, "DeprecationWarning");
    }
    return new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
  };
}
function isDeepStrictEqual(a, b) { return require("assert").isDeepEqual(a, b, true); }
const debugs = {};
function debuglog(section) {
  const enabled = new RegExp("^(" + String(internal.process.env.NODE_DEBUG || "").replace(/[|\\{}()[\]^$+?.]/g, "\\$&").replace(/\*/g, ".*").replace(/,/g, "$|^") + ")$", "i").test(section);
  const fn = (...args) => { if (enabled) internal.process.stderr.write(section.toUpperCase() + " 42: " + internal.format(...args) + "\n"); };
  fn.enabled = enabled;
  debugs[section] = fn;
  return fn;
}
function stripVTControlCharacters(text) { return String(text).replace(/\u001b\[[0-9;]*[A-Za-z]/g, ""); }
function parseArgs(config) {
  const args = config && config.args ? config.args : internal.process.argv.slice(2);
  const options = (config && config.options) || {};
  const values = {};
  const positionals = [];
  for (const [name, opt] of Object.entries(options)) if (opt.default !== undefined) values[name] = opt.default;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") { positionals.push(...args.slice(i + 1)); break; }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      const opt = options[name] || { type: "boolean" };
      const value = opt.type === "string" ? (eq >= 0 ? arg.slice(eq + 1) : args[++i]) : true;
      if (opt.multiple) (values[name] = values[name] && values[name] !== opt.default ? values[name] : []).push(value); else values[name] = value;
    } else if (arg.startsWith("-") && arg.length > 1) {
      const short = arg.slice(1);
      const entry = Object.entries(options).find(([, o]) => o.short === short);
      const name = entry ? entry[0] : short;
      const opt = entry ? entry[1] : { type: "boolean" };
      values[name] = opt.type === "string" ? args[++i] : true;
    } else positionals.push(arg);
  }
  return { values, positionals };
}
module.exports = {
  format: internal.format, formatWithOptions: internal.formatWithOptions, inspect: internal.inspect,
  promisify, callbackify, inherits, deprecate, isDeepStrictEqual, debuglog, debug: debuglog, types,
  stripVTControlCharacters, parseArgs,
  TextEncoder: globalThis.TextEncoder, TextDecoder: globalThis.TextDecoder,
  isArray: Array.isArray, isBoolean: (v) => typeof v === "boolean", isNull: (v) => v === null,
  isNullOrUndefined: (v) => v == null, isNumber: (v) => typeof v === "number", isString: (v) => typeof v === "string",
  isSymbol: (v) => typeof v === "symbol", isUndefined: (v) => v === undefined, isRegExp: types.isRegExp,
  isObject: (v) => v !== null && typeof v === "object", isDate: types.isDate, isError: types.isNativeError,
  isFunction: (v) => typeof v === "function", isPrimitive: (v) => v === null || (typeof v !== "object" && typeof v !== "function"),
  toUSVString: (s) => String(s), getSystemErrorName: (n) => "E" + n,
  styleText: (format, text) => text,
};
`;

export const GUEST_UTIL_TYPES = `
const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const tagOf = (v) => Object.prototype.toString.call(v).slice(8, -1);
module.exports = {
  isPromise: (v) => v instanceof Promise, isDate: (v) => v instanceof Date, isRegExp: (v) => v instanceof RegExp,
  isMap: (v) => v instanceof Map, isSet: (v) => v instanceof Set, isWeakMap: (v) => v instanceof WeakMap, isWeakSet: (v) => v instanceof WeakSet,
  isNativeError: (v) => v instanceof Error, isTypedArray: (v) => typedArrayTag.call(v) !== undefined,
  isUint8Array: (v) => typedArrayTag.call(v) === "Uint8Array", isArrayBuffer: (v) => v instanceof ArrayBuffer,
  isAnyArrayBuffer: (v) => v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && v instanceof SharedArrayBuffer),
  isArrayBufferView: (v) => ArrayBuffer.isView(v), isDataView: (v) => v instanceof DataView,
  isAsyncFunction: (v) => typeof v === "function" && tagOf(v) === "AsyncFunction",
  isGeneratorFunction: (v) => typeof v === "function" && /GeneratorFunction$/.test(tagOf(v)),
  isGeneratorObject: (v) => tagOf(v) === "Generator", isBoxedPrimitive: (v) => v instanceof Number || v instanceof String || v instanceof Boolean,
  isNumberObject: (v) => v instanceof Number, isStringObject: (v) => v instanceof String, isBooleanObject: (v) => v instanceof Boolean,
  isSymbolObject: (v) => typeof v === "object" && v instanceof Symbol, isProxy: () => false, isArgumentsObject: (v) => tagOf(v) === "Arguments",
  isMapIterator: (v) => tagOf(v) === "Map Iterator", isSetIterator: (v) => tagOf(v) === "Set Iterator",
};
`;

export const GUEST_BUFFER = `
const { encodeUtf8, decodeUtf8, base64Encode, base64Decode } = internal;
function normalizeEncoding(enc) {
  const e = String(enc || "utf8").toLowerCase();
  if (e === "utf8" || e === "utf-8") return "utf8";
  if (e === "hex" || e === "base64" || e === "base64url" || e === "ascii") return e;
  if (e === "latin1" || e === "binary") return "latin1";
  if (e === "ucs2" || e === "ucs-2" || e === "utf16le" || e === "utf-16le") return "utf16le";
  throw internal.makeError(TypeError, "ERR_UNKNOWN_ENCODING", "Unknown encoding: " + enc);
}
function bytesOf(string, encoding) {
  switch (normalizeEncoding(encoding)) {
    case "utf8": return encodeUtf8(string);
    case "hex": {
      const out = new Uint8Array(Math.floor(string.length / 2));
      let n = 0;
      for (; n < out.length; n++) { const byte = parseInt(string.substr(n * 2, 2), 16); if (Number.isNaN(byte)) break; out[n] = byte; }
      return out.slice(0, n);
    }
    case "base64": case "base64url": return base64Decode(string);
    case "ascii": case "latin1": { const out = new Uint8Array(string.length); for (let i = 0; i < string.length; i++) out[i] = string.charCodeAt(i) & 255; return out; }
    case "utf16le": { const out = new Uint8Array(string.length * 2); for (let i = 0; i < string.length; i++) { const c = string.charCodeAt(i); out[i * 2] = c & 255; out[i * 2 + 1] = c >> 8; } return out; }
  }
}
class Buffer extends Uint8Array {
  static from(value, encodingOrOffset, length) {
    if (typeof value === "string") { const bytes = bytesOf(value, encodingOrOffset); return new Buffer(bytes.buffer, bytes.byteOffset, bytes.length); }
    if (value instanceof ArrayBuffer) return new Buffer(value, encodingOrOffset || 0, length === undefined ? value.byteLength - (encodingOrOffset || 0) : length);
    if (ArrayBuffer.isView(value)) { const b = Buffer.alloc(value.byteLength); b.set(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)); return b; }
    if (Array.isArray(value)) { const b = Buffer.alloc(value.length); for (let i = 0; i < value.length; i++) b[i] = value[i] & 255; return b; }
    if (value && value.type === "Buffer" && Array.isArray(value.data)) return Buffer.from(value.data);
    if (value && typeof value.length === "number") return Buffer.from(Array.from(value));
    throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", "The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object. Received " + internal.inspect(value));
  }
  static alloc(size, fill, encoding) {
    const b = new Buffer(size);
    if (fill !== undefined && fill !== 0) b.fill(fill, 0, size, encoding);
    return b;
  }
  static allocUnsafe(size) { return new Buffer(size); }
  static allocUnsafeSlow(size) { return new Buffer(size); }
  static isBuffer(value) { return value instanceof Buffer; }
  static isEncoding(enc) { try { normalizeEncoding(enc); return true; } catch { return false; } }
  static byteLength(value, encoding) { return typeof value === "string" ? bytesOf(value, encoding).length : value.byteLength; }
  static concat(list, totalLength) {
    if (totalLength === undefined) totalLength = list.reduce((n, b) => n + b.length, 0);
    const out = Buffer.alloc(totalLength);
    let offset = 0;
    for (const b of list) { if (offset >= totalLength) break; out.set(b.subarray(0, totalLength - offset), offset); offset += b.length; }
    return out;
  }
  static compare(a, b) { return a.compare(b); }
  get parent() { return this.buffer; }
  toString(encoding, start, end) {
    start = start || 0; end = end === undefined ? this.length : Math.min(end, this.length);
    const bytes = this.subarray(start, end);
    switch (normalizeEncoding(encoding)) {
      case "utf8": return decodeUtf8(bytes);
      case "hex": { let s = ""; for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, "0"); return s; }
      case "base64": return base64Encode(bytes);
      case "base64url": return base64Encode(bytes, true);
      case "ascii": { let s = ""; for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i] & 127); return s; }
      case "latin1": { let s = ""; for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]); return s; }
      case "utf16le": { let s = ""; for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode(bytes[i] | (bytes[i + 1] << 8)); return s; }
    }
  }
  toJSON() { return { type: "Buffer", data: Array.from(this) }; }
  equals(other) { return this.compare(other) === 0; }
  compare(other) {
    const n = Math.min(this.length, other.length);
    for (let i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
    return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
  }
  write(string, offset, length, encoding) {
    if (typeof offset === "string") { encoding = offset; offset = 0; }
    else if (typeof length === "string") { encoding = length; length = undefined; }
    offset = offset || 0;
    const bytes = bytesOf(string, encoding).subarray(0, length === undefined ? this.length - offset : length);
    this.set(bytes.subarray(0, this.length - offset), offset);
    return Math.min(bytes.length, this.length - offset);
  }
  fill(value, offset, end, encoding) {
    if (typeof offset === "string") { encoding = offset; offset = 0; end = this.length; }
    offset = offset || 0; end = end === undefined ? this.length : end;
    if (typeof value === "string") {
      const bytes = bytesOf(value, encoding);
      if (bytes.length === 0) return Uint8Array.prototype.fill.call(this, 0, offset, end);
      for (let i = offset; i < end; i++) this[i] = bytes[(i - offset) % bytes.length];
      return this;
    }
    return Uint8Array.prototype.fill.call(this, typeof value === "number" ? value & 255 : 0, offset, end);
  }
  slice(start, end) { return this.subarray(start, end); }
  subarray(start, end) { const v = Uint8Array.prototype.subarray.call(this, start, end); return new Buffer(v.buffer, v.byteOffset, v.length); }
  indexOf(value, byteOffset, encoding) {
    const needle = typeof value === "number" ? [value & 255] : typeof value === "string" ? bytesOf(value, encoding) : value;
    outer: for (let i = byteOffset || 0; i <= this.length - needle.length; i++) {
      for (let j = 0; j < needle.length; j++) if (this[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  }
  includes(value, byteOffset, encoding) { return this.indexOf(value, byteOffset, encoding) !== -1; }
  copy(target, targetStart, sourceStart, sourceEnd) {
    targetStart = targetStart || 0; sourceStart = sourceStart || 0; sourceEnd = sourceEnd === undefined ? this.length : sourceEnd;
    const chunk = this.subarray(sourceStart, Math.min(sourceEnd, sourceStart + target.length - targetStart));
    target.set(chunk, targetStart);
    return chunk.length;
  }
  readUInt8(o = 0) { return this[o]; }
  readInt8(o = 0) { const v = this[o]; return v > 127 ? v - 256 : v; }
  readUInt16LE(o = 0) { return this[o] | (this[o + 1] << 8); }
  readUInt16BE(o = 0) { return (this[o] << 8) | this[o + 1]; }
  readInt16LE(o = 0) { const v = this.readUInt16LE(o); return v > 32767 ? v - 65536 : v; }
  readInt16BE(o = 0) { const v = this.readUInt16BE(o); return v > 32767 ? v - 65536 : v; }
  readUInt32LE(o = 0) { return new DataView(this.buffer, this.byteOffset).getUint32(o, true); }
  readUInt32BE(o = 0) { return new DataView(this.buffer, this.byteOffset).getUint32(o, false); }
  readInt32LE(o = 0) { return new DataView(this.buffer, this.byteOffset).getInt32(o, true); }
  readInt32BE(o = 0) { return new DataView(this.buffer, this.byteOffset).getInt32(o, false); }
  readDoubleLE(o = 0) { return new DataView(this.buffer, this.byteOffset).getFloat64(o, true); }
  readDoubleBE(o = 0) { return new DataView(this.buffer, this.byteOffset).getFloat64(o, false); }
  readFloatLE(o = 0) { return new DataView(this.buffer, this.byteOffset).getFloat32(o, true); }
  readBigUInt64LE(o = 0) { return new DataView(this.buffer, this.byteOffset).getBigUint64(o, true); }
  writeUInt8(v, o = 0) { this[o] = v; return o + 1; }
  writeInt8(v, o = 0) { this[o] = v & 255; return o + 1; }
  writeUInt16LE(v, o = 0) { this[o] = v & 255; this[o + 1] = (v >> 8) & 255; return o + 2; }
  writeUInt16BE(v, o = 0) { this[o] = (v >> 8) & 255; this[o + 1] = v & 255; return o + 2; }
  writeUInt32LE(v, o = 0) { new DataView(this.buffer, this.byteOffset).setUint32(o, v, true); return o + 4; }
  writeUInt32BE(v, o = 0) { new DataView(this.buffer, this.byteOffset).setUint32(o, v, false); return o + 4; }
  writeInt32LE(v, o = 0) { new DataView(this.buffer, this.byteOffset).setInt32(o, v, true); return o + 4; }
  writeInt32BE(v, o = 0) { new DataView(this.buffer, this.byteOffset).setInt32(o, v, false); return o + 4; }
  writeDoubleLE(v, o = 0) { new DataView(this.buffer, this.byteOffset).setFloat64(o, v, true); return o + 8; }
  writeDoubleBE(v, o = 0) { new DataView(this.buffer, this.byteOffset).setFloat64(o, v, false); return o + 8; }
  [Symbol.for("nodejs.util.inspect.custom")]() {
    let hex = "";
    const max = Math.min(this.length, 50);
    for (let i = 0; i < max; i++) hex += (i ? " " : "") + this[i].toString(16).padStart(2, "0");
    if (this.length > 50) hex += " ... " + (this.length - 50) + " more byte" + (this.length - 50 > 1 ? "s" : "");
    return "<Buffer" + (hex ? " " + hex : "") + ">";
  }
}
Buffer.poolSize = 8192;
for (const [name, get, set, size] of [["Int16", "getInt16", "setInt16", 2], ["UInt16", "getUint16", "setUint16", 2], ["Int32", "getInt32", "setInt32", 4],
  ["UInt32", "getUint32", "setUint32", 4], ["Float", "getFloat32", "setFloat32", 4], ["Double", "getFloat64", "setFloat64", 8],
  ["BigInt64", "getBigInt64", "setBigInt64", 8], ["BigUInt64", "getBigUint64", "setBigUint64", 8]]) {
  for (const [suffix, little] of [["LE", true], ["BE", false]]) {
    Buffer.prototype["read" + name + suffix] = function (offset = 0) { return new DataView(this.buffer, this.byteOffset, this.byteLength)[get](offset, little); };
    Buffer.prototype["write" + name + suffix] = function (value, offset = 0) { new DataView(this.buffer, this.byteOffset, this.byteLength)[set](offset, value, little); return offset + size; };
  }
}
for (const [alias, name] of [["readUint8", "readUInt8"], ["readUint16LE", "readUInt16LE"], ["readUint16BE", "readUInt16BE"], ["readUint32LE", "readUInt32LE"], ["readUint32BE", "readUInt32BE"], ["writeUint8", "writeUInt8"], ["writeUint16LE", "writeUInt16LE"], ["writeUint32LE", "writeUInt32LE"], ["writeUint32BE", "writeUInt32BE"]]) {
  Buffer.prototype[alias] = Buffer.prototype[name];
}
module.exports = { Buffer, kMaxLength: 4294967296, constants: { MAX_LENGTH: 4294967296, MAX_STRING_LENGTH: 536870888 },
  atob: globalThis.atob, btoa: globalThis.btoa, isUtf8: () => true, Blob: undefined };
`;
