import { parse } from "just-bash";
import { deadlineSignal, type StopBoard, type StopHandle, stopReason } from "../stop-signal.ts";
import type { PtyRead, PtySession } from "../types.ts";
import { TICK_COUNTER } from "./live-script.ts";
import { TtyInput } from "./tty.ts";

/** What a session needs from its sandbox: run one script with a given cwd, environment and terminal. */
export type RunScript = (
  script: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    signal: AbortSignal;
    /** What is typed: commands that read the terminal take it from here as it arrives. */
    input: TtyInput;
    /** Output as it is printed. */
    onOutput: (stream: "stdout" | "stderr", text: string) => void;
  },
) => Promise<{ stdout: string; stderr: string; exitCode: number; env?: Record<string, string> }>;

export interface ShellSessionOptions {
  id: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Printed before each command line; empty for tool sessions, "$ " for a person's terminal. */
  prompt?: string;
  /** The foreground command runs as this channel's job, so another thread can stop it (Ctrl-C). */
  stops?: { board: StopBoard; channel: number } | undefined;
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
  TICK_COUNTER,
]);
const SENTINEL = "__TOOLROOM_SHELL_ALIVE";
/**
 * Each command line runs in a fresh just-bash shell that exports every variable it is given: the
 * line's end records which were exported (`compgen -e`) and its status, so the next line un-exports
 * the others (`Y=1` on one line is not in `env` or a program's environment on the next).
 */
const EXPORTED = "__TOOLROOM_SHELL_EXPORTED";
const STATUS = "__TOOLROOM_SHELL_STATUS";
const IDENTIFIER = /^[A-Za-z_]\w*$/u;
/** Output not yet read is kept up to this many characters: the first half and the latest half. */
const PENDING_OUTPUT_CHARS = 1024 * 1024;
/**
 * A session's command has no deadline, but one that holds the thread this long without yielding (a
 * busy node or awk loop: no message, so no Ctrl-C, can reach it) is stopped, before the page's
 * watchdog would restart the worker and where nothing else could stop it (the CLI).
 */
export const SESSION_STALL_MS = 10_000;
/** A process waiting for input is taken as settled once it has printed nothing for this long. */
const SETTLE_MS = 3;

/**
 * A live process on an emulated terminal in the embedded sandbox. What is written is typed:
 * echoed, edited (backspace), handed over a line at a time on Enter (canonical mode); Ctrl-C
 * interrupts the foreground command and flushes what was typed ahead, Ctrl-D ends the input.
 * `bash` (or sh) is a shell: it reads command lines from the terminal and runs them in turn,
 * carrying the cwd and variables each leaves behind (just-bash forgets them between scripts), and
 * `exit` ends it. Any other command runs once on the terminal and its exit ends the session.
 * While a command runs it reads what is typed as it arrives and its output streams out.
 */
export class ShellSession implements PtySession {
  readonly id: string;
  readonly command: string;
  private readonly run: RunScript;
  private readonly prompt: string;
  private readonly stops: ShellSessionOptions["stops"];
  private readonly input = new TtyInput();
  private cwd: string;
  private env: Record<string, string>;
  /** The variables exported at the end of the last command line (all of env before the first). */
  private exported: Set<string> | undefined;
  private editLine = "";
  private afterCarriageReturn = false;
  private head = "";
  private tail = "";
  private dropped = 0;
  private exit: number | null = null;
  private foreground: AbortController | null = null;
  /** A shell (not a one-shot command) that reads its command lines from the terminal. */
  private readonly isShell: boolean;
  /** The shell is waiting at its prompt: a line typed now is its next command line. */
  private atPrompt = false;
  private pendingScript = "";
  private lastStatus = 0;
  private readonly listeners = new Set<() => void>();

  constructor(options: ShellSessionOptions) {
    this.id = options.id;
    this.command = options.command;
    this.run = options.run;
    this.prompt = options.prompt ?? "";
    this.stops = options.stops;
    this.cwd = options.cwd;
    this.env = { ...options.env };
    this.input.onChange = () => this.notify();
    this.isShell = SHELL_COMMAND.test(options.command.trim());
    if (this.isShell) {
      this.print(this.prompt);
      this.atPrompt = true;
    } else void this.once(options.command);
  }

