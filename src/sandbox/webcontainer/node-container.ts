import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FileSystemTree, SpawnOptions, WebContainerProcess } from "@webcontainer/api";
import type { Container } from "./webcontainer-sandbox.ts";

/**
 * A stand-in for a booted WebContainer, on this machine's Node, for tests where StackBlitz cannot
 * be reached. Like the real one, its processes have one output stream with stdout and stderr
 * merged, its fs API has no stat, and paths are relative to the workdir; `jsh` runs bash in a
 * terminal (util-linux `script`), so input is echoed and lines end in "\r\n".
 */
export class NodeContainer implements Container {
  readonly workdir: string;
  private readonly children = new Set<ChildProcess>();

  private constructor(workdir: string) {
    this.workdir = workdir;
  }

  static create(): NodeContainer {
    return new NodeContainer(realpathSync(mkdtempSync(join(tmpdir(), "toolroom-wc-"))));
  }

  private at(path: string): string {
    return resolve(this.workdir, path.replace(/^\/+/u, ""));
  }

  readonly fs = {
    readFile: async (path: string, encoding?: null | string) =>
      encoding ? fs.readFile(this.at(path), "utf8") : new Uint8Array(await fs.readFile(this.at(path))),
    writeFile: (path: string, data: string | Uint8Array) => fs.writeFile(this.at(path), data),
    readdir: (path: string, options?: unknown) =>
      fs.readdir(this.at(path), options as { withFileTypes: true; encoding: "utf8" }),
    mkdir: (path: string, options?: { recursive?: boolean }) => fs.mkdir(this.at(path), options),
    rm: (path: string, options?: { recursive?: boolean; force?: boolean }) => fs.rm(this.at(path), options),
    rename: (from: string, to: string) => fs.rename(this.at(from), this.at(to)),
    watch: () => {
      throw new Error("watch is not part of the stand-in");
    },
  } as unknown as Container["fs"];

  async mount(
    tree: FileSystemTree | Uint8Array | ArrayBuffer,
    options?: { mountPoint?: string },
  ): Promise<void> {
    if (!(typeof tree === "object" && !(tree instanceof Uint8Array) && !(tree instanceof ArrayBuffer))) {
      throw new Error("binary snapshots are not part of the stand-in");
    }
    const write = async (folder: string, nodes: FileSystemTree): Promise<void> => {
      await fs.mkdir(folder, { recursive: true });
      for (const [name, node] of Object.entries(nodes)) {
        const path = join(folder, name);
        if ("directory" in node) await write(path, node.directory);
        else if ("symlink" in node.file) await fs.symlink(node.file.symlink, path);
        else await fs.writeFile(path, node.file.contents);
      }
    };
    await write(this.at(options?.mountPoint ?? "."), tree);
  }

  spawn(
    command: string,
    args?: string[] | SpawnOptions,
    options?: SpawnOptions,
  ): Promise<WebContainerProcess> {
    const argv = Array.isArray(args) ? args : [];
    const opts = (Array.isArray(args) ? options : args) ?? {};
    const env = { ...process.env, ...(opts.env as Record<string, string> | undefined) };
    const cwd = this.at(opts.cwd ?? ".");
    let child: ChildProcess;
    if (command === "node") {
      child = spawn(process.execPath, argv, { cwd, env, stdio: "pipe" });
    } else if (command === "jsh") {
      const inner =
        argv[0] === "-c"
          ? `bash --norc --noprofile -c ${quote(argv[1] ?? "")}`
          : "bash --norc --noprofile --noediting -i";
      child = spawn("script", ["-qfec", inner, "/dev/null"], {
        cwd,
        env: { ...env, PS1: "$ " },
        stdio: "pipe",
      });
    } else {
      child = spawn(command, argv, { cwd, env, stdio: "pipe" });
    }
    this.children.add(child);
    const exit = new Promise<number>((done) => {
      child.on("close", (code, signal) => {
        this.children.delete(child);
        done(code ?? (signal ? 128 + 9 : 1));
      });
      child.on("error", () => done(127));
    });
    const output = new ReadableStream<string>({
      start(controller) {
        const decoder = new TextDecoder();
        const push = (chunk: Buffer) => controller.enqueue(decoder.decode(chunk, { stream: true }));
        child.stdout?.on("data", push);
        child.stderr?.on("data", push);
        child.on("close", () => controller.close());
      },
    });
    const input = new WritableStream<string>({
      write(chunk) {
        child.stdin?.write(chunk);
      },
    });
    child.stdin?.on("error", () => undefined);
    return Promise.resolve({
      exit,
      input,
      output,
      kill: () => void child.kill("SIGKILL"),
      resize: () => undefined,
    });
  }

  /** Ends every process it started and deletes its folder. */
  async destroy(): Promise<void> {
    for (const child of this.children) child.kill("SIGKILL");
    await fs.rm(this.workdir, { recursive: true, force: true });
  }
}

function quote(text: string): string {
  return `'${text.replace(/'/gu, `'\\''`)}'`;
}
