/**
 * Guest sources (run inside QuickJS) of the small builtins. Each is the body of
 * `function (module, exports, require, internal)`; `internal` is the bootstrap's shared kit.
 */
export const GUEST_PATH = String.raw`
function assertPath(path, name) {
  if (typeof path !== "string") {
    throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "' + (name || "path") + '" argument must be of type string. Received ' + internal.inspect(path));
  }
}
function normalizeString(path, allowAboveRoot) {
  let res = "";
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === 47) break;
    else code = 47;
    if (code === 47) {
      if (lastSlash === i - 1 || dots === 1) {
      } else if (dots === 2) {
        if (res.length < 2 || lastSegmentLength !== 2 || res.charCodeAt(res.length - 1) !== 46 || res.charCodeAt(res.length - 2) !== 46) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf("/");
            if (lastSlashIndex === -1) { res = ""; lastSegmentLength = 0; }
            else { res = res.slice(0, lastSlashIndex); lastSegmentLength = res.length - 1 - res.lastIndexOf("/"); }
            lastSlash = i; dots = 0; continue;
          } else if (res.length !== 0) {
            res = ""; lastSegmentLength = 0; lastSlash = i; dots = 0; continue;
          }
        }
        if (allowAboveRoot) { res += res.length > 0 ? "/.." : ".."; lastSegmentLength = 2; }
      } else {
        if (res.length > 0) res += "/" + path.slice(lastSlash + 1, i);
        else res = path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i; dots = 0;
    } else if (code === 46 && dots !== -1) ++dots;
    else dots = -1;
  }
  return res;
}
const path = {
  sep: "/", delimiter: ":",
  resolve(...args) {
    let resolvedPath = "";
    let resolvedAbsolute = false;
    for (let i = args.length - 1; i >= -1 && !resolvedAbsolute; i--) {
      const p = i >= 0 ? args[i] : internal.process.cwd();
      assertPath(p, "paths[" + i + "]");
      if (p.length === 0) continue;
      resolvedPath = p + "/" + resolvedPath;
      resolvedAbsolute = p.charCodeAt(0) === 47;
    }
    resolvedPath = normalizeString(resolvedPath, !resolvedAbsolute);
    if (resolvedAbsolute) return "/" + resolvedPath;
    return resolvedPath.length > 0 ? resolvedPath : ".";
  },
  normalize(p) {
    assertPath(p);
    if (p.length === 0) return ".";
    const isAbsolute = p.charCodeAt(0) === 47;
    const trailingSeparator = p.charCodeAt(p.length - 1) === 47;
    p = normalizeString(p, !isAbsolute);
    if (p.length === 0) { if (isAbsolute) return "/"; return trailingSeparator ? "./" : "."; }
    if (trailingSeparator) p += "/";
    return isAbsolute ? "/" + p : p;
  },
  isAbsolute(p) { assertPath(p); return p.length > 0 && p.charCodeAt(0) === 47; },
  join(...args) {
    if (args.length === 0) return ".";
    let joined;
    for (let i = 0; i < args.length; ++i) {
      const arg = args[i];
      assertPath(arg);
      if (arg.length > 0) joined = joined === undefined ? arg : joined + "/" + arg;
    }
    if (joined === undefined) return ".";
    return path.normalize(joined);
  },
  relative(from, to) {
    assertPath(from, "from"); assertPath(to, "to");
    if (from === to) return "";
    from = path.resolve(from); to = path.resolve(to);
    if (from === to) return "";
    const fromStart = 1, fromEnd = from.length, fromLen = fromEnd - fromStart;
    const toStart = 1, toLen = to.length - toStart;
    const length = fromLen < toLen ? fromLen : toLen;
    let lastCommonSep = -1;
    let i = 0;
    for (; i < length; i++) {
      const fromCode = from.charCodeAt(fromStart + i);
      if (fromCode !== to.charCodeAt(toStart + i)) break;
      else if (fromCode === 47) lastCommonSep = i;
    }
    if (i === length) {
      if (toLen > length) {
        if (to.charCodeAt(toStart + i) === 47) return to.slice(toStart + i + 1);
        if (i === 0) return to.slice(toStart + i);
      } else if (fromLen > length) {
        if (from.charCodeAt(fromStart + i) === 47) lastCommonSep = i;
        else if (i === 0) lastCommonSep = 0;
      }
    }
    let out = "";
    for (i = fromStart + lastCommonSep + 1; i <= fromEnd; ++i) {
      if (i === fromEnd || from.charCodeAt(i) === 47) out += out.length === 0 ? ".." : "/..";
    }
    return out + to.slice(toStart + lastCommonSep);
  },
  toNamespacedPath(p) { return p; },
  dirname(p) {
    assertPath(p);
    if (p.length === 0) return ".";
    const hasRoot = p.charCodeAt(0) === 47;
    let end = -1;
    let matchedSlash = true;
    for (let i = p.length - 1; i >= 1; --i) {
      if (p.charCodeAt(i) === 47) { if (!matchedSlash) { end = i; break; } }
      else matchedSlash = false;
    }
    if (end === -1) return hasRoot ? "/" : ".";
    if (hasRoot && end === 1) return "//";
    return p.slice(0, end);
  },
  basename(p, suffix) {
    assertPath(p);
    let end = p.length;
    while (end > 1 && p.charCodeAt(end - 1) === 47) end--;
    p = p.slice(0, end);
    let base = p.slice(p.lastIndexOf("/") + 1);
    if (suffix !== undefined && base.endsWith(suffix) && base !== suffix) base = base.slice(0, base.length - suffix.length);
    return base;
  },
  extname(p) {
    assertPath(p);
    const base = path.basename(p);
    const index = base.lastIndexOf(".");
    if (index <= 0 || index === base.length - 1 && base === "..") return index > 0 && base.length > 1 && base !== ".." ? "." : "";
    return base.slice(index);
  },
  format(obj) {
    const dir = obj.dir || obj.root;
    const base = obj.base || (obj.name || "") + (obj.ext ? (obj.ext[0] === "." ? "" : ".") + obj.ext : "");
    if (!dir) return base;
    return dir === obj.root ? dir + base : dir + "/" + base;
  },
  parse(p) {
    assertPath(p);
    const root = p.startsWith("/") ? "/" : "";
    const base = path.basename(p);
    const ext = path.extname(p);
    let dir = path.dirname(p);
    if (dir === "." && !p.startsWith(".")) dir = "";
    return { root, dir: p.includes("/") ? dir : "", base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
  },
  matchesGlob(p, pattern) { return new RegExp("^" + pattern.replace(/[.+^|()[\]{}\\]/g, "\\$&").replace(/\*\*\/?/g, "\u0000").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]").replace(/\u0000/g, ".*") + "$").test(p); },
};
path.posix = path;
path.win32 = path;
module.exports = path;
`;

