/**
 * A small Node program that runs inside the WebContainer (`node -e RUNNER_SOURCE <mode> …`).
 *
 * WebContainer's `spawn` gives one terminal stream with stdout and stderr merged, and its fs API
 * has no stat, lstat, readlink or symlink. The runner fills both gaps from inside the container:
 * - `exec <base64 request>` runs one command with separate pipes and prints each chunk as a frame;
 *   a "kill" line on its stdin stops the command (an AbortSignal from the caller).
 * - `serve` answers fs requests (`<id> <base64 json>` lines on stdin) for as long as it lives.
 *
 * A frame is `@@TR:<kind>:<id>:<base64>:RT@@` on a line of its own: printable, so a terminal passes
 * it through untouched, and easy to find among anything else the terminal prints (echoed input).
 * Plain CommonJS, no dependencies: it must run on whatever Node the container has.
 */
export const RUNNER_SOURCE = String.raw`
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

function frame(kind, id, payload) {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload));
  process.stdout.write("@@TR:" + kind + ":" + id + ":" + bytes.toString("base64") + ":RT@@\n");
}

function typeOf(stat) {
  return stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "directory" : "file";
}

function statInfo(stat) {
  return { type: typeOf(stat), size: stat.size, mtimeMs: stat.mtimeMs, mode: stat.mode & 0o7777 };
}

function fail(error) {
  return { error: { code: error && error.code ? String(error.code) : "EIO", message: String(error && error.message || error) } };
}

function lines(onLine) {
  let pending = "";
  if (process.stdin.isTTY && process.stdin.setRawMode) process.stdin.setRawMode(true);
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    pending += chunk;
    let index;
    while ((index = pending.search(/[\r\n]/)) >= 0) {
      const line = pending.slice(0, index);
      pending = pending.slice(index + 1);
      if (line.trim() !== "") onLine(line.trim());
    }
  });
}

function killTree(child) {
  try { process.kill(-child.pid, "SIGKILL"); } catch (_) { try { child.kill("SIGKILL"); } catch (_) {} }
}

function exec(request) {
  const cwd = request.cwd;
  let isDir = false;
  try { isDir = fs.statSync(cwd).isDirectory(); } catch (_) {}
  if (!isDir) {
    frame("err", 0, "cd: " + cwd + ": No such file or directory\n");
    frame("end", 0, { exitCode: 1, timedOut: false });
    return;
  }
  const child = spawn(request.command, {
    shell: true,
    cwd,
    env: Object.assign({}, process.env, request.env || {}),
    stdio: ["pipe", "pipe", "pipe"],
    detached: process.platform !== "win32",
  });
  let done = false;
  let timedOut = false;
  const finish = (code, signal) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    const exitCode = typeof code === "number" ? code : signal === "SIGKILL" ? 137 : signal ? 143 : 1;
    frame("end", 0, { exitCode, timedOut });
    // Stop listening for "kill" so that the runner can exit once its output is flushed.
    process.stdin.destroy();
  };
  const stop = () => {
    killTree(child);
    // A grandchild may keep the pipes open after the kill: stop waiting for them.
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish(null, "SIGKILL");
    }, 250).unref();
  };
  child.stdout.on("data", (chunk) => frame("out", 0, chunk));
  child.stderr.on("data", (chunk) => frame("err", 0, chunk));
  child.on("error", (error) => {
    frame("err", 0, String(error.message) + "\n");
    finish(127);
  });
  child.on("close", finish);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, Math.max(1, request.timeoutMs));
  child.stdin.on("error", () => {});
  child.stdin.end(request.stdin || "");
  lines((line) => { if (line === "kill") stop(); });
}

const ops = {
  lstat: (r) => statInfo(fs.lstatSync(r.path)),
  stat: (r) => statInfo(fs.statSync(r.path)),
  readlink: (r) => fs.readlinkSync(r.path),
  symlink: (r) => { fs.symlinkSync(r.target, r.path); return null; },
  chmod: (r) => { fs.chmodSync(r.path, r.mode); return null; },
  chmodAll: (r) => { for (const [file, mode] of r.modes) fs.chmodSync(path.join(r.root, file), mode); return null; },
  readFile: (r) => fs.readFileSync(r.path).toString("base64"),
  writeFile: (r) => { fs.writeFileSync(r.path, Buffer.from(r.base64, "base64")); return null; },
  readdir: (r) => fs.readdirSync(r.path, { withFileTypes: true }).map((d) => ({
    name: d.name,
    type: d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "directory" : "file",
  })),
  mkdir: (r) => { fs.mkdirSync(r.path, { recursive: !!r.recursive }); return null; },
  rm: (r) => { fs.rmSync(r.path, { recursive: !!r.recursive, force: !!r.force }); return null; },
  rename: (r) => { fs.renameSync(r.from, r.to); return null; },
  snapshot: (r) => {
    const entries = [];
    const walk = (relative) => {
      const absolute = relative === "" ? r.root : path.join(r.root, relative);
      const names = fs.readdirSync(absolute).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const name of names) {
        const rel = relative === "" ? name : relative + "/" + name;
        const full = path.join(r.root, rel);
        const stat = fs.lstatSync(full);
        if (stat.isSymbolicLink()) entries.push({ path: rel, type: "symlink", target: fs.readlinkSync(full) });
        else if (stat.isDirectory()) { entries.push({ path: rel, type: "directory" }); walk(rel); }
        else entries.push({ path: rel, type: "file", mode: stat.mode & 0o7777, base64: fs.readFileSync(full).toString("base64") });
      }
    };
    walk("");
    return entries;
  },
  ping: () => "pong",
};

function serve() {
  lines((line) => {
    const space = line.indexOf(" ");
    const id = line.slice(0, space);
    let reply;
    try {
      const request = JSON.parse(Buffer.from(line.slice(space + 1), "base64").toString("utf8"));
      const op = ops[request.op];
      reply = op ? { value: op(request) } : fail(new Error("unknown op " + request.op));
    } catch (error) {
      reply = fail(error);
    }
    frame("res", id, reply);
  });
  frame("ready", 0, {});
}

const mode = process.argv[process.argv.length - 2] === "exec" ? "exec" : process.argv[process.argv.length - 1];
if (mode === "exec") exec(JSON.parse(Buffer.from(process.argv[process.argv.length - 1], "base64").toString("utf8")));
else serve();
`;

