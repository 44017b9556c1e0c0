/**
 * Guest source (runs inside QuickJS) of node:fs: the sync API calls the host's mirror directly; the
 * callback and promise APIs wrap the sync calls (the mirror answers at once, the host writes back later).
 */
export const GUEST_FS = `
const { Buffer } = require("buffer");
const host = internal.host;
const S_IFMT = 0o170000, S_IFREG = 0o100000, S_IFDIR = 0o040000, S_IFLNK = 0o120000;
const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024,
  S_IFMT, S_IFREG, S_IFDIR, S_IFLNK, COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2, UV_DIRENT_FILE: 1, UV_DIRENT_DIR: 2, UV_DIRENT_LINK: 3 };
function toPath(path, name) {
  if (path instanceof URL) return require("url").fileURLToPath(path);
  if (Buffer.isBuffer(path)) path = path.toString();
  if (typeof path !== "string") {
    throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "' + (name || "path") + '" argument must be of type string or an instance of Buffer or URL. Received ' + internal.inspect(path));
  }
  return internal.resolvePath(path);
}
function encodingOf(options) { return typeof options === "string" ? options : options && options.encoding; }
class Stats {
  constructor(raw) {
    const type = raw.kind === "directory" ? S_IFDIR : raw.kind === "symlink" ? S_IFLNK : S_IFREG;
    this.dev = 2049; this.mode = type | (raw.mode & 0o7777); this.nlink = 1; this.uid = 1000; this.gid = 1000; this.rdev = 0;
    this.blksize = 4096; this.ino = 0; this.size = raw.size; this.blocks = Math.ceil(raw.size / 512);
    this.atimeMs = raw.mtimeMs; this.mtimeMs = raw.mtimeMs; this.ctimeMs = raw.mtimeMs; this.birthtimeMs = raw.mtimeMs;
    this.atime = new Date(raw.mtimeMs); this.mtime = new Date(raw.mtimeMs); this.ctime = new Date(raw.mtimeMs); this.birthtime = new Date(raw.mtimeMs);
  }
  isFile() { return (this.mode & S_IFMT) === S_IFREG; }
  isDirectory() { return (this.mode & S_IFMT) === S_IFDIR; }
  isSymbolicLink() { return (this.mode & S_IFMT) === S_IFLNK; }
  isBlockDevice() { return false; } isCharacterDevice() { return false; } isFIFO() { return false; } isSocket() { return false; }
}
class Dirent {
  constructor(name, kind, parentPath) { this.name = name; this._kind = kind; this.parentPath = parentPath; this.path = parentPath; }
  isFile() { return this._kind === "file"; } isDirectory() { return this._kind === "directory"; } isSymbolicLink() { return this._kind === "symlink"; }
  isBlockDevice() { return false; } isCharacterDevice() { return false; } isFIFO() { return false; } isSocket() { return false; }
}
function readFileSync(path, options) {
  const encoding = encodingOf(options);
  let bytes;
  if (path === 0 || path === "/dev/stdin") bytes = internal.encodeUtf8(internal.rawHost("stdin"));
  else bytes = new Uint8Array(host("fs", "read", toPath(path)));
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return encoding ? buffer.toString(encoding) : buffer;
}
function dataBytes(data, options) {
  if (typeof data === "string") return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice().buffer;
  if (data instanceof ArrayBuffer) return data.slice(0);
  return String(data);
}
function stringData(data, options) {
  const encoding = encodingOf(options);
  if (typeof data === "string" && encoding && encoding !== "utf8" && encoding !== "utf-8") return Buffer.from(data, encoding);
  return data;
}
function writeFileSync(file, data, options) {
  if (file === 1 || file === 2) { internal.rawHost("write", file, typeof data === "string" ? data : Buffer.from(data).toString()); return; }
  const flag = options && typeof options === "object" && options.flag;
  const path = toPath(file);
  if (flag === "wx" && host("fs", "exists", path)) throw internal.hostError({ code: "EEXIST", errno: -17, syscall: "open", path, message: "EEXIST: file already exists, open '" + path + "'" });
  host("fs", "write", path, dataBytes(stringData(data, options)), flag === "a" || flag === "a+");
}
function appendFileSync(file, data, options) {
  host("fs", "write", toPath(file), dataBytes(stringData(data, options)), true);
}
function existsSync(path) {
  try { return host("fs", "exists", toPath(path)); } catch { return false; }
}
function statSync(path, options) {
  try { return new Stats(JSON.parse(host("fs", "stat", toPath(path)))); }
  catch (err) { if (options && options.throwIfNoEntry === false && err.code === "ENOENT") return undefined; throw err; }
}
function lstatSync(path, options) {
  try { return new Stats(JSON.parse(host("fs", "lstat", toPath(path)))); }
  catch (err) { if (options && options.throwIfNoEntry === false && err.code === "ENOENT") return undefined; throw err; }
}
function readdirSync(path, options) {
  const dir = toPath(path);
  const withTypes = options && typeof options === "object" && options.withFileTypes;
  const recursive = options && typeof options === "object" && options.recursive;
  const out = [];
  const walk = (current, prefix) => {
    for (const entry of JSON.parse(host("fs", "readdir", current))) {
      const name = prefix ? prefix + "/" + entry.name : entry.name;
      out.push(withTypes ? new Dirent(entry.name, entry.kind, prefix ? dir + "/" + prefix : dir) : name);
      if (recursive && entry.kind === "directory") walk(current + "/" + entry.name, name);
    }
  };
  walk(dir, "");
  const encoding = encodingOf(options);
  return encoding === "buffer" ? out.map((n) => Buffer.from(n)) : out;
}
function mkdirSync(path, options) {
  const recursive = typeof options === "object" && options !== null && Boolean(options.recursive);
  const first = host("fs", "mkdir", toPath(path), recursive);
  return recursive ? first : undefined;
}
function rmSync(path, options) {
  host("fs", "rm", toPath(path), Boolean(options && options.recursive), Boolean(options && options.force));
}
function rmdirSync(path, options) { host("fs", "rmdir", toPath(path), Boolean(options && options.recursive)); }
function unlinkSync(path) { host("fs", "unlink", toPath(path)); }
function renameSync(from, to) { host("fs", "rename", toPath(from, "oldPath"), toPath(to, "newPath")); }
function copyFileSync(from, to, mode) {
  if (mode & 1 && existsSync(to)) throw internal.hostError({ code: "EEXIST", errno: -17, syscall: "copyfile", path: toPath(from), message: "EEXIST: file already exists, copyfile '" + toPath(from) + "' -> '" + toPath(to) + "'" });
  host("fs", "copy", toPath(from, "src"), toPath(to, "dest"));
}
function cpSync(from, to, options) {
  const src = toPath(from), dest = toPath(to);
  const stat = statSync(src);
  if (stat.isDirectory()) {
    if (!(options && options.recursive)) throw internal.makeError(Error, "ERR_FS_EISDIR", "Recursive option is required to copy a directory: " + src);
    mkdirSync(dest, { recursive: true });
    for (const name of readdirSync(src)) cpSync(src + "/" + name, dest + "/" + name, options);
  } else copyFileSync(src, dest);
}
function symlinkSync(target, path) { host("fs", "symlink", String(target), toPath(path)); }
function readlinkSync(path) { return host("fs", "readlink", toPath(path)); }
function realpathSync(path) { return host("fs", "realpath", toPath(path)); }
realpathSync.native = realpathSync;
function accessSync(path) {
  const target = toPath(path);
  if (!host("fs", "exists", target)) throw internal.hostError({ code: "ENOENT", errno: -2, syscall: "access", path: target, message: "ENOENT: no such file or directory, access '" + target + "'" });
}
function chmodSync(path, mode) { host("fs", "chmod", toPath(path), typeof mode === "string" ? parseInt(mode, 8) : mode); }
function utimesSync(path, atime, mtime) { host("fs", "utimes", toPath(path), typeof mtime === "number" ? mtime * 1000 : new Date(mtime).getTime()); }
function truncateSync(path, len) { const data = readFileSync(path); writeFileSync(path, data.subarray(0, len || 0)); }
function mkdtempSync(prefix) {
  const path = prefix + Math.random().toString(36).slice(2, 8);
  mkdirSync(path);
  return path;
}
// Descriptors: a small table over whole-file reads and writes.
const fds = new Map();
let nextFd = 10;
function openSync(path, flags) {
  const target = toPath(path);
  flags = flags || "r";
  if (flags[0] === "r" && !existsSync(target)) readFileSync(target);
  if (flags[0] === "w") writeFileSync(target, "");
  if (flags[0] === "a" && !existsSync(target)) writeFileSync(target, "");
  const fd = nextFd++;
  fds.set(fd, { path: target, position: 0, flags });
  return fd;
}
function closeSync(fd) { fds.delete(fd); }
function fdEntry(fd) {
  const entry = fds.get(fd);
  if (!entry) throw internal.makeError(Error, "EBADF", "EBADF: bad file descriptor");
  return entry;
}
function writeSync(fd, data, offsetOrPosition, lengthOrEncoding) {
  if (fd === 1 || fd === 2) { const text = typeof data === "string" ? data : Buffer.from(data).toString(); internal.rawHost("write", fd, text); return text.length; }
  const entry = fdEntry(fd);
  const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data);
  appendFileSync(entry.path, bytes);
  return bytes.length;
}
function readSync(fd, buffer, offset, length, position) {
  if (typeof offset === "object" && offset !== null) { ({ offset = 0, length = buffer.length, position = null } = offset); }
  offset = offset || 0; length = length === undefined ? buffer.length - offset : length;
  const entry = fd === 0 ? null : fdEntry(fd);
  const data = fd === 0 ? readFileSync(0) : readFileSync(entry.path);
  const start = position === null || position === undefined ? (entry ? entry.position : 0) : position;
  const chunk = data.subarray(start, start + length);
  buffer.set(chunk, offset);
  if (entry && (position === null || position === undefined)) entry.position += chunk.length;
  return chunk.length;
}
function fstatSync(fd) { return statSync(fdEntry(fd).path); }
function fsyncSync() {}
const syncApi = { readFileSync, writeFileSync, appendFileSync, existsSync, statSync, lstatSync, readdirSync, mkdirSync, rmSync, rmdirSync,
  unlinkSync, renameSync, copyFileSync, cpSync, symlinkSync, readlinkSync, realpathSync, accessSync, chmodSync, utimesSync,
  truncateSync, mkdtempSync, openSync, closeSync, writeSync, readSync, fstatSync, fsyncSync };
const fs = Object.assign({}, syncApi);
const promises = {};
for (const [name, fn] of Object.entries(syncApi)) {
  const base = name.slice(0, -4);
  if (base === "exists") continue;
  fs[base] = function (...args) {
    const callback = typeof args[args.length - 1] === "function" ? args.pop() : null;
    let result, error = null;
    try { result = fn(...args); } catch (err) { error = err; }
    if (callback) internal.nextTick(() => (error ? callback(error) : callback(null, result)));
  };
  promises[base] = (...args) => new Promise((resolve, reject) => {
    try { resolve(fn(...args)); } catch (err) { reject(err); }
  });
}
fs.exists = (path, callback) => internal.nextTick(() => callback(existsSync(path)));
fs.realpath.native = fs.realpath;
promises.constants = constants;
promises.open = async (path, flags) => {
  const fd = openSync(path, flags);
  return { fd, readFile: (o) => promises.readFile(fds.get(fd).path, o), writeFile: (d, o) => promises.writeFile(fds.get(fd).path, d, o),
    write: async (d) => ({ bytesWritten: writeSync(fd, d) }), close: async () => closeSync(fd), stat: async () => fstatSync(fd) };
};
promises.opendir = async (path) => {
  const entries = readdirSync(path, { withFileTypes: true });
  return { async *[Symbol.asyncIterator]() { yield* entries; }, async close() {}, async read() { return entries.shift() || null; } };
};
fs.promises = promises;
fs.constants = constants;
Object.assign(fs, constants);
fs.Stats = Stats;
fs.Dirent = Dirent;
fs.createReadStream = (path, options) => {
  const { Readable } = require("stream");
  const stream = new Readable();
  const encoding = encodingOf(options);
  internal.nextTick(() => {
    try { stream.push(readFileSync(path, encoding)); stream.push(null); stream.emit("open"); }
    catch (err) { stream.emit("error", err); }
  });
  stream.path = toPath(path);
  return stream;
};
fs.createWriteStream = (path, options) => {
  const { Writable } = require("stream");
  const target = toPath(path);
  const append = options && options.flags && options.flags[0] === "a";
  if (!append) writeFileSync(target, "");
  const stream = new Writable({ write(chunk, encoding, callback) { appendFileSync(target, chunk); callback(); } });
  stream.path = target;
  stream.bytesWritten = 0;
  return stream;
};
fs.watch = () => { throw internal.makeError(Error, "ERR_EMBEDDED_UNSUPPORTED", "fs.watch is not available in the embedded sandbox"); };
fs.watchFile = fs.watch;
module.exports = fs;
`;

export const GUEST_FS_PROMISES = `
module.exports = require("fs").promises;
`;