export const GUEST_OS = String.raw`
const os = {
  EOL: "\n", platform: () => "linux", type: () => "Linux", release: () => "6.0.0-embedded", arch: () => "x64",
  hostname: () => "toolroom", homedir: () => internal.process.env.HOME || "/home/agent", tmpdir: () => "/tmp",
  cpus: () => [{ model: "embedded", speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } }],
  availableParallelism: () => 1, totalmem: () => 268435456, freemem: () => 134217728, uptime: () => internal.process.uptime(),
  loadavg: () => [0, 0, 0], networkInterfaces: () => ({}), endianness: () => "LE", machine: () => "x86_64",
  userInfo: () => ({ uid: 1000, gid: 1000, username: internal.process.env.USER || "agent", homedir: internal.process.env.HOME || "/home/agent", shell: "/bin/bash" }),
  constants: { signals: { SIGINT: 2, SIGTERM: 15, SIGKILL: 9 }, errno: {} }, devNull: "/dev/null", version: () => "#1 SMP",
};
module.exports = os;
`;

export const GUEST_TIMERS = `
const t = internal.timers;
module.exports = {
  setTimeout: t.setTimeout, setInterval: t.setInterval, setImmediate: t.setImmediate,
  clearTimeout: t.clearTimeout, clearInterval: t.clearInterval, clearImmediate: t.clearImmediate,
  promises: require("timers/promises"),
};
`;

