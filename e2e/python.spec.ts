import { expect, test } from "@playwright/test";
import { startScriptedServer } from "../src/agent/testing/scripted-server.ts";
import { fixPythonTestReplies } from "../src/session/demos/scenarios.ts";
import { fakePackageIndex } from "../src/test-support/fake-package-index.ts";
import { openApp, runTool, workspaceText } from "./helpers.ts";

/**
 * Python in the browser, offline: pytest comes from "PyPI" served by the test itself (wheels made
 * from Debian's python3-pytest, through page.route), is installed once and kept in IndexedDB; a
 * scripted model fixes the Python starter with run_tests, one patch, and run_tests again.
 */
test("the Python starter's failing test is run by run_tests on pytest, fixed by an agent with one patch, and green, offline", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const index = await fakePackageIndex();
  await page.context().route(/^https:\/\/(?:pypi\.org|files\.pythonhosted\.org)\//u, (route) => {
    const answer = index.respond(route.request().url());
    if (!answer) return route.abort("internetdisconnected");
    return route.fulfill({
      status: answer.status,
      contentType: answer.contentType,
      body: Buffer.from(answer.body),
      headers: { "access-control-allow-origin": "*" },
    });
  });
  await openApp(page, "/");

  // Install pytest from the (served) index, with progress; it is kept for every workspace.
  await page.getByTestId("sandbox-badge").click();
  await page.getByTestId("python-install").click();
  await expect(page.getByTestId("python-installed")).toContainText("pytest 7.2.1", { timeout: 60_000 });
  await expect(page.getByTestId("python-installed")).toContainText("pluggy 1.0.0");
  await expect(page.getByTestId("python-progress")).toContainText("Installed pytest 7.2.1");
  await page.getByTestId("sandbox-badge").click();

  // A workspace from the Python starter.
  await page.locator(".workspace-menu details > summary").click();
  await page.getByTestId("new-workspace").click();
  await page.getByRole("radio", { name: /Python project/u }).check();
  await page.getByTestId("create-workspace").click();
  // The switch is done when the top bar names the new workspace (its reads answer a little before).
  await expect(page.getByTestId("workspace-select")).toHaveAttribute("title", "Python project", {
    timeout: 60_000,
  });
  await expect.poll(() => workspaceText(page, "parity.py").catch(() => "")).toContain("number % 2 == 1");

  // python3 itself, from the console.
  await page.getByTestId("console-profile").selectOption("coding-agent");
  const printed = await runTool(page, "shell", { command: "python3 -c 'print(1+2)'" }, { timeout: 90_000 });
  expect(JSON.stringify(printed)).toContain('"stdout":"3\\n"');

  // The agent: run_tests (pytest, auto-detected), read, one patch, run_tests green.
  const server = await startScriptedServer({ format: "openai", script: fixPythonTestReplies() });
  try {
    await page.getByTestId("tab-agent").click();
    const form = page.getByTestId("provider-form");
    await form.getByTestId("provider-preset").selectOption("custom");
    await form.getByTestId("provider-kind").selectOption("openai");
    await form.getByTestId("provider-url").fill(server.baseUrl);
    await form.getByTestId("provider-model").fill("scripted-model");
    await form.getByTestId("provider-connect").click();
    await page.getByTestId("agent-profile").selectOption("coding-agent");
    await page
      .getByTestId("agent-task")
      .fill("The tests fail. Find out why and fix the code (not the tests).");
    await page.getByTestId("agent-send").click();
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done", { timeout: 150_000 });
    const results = page.getByTestId("agent-result");
    await expect(results).toHaveCount(4);
    const first = (await results.first().textContent()) ?? "";
    // pytest's summary line (unittest's would read "Ran 2 tests: FAILED…").
    expect(first).toMatch(/"summary":"2 failed/u);
    expect(first).toContain('"failed_count":2');
    expect(first).toContain("test_parity.py");
    const last = (await results.last().textContent()) ?? "";
    expect(last).toContain('"passed":true');
    expect(last).toContain('"passed_count":2');
    expect(await workspaceText(page, "parity.py")).toContain("number % 2 == 0");
  } finally {
    await server.close();
  }
});
