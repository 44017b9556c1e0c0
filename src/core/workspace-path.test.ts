import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { writeTextFile } from "../tools/write-text.ts";
import { isToolFailure } from "./errors.ts";
import type { Runtime } from "./runtime.ts";
import { createToolContext } from "./tool-context.ts";
import { normalizeWorkspacePath, resolveWorkspacePath } from "./workspace-path.ts";

const SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE";

/** Attempts of our own making to reach outside /workspace. Every one must be refused. */
function escapeAttempts(): string[] {
  const attempts = new Set<string>();
  const targets = ["secret.txt", "etc/passwd", "", "workspace-sibling/x", "tmp/x"];
  // Relative climbing, in many spellings.
  for (let depth = 1; depth <= 12; depth++) {
    attempts.add(`${"../".repeat(depth)}secret.txt`);
    attempts.add(`${"..\\".repeat(depth)}secret.txt`);
    attempts.add(`${"src/".repeat(depth)}${"../".repeat(depth + 1)}secret.txt`);
  }
  for (const target of targets) {
    attempts.add(`../${target}`);
    attempts.add(`./../${target}`);
    attempts.add(`src/../../${target}`);
    attempts.add(`src//..//..//${target}`);
    attempts.add(`src/./.././../${target}`);
    attempts.add(`a/b/c/../../../../${target}`);
    attempts.add(`..//${target}`);
    attempts.add(`../workspace/../${target}`);
  }
  // Each spelling of "../" climbing one to four levels.
  for (const climb of [
    "%2e%2e%2f",
    "%2e%2e/",
    "..%2f",
    "%252e%252e%252f",
    "..%5c",
    "\uff0e\uff0e/",
    "..\u2215",
  ]) {
    for (let depth = 1; depth <= 4; depth++) attempts.add(`${climb.repeat(depth)}secret.txt`);
  }
  attempts.add("..");
  attempts.add("../");
  attempts.add("../.");
  attempts.add(".. ");
  attempts.add(" ..");
  attempts.add("... /secret.txt".replace(" ", ""));
  attempts.add("..../secret.txt");
  attempts.add("....//secret.txt");
  // Absolute paths outside the workspace, and tricks on the workspace's own name.
  for (const absolute of [
    "/secret.txt",
    "/etc/passwd",
    "/",
    "//secret.txt",
    "///etc/passwd",
    "/workspace/../secret.txt",
    "/workspace/./../secret.txt",
    "/workspace/..",
    "/workspace2/x",
    "/workspaces",
    "/workspace-sibling/x",
    "/tmp/x",
    "/proc/self/environ",
    "/dev/null",
    "/bin/sh",
    "/usr/bin/env",
    "/home/user/.ssh/id_rsa",
    "/root/.bashrc",
    "\\secret.txt",
    "\\etc\\passwd",
    "/WORKSPACE/secret.txt",
  ]) {
    attempts.add(absolute);
  }
  // Percent-encoding, single, double, mixed case, overlong UTF-8.
  for (const encoded of [
    "%2e%2e/secret.txt",
    "%2E%2E/secret.txt",
    "%2e%2e%2fsecret.txt",
    "%2E%2E%2Fsecret.txt",
    "..%2fsecret.txt",
    "..%2Fsecret.txt",
    "%2e./secret.txt",
    ".%2e/secret.txt",
    "%2e%2e%5csecret.txt",
    "..%5csecret.txt",
    "src/%2e%2e/%2e%2e/secret.txt",
    "src%2f..%2f..%2fsecret.txt",
    "%252e%252e/secret.txt",
    "%252e%252e%252fsecret.txt",
    "%25252e%25252e%25252fsecret.txt",
    "..%252fsecret.txt",
    "%2fsecret.txt",
    "%2Fetc%2Fpasswd",
    "%5csecret.txt",
    "%c0%ae%c0%ae/secret.txt",
    "%c0%ae%c0%ae%c0%afsecret.txt",
    "%e0%80%ae%e0%80%ae/secret.txt",
    "%c1%9c..%c1%9csecret.txt",
    "a.txt%00",
    "a.txt%00../../secret.txt",
    "%00",
  ]) {
    attempts.add(encoded);
  }
  // NUL and control characters.
  for (const control of [
    "a.txt\u0000",
    "\u0000../secret.txt",
    "a\u0000/../../secret.txt",
    "src/\u0000",
    "a\u0001b",
    "a\nb/../..",
    "\u001b[2J../secret.txt",
    "a\rb",
    "\t../secret.txt",
    "a\u007f",
  ]) {
    attempts.add(control);
  }
  // Text-direction tricks that make a path read differently from what it is.
  for (const bidi of [
    "\u202e../secret.txt",
    "txt.terces\u202e",
    "a\u2066/../..\u2069",
    "\u202a..\u202c/secret.txt",
  ]) {
    attempts.add(bidi);
  }
  // Long paths.
  attempts.add("a/".repeat(3000));
  attempts.add("x".repeat(5000));
  attempts.add("../".repeat(2000));
  attempts.add(`${"a".repeat(300)}/file.txt`);
  attempts.add(`${"deep/".repeat(900)}../../secret.txt`);
  // Unicode look-alikes for dots and slashes.
  for (const lookalike of [
    "\uff0e\uff0e/secret.txt",
    "\uff0e\uff0e\uff0fsecret.txt",
    "\u2025/secret.txt",
    "..\u2215secret.txt",
    "..\u2044secret.txt",
    "..\uff0fsecret.txt",
    "..\uff3csecret.txt",
    "\u3002\u3002/secret.txt",
    "\ufe52\ufe52/secret.txt",
    "\u2024\u2024/secret.txt",
    "src\u2215..\u2215..\u2215secret.txt",
    "..\u29f8secret.txt",
    "\u2026/secret.txt",
    "\uff0e\uff0e",
    ".\uff0e/secret.txt",
    "\uff0e./secret.txt",
  ]) {
    attempts.add(lookalike);
  }
  // Other roots: home, URLs, Windows drives and shares.
  for (const other of [
    "~",
    "~/secret.txt",
    "~root/.ssh",
    "file:///secret.txt",
    "file://localhost/etc/passwd",
    "http://example.com/../secret.txt",
    "C:\\secret.txt",
    "c:/secret.txt",
    "C:secret.txt",
    "\\\\server\\share\\secret.txt",
    "\\\\?\\C:\\secret.txt",
  ]) {
    attempts.add(other);
  }
  return [...attempts];
}