export const GUEST_TIMERS_PROMISES = `
const t = internal.timers;
function abortError(signal) {
  const err = new Error("The operation was aborted");
  err.name = "AbortError"; err.code = "ABORT_ERR"; err.cause = signal && signal.reason;
  return err;
}
function setTimeout(ms, value, options) {
  const signal = options && options.signal;
  if (signal && signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const timer = t.setTimeout(() => resolve(value), ms);
    if (options && options.ref === false) timer.unref();
    if (signal) signal.addEventListener("abort", () => { t.clearTimeout(timer); reject(abortError(signal)); }, { once: true });
  });
}
function setImmediate(value, options) {
  const signal = options && options.signal;
  if (signal && signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve) => t.setImmediate(() => resolve(value)));
}
async function* setInterval(ms, value) {
  while (true) { await setTimeout(ms); yield value; }
}
module.exports = { setTimeout, setImmediate, setInterval, scheduler: { wait: (ms, o) => setTimeout(ms, undefined, o), yield: () => setImmediate() } };
`;

export const GUEST_URL = String.raw`
const specialPorts = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443", "ftp:": "21" };
class URLSearchParams {
  constructor(init) {
    this._list = [];
    if (typeof init === "string") this._parse(init);
    else if (init && typeof init === "object") {
      const entries = typeof init[Symbol.iterator] === "function" ? init : Object.entries(init);
      for (const [k, v] of entries) this._list.push([String(k), String(v)]);
    }
  }
  _parse(text) {
    this._list = [];
    for (const part of text.replace(/^\?/, "").split("&")) {
      if (part === "") continue;
      const index = part.indexOf("=");
      const decode = (s) => decodeURIComponent(s.replace(/\+/g, " "));
      this._list.push(index < 0 ? [decode(part), ""] : [decode(part.slice(0, index)), decode(part.slice(index + 1))]);
    }
  }
  _changed() { if (this._url) this._url._search = this._list.length ? "?" + this.toString() : ""; }
  get size() { return this._list.length; }
  append(k, v) { this._list.push([String(k), String(v)]); this._changed(); }
  delete(k) { this._list = this._list.filter(([key]) => key !== k); this._changed(); }
  get(k) { const e = this._list.find(([key]) => key === k); return e ? e[1] : null; }
  getAll(k) { return this._list.filter(([key]) => key === k).map((e) => e[1]); }
  has(k) { return this._list.some(([key]) => key === k); }
  set(k, v) {
    const i = this._list.findIndex(([key]) => key === k);
    if (i < 0) this._list.push([String(k), String(v)]);
    else { this._list[i][1] = String(v); this._list = this._list.filter(([key], j) => key !== k || j === i); }
    this._changed();
  }
  sort() { this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); this._changed(); }
  forEach(fn, thisArg) { for (const [k, v] of this._list) fn.call(thisArg, v, k, this); }
  keys() { return this._list.map((e) => e[0])[Symbol.iterator](); }
  values() { return this._list.map((e) => e[1])[Symbol.iterator](); }
  entries() { return this._list.map((e) => [e[0], e[1]])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  toString() {
    const enc = (s) => encodeURIComponent(s).replace(/%20/g, "+");
    return this._list.map(([k, v]) => enc(k) + "=" + enc(v)).join("&");
  }
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return "URLSearchParams {" + (this._list.length ? " " + this._list.map(([k, v]) => internal.strEscape(k) + " => " + internal.strEscape(v)).join(", ") + " " : "") + "}";
  }
}
class URL {
  constructor(input, base) {
    input = String(input).trim();
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(.*)$/.exec(input);
    if (!m) {
      if (base === undefined) throw internal.makeError(TypeError, "ERR_INVALID_URL", "Invalid URL", { input });
      const b = base instanceof URL ? base : new URL(base);
      let path;
      if (input.startsWith("//")) return new URL(b.protocol + input);
      if (input.startsWith("/")) path = input;
      else if (input.startsWith("?") || input.startsWith("#")) path = b.pathname + (input.startsWith("#") ? b.search : "") + input;
      else path = b.pathname.slice(0, b.pathname.lastIndexOf("/") + 1) + input;
      return new URL(b.protocol + (b.host || b.protocol === "file:" ? "//" + b.host : "") + path);
    }
    this._protocol = m[1].toLowerCase();
    let rest = m[2];
    this._username = ""; this._password = ""; this._hostname = ""; this._port = "";
    let hashIndex = rest.indexOf("#");
    this._hash = hashIndex >= 0 ? rest.slice(hashIndex) : "";
    if (hashIndex >= 0) rest = rest.slice(0, hashIndex);
    if (this._hash === "#") this._hash = "";
    const queryIndex = rest.indexOf("?");
    this._search = queryIndex >= 0 ? rest.slice(queryIndex) : "";
    if (this._search === "?") this._search = "";
    if (queryIndex >= 0) rest = rest.slice(0, queryIndex);
    if (rest.startsWith("//")) {
      rest = rest.slice(2);
      const slash = rest.indexOf("/");
      let authority = slash >= 0 ? rest.slice(0, slash) : rest;
      rest = slash >= 0 ? rest.slice(slash) : "";
      const at = authority.lastIndexOf("@");
      if (at >= 0) {
        const userinfo = authority.slice(0, at);
        authority = authority.slice(at + 1);
        const colon = userinfo.indexOf(":");
        this._username = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
        this._password = colon >= 0 ? userinfo.slice(colon + 1) : "";
      }
      const portMatch = /:(\d*)$/.exec(authority);
      if (portMatch) { this._port = portMatch[1]; authority = authority.slice(0, portMatch.index); }
      this._hostname = authority.toLowerCase();
      if (specialPorts[this._protocol] === this._port) this._port = "";
      this._pathname = rest === "" && this._protocol !== "file:" ? "/" : rest;
      if (this._protocol === "file:" && this._pathname === "") this._pathname = "/";
      this._pathname = this._pathname.split("/").reduce((acc, seg, i, all) => {
        if (seg === "..") { if (acc.length > 1) acc.pop(); if (i === all.length - 1) acc.push(""); }
        else if (seg === ".") { if (i === all.length - 1) acc.push(""); }
        else acc.push(seg);
        return acc;
      }, []).join("/").replace(/ /g, "%20");
      if (!this._pathname.startsWith("/")) this._pathname = "/" + this._pathname;
      this._opaque = false;
    } else {
      this._pathname = rest;
      this._opaque = true;
    }
    this._params = new URLSearchParams(this._search);
    this._params._url = this;
  }
  get protocol() { return this._protocol; }
  set protocol(v) { this._protocol = String(v).replace(/:?$/, ":"); }
  get username() { return this._username; }
  get password() { return this._password; }
  get hostname() { return this._hostname; }
  set hostname(v) { this._hostname = String(v); }
  get port() { return this._port; }
  set port(v) { this._port = String(v); }
  get host() { return this._hostname + (this._port ? ":" + this._port : ""); }
  get origin() { return specialPorts[this._protocol] !== undefined ? this._protocol + "//" + this.host : "null"; }
  get pathname() { return this._pathname; }
  set pathname(v) { this._pathname = String(v).startsWith("/") ? String(v) : "/" + v; }
  get search() { return this._search; }
  set search(v) { v = String(v); this._search = v === "" || v === "?" ? "" : v.startsWith("?") ? v : "?" + v; this._params._parse(this._search); }
  get searchParams() { return this._params; }
  get hash() { return this._hash; }
  set hash(v) { v = String(v); this._hash = v === "" ? "" : v.startsWith("#") ? v : "#" + v; }
  get href() {
    const auth = this._username ? this._username + (this._password ? ":" + this._password : "") + "@" : "";
    const authority = this._opaque ? "" : "//" + auth + this.host;
    return this._protocol + authority + this._pathname + this._search + this._hash;
  }
  set href(v) { Object.assign(this, new URL(v)); }
  toString() { return this.href; }
  toJSON() { return this.href; }
  static canParse(input, base) { try { new URL(input, base); return true; } catch { return false; } }
  [Symbol.for("nodejs.util.inspect.custom")](depth, options, inspect) {
    const obj = { href: this.href, origin: this.origin, protocol: this.protocol, username: this.username, password: this.password,
      host: this.host, hostname: this.hostname, port: this.port, pathname: this.pathname, search: this.search,
      searchParams: this.searchParams, hash: this.hash };
    return "URL " + inspect(obj, options).replace(/^\{/, "{");
  }
}
function fileURLToPath(url) {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "file:") throw internal.makeError(TypeError, "ERR_INVALID_URL_SCHEME", "The URL must be of scheme file");
  return decodeURIComponent(u.pathname);
}
function pathToFileURL(path) {
  const resolved = internal.resolvePath(path) + (String(path).endsWith("/") && path !== "/" ? "/" : "");
  return new URL("file://" + encodeURI(resolved).replace(/\?/g, "%3F").replace(/#/g, "%23"));
}
function parse(text) {
  try {
    const u = new URL(text);
    return { protocol: u.protocol, slashes: true, auth: u.username ? u.username + (u.password ? ":" + u.password : "") : null,
      host: u.host, port: u.port || null, hostname: u.hostname, hash: u.hash || null, search: u.search || null,
      query: u.search ? u.search.slice(1) : null, pathname: u.pathname, path: u.pathname + u.search, href: u.href };
  } catch {
    const [pathname, query] = String(text).split("?");
    return { protocol: null, slashes: null, auth: null, host: null, port: null, hostname: null, hash: null,
      search: query !== undefined ? "?" + query : null, query: query === undefined ? null : query, pathname, path: text, href: text };
  }
}
module.exports = { URL, URLSearchParams, fileURLToPath, pathToFileURL, parse, format: (u) => (typeof u === "string" ? u : u.href || String(u)),
  resolve: (from, to) => new URL(to, new URL(from, "resolve://")).href.replace(/^resolve:\/\//, "") };
`;

