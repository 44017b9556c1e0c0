import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { registerNodeAssets } from "../host/node-assets.ts";
import { gitSetupChange, gitSetupReason, isGitFolderName } from "./git-setup.ts";

beforeAll(() => registerNodeAssets());

const FILE = { path: "", type: "file", data: new Uint8Array() } as const;
const DIRECTORY = { path: "", type: "directory" } as const;
const LINK = { path: "", type: "symlink", target: "x" } as const;

describe("git's setup", () => {
  it.each([
    ".git/config",
    ".git/config.worktree",
    ".git/hooks/pre-commit",
    ".git/hooks",
    ".git/info/attributes",
    ".git/info/exclude",
    ".git/description",
    ".git/modules/sub/config",
    ".git/worktrees/w/gitdir",
    ".git/commondir",
    "vendor/lib/.git/config",
    ".GIT/config",
    ".Git/hooks/post-checkout",
    ".g\u200cit/config",
    "git~1/config",
    ".git./config",
  ])("%s is setup", (path) => {
    expect(gitSetupReason(path, FILE)).toMatch(/git's setup/u);
    expect(gitSetupReason(path, null)).toMatch(/git's setup/u);
  });

  it.each([
    ".git/objects/ab/cdef",
    ".git/objects/pack/pack-1.pack",
    ".git/refs/heads/main",
    ".git/logs/HEAD",
    ".git/logs/refs/heads/main",
    ".git/index",
    ".git/HEAD",
    ".git/ORIG_HEAD",
    ".git/COMMIT_EDITMSG",
    ".git/packed-refs",
    "src/config",
    "hooks/pre-commit",
    ".gitignore",
    ".gitattributes",
    ".github/workflows/ci.yml",
    "my.git/config",
  ])("%s is data", (path) => {
    expect(gitSetupReason(path, FILE)).toBeNull();
  });

  it("a .git that is a file or a link points git elsewhere; links inside .git are refused too", () => {
    expect(gitSetupReason("sub/.git", FILE)).toMatch(/another repository/u);
    expect(gitSetupReason(".git", LINK)).toMatch(/another repository/u);
    expect(gitSetupReason(".git", DIRECTORY)).toBeNull();
    expect(gitSetupReason(".git/objects/ab", LINK)).toMatch(/link/u);
    expect(isGitFolderName(".GIT")).toBe(true);
    expect(isGitFolderName(".github")).toBe(false);
  });

  it("a repository created by the same call may hold its fresh config", () => {
    const created = [
      { path: "sub/.git", before: null, after: DIRECTORY },
      { path: "sub/.git/config", before: null, after: FILE },
    ];
    expect(gitSetupChange(created)).toBeNull();
    expect(gitSetupChange([{ path: ".git/config", before: FILE, after: FILE }])).toMatchObject({
      path: ".git/config",
    });
    expect(gitSetupChange([{ path: ".git/hooks/x", before: FILE, after: null }])?.reason).toMatch(/deletes/u);
  });
});

/** A repository with a commit, in every profile's runtime. */
async function repository() {
  const runtime = await createEmbeddedRuntime({
    files: { "a.txt": "a\n", "run.sh": "#!/bin/sh\necho hi\n" },
    gitInit: true,
    session: "test",
    approver: async () => "allow",
  });
  const read = async (path: string) =>
    new TextDecoder().decode(await runtime.sandbox.readFile(`/workspace/${path}`));
  const exists = (path: string) =>
    runtime.sandbox.lstat(`/workspace/${path}`).then(
      () => true,
      () => false,
    );
  const config = await read(".git/config");
  // biome-ignore lint/suspicious/noExplicitAny: envelopes are checked field by field
  const call = async (profile: string, tool: string, params: Record<string, unknown>): Promise<any> =>
    runtime.call(profile, { tool, params });
  return { runtime, read, exists, config, call };
}

const EVIL_CONFIG = "[core]\n\tfsmonitor = touch /tmp/pwned\n";
const HOOK_PATCH = [
  "*** Begin Patch",
  "*** Add File: .git/hooks/pre-commit",
  "+#!/bin/sh",
  "+touch /tmp/pwned",
  "*** End Patch",
].join("\n");

describe("no tool writes git's setup, in any profile", () => {
  it("coding-agent: file_write is refused before it runs; a patch and a shell command are undone", async () => {
    const { call, read, exists, config } = await repository();
    const write = await call("coding-agent", "file_write", { path: ".git/config", content: EVIL_CONFIG });
    expect(write).toMatchObject({ ok: false, error_code: "PROTECTED_PATH", data: { path: ".git/config" } });
    expect(write.message).toMatch(/fsmonitor/u);
    const move = await call("coding-agent", "file_move", { src: "a.txt", dst: ".git/hooks/pre-commit" });
    expect(move).toMatchObject({ ok: false, error_code: "PROTECTED_PATH" });
    const patch = await call("coding-agent", "file_patch", {
      diff_text: "--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+touch /tmp/pwned\n",
    });
    expect(patch).toMatchObject({ ok: false, error_code: "PROTECTED_PATH" });
    const shell = await call("coding-agent", "shell", {
      command: "echo b > a.txt; printf '%s' x >> .git/config",
    });
    expect(shell).toMatchObject({ ok: false, error_code: "PROTECTED_PATH" });
    expect(shell.message).toMatch(/undone/u);
    const wipe = await call("coding-agent", "shell", { command: "rm -rf .git" });
    expect(wipe).toMatchObject({ ok: false, error_code: "PROTECTED_PATH" });
    expect(await read(".git/config")).toBe(config);
    expect(await read("a.txt")).toBe("a\n");
    expect(await exists(".git/hooks/pre-commit")).toBe(false);
    expect(await exists(".git/hooks/post-checkout")).toBe(false);
  });

  it("coding-agent: git_commit and the built-in git still write objects, refs, index and logs", async () => {
    const { call, read, config } = await repository();
    await call("coding-agent", "file_write", { path: "a.txt", content: "b\n" });
    const commit = await call("coding-agent", "git_commit", { message: "b", confirmed: true, paths: ["."] });
    expect(commit).toMatchObject({ ok: true });
    const shell = await call("coding-agent", "shell", {
      command: "echo c > a.txt && git add a.txt && git commit -qm c && git log --oneline | wc -l",
    });
    expect(shell).toMatchObject({ ok: true, data: { exit_code: 0, stdout: expect.stringMatching(/3/u) } });
    const fresh = await call("coding-agent", "shell", {
      command: "mkdir sub && cd sub && git init -q && echo ok",
    });
    expect(fresh).toMatchObject({ ok: true, data: { stdout: "ok\n" } });
    expect(await read(".git/config")).toBe(config);
  });

  it("sandboxed, toolrouter, agentbench and baseagent refuse in their own envelopes", async () => {
    const { call, read, exists, config } = await repository();
    expect(
      await call("sandboxed", "write_file", { path: ".git/config", content: EVIL_CONFIG }),
    ).toMatchObject({
      success: false,
      error: { type: "operation_not_allowed", details: { code: "protected_path" } },
    });
    expect(
      await call("sandboxed", "append_file", { path: ".git/hooks/pre-push", content: "x" }),
    ).toMatchObject({
      success: false,
      error: { type: "operation_not_allowed" },
    });
    expect(await call("toolrouter", "apply_patch_freeform", { patch: HOOK_PATCH })).toMatchObject({
      error: { type: "PermissionError", code: "protected_path" },
    });
    expect(await call("toolrouter", "shell", { command: "echo x > .git/info/attributes" })).toMatchObject({
      error: { type: "PermissionError" },
    });
    expect(await call("agentbench", "run", { command: "echo x >> .git/config" })).toMatchObject({
      status: "error",
      error: { error_type: "protected_path" },
    });
    expect(
      await call("agentbench", "apply_patch", {
        unified_diff: "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+touch /tmp/pwned\n",
      }),
    ).toMatchObject({
      status: "error",
      error: { error_type: "protected_path" },
    });
    const base = await call("baseagent", "write_file", { file_path: ".git/config", content: EVIL_CONFIG });
    expect(base).toMatchObject({ success: false });
    expect(base.output).toMatch(/git's setup/u);
    expect(await call("baseagent", "shell_command", { command: "ln -s /tmp .git/hooks" })).toMatchObject({
      success: false,
    });
    expect(await read(".git/config")).toBe(config);
    expect(await exists(".git/hooks/pre-commit")).toBe(false);
    expect(await exists(".git/info/attributes")).toBe(false);
  });
});