export interface Frame {
  kind: string;
  id: string;
  data: Uint8Array;
}

const MARK = "@@TR:";
const END = ":RT@@";
const FRAME = /^@@TR:([a-z]+):([0-9]+):([A-Za-z0-9+/=]*):RT@@$/u;

/** Finds frames in a terminal stream, chunk by chunk; anything between frames is ignored. */
export class FrameReader {
  private pending = "";

  push(chunk: string): Frame[] {
    this.pending += chunk;
    const frames: Frame[] = [];
    for (;;) {
      const start = this.pending.indexOf(MARK);
      if (start < 0) {
        // Keep a tail that may be the beginning of a mark split across chunks.
        this.pending = this.pending.slice(-(MARK.length - 1));
        return frames;
      }
      const end = this.pending.indexOf(END, start);
      if (end < 0) {
        this.pending = this.pending.slice(start);
        return frames;
      }
      const match = FRAME.exec(this.pending.slice(start, end + END.length));
      this.pending = this.pending.slice(end + END.length);
      if (match) frames.push({ kind: match[1]!, id: match[2]!, data: base64ToBytes(match[3]!) });
    }
  }
}

export function encodeRequest(request: unknown): string {
  return bytesToBase64(new TextEncoder().encode(JSON.stringify(request)));
}

export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(new TextDecoder().decode(data)) as T;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
