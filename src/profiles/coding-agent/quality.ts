import { stepNumber } from "../../core/artifacts.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { truncateHeadTailBytes } from "../../core/truncate.ts";
import {
  commandAvailable,
  hasEslintConfig,
  isPythonProject,
  isTypeScriptProject,
  jsTool,
  planTests,
  projectFacts,
  runnerOf,
  shellWord,
  unittestCompatible,
  withFocus,
} from "../../tools/quality/detect.ts";
import {
  type Issue,
  type IssueParser,
  parseLintOutput,
  parseTypecheckOutput,
} from "../../tools/quality/issue-parsers.ts";
import { lintPythonInWorker } from "../../tools/quality/ruff-wasm.ts";
import { parseTestOutput, type TestParser } from "../../tools/quality/test-parsers.ts";
import { typecheckWithCompiler } from "../../tools/quality/typescript-check.ts";
import { runShell } from "../../tools/shell.ts";
import { type AnyTool, keepLog, plural, type ResultArtifact, readLogHint, report } from "./result.ts";

/** raw_output keeps its head and tail up to this size; the whole output is saved as an artifact. */
export const RAW_OUTPUT_LIMIT_BYTES = 64 * 1024;
const LINT_TIMEOUT_SEC = 120;
/** Most failures or issues listed; the counts cover all of them. */
const MAX_LISTED = 200;

interface Ran {
  command: string;
  exitCode: number;
  rawOutput: string;
  output: string;
  timedOut: boolean;
  artifacts: ResultArtifact[];
  warnings: string[];
}

/** Runs a quality command; a runner that is not there is tool_unavailable, saying what to do. */
async function runQuality(
  context: ToolContext,
  tool: string,
  command: string,
  timeoutSec: number,
): Promise<Ran> {
  const outcome = await runShell(context, { command, timeoutMs: timeoutSec * 1000 });
  const output = [outcome.stdout, outcome.stderr]
    .filter((text) => text !== "")
    .join(outcome.stdout.endsWith("\n") ? "" : "\n");
  if (outcome.exitCode === 127 && /command not found|not available/u.test(outcome.stderr)) {
    const missing = /bash: ([^:]+): command not/u.exec(outcome.stderr)?.[1] ?? command.split(/\s+/u)[0];
    throw unavailable(
      tool,
      `\`${missing}\` is not available on this ${context.sandbox.kind} backend, so \`${command}\` cannot run`,
      { command, stderr: outcome.stderr },
    );
  }
  // The embedded npx runs only what node_modules/.bin has: a declared package that is not installed.
  const notInstalled = /npx: '([^']+)' is not in node_modules\/\.bin/u.exec(output);
  if (notInstalled && outcome.exitCode !== 0) {
    throw unavailable(
      tool,
      `\`${notInstalled[1]}\` is not installed in node_modules (and this ${context.sandbox.kind} backend cannot download it), so \`${command}\` cannot run`,
      { command, missing: [notInstalled[1]], stderr: output },
    );
  }
  const cut = truncateHeadTailBytes(output, RAW_OUTPUT_LIMIT_BYTES);
  const artifacts: ResultArtifact[] = [];
  const warnings: string[] = [];
  if (cut.truncated) {
    const path = `logs/tool_step_${stepNumber(context.step)}_${tool}.txt`;
    const readable = await keepLog(context, path, output);
    artifacts.push({ type: "log", path, description: `Full output of ${command}` });
    warnings.push(`raw_output was ${cut.original} bytes; kept its head and tail. ${readLogHint(readable)}.`);
  }
  if (outcome.interrupted) {
    throw new ToolFailure("cancelled", `\`${command}\` was cancelled and stopped.`, {
      command,
      raw_output: cut.text,
      artifacts,
    });
  }
  if (outcome.timedOut) {
    throw new ToolFailure(
      "timeout",
      `\`${command}\` did not finish within ${timeoutSec} s and was stopped.`,
      {
        command,
        raw_output: cut.text,
        timeout_sec: timeoutSec,
        artifacts,
      },
    );
  }
  return {
    command,
    exitCode: outcome.exitCode,
    rawOutput: cut.text,
    output,
    timedOut: false,
    artifacts,
    warnings,
  };
}

