import { describe, expect, it } from "vitest";
import { createToolContext } from "../core/tool-context.ts";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { readReferenceSuite } from "../test-support/reference-suites.ts";
import { searchText } from "./search-text.ts";

interface RipgrepCase {
  id: string;
  regex: string;
  lines: string[];
  rg: { lines?: number[]; error?: string };
  rgIgnoreCase: { lines?: number[]; error?: string };
  rgDisagreesWithCrate?: string[];
}

type Outcome = { lines: number[] } | { error: string };

/**
 * rust-lang/regex's testdata through ripgrep 13 (../shared/reference-suites/peer-suites/
 * ripgrep-cases.json): each haystack line is a file of its own, searched by the three tools that
 * promise ripgrep; the lines they report are the lines ripgrep reported (agentbench's search is
 * case-insensitive, so it is held to `rg -i`).
 */
const TOOLS: {
  profile: string;
  ignoreCase: boolean;
  call: (pattern: string) => { tool: string; params: Record<string, unknown> };
  files: (envelope: Record<string, unknown>) => string[];
}[] = [
  {
    profile: "agentbench",
    ignoreCase: true,
    call: (pattern) => ({
      tool: "search",
      params: { query: pattern, is_regex: true, context_lines: 0, max_results: 1000 },
    }),
    files: (envelope) =>
      ((envelope.data as { matches: { file: string }[] }).matches ?? []).map((match) => match.file),
  },
  {
    profile: "toolrouter",
    ignoreCase: false,
    call: (pattern) => ({
      tool: "grep_files",
      params: { pattern, path: ".", include: null, limit: 1000 },
    }),
    files: (envelope) =>
      ((envelope as { results?: { file: string }[] }).results ?? []).map((group) => group.file),
  },
  {
    profile: "baseagent",
    ignoreCase: false,
    call: (pattern) => ({ tool: "grep_files", params: { pattern, limit: 1000 } }),
    files: (envelope) => {
      const output = (envelope as { output?: string }).output ?? "";
      return output === "No matches found." ? [] : output.split("\n");
    },
  },
];

function failed(envelope: Record<string, unknown>): boolean {
  return envelope.status === "error" || envelope.success === false || (envelope.error ?? null) !== null;
}

