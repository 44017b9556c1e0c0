import { Bash } from "just-bash";

/**
 * A loop left through `break` or `continue` ends with status 0, as in bash: those builtins return 0
 * and are the last command the loop ran. just-bash 3.4 keeps the status of the command before them
 * (`for i in 1; do false; break; done; echo $?` printed 1, and under `set -e` such a loop ended the
 * script silently). just-bash exports no hook for loops (upstream's fix is vercel-labs/just-bash
 * PR #417, unreleased), so its interpreter's command dispatch is wrapped once per process, in the
 * browser worker and in Node alike: a loop whose last command was `break`/`continue` answers 0.
 * If just-bash's shape changes, installing fails with an error naming this file (see its test).
 */

interface Node {
  type: string;
  condition?: unknown;
}

interface Result {
  exitCode: number;
}

interface Interpreter {
  executeCommandInner(node: Node, ...rest: unknown[]): Promise<Result>;
  executeStatement(statement: unknown, ...rest: unknown[]): Promise<Result>;
}

/** One loop being run: whether its last command was a break/continue, and whether its own condition runs. */
interface Frame {
  node: Node;
  leftByControl: boolean;
  inOwnCondition: number;
}

const LOOPS = new Set(["For", "CStyleFor", "While", "Until"]);

/** The loops each interpreter is inside, innermost last (an interpreter runs one script, in order). */
const running = new WeakMap<object, Frame[]>();

function framesOf(interpreter: object): Frame[] {
  let frames = running.get(interpreter);
  if (!frames) {
    frames = [];
    running.set(interpreter, frames);
  }
  return frames;
}

function isLoopControl(error: unknown): boolean {
  return error instanceof Error && (error.name === "BreakError" || error.name === "ContinueError");
}

/** The interpreter's prototype: its class is private, so it is caught binding its own methods. */
async function interpreterPrototype(shell: typeof Bash): Promise<Interpreter> {
  const bind = Function.prototype.bind;
  let found: Interpreter | undefined;
  // A bind that looks at what it binds, then does bind's work.
  Function.prototype.bind = function (
    this: (...args: unknown[]) => unknown,
    thisArg: unknown,
    ...args: unknown[]
  ) {
    const candidate = thisArg as Partial<Interpreter> | null;
    if (
      found === undefined &&
      this.name === "executeStatement" &&
      typeof candidate?.executeCommandInner === "function"
    ) {
      found = Object.getPrototypeOf(candidate) as Interpreter;
      Function.prototype.bind = bind;
    }
    return bind.call(this, thisArg, ...args);
  } as typeof bind;
  try {
    await new shell().exec("true");
  } finally {
    Function.prototype.bind = bind;
  }
  if (
    !found ||
    typeof found.executeCommandInner !== "function" ||
    typeof found.executeStatement !== "function"
  )
    throw new Error(
      "just-bash's interpreter changed shape (no executeStatement/executeCommandInner): update src/sandbox/embedded/loop-status.ts",
    );
  return found;
}

function install(proto: Interpreter): void {
  const runCommand = proto.executeCommandInner;
  const runStatement = proto.executeStatement;

  proto.executeCommandInner = async function (this: Interpreter, node: Node, ...rest: unknown[]) {
    const frames = framesOf(this);
    const current = frames.at(-1);
    // A command that starts in the loop's body decides the loop's status from now on.
    if (current && current.inOwnCondition === 0) current.leftByControl = false;
    const loop = LOOPS.has(node.type);
    const frame: Frame = { node, leftByControl: false, inOwnCondition: 0 };
    if (loop) frames.push(frame);
    let result: Result;
    try {
      result = await runCommand.call(this, node, ...rest);
    } catch (error) {
      if (loop) frames.pop();
      // The loop that catches it (this one's, or an outer one for `break 2`) was left by it.
      const catcher = frames.at(-1);
      if (catcher && isLoopControl(error)) catcher.leftByControl = true;
      throw error;
    }
    if (!loop) return result;
    frames.pop();
    return frame.leftByControl && result.exitCode !== 0 ? { ...result, exitCode: 0 } : result;
  };

  proto.executeStatement = async function (this: Interpreter, statement: unknown, ...rest: unknown[]) {
    const current = framesOf(this).at(-1);
    // A while/until's own condition runs between iterations: it does not replace a `continue`'s 0.
    const own =
      current !== undefined &&
      Array.isArray(current.node.condition) &&
      (current.node.type === "While" || current.node.type === "Until") &&
      current.node.condition.includes(statement);
    if (own) current.inOwnCondition++;
    try {
      return await runStatement.call(this, statement, ...rest);
    } finally {
      if (own) current.inOwnCondition--;
    }
  };
}

const installed = new Map<typeof Bash, Promise<void>>();

/**
 * Installs the fix once per process (per just-bash build: the tests fix the browser bundle too);
 * every shell run awaits it before its first command.
 */
export function fixLoopStatus(shell: typeof Bash = Bash): Promise<void> {
  let done = installed.get(shell);
  if (!done) {
    done = interpreterPrototype(shell).then(install);
    installed.set(shell, done);
  }
  return done;
}