  exitCode(): number | null {
    return this.exit;
  }

  async write(chars: string): Promise<void> {
    if (this.exit !== null) throw new Error(`session ${this.id} has exited with code ${this.exit}`);
    for (const char of chars) {
      const crlf = this.afterCarriageReturn && char === "\n";
      this.afterCarriageReturn = char === "\r";
      if (crlf) continue;
      if (char === "\u0003") this.interrupt();
      else if (char === "\u0004") {
        if (this.editLine === "") this.typed(null);
        else this.typed(this.editLine);
        this.editLine = "";
      } else if (char === "\u007f" || char === "\b") {
        if (this.editLine.length > 0) {
          this.editLine = this.editLine.slice(0, -1);
          this.print("\b \b");
        }
      } else if (char === "\r" || char === "\n") {
        this.print("\n");
        this.typed(`${this.editLine}\n`);
        this.editLine = "";
      } else {
        this.editLine += char;
        this.print(char);
      }
    }
  }

  async read(options: { yieldMs?: number } = {}): Promise<PtyRead> {
    const deadline = Date.now() + (options.yieldMs ?? 250);
    for (;;) {
      const left = deadline - Date.now();
      if (this.exit !== null || left <= 0) break;
      if (!this.waitingForInput) {
        await this.change(left);
        continue;
      }
      // Waiting for input: done once its output has settled.
      const seen = this.head.length + this.tail.length + this.dropped;
      await this.change(Math.min(SETTLE_MS, left));
      if (this.waitingForInput && seen === this.head.length + this.tail.length + this.dropped) break;
    }
    const output =
      this.dropped > 0
        ? `${this.head}\n[… ${this.dropped} characters of output not read in time were dropped …]\n${this.tail}`
        : this.head + this.tail;
    this.head = "";
    this.tail = "";
    this.dropped = 0;
    return { output, exited: this.exit !== null, exitCode: this.exit };
  }

  async resize(): Promise<void> {
    // Programs here do not ask for the terminal's size; nothing to reflow.
  }

  async kill(): Promise<void> {
    if (this.exit === null) this.exit = 130;
    this.atPrompt = false;
    this.stopForeground();
    this.notify();
  }

  /** Waits until the session is idle: waiting for input, or ended (tests and the terminal use it). */
  async idle(): Promise<void> {
    while (!this.waitingForInput) await this.change(1000);
  }

  /** Ended, at the shell's prompt, or a command waits for what is typed with nothing queued. */
  private get waitingForInput(): boolean {
    return this.exit !== null || this.atPrompt || this.input.starved;
  }

  /** Ctrl-C: the foreground command stops (130), typed-ahead input is flushed, the prompt comes back. */
  private interrupt(): void {
    this.print("^C\n");
    this.editLine = "";
    this.input.discard();
    if (this.atPrompt) {
      this.pendingScript = "";
      this.print(this.prompt);
    }
    this.stopForeground();
  }

  /** A line (or Ctrl-D: null, or what Ctrl-D sent of a line) goes to the shell at its prompt, else to the terminal. */
  private typed(chunk: string | null): void {
    if (this.atPrompt) this.shellLine(chunk);
    else if (chunk === null) this.input.end();
    else this.input.push(chunk);
  }

  private stopForeground(): void {
    if (!this.foreground) return;
    this.foreground.abort();
    if (this.stops) this.stops.board.stopRunning(this.stops.channel);
  }

  /** The shell at its prompt takes one typed line: runs it when it completes a command. */
  private shellLine(chunk: string | null): void {
    if (chunk === null) {
      if (this.pendingScript === "") {
        this.finish(this.lastStatus);
        return;
      }
      this.print("bash: syntax error: unexpected end of file\n");
      this.pendingScript = "";
      this.lastStatus = 2;
      this.print(this.prompt);
      return;
    }
    const text = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
    this.pendingScript = this.pendingScript === "" ? text : `${this.pendingScript}\n${text}`;
    if (isIncomplete(this.pendingScript)) {
      this.print("> ");
      return;
    }
    const script = this.pendingScript;
    this.pendingScript = "";
    if (script.trim() === "") {
      this.print(this.prompt);
      return;
    }
    this.atPrompt = false;
    void this.runForeground(script, true).then((status) => {
      this.lastStatus = status;
      if (this.exit !== null) return;
      this.print(this.prompt);
      this.atPrompt = true;
      // Lines typed while the command ran and not read by it are the shell's now.
      while (this.atPrompt && this.input.ready) this.shellLine(this.input.take());
      this.notify();
    });
  }

