/**
 * The `*** Begin Patch` envelope held to Codex's own scenarios (../shared/reference-suites/
 * codex-apply-patch, described in its SEMANTICS.md), through baseagent's apply_patch and
 * toolrouter's apply_patch_freeform. A scenario Codex fails may instead leave the input untouched:
 * Toolroom is all or nothing, where Codex keeps the operations done before the failure.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../host/create-runtime.ts";
import { referenceSuitePath } from "../../test-support/reference-suites.ts";

type Tree = Record<string, string>;

function readTree(root: string): Tree {
  const out: Tree = {};
  if (!existsSync(root)) return out;
  for (const entry of readdirSync(root, { recursive: true }) as string[]) {
    const full = join(root, entry);
    if (statSync(full).isFile()) out[entry] = readFileSync(full, "utf8");
  }
  return sorted(out);
}

function sorted(tree: Tree): Tree {
  return Object.fromEntries(Object.entries(tree).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const suite = referenceSuitePath("codex-apply-patch");
const scenarios = readdirSync(suite).filter((name) => /^\d{3}_/u.test(name));

/** The scenarios whose patch Codex fails (SEMANTICS.md §7, "patch fails?"). */
const CODEX_FAILS = new Set(["005", "006", "007", "008", "009", "012", "013", "015"]);

const dialects: [profile: string, tool: string, failed: (envelope: Record<string, unknown>) => boolean][] = [
  ["baseagent", "apply_patch", (envelope) => envelope.success === false],
  ["toolrouter", "apply_patch_freeform", (envelope) => "error" in envelope],
];

for (const [profile, tool, failed] of dialects) {
  describe(`${profile} ${tool} on Codex's apply_patch scenarios`, () => {
    it("has the 25 scenarios", () => {
      expect(scenarios).toHaveLength(25);
    });

    for (const scenario of scenarios) {
      it(scenario, async () => {
        const input = readTree(join(suite, scenario, "input"));
        const expected = readTree(join(suite, scenario, "expected"));
        const patch = readFileSync(join(suite, scenario, "patch.txt"), "utf8");
        const runtime = await createEmbeddedRuntime({
          files: input,
          session: "codex",
          approver: async () => "allow",
        });
        const envelope = (await runtime.call(profile, {
          tool,
          params: { patch },
          request_id: "1",
        })) as Record<string, unknown>;
        const after: Tree = {};
        for (const entry of (await runtime.sandbox.snapshot()).entries) {
          if (entry.type === "file") after[entry.path] = new TextDecoder().decode(entry.data);
        }
        if (CODEX_FAILS.has(scenario.slice(0, 3))) {
          // Codex fails it too, but may keep operations done before the failure; we keep nothing.
          expect(failed(envelope)).toBe(true);
          expect([input, expected].map((tree) => JSON.stringify(tree))).toContain(
            JSON.stringify(sorted(after)),
          );
          return;
        }
        expect(failed(envelope) ? envelope : "applied").toBe("applied");
        expect(sorted(after)).toEqual(expected);
      });
    }
  });
}