describe("ripgrep's regex engine in the search tools (Rust regex testdata, ripgrep 13 as the oracle)", () => {
  it("reports the lines ripgrep reports, for all 421 patterns × 3 tools", async () => {
    const suite = readReferenceSuite<{ cases: RipgrepCase[] }>("peer-suites", "ripgrep-cases.json");
    const cases = suite.cases.filter((entry) => !entry.rgDisagreesWithCrate);
    expect(cases.length).toBe(421);
    const runtime = await createEmbeddedRuntime();
    const root = runtime.sandbox.workspaceRoot;
    const differences: string[] = [];
    let passed = 0;
    for (const entry of cases) {
      await runtime.sandbox.rm(`${root}/h`, { recursive: true, force: true }).catch(() => undefined);
      await runtime.sandbox.mkdir(`${root}/h`, { recursive: true });
      for (const [index, line] of entry.lines.entries()) {
        await runtime.sandbox.writeFile(`${root}/h/${String(index + 1).padStart(3, "0")}.txt`, `${line}\n`);
      }
      for (const tool of TOOLS) {
        const { tool: name, params } = tool.call(entry.regex);
        const envelope = (await runtime.call(tool.profile, { tool: name, params })) as Record<
          string,
          unknown
        >;
        const want = tool.ignoreCase ? entry.rgIgnoreCase : entry.rg;
        let got: Outcome;
        if (failed(envelope)) got = { error: JSON.stringify(envelope.error ?? envelope) };
        else {
          got = {
            lines: tool
              .files(envelope)
              .map((file) => Number(/(\d+)\.txt$/u.exec(file)?.[1]))
              .sort((a, b) => a - b),
          };
        }
        const ok = want.error
          ? "error" in got
          : "lines" in got && JSON.stringify(got.lines) === JSON.stringify(want.lines);
        if (ok) passed++;
        else
          differences.push(
            `${entry.id} ${tool.profile} ${JSON.stringify(entry.regex)}: got ${JSON.stringify(got).slice(0, 200)}, rg ${JSON.stringify(want)}`,
          );
      }
    }
    // All 1,263 agree today; README lists any difference kept on purpose.
    expect(differences, `${passed} of ${cases.length * 3}`).toEqual([]);
    expect(passed).toBe(1263);
  }, 600_000);

  it("never hangs: (a+)+$ against 40 a's and a b answers at once", async () => {
    const runtime = await createEmbeddedRuntime({ files: { "a.txt": `${"a".repeat(40)}b\n` } });
    const started = performance.now();
    const envelope = (await runtime.call("toolrouter", {
      tool: "grep_files",
      params: { pattern: "(a+)+$", path: ".", include: null, limit: 10 },
    })) as { results: unknown[] };
    expect(envelope.results).toEqual([]);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("sees every change between two searches: a rewrite of the same size, a new file, a removal, a shell edit", async () => {
    const runtime = await createEmbeddedRuntime({ files: { "a.txt": "alpha\n" } });
    const root = runtime.sandbox.workspaceRoot;
    const count = async (query: string) =>
      (
        (await runtime.call("agentbench", { tool: "search", params: { query, context_lines: 0 } })) as {
          data: { total_matches: number };
        }
      ).data.total_matches;
    expect(await count("alpha")).toBe(1);
    await runtime.sandbox.writeFile(`${root}/a.txt`, "gamma\n");
    expect(await count("alpha")).toBe(0);
    expect(await count("gamma")).toBe(1);
    await runtime.sandbox.writeFile(`${root}/b.txt`, "alpha\n");
    expect(await count("alpha")).toBe(1);
    await runtime.sandbox.rm(`${root}/b.txt`);
    expect(await count("alpha")).toBe(0);
    await runtime.sandbox.exec("echo alpha > a.txt");
    expect(await count("alpha")).toBe(1);
  });

  it("folds case as ripgrep's -i does for literal text: Kelvin sign, long s, final sigma", async () => {
    const runtime = await createEmbeddedRuntime({
      files: { "k.txt": "\u212Aelvin\n", "s.txt": "ſtate\n", "g.txt": "όλα σας\n", "x.txt": "none\n" },
    });
    const files = async (query: string, is_regex = false) =>
      (
        (await runtime.call("agentbench", {
          tool: "search",
          params: { query, is_regex, context_lines: 0 },
        })) as {
          data: { matches: { file: string }[] };
        }
      ).data.matches.map((match) => match.file);
    expect(await files("kelvin")).toEqual(["k.txt"]);
    expect(await files("STATE")).toEqual(["s.txt"]);
    expect(await files("ΣΑΣ")).toEqual(["g.txt"]);
    expect(await files("\\pL+ΑΣ$", true)).toEqual(["g.txt"]);
    expect(await files("[[:alpha:]]+ΑΣ$", true)).toEqual([]);
    // A newline can never be inside a line: refused, as ripgrep refuses it.
    const newline = (await runtime.call("agentbench", { tool: "search", params: { query: "a\nb" } })) as {
      status: string;
      error: { message: string };
    };
    expect(newline.status).toBe("error");
    expect(newline.error.message).toContain("literal newline");
  });

  it("reads .git/info/exclude and every .gitignore from the root down, searching a subfolder too", async () => {
    const runtime = await createEmbeddedRuntime({
      files: {
        ".git/info/exclude": "excluded.txt\n",
        ".gitignore": "*.log\n",
        "src/.gitignore": "gen/\n!keep.log\n",
        "src/a.txt": "needle\n",
        "src/excluded.txt": "needle\n",
        "src/x.log": "needle\n",
        "src/keep.log": "needle\n",
        "src/gen/b.txt": "needle\n",
        "src/deep/.gitignore": "c.txt\n",
        "src/deep/c.txt": "needle\n",
        "src/deep/d.txt": "needle\n",
        "src/deep/e.log": "needle\n",
        "top.log": "needle\n",
      },
    });
    const context = createToolContext(runtime.sandbox);
    const search = async (root: string) =>
      (
        await searchText(context, {
          root,
          pattern: "needle",
          regex: false,
          caseSensitive: true,
          maxMatches: 10,
        })
      ).filesWithMatches;
    const expected = ["src/a.txt", "src/deep/d.txt", "src/keep.log"];
    expect(await search("")).toEqual(expected);
    expect(await search("src")).toEqual(expected);
    expect(await search("src/deep")).toEqual(["src/deep/d.txt"]);
  });

  it("keeps texts right between searches with different walks (gitignored files in one, not the other)", async () => {
    const runtime = await createEmbeddedRuntime({
      files: { ".gitignore": "ignored.txt\n", "ignored.txt": "needle\n", "kept.txt": "needle\n" },
    });
    const context = createToolContext(runtime.sandbox);
    const search = async (gitignore: boolean) =>
      (
        await searchText(context, {
          root: "",
          pattern: "needle",
          regex: false,
          caseSensitive: true,
          maxMatches: 10,
          gitignore,
        })
      ).filesWithMatches;
    expect(await search(false)).toEqual(["ignored.txt", "kept.txt"]);
    expect(await search(true)).toEqual(["kept.txt"]);
    expect(await search(false)).toEqual(["ignored.txt", "kept.txt"]);
  });
});