  /** A one-shot command: its exit ends the session. */
  private async once(command: string): Promise<void> {
    const status = await this.runForeground(command, false);
    if (this.exit === null) this.finish(status);
  }

  private finish(status: number): void {
    this.exit = status;
    this.atPrompt = false;
    this.notify();
  }

  /** `export -n` of the variables the last command line left unexported ("" when none). */
  private unexport(): string {
    if (!this.exported) return "";
    const names = Object.keys(this.env).filter((name) => IDENTIFIER.test(name) && !this.exported!.has(name));
    return names.length > 0 ? `export -n ${names.join(" ")}; ` : "";
  }

  /** Runs one script in the foreground, its output streaming to the terminal; returns its status. */
  private async runForeground(script: string, interactive: boolean): Promise<number> {
    const controller = new AbortController();
    this.foreground = controller;
    let stop: StopHandle;
    if (this.stops) {
      const { board, channel } = this.stops;
      const job = board.nextJob(channel);
      board.begin(channel, job);
      stop = board.signal(channel, job, { parents: [controller.signal], stallMs: SESSION_STALL_MS });
    } else stop = deadlineSignal({ parents: [controller.signal], stallMs: SESSION_STALL_MS });
    const signal = stop.signal;
    try {
      // The sentinel is only set when the script did not call `exit`; `(exit N)` first gives `$?` the
      // last command line's status, as a shell carries it from one line to the next.
      const wrapped = interactive
        ? // The bookkeeping after the line is not traced under the line's `set -x`.
          `${this.unexport()}(exit ${this.lastStatus}); { ${script}\n}; { ${STATUS}=$?; set +x; } 2>/dev/null; ${SENTINEL}=1; ${EXPORTED}=$(compgen -e; true)`
        : script;
      const result = await this.run(wrapped, {
        cwd: this.cwd,
        env: this.env,
        signal,
        input: this.input,
        onOutput: (_stream, text) => this.print(text),
      });
      this.print(result.stdout + result.stderr);
      if (stopReason(signal) === "deadline") {
        this.print(
          `\n[stopped: the command held the sandbox for over ${SESSION_STALL_MS / 1000} s without pausing, so nothing (not even Ctrl-C) could reach it; commands that print, sleep or wait for input may run as long as they like]\n`,
        );
      }
      if (interactive && result.env?.[SENTINEL] !== "1" && !signal.aborted) {
        this.finish(result.exitCode);
      } else if (interactive && result.env) {
        this.cwd = result.env.PWD ?? this.cwd;
        const next: Record<string, string> = {};
        for (const [key, value] of Object.entries(result.env)) {
          if (!SHELL_MANAGED.has(key) && key !== SENTINEL && key !== EXPORTED && key !== STATUS)
            next[key] = value;
        }
        this.env = next;
        const exported = result.env[EXPORTED];
        if (exported !== undefined) this.exported = new Set(exported.split("\n"));
        const status = result.env[STATUS];
        if (status !== undefined && !signal.aborted) return Number(status);
      }
      return result.exitCode;
    } catch (error) {
      this.print(`${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    } finally {
      this.foreground = null;
      if (this.stops) this.stops.board.begin(this.stops.channel, 0);
      stop.dispose();
      this.notify();
    }
  }

  /** Appends to the output not yet read; past the cap, the middle of it is dropped and counted. */
  private print(text: string): void {
    if (text === "") return;
    const half = PENDING_OUTPUT_CHARS / 2;
    if (this.tail === "" && this.head.length + text.length <= PENDING_OUTPUT_CHARS) {
      this.head += text;
    } else {
      if (this.tail === "" && this.head.length > half) {
        this.tail = this.head.slice(half);
        this.head = this.head.slice(0, half);
      }
      this.tail += text;
      if (this.tail.length > half) {
        this.dropped += this.tail.length - half;
        this.tail = this.tail.slice(-half);
      }
    }
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves on the next output, input or state change, or after `ms`. */
  private change(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.listeners.add(done);
    });
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
