import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEmbeddedSandbox } from "../../host/create-runtime.ts";
import {
  deserializeWorkspace,
  type SerializedWorkspace,
  serializeWorkspace,
} from "../../sandbox/snapshot.ts";
import { expectCurrent } from "../../test-support/generated-file.ts";
import { asRepository } from "../../worker/new-repository.ts";
import { STARTER_FILES, seedFromStarter } from "./index.ts";

const REPOSITORIES = new URL("./repositories.json", import.meta.url);
const ofGit = (path: string) => path === ".git" || path.startsWith(".git/");

/** What a new workspace made of these files holds under .git, committed at `at` (UTC), files dated `at`. */
async function repositoryOf(files: Record<string, string>, at: Date): Promise<SerializedWorkspace> {
  const mtimes = Object.fromEntries(Object.keys(files).map((path) => [path, at.getTime()]));
  const entries = await asRepository(
    deserializeWorkspace({ files, mtimes }).entries,
    () => Promise.reject(new Error("a starter has no symlinks")),
    { now: at, timezoneOffset: 0 },
  );
  const made = serializeWorkspace({ entries });
  const modes = Object.entries(made.modes ?? {}).filter(([path]) => ofGit(path));
  return {
    files: Object.fromEntries(Object.entries(made.files).filter(([path]) => ofGit(path))),
    directories: (made.directories ?? []).filter(ofGit),
    mtimes,
    ...(modes.length > 0 ? { modes: Object.fromEntries(modes) } : {}),
  };
}

/** A seed written to a real folder, to ask the real git about it. */
function writeSeed(files: SerializedWorkspace): string {
  const root = mkdtempSync(join(tmpdir(), "toolroom-starter-"));
  for (const entry of deserializeWorkspace(files).entries) {
    const path = join(root, entry.path);
    if (entry.type === "directory") mkdirSync(path, { recursive: true });
    else if (entry.type === "file") {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, entry.data);
    }
  }
  return root;
}

const git = (root: string, ...args: string[]) => {
  const run = spawnSync("git", ["-C", root, ...args], { encoding: "utf8" });
  return { status: run.status, out: run.stdout + run.stderr };
};

describe("starters", () => {
  it("the Node starter is the embedded node's fixture, and its test fails on the embedded sandbox", async () => {
    const seed = seedFromStarter("node");
    expect(
      Object.keys(seed.files.files)
        .filter((path) => !ofGit(path))
        .sort(),
    ).toEqual(["README.md", "package.json", "src/cart.js", "src/main.js", "test/cart.test.js"]);
    const sandbox = await createEmbeddedSandbox();
    await sandbox.restore(deserializeWorkspace(seed.files));
    const result = await sandbox.exec("npm test", { timeoutMs: 60_000 });
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toMatch(/counts quantities in the total/u);
  });

  it("each starter brings the repository a new workspace would make of its files (repositories.json is current)", async () => {
    const saved = JSON.parse(readFileSync(REPOSITORIES, "utf8")) as {
      committedAt: string;
      starters: Record<string, SerializedWorkspace>;
    };
    const at = new Date(saved.committedAt);
    const starters: Record<string, SerializedWorkspace> = {};
    for (const [id, files] of Object.entries(STARTER_FILES)) starters[id] = await repositoryOf(files, at);
    const current = { committedAt: saved.committedAt, starters };
    expectCurrent(REPOSITORIES, `${JSON.stringify(current, null, 1)}\n`, "src/ui/starters/starters.test.ts");
  });

  it.each(Object.keys(STARTER_FILES))(
    "the %s starter is a repository the real git finds whole and clean, one commit of every file",
    (id) => {
      const seed = seedFromStarter(id);
      const root = writeSeed(seed.files);
      try {
        expect(git(root, "fsck", "--strict", "--no-dangling")).toEqual({ status: 0, out: "" });
        expect(git(root, "status", "--porcelain", "--untracked-files=all")).toEqual({ status: 0, out: "" });
        expect(git(root, "log", "--format=%an <%ae> %aI %s").out).toBe(
          "Toolroom Agent <agent@toolroom.local> 2026-11-27T00:00:00+00:00 Initial commit\n",
        );
        expect(git(root, "ls-files").out.trim().split("\n").filter(Boolean).sort()).toEqual(
          Object.keys(STARTER_FILES[id]!).sort(),
        );
        expect(git(root, "rev-parse", "--abbrev-ref", "HEAD").out).toBe("main\n");
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
