import { parse } from "just-bash";
import type { PtyRead, PtySession } from "../types.ts";

/** What a session needs from its sandbox: run one script with a given cwd and environment. */
export type RunScript = (
  script: string,
  options: { cwd: string; env: Record<string, string>; signal: AbortSignal },
) => Promise<{ stdout: string; stderr: string; exitCode: number; env?: Record<string, string> }>;

export interface ShellSessionOptions {
  id: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Printed before each command line; empty for tool sessions, "$ " for a person's terminal. */
  prompt?: string;
  run: RunScript;
}

const SHELL_COMMAND = /^(?:\/(?:usr\/)?bin\/)?(?:ba|z|da|k)?sh(?:\s+-[a-z]+)*\s*$/u;
/** Variables the shell manages itself; carrying them into the next command would confuse it. */
const SHELL_MANAGED = new Set([
  "?",
  "$",
  "!",
  "#",
  "@",
  "*",
  "-",
  "_",
  "BASHOPTS",
  "SHELLOPTS",
  "OPTIND",
  "IFS",
  "BASHPID",
]);
const SENTINEL = "__TOOLROOM_SHELL_ALIVE";

/**
 * A PTY-like session on the embedded sandbox. just-bash runs one script at a time and forgets
 * its state, so a shell session is emulated line by line: input is echoed, complete commands
 * run in order, and the cwd and variables each leaves behind carry into the next. `exit` ends
 * the session with its code. Any other command runs once, to completion, as its own session.
 */
export class ShellSession implements PtySession {
  readonly id: string;
  readonly command: string;
  private readonly run: RunScript;
  private readonly prompt: string;
  private cwd: string;
  private env: Record<string, string>;
  private pendingLine = "";
  private pendingScript = "";
  private output = "";
  private exit: number | null = null;
  private queue: Promise<void> = Promise.resolve();
  private running = 0;
  private current: AbortController | null = null;
  private waiters: (() => void)[] = [];

  constructor(options: ShellSessionOptions) {
    this.id = options.id;
    this.command = options.command;
    this.run = options.run;
    this.prompt = options.prompt ?? "";
    this.cwd = options.cwd;
    this.env = { ...options.env };
    if (SHELL_COMMAND.test(options.command.trim())) {
      this.output += this.prompt;
    } else {
      this.enqueue(options.command, false);
    }
  }

  exitCode(): number | null {
    return this.exit;
  }

  async write(chars: string): Promise<void> {
    if (this.exit !== null) throw new Error(`session ${this.id} has exited with code ${this.exit}`);
    for (const char of chars) {
      if (char === "\u0003") {
        this.output += "^C\n";
        this.current?.abort();
        this.pendingLine = "";
        this.pendingScript = "";
        this.output += this.prompt;
      } else if (char === "\u0004") {
        if (this.pendingLine === "" && this.pendingScript === "") this.enqueue("exit", true);
      } else if (char === "\u007f" || char === "\b") {
        if (this.pendingLine.length > 0) {
          this.pendingLine = this.pendingLine.slice(0, -1);
          this.output += "\b \b";
        }
      } else if (char === "\r" || char === "\n") {
        this.output += "\n";
        this.acceptLine(this.pendingLine);
        this.pendingLine = "";
      } else {
        this.pendingLine += char;
        this.output += char;
      }
    }
  }

  async read(options: { yieldMs?: number } = {}): Promise<PtyRead> {
    const yieldMs = options.yieldMs ?? 250;
    if (this.running > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, yieldMs);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const output = this.output;
    this.output = "";
    return { output, exited: this.exit !== null, exitCode: this.exit };
  }

  async resize(): Promise<void> {
    // Output is produced whole per command; there is no screen to reflow.
  }

  async kill(): Promise<void> {
    this.current?.abort();
    if (this.exit === null) this.exit = 130;
    this.notify();
  }

  /** Waits until every queued command has run (tests and the terminal use it). */
  async idle(): Promise<void> {
    await this.queue;
  }

  private acceptLine(line: string): void {
    this.pendingScript = this.pendingScript === "" ? line : `${this.pendingScript}\n${line}`;
    if (isIncomplete(this.pendingScript)) {
      this.output += "> ";
      return;
    }
    const script = this.pendingScript;
    this.pendingScript = "";
    if (script.trim() === "") {
      this.output += this.prompt;
      return;
    }
    this.enqueue(script, true);
  }

  private enqueue(script: string, interactive: boolean): void {
    this.running++;
    this.queue = this.queue.then(async () => {
      if (this.exit !== null) return;
      const controller = new AbortController();
      this.current = controller;
      try {
        // The sentinel is only set when the script did not call `exit`.
        const wrapped = interactive ? `{ ${script}\n}; ${SENTINEL}=1` : script;
        const result = await this.run(wrapped, { cwd: this.cwd, env: this.env, signal: controller.signal });
        this.output += result.stdout + result.stderr;
        if (!interactive) {
          this.exit = result.exitCode;
        } else if (result.env?.[SENTINEL] !== "1" && !controller.signal.aborted) {
          this.exit = result.exitCode;
        } else if (result.env) {
          this.cwd = result.env.PWD ?? this.cwd;
          const next: Record<string, string> = {};
          for (const [key, value] of Object.entries(result.env)) {
            if (!SHELL_MANAGED.has(key) && key !== SENTINEL) next[key] = value;
          }
          this.env = next;
        }
      } catch (error) {
        this.output += `${error instanceof Error ? error.message : String(error)}\n`;
      } finally {
        this.current = null;
        this.running--;
        if (interactive && this.exit === null) this.output += this.prompt;
        this.notify();
      }
    });
  }

  /** Releases readers once nothing is running any more. */
  private notify(): void {
    if (this.running > 0 && this.exit === null) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** True when a shell would print a continuation prompt: an open quote, block, heredoc or trailing operator. */
export function isIncomplete(script: string): boolean {
  const trimmed = script.trimEnd();
  if (/(?:\|\||&&|\||\\)$/u.test(trimmed)) return true;
  const heredoc = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/gu;
  for (const match of script.matchAll(heredoc)) {
    const delimiter = match[2];
    const after = script
      .slice((match.index ?? 0) + match[0].length)
      .split("\n")
      .slice(1);
    if (!after.some((line) => line.trim() === delimiter)) return true;
  }
  try {
    parse(script);
    return false;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return /EOF|unexpected token `(?:fi|done|esac|\}|then|do)'/u.test(message);
  }
}