function unavailable(tool: string, what: string, details: Record<string, unknown> = {}): ToolFailure {
  return new ToolFailure(
    "tool_unavailable",
    `${tool}: ${what}. Pass command= with a runner this backend has (workspace_info lists them), or run the project on a backend with native runtimes (a WebContainer for Node tools; the CLI on a machine with Python for Python tools).`,
    details,
  );
}

interface RunTestsParams {
  command?: string;
  focus?: string[];
  timeout_sec: number;
}

const runTests: AnyTool = {
  name: "run_tests",
  description:
    "Run the test suite and return structured pass/fail results, parsed from the runner's own output (pytest, python -m unittest, node --test, vitest, jest; other runners by their 'N passed, N failed' line). Auto-detects the command from the workspace: package.json's test script (npm test), pytest for test_*.py files (python3 -m unittest when pytest is not installed and the tests are unittest's), vitest, jest, node --test. TOOL_UNAVAILABLE when this backend cannot run the runner. Add a max-iterations guard in your agent scaffolding before calling this in a loop.",
  inputSchema: {
    type: "object",
    properties: {
      command: {
        type: "string",
        description: "The test command to run, e.g. 'pytest -x tests/unit'. Default: auto-detected.",
      },
      focus: {
        type: "array",
        items: { type: "string" },
        description:
          "Run only these tests: files or folders, node ids (tests/test_a.py::test_x), or test names (node --test: --test-name-pattern; vitest and jest: -t; pytest: as given). Default: all tests.",
      },
      timeout_sec: {
        type: "integer",
        minimum: 1,
        maximum: 3600,
        default: 60,
        description: "Seconds before the run is stopped (TIMEOUT).",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: (params: RunTestsParams) => params.timeout_sec * 1000 + 15_000,
  async run(params: RunTestsParams, context) {
    const facts = await projectFacts(context);
    let command: string;
    let runner: TestParser | undefined;
    const warnings: string[] = [];
    if (params.command) {
      runner = runnerOf(params.command, facts);
      command = withFocus(params.command, runner, params.focus ?? [], facts);
    } else {
      const plan = planTests(facts, params.focus ?? []);
      if (!plan) {
        throw new ToolFailure(
          "tool_unavailable",
          "run_tests found no tests to run: no package.json test script, no test_*.py files, no vitest/jest setup, no *.test.js files. Pass command= to say how to run them.",
          {
            looked_for: [
              "package.json scripts.test",
              "test_*.py / conftest.py",
              "vitest",
              "jest",
              "*.test.js",
            ],
          },
        );
      }
      if (plan.bin && !context.sandbox.capabilities.network && !(await jsTool(context, plan.bin))) {
        throw unavailable(
          "run_tests",
          `the workspace's tests run with \`${plan.command}\` (${plan.why}), but ${plan.bin} is not installed (no node_modules/.bin/${plan.bin}) and this ${context.sandbox.kind} backend cannot download it`,
          { command: plan.command, missing: [plan.bin] },
        );
      }
      const needs = plan.needs === "pytest" ? ["pytest", "python3", "python"] : [plan.needs];
      const found = [];
      for (const name of needs) if (await commandAvailable(context, name)) found.push(name);
      if (found.length === 0) {
        throw unavailable(
          "run_tests",
          `the workspace's tests run with \`${plan.command}\` (${plan.why}), but this ${context.sandbox.kind} backend has no ${needs.join(" or ")}`,
          {
            command: plan.command,
            missing: needs,
          },
        );
      }
      command =
        plan.needs === "pytest" && !found.includes("pytest")
          ? plan.command.replace(/^pytest/u, `${found[0]} -m pytest`)
          : plan.command;
      runner = plan.runner;
      warnings.push(`Ran \`${command}\`: ${plan.why}.`);
    }
    let ran: Ran;
    try {
      ran = await runQuality(context, "run_tests", command, params.timeout_sec);
    } catch (error) {
      // pytest is not installed in the embedded Python: unittest runs unittest-style tests as well.
      const missingPytest =
        runner === "pytest" &&
        !params.command &&
        error instanceof ToolFailure &&
        error.code === "tool_unavailable" &&
        /pytest is not installed/u.test(String(error.details?.stderr ?? ""));
      if (!missingPytest) throw error;
      if (!(await unittestCompatible(context, facts))) {
        throw unavailable(
          "run_tests",
          `the workspace's tests need pytest (${String(error.details?.stderr ?? "").split("\n")[1] ?? "it is not installed"})`,
          { command, missing: ["pytest"] },
        );
      }
      command = `python3 -m unittest${params.focus?.length ? ` ${params.focus.map(shellWord).join(" ")}` : ""}`;
      runner = "unittest";
      warnings.splice(
        0,
        warnings.length,
        `Ran \`${command}\`: the tests are unittest's and pytest is not installed here.`,
      );
      ran = await runQuality(context, "run_tests", command, params.timeout_sec);
    }
    const parsed = parseTestOutput(ran.output, context.sandbox.workspaceRoot, runner);
    if (!parsed)
      warnings.push("Could not read test counts from the output; passed reflects the exit code only.");
    const failures = (parsed?.failures ?? [])
      .slice(0, MAX_LISTED)
      .map(({ file, test, reason, snippet, line }) => ({ file, test, reason, snippet, line }));
    const failed = parsed?.failed_count ?? (ran.exitCode === 0 ? 0 : 1);
    const passed = ran.exitCode === 0 && failed === 0;
    if (parsed && ran.exitCode !== 0 && failed === 0)
      warnings.push(
        `The runner exited with code ${ran.exitCode} although no test failed (a collection, setup or configuration error?).`,
      );
    const summary = parsed?.summary ?? (ran.exitCode === 0 ? "exit code 0" : `exit code ${ran.exitCode}`);
    return report(
      {
        passed,
        total: parsed?.total ?? 0,
        passed_count: parsed?.passed_count ?? 0,
        failed_count: failed,
        skipped_count: parsed?.skipped_count ?? 0,
        summary,
        failures,
        raw_output: ran.rawOutput,
        command,
        exit_code: ran.exitCode,
        parser_used: parsed?.parser ?? null,
      },
      {
        message: passed
          ? `Tests passed: ${summary}.`
          : `Tests failed: ${summary}${failures[0] ? `. First: ${failures[0].test} (${failures[0].reason})` : ""}.`,
        warnings: [...warnings, ...ran.warnings],
        artifacts: ran.artifacts,
      },
    );
  },
};

interface IssueParams {
  command?: string;
  paths?: string[];
}

function issueResult(
  tool: "run_lint" | "typecheck",
  issues: Issue[],
  rawOutput: string,
  parser: IssueParser | null,
  extra: Record<string, unknown>,
  warnings: string[],
  artifacts: ResultArtifact[],
) {
  const errors = issues.filter((issue) => issue.severity === "error").length;
  const clean = issues.length === 0;
  return report(
    {
      clean,
      issue_count: issues.length,
      issues: issues.slice(0, MAX_LISTED),
      raw_output: rawOutput,
      parser_used: parser,
      ...extra,
    },
    {
      message: clean
        ? `${tool === "run_lint" ? "Lint" : "Type check"} clean (${parser}).`
        : `${plural(issues.length, "issue")} (${errors} error${errors === 1 ? "" : "s"}) from ${parser}; first: ${issues[0]!.file}:${issues[0]!.line} ${issues[0]!.message.split("\n")[0]}`,
      warnings:
        issues.length > MAX_LISTED
          ? [...warnings, `Listed the first ${MAX_LISTED} of ${issues.length} issues.`]
          : warnings,
      artifacts,
    },
  );
}

/** The words of a simple command line (quotes undone; no expansions). */
function commandWords(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/gu)].map(
    (match) => match[1] ?? match[2] ?? match[3]!,
  );
}

/**
 * `ruff check [paths]` (or `python -m ruff check`) for the built-in ruff: its paths, or what it asks
 * that the built-in cannot do. Output options do not matter (the result is structured anyway).
 */
function builtinRuffCall(command: string): { paths: string[] } | { unsupported: string } | null {
  const words = commandWords(command);
  const start =
    words[0] === "ruff"
      ? 1
      : /^python3?$/u.test(words[0] ?? "") && words[1] === "-m" && words[2] === "ruff"
        ? 3
        : -1;
  if (start === -1 || words[start] !== "check") return null;
  const paths: string[] = [];
  for (let i = start + 1; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith("-")) paths.push(word);
    else if (word === "--output-format") i++;
    else if (!/^(?:--output-format=.*|--no-cache|-q|--quiet|--no-fix|-e|--exit-zero|-n)$/u.test(word)) {
      return { unsupported: word };
    }
  }
  return { paths };
}

