import { describe, expect, it } from "vitest";
import { readingAndSearching } from "../../lessons/builtin/reading-and-searching.ts";
import { checkLesson } from "../../lessons/lesson.ts";
import {
  type CheckDraft,
  checksFromDrafts,
  draftsFromJson,
  draftsToJson,
  emptyDraft,
} from "./check-drafts.ts";

const draft = (partial: Partial<CheckDraft>): CheckDraft => ({ ...emptyDraft(), ...partial });

describe("the lesson author's checks form", () => {
  it("turns what was typed into checks: numbers, lists, ids made from titles and never repeated", () => {
    const checks = checksFromDrafts([
      draft({ title: "Fixed", values: { path: "src/app.js", text: "return a + b" } }),
      draft({
        title: "Fixed",
        kind: "changed_with",
        values: { path: "src/app.js", tools: "apply_patch, edit" },
      }),
      draft({ title: "Few calls", kind: "call_count", values: { max: " 6 " } }),
      draft({
        title: "Read a range",
        kind: "tool_used",
        values: { tool: "read_file", status: "success", min: "", withParams: "start_line" },
      }),
    ]);
    expect(checks).toEqual([
      { id: "fixed", title: "Fixed", kind: "file_contains", path: "src/app.js", text: "return a + b" },
      {
        id: "fixed-2",
        title: "Fixed",
        kind: "changed_with",
        path: "src/app.js",
        tools: ["apply_patch", "edit"],
      },
      { id: "few-calls", title: "Few calls", kind: "call_count", max: 6 },
      {
        id: "read-a-range",
        title: "Read a range",
        kind: "tool_used",
        tool: "read_file",
        status: "success",
        withParams: ["start_line"],
      },
    ]);
  });

  it("says which check and which field is missing or wrong", () => {
    expect(() => checksFromDrafts([])).toThrow(/at least one check/u);
    expect(() => checksFromDrafts([draft({ values: { path: "a" } })])).toThrow(/Check 1 needs a title/u);
    expect(() => checksFromDrafts([draft({ title: "T", values: { path: "a.txt" } })])).toThrow(
      "Check 1 (“T”): Text it contains is needed.",
    );
    expect(() =>
      checksFromDrafts([draft({ title: "Calls", kind: "call_count", values: { max: "three" } })]),
    ).toThrow(/Calls must be a whole number/u);
    expect(() =>
      checksFromDrafts([draft({ title: "P", kind: "file_matches", values: { path: "a", pattern: "(" } })]),
    ).toThrow(/regular expression is not valid/u);
    expect(() =>
      checksFromDrafts([
        draft({ title: "U", kind: "tool_used", values: { tool: "run", min: "3", max: "1" } }),
      ]),
    ).toThrow(/at least 3 is more than at most 1/u);
    expect(() =>
      checksFromDrafts([draft({ title: "W", kind: "changed_with", values: { path: "a", tools: " , " } })]),
    ).toThrow(/Tools is needed/u);
  });

  it("refuses a check naming a tool the learner may not use: it could never pass", () => {
    const drafts = [
      draft({ title: "Ran", kind: "tool_used", values: { tool: "run" } }),
      draft({ title: "Patched", kind: "changed_with", values: { path: "a.js", tools: "apply_patch, edit" } }),
    ];
    expect(() => checksFromDrafts(drafts, ["run", "apply_patch"])).toThrow(
      /Check 2 \(“Patched”\) names edit, which the learner may not use/u,
    );
    expect(() => checksFromDrafts(drafts, ["run", "apply_patch", "edit"])).not.toThrow();
  });

  it("keeps an empty whole text for file_equals, and text typed over several lines as typed", () => {
    expect(
      checksFromDrafts([
        draft({ title: "Empty", kind: "file_equals", values: { path: "a.txt" } }),
        draft({ title: "Two lines", values: { path: "b.txt", text: "one\n  two\n" } }),
      ]),
    ).toMatchObject([{ content: "" }, { text: "one\n  two\n" }]);
  });

  it("goes to JSON and back without losing a check, an id or a field it has no widget for", () => {
    const json = JSON.stringify(readingAndSearching.checks);
    const drafts = draftsFromJson(json);
    expect(checksFromDrafts(drafts)).toEqual(readingAndSearching.checks);
    expect(JSON.parse(draftsToJson(drafts))).toEqual(readingAndSearching.checks);
    const withProfile = [{ id: "x", title: "X", kind: "tool_used", tool: "run", profile: "agentbench" }];
    expect(checksFromDrafts(draftsFromJson(JSON.stringify(withProfile)))).toEqual(withProfile);
    // What the form makes is a lesson's checks.
    expect(() => checkLesson({ ...readingAndSearching, checks: checksFromDrafts(drafts) })).not.toThrow();
  });

  it("shows half-typed checks as JSON, and refuses JSON it cannot show with the reason", () => {
    expect(
      JSON.parse(draftsToJson([draft({ title: "T", kind: "call_count", values: { max: "" } })])),
    ).toEqual([{ id: "t", title: "T", kind: "call_count" }]);
    expect(() => draftsFromJson("[{")).toThrow(/not valid JSON/u);
    expect(() => draftsFromJson("{}")).toThrow(/must be a JSON array/u);
    expect(() => draftsFromJson('[{"title":"T","kind":"file_sings"}]')).toThrow(
      /Check 1 has kind "file_sings"; it must be one of file_contains/u,
    );
    expect(() => draftsFromJson('[{"title":"T","kind":"file_contains","path":{"a":1}}]')).toThrow(
      /Check 1: path must be text/u,
    );
  });
});
