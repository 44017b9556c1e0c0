import { Bash } from "just-bash";
import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "./embedded-sandbox.ts";
import { planRead } from "./live-script.ts";

/**
 * The rewrite that streams output must not change what a script does: each script here gives the
 * same stdout, stderr and exit code with the rewrite (through the sandbox) as just-bash alone.
 */
// A failing command here is one just-bash's own (cat), not one of ours that speaks as GNU (ls).
const SCRIPTS = [
  "echo hi; echo err >&2; exit 3",
  'y=$(echo sub; echo e >&2); echo "[$y]"',
  "echo a | tr a b",
  "for i in 1 2 3; do echo $i; done | wc -l",
  "cat /nonexistent; echo after",
  "{ echo g1; echo g2; } > /tmp/f; cat /tmp/f",
  "{ echo g1; cat /missing; } 2>&1 | sort",
  "echo x 2>&1 | cat",
  "cat /missing 2>&1 >/dev/null | tr a-z A-Z",
  "cat /missing |& tr a-z A-Z",
  "echo to-err 1>&2",
  "f() { echo in f; echo f-err >&2; return 3; }; f; echo $?",
  "f() { echo piped; }; f | tr a-z A-Z",
  "echo -n partial",
  "while read -r l; do echo got $l; done <<'EOF'\none\ntwo\nEOF",
  "until false; do echo $?; break; done",
  "i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i; done > /tmp/n; cat /tmp/n",
  "case x in x) echo matched;; *) echo no;; esac",
  "(echo sub; exit 4); echo $?",
  "if true; then echo yes; else echo no; fi 2>/dev/null",
  "exec 3>&1; echo via3 >&3",
  "exec >/tmp/all; echo hidden; exec >&2; echo shown-on-err",
  "x=1 >/dev/null; echo $x",
  "echo $(echo a | tr a b) $(( 2 + 3 ))",
  "cat <<< 'here string'",
  "read -r a b <<< 'one two'; echo \"$b/$a\"",
  "set -e; echo before; false; echo never",
  "printf '%s\\n' a b c | head -n 2",
  "echo out; sleep 0; echo done",
  "echo 'héllo wörld'; printf 'caf\\xc3\\xa9\\n'",
  "env X=1 printenv X; env -i Y=2 printenv Y",
];

describe("the live rewrite changes nothing a script does", () => {
  it.each(SCRIPTS)("%s", async (script) => {
    const sandbox = await EmbeddedSandbox.create();
    await sandbox.fs.mkdir("/tmp", { recursive: true });
    const plain = await new Bash({ fs: sandbox.fs, cwd: "/workspace" }).exec(script, { rawScript: true });
    await sandbox.fs.rm("/tmp", { recursive: true, force: true });
    await sandbox.fs.mkdir("/tmp", { recursive: true });
    const live = await sandbox.exec(script);
    expect({ stdout: live.stdout, stderr: live.stderr, exitCode: live.exitCode }).toEqual({
      stdout: plain.stdout,
      stderr: plain.stderr,
      exitCode: plain.exitCode,
    });
  });
});

describe("planRead", () => {
  const word = (text: string) => ({
    type: "Word" as const,
    parts: [{ type: "Literal" as const, value: text }],
  });
  const texts = (args: string[]) =>
    planRead(args.map(word))?.kept.map((kept) => (kept.parts[0] as { value: string }).value);

  it("keeps what read itself needs and drops what the terminal helper does (-p, -t, -s, -e)", () => {
    expect(texts(["-r", "name"])).toEqual(["-r", "name"]);
    expect(texts(["-rp", "Name? ", "name"])).toEqual(["-r", "name"]);
    expect(texts(["-s", "-t", "5", "-n", "1", "key"])).toEqual(["-n", "1", "key"]);
    expect(texts(["-a", "words"])).toEqual(["-a", "words"]);
    expect(texts(["-d", ",", "field"])).toEqual(["-d", ",", "field"]);
  });

  it("leaves a read of another descriptor, or with an unknown option, as it is", () => {
    expect(texts(["-u", "3", "line"])).toBeUndefined();
    expect(texts(["-Z", "x"])).toBeUndefined();
    expect(texts(["-n"])).toBeUndefined();
  });
});
