/**
 * The path-containment table of ../shared/reference-suites/paths (cases.tsv, FIXTURE.md: 116 rows
 * from MCP's filesystem server, Go's filepath and GNU patch) through each profile's read and write
 * tools, on its fixture. Each profile flips the policy rows it is stricter on: agentbench blocks every
 * symlink; sandboxed blocks every `..` (its spec: "path traversal attempts (../) are blocked"); no
 * profile lets a path leave the workspace and come back in.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { referenceSuitePath } from "../test-support/reference-suites.ts";
import type { Runtime } from "./runtime.ts";

const P = "/p";
const W = `${P}/project`;
const SECRET = "SECRET-OUTSIDE-THE-WORKSPACE";

interface Row {
  path: string;
  expected: "allow" | "reject";
  why: string;
}

function rows(): Row[] {
  const lines = readFileSync(referenceSuitePath("paths", "cases.tsv"), "utf8").trim().split("\n").slice(1);
  return lines.map((line) => {
    const [path, expected, why] = line.split("\t");
    return {
      path: (JSON.parse(path!) as string).replaceAll("{WS}", W),
      expected: expected as Row["expected"],
      why: why!,
    };
  });
}

const FILES = [
  "ok.txt",
  "src/index.js",
  "sub/x.txt",
  "d/f",
  "..test",
  "test..",
  "te..st",
  "...",
  "....",
  "%2e%2e",
  "%41",
  "file%20name",
  "report_50%.pdf",
  "Q1_25%_growth",
  "caf\u00e9/file",
  "my project/file",
  "my-project (v2)/file",
  "NUL",
  "com1",
  "CONIN$",
  "dollar$",
];

const SYMLINKS: [string, string][] = [
  ["link_out", ".."],
  ["link_file", "../secret.txt"],
  ["abs_link", "/etc/passwd"],
  ["chain_a", "chain_b"],
  ["chain_b", "chain_c"],
  ["chain_c", "../outside/target.txt"],
  ["sub1", "../outside"],
  ["dangling_out", "../outside/new.txt"],
  ["link_in", "ok.txt"],
  ["link_in_dir", "sub"],
  ["ld", "d"],
  ["e/ld", "../d"],
  ["abc/def/ghi", "../../abc/def"],
  ["g/bad-rel", "../../z"],
  ["bad-rel-step2", ".."],
  ["g/bad-rel-step1", "../bad-rel-step2/z"],
  ["g/bad-abs", "/z"],
  ["l1", "l2"],
  ["l2", "l1"],
];

async function fixture(sandbox: Sandbox): Promise<void> {
  for (const name of FILES) await put(sandbox, `${W}/${name}`, `${name.split("/").pop()}\n`);
  for (const folder of ["abc/def", "e", "g"]) await sandbox.mkdir(`${W}/${folder}`, { recursive: true });
  for (const outside of [
    "secret.txt",
    "outside/target.txt",
    "project2/file.txt",
    "project_backup/file.txt",
    "project-old/file.txt",
    "projectile/file.txt",
    "project.bak/file.txt",
    "etc/passwd",
  ]) {
    await put(sandbox, `${P}/${outside}`, `${SECRET}\n`);
  }
  for (const [link, target] of SYMLINKS) await sandbox.symlink(target, `${W}/${link}`);
}

async function put(sandbox: Sandbox, path: string, text: string): Promise<void> {
  await sandbox.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await sandbox.writeFile(path, text);
}

/** Every file under /p outside the workspace, with its content. */
async function outsideFiles(sandbox: Sandbox): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await sandbox.readdir(folder)) {
      const path = `${folder}/${entry.name}`;
      if (path === W) continue;
      if (entry.type === "directory") await walk(path);
      else found.push(path);
    }
  };
  await walk(P);
  return found.sort();
}

interface Dialect {
  profile: string;
  read: (path: string) => { tool: string; params: Record<string, unknown> };
  write?: (path: string) => { tool: string; params: Record<string, unknown> };
  /** What this profile does with a row stricter than the table's default. */
  flip: (row: Row) => boolean;
}

const leavesAndReturns = (row: Row) => row.why.includes("[policy:dotdot]");
const hasDotDot = (row: Row) => row.path.replaceAll("\\", "/").split("/").includes("..");

const DIALECTS: Dialect[] = [
  {
    profile: "agentbench",
    read: (path) => ({ tool: "read_file", params: { path } }),
    flip: (row) => leavesAndReturns(row) || row.why.includes("[policy:symlink]"),
  },
  {
    profile: "toolrouter",
    read: (path) => ({
      tool: "read_file",
      params: { path, offset: 0, limit: 400, mode: "slice", indent: "    " },
    }),
    flip: leavesAndReturns,
  },
  {
    profile: "coding-agent",
    read: (path) => ({ tool: "file_read", params: { path } }),
    write: (path) => ({ tool: "file_write", params: { path, content: "written\n" } }),
    flip: leavesAndReturns,
  },
  {
    profile: "baseagent",
    read: (path) => ({ tool: "read_file", params: { file_path: path } }),
    write: (path) => ({ tool: "write_file", params: { file_path: path, content: "written\n" } }),
    flip: leavesAndReturns,
  },
  {
    profile: "sandboxed",
    read: (path) => ({ tool: "read_file", params: { path } }),
    write: (path) => ({ tool: "write_file", params: { path, content: "written\n" } }),
    flip: (row) => leavesAndReturns(row) || hasDotDot(row),
  },
];

const CONTAINMENT = new Set(["path_escape", "symlink_blocked"]);

for (const dialect of DIALECTS) {
  describe(`${dialect.profile}: the path-containment table`, () => {
    let runtime: Runtime;
    let before: string[];

    beforeAll(async () => {
      runtime = await createEmbeddedRuntime({
        session: "paths",
        sandbox: { workspaceRoot: W },
        approver: async () => "allow",
      });
      await fixture(runtime.sandbox);
      before = await outsideFiles(runtime.sandbox);
    });

    for (const [k, row] of rows().entries()) {
      const expected = row.expected === "allow" && !dialect.flip(row) ? "allow" : "reject";
      const label = `row ${k + 2}: ${JSON.stringify(row.path.slice(0, 60))} ${expected}`;
      it(label, async () => {
        const creates = row.why.includes("[create]");
        const call = creates && dialect.write ? dialect.write(row.path) : dialect.read(row.path);
        const outcome = await runtime.invoke(dialect.profile, call);
        const text = JSON.stringify(outcome.envelope);
        expect(text).not.toContain(SECRET);
        if (expected === "allow") {
          if (outcome.failure) {
            // Not found or not a file is fine; a containment refusal, or a message saying so, is not.
            expect(CONTAINMENT.has(outcome.failure.code), outcome.failure.message).toBe(false);
            expect(outcome.failure.message).not.toMatch(/outside/iu);
          }
          const existing = FILES.includes(row.path.replace(/^\.\//u, "").replace(`${W}/`, ""));
          if (existing && !creates) {
            expect(outcome.status, outcome.failure?.message).toBe("success");
            expect(text).toContain(row.path.split("/").pop());
          }
        } else {
          expect(outcome.status).toBe("error");
          // A literal name that stays inside may be not-found; "" is simply not a file to read or write.
          if (!row.why.includes("[literal-ok]") && row.path !== "") {
            expect(CONTAINMENT.has(outcome.failure!.code), outcome.failure?.message).toBe(true);
          }
        }
        expect(await outsideFiles(runtime.sandbox)).toEqual(before);
      });
    }
  });
}