/** Symlinks planted in the workspace, and paths that go through them. */
const SYMLINKS: [string, string][] = [
  ["to-root", "/"],
  ["to-secret", "/secret.txt"],
  ["to-parent", ".."],
  ["to-parent-secret", "../secret.txt"],
  ["chain-a", "chain-b"],
  ["chain-b", "/"],
  ["relative-out", "src/../../"],
  ["to-tmp", "/tmp"],
  ["dangling", "/nowhere/at/all"],
  ["loop-a", "loop-b"],
  ["loop-b", "loop-a"],
];
const SYMLINK_ATTEMPTS = [
  "to-root",
  "to-root/secret.txt",
  "to-secret",
  "to-parent/secret.txt",
  "to-parent-secret",
  "chain-a/secret.txt",
  "relative-out/secret.txt",
  "to-tmp/x.txt",
  "dangling",
  "dangling/x",
  "loop-a",
  "loop-a/x",
  "src/link-out/secret.txt",
  "src/link-out",
  "/workspace/to-root/secret.txt",
  "./to-secret",
];

/** Attempts that are literal names inside the workspace, not escapes: percent-encoded text, `...`. */
function LITERAL_INSIDE(attempt: string): boolean {
  return attempt.includes("%") || [".../secret.txt", "..../secret.txt", "....//secret.txt"].includes(attempt);
}

