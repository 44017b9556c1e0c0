import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { readingAndSearching } from "../src/lessons/builtin/reading-and-searching.ts";
import { PRICING_FIX_PATCH } from "../src/test-support/lesson-fixtures.ts";
import { openApp, runTool, workspaceText } from "./helpers.ts";

const checkItem = (page: Page, id: string) =>
  page.getByTestId("lesson-panel").locator(`[data-check="${id}"]`);

/** A check's field by its label (a required field's label ends in a star). */
const field = (draft: Locator, label: string) =>
  draft.getByLabel(new RegExp(`^${label.replace(/[()]/gu, "\\$&")}( \\*)?$`, "u"));

/** The types of the workspace's events, as the log exports them. */
async function eventTypes(page: Page): Promise<string[]> {
  const jsonl = await page.evaluate(() =>
    (
      window as unknown as { toolroom: { host: { api: { eventsJsonl(): Promise<string> } } } }
    ).toolroom.host.api.eventsJsonl(),
  );
  return jsonl
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

async function check(page: Page): Promise<void> {
  await page.getByTestId("lesson-check").click();
  await expect(page.getByTestId("lesson-progress")).not.toHaveText("not checked yet");
}

test.describe("lesson controls and checks", () => {
  test("a teacher writes the checks in a form (JSON still there, both ways); the call limit refuses the call past it before it runs; a failing check does not give the answer", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-author").click();
    const dialog = page.locator("form.dialog");
    await dialog.getByTestId("author-title").fill("Limit drill");

    const drafts = dialog.getByTestId("check-draft");
    await expect(drafts).toHaveCount(1);
    await field(drafts.nth(0), "Title").fill("notes.txt holds the answer");
    await field(drafts.nth(0), "File").fill("notes.txt");
    await field(drafts.nth(0), "Text it contains").fill("secret-answer-42");
    await dialog.getByTestId("add-check").click();
    await field(drafts.nth(1), "Kind").selectOption("call_count");
    await field(drafts.nth(1), "Title").fill("Three calls at most");
    await field(drafts.nth(1), "Calls").fill("3");

    // A half-written check is refused with the check and the field named.
    await dialog.getByTestId("add-check").click();
    await field(drafts.nth(2), "Kind").selectOption("file_absent");
    await field(drafts.nth(2), "Title").fill("Gone");
    await dialog.getByRole("button", { name: "Open it" }).click();
    await expect(dialog.getByRole("alert")).toHaveText("Check 3 (“Gone”): File is needed.");
    await dialog.getByRole("button", { name: "Remove check 3" }).click();
    await expect(drafts).toHaveCount(2);

    // The same checks as JSON; a check added there comes back into the form.
    await dialog.getByTestId("checks-as-json").click();
    await expect(dialog.getByTestId("checks-as-json")).toHaveAttribute("aria-pressed", "true");
    const json = dialog.getByTestId("checks-json");
    const asJson = JSON.parse(await json.inputValue()) as Record<string, unknown>[];
    expect(asJson).toEqual([
      {
        id: "notes-txt-holds-the-answer",
        title: "notes.txt holds the answer",
        kind: "file_contains",
        path: "notes.txt",
        text: "secret-answer-42",
      },
      { id: "three-calls-at-most", title: "Three calls at most", kind: "call_count", max: 3 },
    ]);
    await json.fill("[{");
    await dialog.getByTestId("checks-as-form").click();
    await expect(dialog.getByRole("alert")).toContainText("not valid JSON");
    await expect(json).toBeVisible();
    await json.fill(
      JSON.stringify([
        ...asJson,
        { id: "ran", title: "You ran commands", kind: "tool_used", tool: "run", min: 2 },
      ]),
    );
    await dialog.getByTestId("checks-as-form").click();
    await expect(dialog.getByRole("alert")).toHaveCount(0);
    await expect(drafts).toHaveCount(3);
    await expect(field(drafts.nth(1), "Calls")).toHaveValue("3");
    await expect(field(drafts.nth(2), "Kind")).toHaveValue("tool_used");
    await expect(field(drafts.nth(2), "Tool")).toHaveValue("run");
    await expect(field(drafts.nth(2), "At least (times)")).toHaveValue("2");

    await dialog.getByLabel("At most this many calls", { exact: true }).fill("3");
    // A check on a tool the learner may not use could never pass: it is refused, saying why.
    const allowRun = dialog
      .getByRole("group", { name: "Tools the learner may use" })
      .getByRole("checkbox", { name: "run", exact: true });
    await allowRun.uncheck();
    await dialog.getByRole("button", { name: "Open it" }).click();
    await expect(dialog.getByRole("alert")).toContainText("names run, which the learner may not use");
    await allowRun.check();
    // The form is as accessible as the rest of the page (axe-core: no serious or critical WCAG A/AA issue).
    const axe = await new AxeBuilder({ page })
      .include("form.dialog")
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
      .analyze();
    expect(
      axe.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical"),
    ).toEqual([]);
    await dialog.getByRole("button", { name: "Open it" }).click();
    const panel = page.getByTestId("lesson-panel");
    await expect(panel).toBeVisible({ timeout: 20_000 });
    await expect(panel.locator("[data-check]")).toHaveText([
      /notes\.txt holds the answer/u,
      /Three calls at most/u,
      /You ran commands/u,
    ]);

    await page.getByTestId("tab-console").click();
    await runTool(page, "run", { command: "echo draft > notes.txt" }, { expectStatus: "success" });
    await runTool(page, "run", { command: "echo two" }, { requestId: "two", expectStatus: "success" });
    await runTool(page, "run", { command: "echo three" }, { requestId: "three", expectStatus: "success" });
    // The fourth is refused before it runs: the file it would write is not written.
    const refused = await runTool(
      page,
      "run",
      { command: "echo secret-answer-42 > notes.txt" },
      { requestId: "four", expectStatus: "error" },
    );
    expect(JSON.stringify(refused)).toContain("at most 3 tool calls");
    expect(await workspaceText(page, "notes.txt")).toBe("draft\n");

    await check(page);
    await expect(checkItem(page, "three-calls-at-most")).toHaveAttribute("data-state", "passed");
    await expect(checkItem(page, "ran")).toHaveAttribute("data-state", "passed");
    const failing = checkItem(page, "notes-txt-holds-the-answer");
    await expect(failing).toHaveAttribute("data-state", "failed");
    // Says what is wrong (which file) without the text the teacher is looking for.
    await expect(failing.locator(".help")).toContainText("notes.txt");
    await expect(failing).not.toContainText("secret-answer-42");
  });

  test("a patch to a read-only path is refused and undone, and logs no PATCH_APPLIED; a check failing says what, not the fix", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-menu").locator('[data-lesson="reading-and-searching"]').click();
    await expect(page.getByTestId("lesson-panel")).toBeVisible({ timeout: 20_000 });
    await page.getByTestId("tab-console").click();

    await check(page);
    const bound = checkItem(page, "bound-fixed");
    await expect(bound).toHaveAttribute("data-state", "failed");
    await expect(bound.locator(".help")).toContainText("src/pricing.js");
    await expect(bound).not.toContainText("percent > 100");
    await expect(bound).not.toContainText("> 100)");

    const readme = readingAndSearching.files["README.md"] as string;
    const readmePatch = [
      "--- a/README.md",
      "+++ b/README.md",
      "@@ -1,3 +1,3 @@",
      " # Shop",
      " ",
      "-Discounts are percentages between 0 and 100.",
      "+Discounts are percentages between 0 and 1000.",
      "",
    ].join("\n");
    const refused = await runTool(
      page,
      "apply_patch",
      { unified_diff: readmePatch },
      { expectStatus: "error" },
    );
    expect(JSON.stringify(refused)).toContain("read-only");
    expect(await workspaceText(page, "README.md")).toBe(readme);
    expect(await eventTypes(page)).not.toContain("PATCH_APPLIED");

    // A patch that is accepted is logged as applied: the absence above is the refusal's doing.
    await runTool(page, "apply_patch", { unified_diff: PRICING_FIX_PATCH }, { expectStatus: "success" });
    await expect
      .poll(async () => (await eventTypes(page)).filter((type) => type === "PATCH_APPLIED").length)
      .toBe(1);
    await check(page);
    await expect(checkItem(page, "bound-fixed")).toHaveAttribute("data-state", "passed");
    await expect(checkItem(page, "readme-untouched")).toHaveAttribute("data-state", "passed");
  });
});