export const GUEST_MODULE = `
const Module = internal.Module;
module.exports = Module;
`;

export const GUEST_CHILD_PROCESS = `
function unsupported(name) {
  return () => {
    throw internal.makeError(Error, "ERR_EMBEDDED_NO_PROCESSES",
      "child_process." + name + "() is not available in the embedded sandbox: it runs JavaScript in one isolated engine and cannot start processes. Run the command from the shell instead, or use a WebContainer workspace.");
  };
}
module.exports = {
  spawn: unsupported("spawn"), spawnSync: unsupported("spawnSync"), exec: unsupported("exec"), execSync: unsupported("execSync"),
  execFile: unsupported("execFile"), execFileSync: unsupported("execFileSync"), fork: unsupported("fork"),
};
`;

export const GUEST_CRYPTO = `
function randomBytes(size, callback) {
  const Buffer = require("buffer").Buffer;
  const bytes = Buffer.from(internal.host("random", size), "hex");
  if (typeof callback === "function") { internal.nextTick(callback, null, bytes); return undefined; }
  return bytes;
}
function randomUUID() {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
}
function randomInt(min, max) { if (max === undefined) { max = min; min = 0; } return min + Math.floor(Math.random() * (max - min)); }
// The bytes are hashed by the host (hex across the boundary); the guest keeps Node's object shape.
class Hash {
  constructor(algorithm, key) {
    this._algorithm = String(algorithm);
    this._key = key;
    this._chunks = [];
    this._done = false;
  }
  update(data, inputEncoding) {
    const Buffer = require("buffer").Buffer;
    if (this._done) throw internal.makeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
    if (typeof data === "string") this._chunks.push(Buffer.from(data, inputEncoding || "utf8"));
    else if (ArrayBuffer.isView(data)) this._chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    else throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView.');
    return this;
  }
  digest(outputEncoding) {
    const Buffer = require("buffer").Buffer;
    if (this._done) throw internal.makeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
    this._done = true;
    const data = Buffer.concat(this._chunks).toString("hex");
    const hex = internal.host("hash", this._algorithm, data, this._key === undefined ? "" : this._key.toString("hex"), this._key === undefined ? 0 : 1);
    const result = Buffer.from(hex, "hex");
    return outputEncoding === undefined || outputEncoding === "buffer" ? result : result.toString(outputEncoding);
  }
  copy() {
    if (this._done) throw internal.makeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
    const copy = new Hash(this._algorithm, this._key);
    copy._chunks = this._chunks.slice();
    return copy;
  }
}
function createHash(algorithm) {
  if (!internal.host("hashKnown", String(algorithm))) throw internal.makeError(Error, "ERR_OSSL_EVP_UNSUPPORTED", "Digest method not supported");
  return new Hash(algorithm);
}
function createHmac(algorithm, key) {
  const Buffer = require("buffer").Buffer;
  if (!internal.host("hashKnown", String(algorithm))) throw internal.makeError(TypeError, "ERR_CRYPTO_INVALID_DIGEST", "Invalid digest: " + algorithm);
  const bytes = typeof key === "string" ? Buffer.from(key, "utf8") : Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return new Hash(algorithm, bytes);
}
function getHashes() { return JSON.parse(internal.host("hashNames")); }
function timingSafeEqual(a, b) {
  if (a.byteLength !== b.byteLength) throw internal.makeError(RangeError, "ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH", "Input buffers must have the same byte length");
  let diff = 0;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
const webcrypto = { getRandomValues(array) { const bytes = randomBytes(array.byteLength); new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes); return array; }, randomUUID };
if (typeof globalThis.crypto === "undefined") Object.defineProperty(globalThis, "crypto", { value: webcrypto, configurable: true, writable: true });
module.exports = { randomBytes, randomUUID, randomInt, createHash, createHmac, getHashes, timingSafeEqual, Hash, webcrypto, getRandomValues: webcrypto.getRandomValues };
`;

