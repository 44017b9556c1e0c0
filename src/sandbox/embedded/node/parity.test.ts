import { spawnSync } from "node:child_process";
import { Bash, InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { createNodeCommands } from "./index.ts";

/** Small programs whose stdout must match real Node's byte for byte. */
const SNIPPETS: Record<string, string> = {
  path: `const p = require("path");
console.log(p.join("/a/b", "../c", "./d"), p.resolve("/x", "y", "..", "z"), p.relative("/a/b/c", "/a/d"));
console.log(p.dirname("/a/b/c.txt"), p.basename("/a/b/c.txt", ".txt"), p.extname("x.tar.gz"), p.extname(".bashrc"));
console.log(p.parse("/home/u/file.js"), p.format({ dir: "/tmp", name: "f", ext: ".md" }), p.normalize("a//b/../c/"), p.isAbsolute("./x"));`,
  "inspect nesting and arrays": `const util = require("util");
console.log({ a: { b: { c: { d: { e: 1 } } } } });
console.log([[1, [2, [3, [4]]]]], new Array(120).fill(7));
console.log({ s: "multi\\nline", q: "it's", dq: 'say "hi"', both: "it's \\"x\\"" });
console.log(util.inspect({ a: 1, b: "x" }, { compact: false }), util.inspect([1, 2], { depth: 0 }));
console.log(Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i).repeat(i % 4 + 1)));
console.log({ und: undefined, nul: null, nan: NaN, inf: -Infinity, big: 123n, sym: Symbol.iterator });`,
  "inspect special objects": `class Temp { constructor() { this.celsius = 21; } get kelvin() { return this.celsius + 273; } }
class Sub extends Temp {}
console.log(new Temp(), new Sub(), [new Temp()], Object.create(null), Object.assign(Object.create(null), { x: 1 }));
console.log(new Map([[{ k: 1 }, new Set([1])]]), new WeakMap(), [function named() {}, () => {}, async () => {}, function* gen() {}]);
console.log(new Date(86400000), /x\\/y/m, new Error("bare").message, [new Uint8Array([1, 2, 3])], new ArrayBuffer(3));
console.log(Object.assign(() => {}, { extra: true }), Object.assign([1, 2], { tag: "t" }), new Number(3), new String("s"));
const e = new RangeError("out of range"); e.code = "E_RANGE"; console.log(Object.keys(e), String(e));`,
  format: `const util = require("util");
console.log(util.format("%s|%s|%s", "a", 1, { toString() { return "custom"; } }), util.format("%d %i %f", "42.5", "42.5", "1.25"));
console.log(util.format("%j %%s %s", { a: [1] }), util.format("%O", { deep: { deeper: { deepest: {} } } }), util.format("no args %s"));
console.log(util.format(1, 2, "three"), util.format("%s", null, undefined), util.format("%c styled", "color: red"));
console.log("%s and %s", "first", "second", "rest");`,
  console: `console.table([{ a: 1, b: "x" }, { a: 2, c: true }]);
console.table(["p", "q"]);
console.group("group"); console.log("inside"); console.group(); console.log("deeper"); console.groupEnd(); console.groupEnd(); console.log("out");
console.count(); console.count(); console.count("label"); console.countReset(); console.count();
console.dir({ a: { b: { c: { d: 1 } } } }, { depth: 0 }); console.info("info"); console.debug("debug");`,
  buffer: `const b = Buffer.from("Hello, Wörld");
console.log(b, b.length, b.toString("base64"), b.toString("hex").slice(0, 10), b.subarray(0, 5).toString());
console.log(Buffer.alloc(4, "ab"), Buffer.from([256, -1, 65]), Buffer.compare(Buffer.from("a"), Buffer.from("b")), b.indexOf("W"));
const w = Buffer.alloc(8); w.writeUInt32BE(0xdeadbeef, 0); w.writeInt16LE(-2, 4); console.log(w, w.readUInt32BE(0).toString(16), w.readInt16LE(4));
console.log(JSON.stringify(Buffer.from("hi")), Buffer.isBuffer(b), Buffer.byteLength("héllo"), b.equals(Buffer.from("Hello, Wörld")));`,
  events: `const EventEmitter = require("events");
class Bus extends EventEmitter {}
const bus = new Bus();
bus.on("x", (a, b) => console.log("x", a, b));
bus.prependListener("x", () => console.log("first"));
bus.once("y", () => console.log("y once"));
bus.emit("x", 1, 2); bus.emit("y"); bus.emit("y");
console.log(bus.eventNames(), bus.listenerCount("x"), bus.emit("nothing"));
try { bus.emit("error", new Error("unhandled bus error")); } catch (e) { console.log("thrown:", e.message); }
EventEmitter.once(bus, "z").then(([v]) => console.log("awaited", v)); bus.emit("z", 9);`,
  "errors and classes": `class ValidationError extends Error {
  constructor(field) { super("invalid " + field); this.name = "ValidationError"; this.field = field; }
}
const err = new ValidationError("email");
console.log(err instanceof ValidationError, err instanceof Error, err.name, err.message, err.field);
console.log(err.stack.split("\\n")[0], String(err), Object.prototype.toString.call(err));
try { null.x; } catch (e) { console.log(e instanceof TypeError, e.constructor.name); }
try { undefinedVariable; } catch (e) { console.log(e.name); }
const withCause = new Error("outer", { cause: "inner" }); console.log(withCause.cause);`,
  "url and encoding": `const { URL, URLSearchParams, fileURLToPath, pathToFileURL } = require("url");
const u = new URL("https://user:pw@example.com:8080/a/b/../c?x=1&y=two#frag");
console.log(u.href, u.origin, u.host, u.pathname, u.search, u.hash, u.searchParams.get("y"));
const q = new URLSearchParams({ a: "1 2", b: "&" }); q.append("a", "3"); console.log(q.toString(), q.getAll("a"));
console.log(fileURLToPath("file:///tmp/a%20b.txt"), pathToFileURL("/tmp/x y.js").href, new URL("../up", "http://h/a/b/c").href);
console.log(new TextEncoder().encode("€"), new TextDecoder().decode(new Uint8Array([0xe2, 0x82, 0xac])), btoa("hi"), atob("aGk="));
console.log(JSON.stringify({ date: new Date(0), nested: [1, { a: undefined }] }), structuredClone({ m: new Map([[1, 2]]) }));`,
  "timers and microtasks": `const order = [];
setTimeout(() => order.push("t1"), 0);
setTimeout(() => { order.push("t2"); Promise.resolve().then(() => order.push("t2-micro")); }, 1);
setTimeout(() => { order.push("t3"); console.log(order.join(" ")); }, 20);
Promise.resolve().then(() => order.push("micro1")).then(() => order.push("micro2"));
process.nextTick(() => order.push("tick"));
const t = setTimeout(() => order.push("never"), 5); clearTimeout(t);
const i = setInterval(() => { order.push("iv"); clearInterval(i); }, 2);`,
  "async and generators": `async function* count(n) { for (let i = 0; i < n; i++) { await null; yield i; } }
(async () => {
  const seen = []; for await (const v of count(3)) seen.push(v); console.log(seen);
  const results = await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error("no")), new Promise((r) => setTimeout(() => r(3), 5))]);
  console.log(results.map((r) => r.status + ":" + (r.value ?? r.reason.message)));
  console.log(await Promise.race([new Promise((r) => setTimeout(() => r("slow"), 20)), new Promise((r) => setTimeout(() => r("fast"), 1))]));
  try { await Promise.any([Promise.reject(new Error("a")), Promise.reject(new Error("b"))]); } catch (e) { console.log(e.constructor.name, e.errors.length); }
  const { promisify } = require("util"); console.log(await promisify(setTimeout)(1, "via promisify"));
})();`,
  "assert messages": `const assert = require("assert");
const show = (fn) => { try { fn(); console.log("no error"); } catch (e) { console.log(JSON.stringify([e.name, e.code, e.message, e.operator, e.generatedMessage])); } };
show(() => assert.strictEqual(1, 2));
show(() => assert.strictEqual("a fairly long string value", "a fairly long string valve"));
show(() => assert.deepStrictEqual({ a: [1, 2, { b: 3 }], c: "x" }, { a: [1, 2, { b: 4 }], c: "x" }));
show(() => assert.deepStrictEqual([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 9]));
show(() => assert.deepEqual({ a: 1 }, { a: 2 }));
show(() => assert.notDeepStrictEqual({ a: 1 }, { a: 1 }));
show(() => assert.notStrictEqual("same", "same"));
show(() => assert.equal(null, 0));
show(() => assert.notEqual(1, "1"));
show(() => assert.strictEqual({ x: 1 }, { x: 1 }));
show(() => assert.throws(() => {}));
show(() => assert.throws(() => { throw new TypeError("t"); }, RangeError));
show(() => assert.throws(() => { throw new Error("message here"); }, { message: "other" }));
show(() => assert.match("abc", /x/));
show(() => assert.doesNotMatch("abc", /b/));
show(() => assert.fail());
show(() => assert.ifError(new Error("bad")));
show(() => assert.ok(null, "explicit message"));
show(() => assert.strictEqual(NaN, NaN));
show(() => assert.deepStrictEqual(new Set([1, 2]), new Set([1, 3])));`,
  crypto: `const crypto = require("node:crypto");
for (const name of ["md5", "sha1", "sha256", "SHA512", "sha384", "sha224", "sha3-256", "ripemd160", "sha512-256"])
  console.log(name, crypto.createHash(name).update("hello ").update(Buffer.from("wörld")).digest("hex"));
console.log(crypto.createHash("sha256").update("").digest("base64"), crypto.createHash("md5").update("6869", "hex").digest());
console.log(crypto.createHmac("sha256", "key").update("message").digest("hex"), crypto.createHmac("sha1", Buffer.from([1, 2, 3])).update("x").digest("base64url"));
const h = crypto.createHash("sha1").update("a"); const c = h.copy(); console.log(h.digest("hex") === c.update("").digest("hex"));
try { h.digest(); } catch (e) { console.log(e.code, e.message); }
try { crypto.createHash("nope"); } catch (e) { console.log(e.message); }
try { crypto.createHmac("nope", "k"); } catch (e) { console.log(e.name, e.code, e.message); }
console.log(crypto.timingSafeEqual(Buffer.from("ab"), Buffer.from("ab")), crypto.timingSafeEqual(Buffer.from("ab"), Buffer.from("ac")));
const r = crypto.randomBytes(100000); console.log(r.length, new Set(r).size > 200, crypto.randomBytes(16).equals(crypto.randomBytes(16)), /^[0-9a-f-]{36}$/.test(crypto.randomUUID()));
const v = crypto.getRandomValues(new Uint32Array(4)); console.log(v.length, v.some((x) => x !== 0));`,
  process: `console.log(process.argv.length, typeof process.argv[0], process.exitCode, process.platform, typeof process.pid);
console.log(typeof process.hrtime.bigint(), Array.isArray(process.hrtime()), typeof process.uptime(), process.cwd() === require("path").resolve("."));
console.log(typeof process.env, process.env.DOES_NOT_EXIST, typeof process.memoryUsage().heapUsed, process.release.name);
process.stdout.write("no newline|"); process.stdout.write("done\\n");
process.on("exit", (c) => console.log("exiting", c)); process.exitCode = 0;`,
};

function realNode(code: string): string {
  return spawnSync(process.execPath, ["-e", code], { encoding: "utf8", cwd: "/" }).stdout;
}

describe("embedded node prints what real Node prints", () => {
  const bash = new Bash({ fs: new InMemoryFs(), cwd: "/", customCommands: createNodeCommands() });
  it.each(Object.entries(SNIPPETS))("%s", async (_name, code) => {
    const quoted = `'${code.replace(/'/gu, `'\\''`)}'`;
    const embedded = await bash.exec(`node -e ${quoted}`);
    expect(embedded.stderr).toBe("");
    expect(embedded.stdout).toBe(realNode(code));
  });
});

/** Programs reading piped stdin: stdout must match real Node's given the same input. */
const STDIN_SNIPPETS: Record<string, string> = {
  "readline line events": `const rl = require("readline").createInterface({ input: process.stdin });
rl.on("line", (line) => console.log("line", JSON.stringify(line)));
rl.on("close", () => console.log("closed"));`,
  "readline async iteration": `(async () => {
  const rl = require("node:readline").createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) console.log(++n, line.toUpperCase());
  console.log("total", n);
})();`,
  "readline question": `const rl = require("readline").createInterface({ input: process.stdin, output: process.stdout });
rl.question("name? ", (name) => { rl.question("age? ", (age) => { console.log(name + "/" + age); rl.close(); }); });`,
  "readline/promises question": `const readline = require("readline/promises");
(async () => { const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
const a = await rl.question("a? "); const b = await rl.question("b? "); console.log(Number(a) + Number(b)); rl.close(); })();`,
  "stdin data chunks are Buffers": `const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => { const all = Buffer.concat(chunks); console.log(Buffer.isBuffer(chunks[0]), all.length, all.toString().split("\\n").length); });`,
  "stdin with an encoding": `process.stdin.setEncoding("utf8"); let text = "";
process.stdin.on("data", (c) => { text += c; }).on("end", () => console.log(typeof text, JSON.stringify(text)));`,
};
const STDIN = "3\n4\nwörld\r\nlast without newline";

describe("embedded node reads piped stdin as real Node does", () => {
  const bash = new Bash({ fs: new InMemoryFs(), cwd: "/", customCommands: createNodeCommands() });
  it.each(Object.entries(STDIN_SNIPPETS))("%s", async (_name, code) => {
    const quoted = `'${code.replace(/'/gu, `'\\''`)}'`;
    const embedded = await bash.exec(`node -e ${quoted}`, { stdin: STDIN });
    expect(embedded.stderr).toBe("");
    const real = spawnSync(process.execPath, ["-e", code], {
      encoding: "utf8",
      cwd: "/",
      input: STDIN,
    }).stdout;
    expect(embedded.stdout).toBe(real);
  });
});