/** `tsc --noEmit` (or through npx) for the built-in TypeScript checker: null when it is another command. */
function builtinTscCall(command: string): { ok: true } | { unsupported: string } | null {
  const words = commandWords(command);
  const start = words[0] === "tsc" ? 1 : words[0] === "npx" && words[1] === "tsc" ? 2 : -1;
  if (start === -1) return null;
  let noEmit = false;
  for (let i = start; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--noEmit") noEmit = true;
    else if (
      (word === "-p" || word === "--project") &&
      [".", "./", "tsconfig.json", "./tsconfig.json"].includes(words[i + 1] ?? "")
    )
      i++;
    else if (word === "--pretty") {
      if (["true", "false"].includes(words[i + 1] ?? "")) i++;
    } else return { unsupported: word };
  }
  return noEmit ? { ok: true } : { unsupported: "(without --noEmit, tsc would write files)" };
}

const pathArgs = (paths: string[] | undefined) =>
  paths && paths.length > 0 ? paths.map(shellWord).join(" ") : ".";

const runLint: AnyTool = {
  name: "run_lint",
  description:
    "Run the linter and return structured issues. Auto-detects ruff for Python (the backend's ruff with --output-format=json, else ruff's WebAssembly build inside Toolroom: parser_used 'ruff-wasm', same rules and settings) or eslint for a project with an eslint config (-f json). A custom command's output is read in ruff's or eslint's text formats. TOOL_UNAVAILABLE when no linter can run.",
  inputSchema: {
    type: "object",
    properties: {
      command: {
        type: "string",
        description: "The lint command to run, e.g. 'ruff check src'. Default: auto-detected.",
      },
      paths: {
        type: "array",
        items: { type: "string" },
        description:
          "Files or folders to lint, relative to the workspace root (linted even when the project's excludes cover them, as ruff does; a missing one is reported as E902). Default: the whole workspace.",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: LINT_TIMEOUT_SEC * 1000 + 15_000,
  async run(params: IssueParams, context) {
    let command = params.command;
    const warnings: string[] = [];
    if (!command) {
      const facts = await projectFacts(context);
      const missing: string[] = [];
      if (isPythonProject(facts)) {
        if (await commandAvailable(context, "ruff"))
          command = `ruff check --output-format=json ${pathArgs(params.paths)}`;
        else {
          try {
            const checked = await lintPythonInWorker(context, {
              ...(params.paths ? { paths: params.paths } : {}),
            });
            return issueResult(
              "run_lint",
              checked.issues,
              truncateHeadTailBytes(checked.rawOutput, RAW_OUTPUT_LIMIT_BYTES).text,
              "ruff-wasm",
              {
                command: null,
                files_checked: checked.filesChecked,
                config_file: checked.configSource,
                ruff_version: checked.version,
              },
              checked.configSource ? [] : ["No ruff settings in the project: ruff's default rules apply."],
              [],
            );
          } catch (error) {
            if (!(error instanceof ToolFailure) || error.code !== "tool_unavailable") throw error;
            missing.push("ruff (for the Python files; its WebAssembly build could not load here either)");
          }
        }
      }
      if (!command && hasEslintConfig(facts)) {
        const eslint = await jsTool(context, "eslint");
        if (eslint) command = `${eslint} -f json ${pathArgs(params.paths)}`;
        else missing.push("eslint (for the eslint config)");
      }
      if (!command) {
        if (missing.length === 0) {
          throw new ToolFailure(
            "tool_unavailable",
            "run_lint found nothing to lint with: no Python files for ruff and no eslint config. Pass command= to name a linter.",
            {},
          );
        }
        throw unavailable(
          "run_lint",
          `this ${context.sandbox.kind} backend has no ${missing.join(" and no ")}`,
          { missing },
        );
      }
    } else {
      const ruff = builtinRuffCall(command);
      // `ruff check …` where the backend has no ruff: the built-in ruff runs it, on the same paths.
      if (ruff && !(await commandAvailable(context, "ruff"))) {
        if ("unsupported" in ruff) {
          throw unavailable(
            "run_lint",
            `this ${context.sandbox.kind} backend has no ruff, and the built-in one takes paths only, not ${ruff.unsupported}`,
            { command, unsupported: ruff.unsupported },
          );
        }
        const paths = [...ruff.paths, ...(params.paths ?? [])];
        const checked = await lintPythonInWorker(context, paths.length > 0 ? { paths } : {});
        return issueResult(
          "run_lint",
          checked.issues,
          truncateHeadTailBytes(checked.rawOutput, RAW_OUTPUT_LIMIT_BYTES).text,
          "ruff-wasm",
          {
            command,
            files_checked: checked.filesChecked,
            config_file: checked.configSource,
            ruff_version: checked.version,
          },
          [`Ran \`${command}\` with the built-in ruff ${checked.version} (this backend has no ruff).`],
          [],
        );
      }
      if (params.paths?.length) command = `${command} ${pathArgs(params.paths)}`;
    }
    const ran = await runQuality(context, "run_lint", command, LINT_TIMEOUT_SEC);
    const parsed = parseLintOutput(ran.output, context.sandbox.workspaceRoot);
    if (!parsed && ran.exitCode !== 0)
      warnings.push(
        `Could not read issues from the output, and the linter exited with code ${ran.exitCode}; see raw_output.`,
      );
    const issues = parsed?.issues ?? [];
    return issueResult(
      "run_lint",
      issues,
      ran.rawOutput,
      parsed?.parser ?? null,
      { command, exit_code: ran.exitCode },
      [...warnings, ...ran.warnings],
      ran.artifacts,
    );
  },
};

const typecheck: AnyTool = {
  name: "typecheck",
  description:
    "Run the type checker and return structured issues. Auto-detects: TypeScript (tsconfig.json or .ts files) runs native tsc where the backend has it, else the TypeScript compiler inside Toolroom itself (parser_used 'typescript-api', same diagnostics as tsc --noEmit); Python runs mypy or pyright. TOOL_UNAVAILABLE when no checker can run.",
  inputSchema: {
    type: "object",
    properties: {
      command: {
        type: "string",
        description: "The type-check command to run, e.g. 'mypy src'. Default: auto-detected.",
      },
      paths: {
        type: "array",
        items: { type: "string" },
        description:
          "Files or folders to report on, relative to the workspace root (a missing one is reported as TS6053). Default: the whole workspace.",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: LINT_TIMEOUT_SEC * 1000 + 15_000,
  async run(params: IssueParams, context) {
    let command = params.command;
    const warnings: string[] = [];
    // tsc checks a whole project (-p cannot take files): its report is narrowed to paths instead.
    let narrowTo: string[] | undefined;
    if (!command) {
      const facts = await projectFacts(context);
      // A tsconfig.json says TypeScript first; otherwise Python first. Whichever can run here wins.
      const order: ("typescript" | "python")[] = facts.files.has("tsconfig.json")
        ? ["typescript", "python"]
        : ["python", "typescript"];
      const missing: string[] = [];
      for (const language of order) {
        if (language === "python" && isPythonProject(facts)) {
          if (await commandAvailable(context, "mypy")) {
            command = `mypy --show-column-numbers --show-error-codes --no-color-output --no-error-summary ${pathArgs(params.paths)}`;
            break;
          }
          if (await commandAvailable(context, "pyright")) {
            command = `pyright --outputjson ${params.paths?.map(shellWord).join(" ") ?? ""}`.trim();
            break;
          }
          missing.push("mypy or pyright (for the Python files)");
        }
        if (language === "typescript" && isTypeScriptProject(facts)) {
          const tsc = context.sandbox.capabilities.nativeBinaries ? await jsTool(context, "tsc") : null;
          if (tsc) {
            command = `${tsc} --noEmit --pretty false${facts.files.has("tsconfig.json") ? " -p ." : ""}`;
            narrowTo = params.paths;
            break;
          }
          const checked = await typecheckWithCompiler(context, {
            ...(params.paths ? { paths: params.paths } : {}),
          });
          return issueResult(
            "typecheck",
            checked.issues,
            truncateHeadTailBytes(checked.rawOutput, RAW_OUTPUT_LIMIT_BYTES).text,
            "typescript-api",
            { command: null, files_checked: checked.filesChecked, config_file: checked.configFile },
            [...checked.warnings, ...missing.map((what) => `Not checked: this backend has no ${what}.`)],
            [],
          );
        }
      }
      if (!command) {
        if (missing.length > 0) {
          throw unavailable(
            "typecheck",
            `this ${context.sandbox.kind} backend has no ${missing.join(" and no ")}`,
            {
              missing: ["mypy", "pyright"],
            },
          );
        }
        throw new ToolFailure(
          "tool_unavailable",
          "typecheck found nothing to check: no TypeScript and no Python files. Pass command= to name a type checker.",
          {},
        );
      }
    } else {
      const tsc = builtinTscCall(command);
      const nativeTsc =
        (await commandAvailable(context, "tsc")) ||
        (context.sandbox.capabilities.nativeBinaries && (await jsTool(context, "tsc")) !== null);
      // `tsc --noEmit` where the backend has no tsc: the built-in TypeScript checker runs it.
      if (tsc && !nativeTsc) {
        if ("unsupported" in tsc) {
          throw unavailable(
            "typecheck",
            `this ${context.sandbox.kind} backend has no tsc, and the built-in checker runs \`tsc --noEmit [-p .]\` only, not ${tsc.unsupported} (name files with paths=)`,
            { command, unsupported: tsc.unsupported },
          );
        }
        const checked = await typecheckWithCompiler(context, params.paths ? { paths: params.paths } : {});
        return issueResult(
          "typecheck",
          checked.issues,
          truncateHeadTailBytes(checked.rawOutput, RAW_OUTPUT_LIMIT_BYTES).text,
          "typescript-api",
          { command, files_checked: checked.filesChecked, config_file: checked.configFile },
          [
            `Ran \`${command}\` with the built-in TypeScript checker (this backend has no tsc).`,
            ...checked.warnings,
          ],
          [],
        );
      }
      if (params.paths?.length) command = `${command} ${pathArgs(params.paths)}`;
    }
    const ran = await runQuality(context, "typecheck", command, LINT_TIMEOUT_SEC);
    const parsed = parseTypecheckOutput(ran.output, context.sandbox.workspaceRoot);
    if (!parsed && ran.exitCode !== 0)
      warnings.push(
        `Could not read issues from the output, and the checker exited with code ${ran.exitCode}; see raw_output.`,
      );
    const under = (file: string, path: string) => {
      const prefix = path.replace(/^\.\//u, "").replace(/\/+$/u, "");
      return prefix === "" || prefix === "." || file === prefix || file.startsWith(`${prefix}/`);
    };
    const issues = (parsed?.issues ?? []).filter(
      (issue) => !narrowTo?.length || narrowTo.some((path) => under(issue.file, path)),
    );
    return issueResult(
      "typecheck",
      issues,
      ran.rawOutput,
      parsed?.parser ?? null,
      { command, exit_code: ran.exitCode },
      [...warnings, ...ran.warnings],
      ran.artifacts,
    );
  },
};

export const QUALITY_TOOLS: AnyTool[] = [runTests, runLint, typecheck];