export const GUEST_STRING_DECODER = `
class StringDecoder {
  constructor(encoding) { this.encoding = (encoding || "utf8").toLowerCase().replace("-", ""); this._pending = []; }
  write(buf) {
    const Buffer = require("buffer").Buffer;
    if (typeof buf === "string") return buf;
    if (this.encoding !== "utf8") return Buffer.from(buf).toString(this.encoding);
    const bytes = this._pending.length ? Buffer.concat([Buffer.from(this._pending), Buffer.from(buf)]) : Buffer.from(buf);
    let end = bytes.length;
    for (let back = 1; back <= 3 && back <= bytes.length; back++) {
      const b = bytes[bytes.length - back];
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (need > back) end = bytes.length - back;
      break;
    }
    this._pending = Array.from(bytes.subarray(end));
    return bytes.subarray(0, end).toString("utf8");
  }
  end(buf) { const text = buf ? this.write(buf) : ""; const rest = this._pending.length ? require("buffer").Buffer.from(this._pending).toString("utf8") : ""; this._pending = []; return text + rest; }
}
module.exports = { StringDecoder };
`;

export const GUEST_STREAM = `
const EventEmitter = require("events");
class Stream extends EventEmitter { pipe(dest) { this.on("data", (chunk) => dest.write(chunk)); this.on("end", () => { if (dest.end && dest !== internal.process.stdout && dest !== internal.process.stderr) dest.end(); }); return dest; } }
class Readable extends Stream {
  constructor(options) { super(); this._queue = []; this._ended = false; this.readable = true; if (options && options.read) this._read = options.read; this._flowing = false; }
  static from(iterable) {
    const stream = new Readable();
    (async () => { for await (const chunk of iterable) stream.push(chunk); stream.push(null); })().catch((err) => stream.emit("error", err));
    return stream;
  }
  push(chunk) {
    if (chunk === null) { this._ended = true; this._schedule(); return false; }
    this._queue.push(chunk); this._schedule(); return true;
  }
  _schedule() {
    if (this._scheduled) return;
    this._scheduled = true;
    internal.nextTick(() => {
      this._scheduled = false;
      if (!this._flowing && this.listenerCount("data") === 0) return;
      while (this._queue.length) this.emit("data", this._queue.shift());
      if (this._ended && !this._endEmitted) { this._endEmitted = true; this.emit("end"); this.emit("close"); }
    });
  }
  on(name, fn) { super.on(name, fn); if (name === "data") { this._flowing = true; this._schedule(); } return this; }
  resume() { this._flowing = true; this._schedule(); return this; }
  pause() { this._flowing = false; return this; }
  setEncoding() { return this; }
  async *[Symbol.asyncIterator]() {
    const chunks = [];
    let done = false;
    let wake = null;
    this.on("data", (c) => { chunks.push(c); if (wake) wake(); });
    this.on("end", () => { done = true; if (wake) wake(); });
    while (true) {
      if (chunks.length) { yield chunks.shift(); continue; }
      if (done) return;
      await new Promise((resolve) => { wake = resolve; });
      wake = null;
    }
  }
}
class Writable extends Stream {
  constructor(options) { super(); this.writable = true; this._writeImpl = options && options.write; }
  write(chunk, encoding, callback) {
    if (typeof encoding === "function") callback = encoding;
    const done = (err) => { if (err) this.emit("error", err); if (callback) callback(err); };
    if (this._writeImpl) this._writeImpl.call(this, chunk, typeof encoding === "string" ? encoding : "utf8", done);
    else if (this._write) this._write(chunk, typeof encoding === "string" ? encoding : "utf8", done);
    else done();
    return true;
  }
  end(chunk, encoding, callback) {
    if (typeof chunk === "function") { callback = chunk; chunk = undefined; }
    if (chunk !== undefined) this.write(chunk, encoding);
    internal.nextTick(() => { this.emit("finish"); this.emit("close"); if (callback) callback(); });
    return this;
  }
}
class Duplex extends Readable { constructor(o) { super(o); this.writable = true; } write(c, e, cb) { return Writable.prototype.write.call(this, c, e, cb); } end(c, e, cb) { return Writable.prototype.end.call(this, c, e, cb); } }
class Transform extends Duplex {
  constructor(options) { super(options); if (options && options.transform) this._transform = options.transform; }
  _write(chunk, encoding, callback) { this._transform(chunk, encoding, (err, data) => { if (data !== undefined && data !== null) this.push(data); callback(err); }); }
  _transform(chunk, encoding, callback) { callback(null, chunk); }
}
class PassThrough extends Transform {}
function pipeline(...streams) {
  const callback = typeof streams[streams.length - 1] === "function" ? streams.pop() : null;
  for (let i = 0; i < streams.length - 1; i++) streams[i].pipe(streams[i + 1]);
  const last = streams[streams.length - 1];
  if (callback) { last.on("finish", () => callback()); last.on("error", callback); }
  return last;
}
Stream.Readable = Readable; Stream.Writable = Writable; Stream.Duplex = Duplex; Stream.Transform = Transform;
Stream.PassThrough = PassThrough; Stream.Stream = Stream; Stream.pipeline = pipeline;
Stream.promises = { pipeline: (...s) => new Promise((resolve, reject) => pipeline(...s, (err) => (err ? reject(err) : resolve()))) };
module.exports = Stream;
`;