describe("workspace-path resolver: escape attempts", () => {
  const attempts = escapeAttempts();
  let runtime: Runtime;
  let sandbox: Sandbox;
  let outsideBefore: Map<string, string>;

  beforeAll(async () => {
    runtime = await createEmbeddedRuntime({ files: { "src/a.txt": "inside\n", "a.txt": "inside\n" } });
    sandbox = runtime.sandbox;
    await sandbox.writeFile("/secret.txt", SECRET);
    await sandbox.mkdir("/workspace-sibling", { recursive: true });
    await sandbox.writeFile("/workspace-sibling/x", SECRET);
    for (const [name, target] of SYMLINKS) await sandbox.symlink(target, `/workspace/${name}`);
    await sandbox.symlink("../../secret.txt", "/workspace/src/link-out");
    outsideBefore = await filesOutsideWorkspace(sandbox);
  });

  it(`has at least 200 attempts of our own (${attempts.length + SYMLINK_ATTEMPTS.length})`, () => {
    expect(attempts.length + SYMLINK_ATTEMPTS.length).toBeGreaterThanOrEqual(200);
  });

  it("refuses every lexical attempt before touching the filesystem, or reads it as a literal name inside", () => {
    for (const attempt of attempts) {
      let code: string | undefined;
      try {
        normalizeWorkspacePath(attempt, "/workspace");
      } catch (error) {
        code = isToolFailure(error) ? error.code : String(error);
      }
      // Percent-encoding is never decoded and names of three dots are names: those stay inside.
      if (code === undefined) expect(LITERAL_INSIDE(attempt), JSON.stringify(attempt)).toBe(true);
      else expect(code, JSON.stringify(attempt)).toBe("path_escape");
    }
  });

  it("refuses every symlink on the way with symlink_blocked", async () => {
    for (const attempt of SYMLINK_ATTEMPTS) {
      const error = await resolveWorkspacePath(sandbox, attempt).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(isToolFailure(error) && error.code, attempt).toBe("symlink_blocked");
    }
  });

  it("with the 'inside' policy, still refuses symlinks that lead outside", async () => {
    for (const attempt of SYMLINK_ATTEMPTS) {
      const error = await resolveWorkspacePath(sandbox, attempt, { symlinks: "inside" }).then(
        (resolved) => resolved,
        (caught: unknown) => caught,
      );
      if (isToolFailure(error)) {
        expect(["symlink_blocked", "path_escape"], attempt).toContain(error.code);
      } else {
        // Whatever resolved must be inside the workspace.
        expect((error as { absolute: string }).absolute.startsWith("/workspace"), attempt).toBe(true);
      }
    }
  });

  it("reads nothing outside: read_file and list_files refuse every attempt", async () => {
    for (const attempt of [...attempts, ...SYMLINK_ATTEMPTS]) {
      for (const [tool, params] of [
        ["read_file", { path: attempt }],
        ["list_files", { root: attempt }],
      ] as const) {
        const envelope = (await runtime.call("agentbench", { tool, params })) as {
          status: string;
          error: { error_type: string } | null;
        };
        expect(envelope.status, `${tool} ${JSON.stringify(attempt)}`).toBe("error");
        const refusals = LITERAL_INSIDE(attempt)
          ? ["path_escape", "symlink_blocked", "file_not_found", "not_a_file", "not_a_directory"]
          : ["path_escape", "symlink_blocked"];
        expect(refusals, `${tool} ${JSON.stringify(attempt)}`).toContain(envelope.error?.error_type);
        expect(JSON.stringify(envelope)).not.toContain(SECRET);
      }
    }
  });

  it("writes nothing outside: the shared writer refuses every attempt", async () => {
    const context = createToolContext(sandbox);
    for (const attempt of [...attempts, ...SYMLINK_ATTEMPTS]) {
      const error = await writeTextFile(context, attempt, "pwned").then(
        () => null,
        (caught: unknown) => caught,
      );
      if (LITERAL_INSIDE(attempt) && error === null) continue; // a file of that literal name, inside
      expect(
        isToolFailure(error) && ["path_escape", "symlink_blocked"].includes(error.code),
        JSON.stringify(attempt),
      ).toBe(true);
    }
    expect(await filesOutsideWorkspace(sandbox)).toEqual(outsideBefore);
  });

  it("still resolves ordinary paths, including unusual but harmless names", async () => {
    for (const [input, relative] of [
      ["a.txt", "a.txt"],
      ["./src/a.txt", "src/a.txt"],
      ["src//a.txt", "src/a.txt"],
      ["/workspace/src/a.txt", "src/a.txt"],
      [".", ""],
      ["", ""],
      ["/workspace", ""],
      ["src/", "src"],
      ["100%.txt", "100%.txt"],
      ["caf\u00e9.txt", "caf\u00e9.txt"],
      ["...", "..."],
      ["%2e%2e", "%2e%2e"],
      ["src/../a.txt", "a.txt"],
      ["src/..", ""],
      ["a/../a", "a"],
      [".hidden", ".hidden"],
      ["a..b.txt", "a..b.txt"],
      ["..a", "..a"],
      ["src/%20space.txt", "src/%20space.txt"],
    ] as const) {
      expect((await resolveWorkspacePath(sandbox, input)).relative, input).toBe(relative);
    }
  });
});

async function filesOutsideWorkspace(sandbox: Sandbox): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await sandbox.readdir(folder)) {
      const path = folder === "/" ? `/${entry.name}` : `${folder}/${entry.name}`;
      if (path === "/workspace" || path === "/proc" || path === "/dev") continue;
      if (entry.type === "directory") await walk(path);
      else if (entry.type === "file") found.set(path, new TextDecoder().decode(await sandbox.readFile(path)));
      else found.set(path, `-> ${await sandbox.readlink(path)}`);
    }
  };
  await walk("/");
  return found;
}
