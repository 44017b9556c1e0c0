/**
 * safe_shell's command policy: a denylist of destructive patterns (each with a reason and a safer
 * way to get the same done), then an allowlist every simple command of the line must match.
 */

export interface PolicyVerdict {
  blocked: boolean;
  reason?: string;
  /** The deny pattern's name, or null when the command is merely not on the allowlist. */
  matchedPattern?: string | null;
  suggestedSafeAlternative?: string | null;
}

interface DenyRule {
  pattern: string;
  test: (command: string, segments: string[]) => boolean;
  reason: string;
  alternative: string | null;
}

const SYSTEM_DIRS = "(?:etc|bin|sbin|usr|boot|lib|lib64|sys|proc|dev/(?!null\\b|stdout\\b|stderr\\b))";

/** Flags of an `rm` simple command: whether it deletes recursively and forcibly. */
function isRecursiveForceRm(segment: string): boolean {
  const words = segment.split(/\s+/u);
  // `rm` may also come after find -exec, xargs or a path (/bin/rm).
  const start = words.findIndex((word) => word === "rm" || word.endsWith("/rm"));
  if (start === -1) return false;
  let recursive = false;
  let force = false;
  for (const word of words.slice(start + 1)) {
    if (word === "--") break;
    if (word === "--recursive") recursive = true;
    else if (word === "--force") force = true;
    else if (/^-[a-zA-Z]+$/u.test(word)) {
      if (/[rR]/u.test(word)) recursive = true;
      if (word.includes("f")) force = true;
    }
  }
  return recursive && force;
}

const DENY: readonly DenyRule[] = [
  {
    pattern: "rm -rf",
    test: (_, segments) => segments.some(isRecursiveForceRm),
    reason: "Recursive forced deletion can wipe the workspace with no way back.",
    alternative:
      'Delete the one folder you mean with file_delete {"path": "<folder>", "recursive": true}, after checking it with file_list.',
  },
  {
    pattern: "curl|wget ... | sh",
    test: (command) => /\b(?:curl|wget)\b[^|]*\|\s*(?:sudo\s+)?(?:ba|z|k|da|fi)?sh\b/u.test(command),
    reason: "Piping a download into a shell runs code nobody has read.",
    alternative:
      "Download to a file first (curl -fsSL -o install.sh URL), read it with file_read, then run it explicitly.",
  },
  {
    pattern: "shutdown|reboot|halt|poweroff",
    test: (_, segments) => segments.some((segment) => /^(?:shutdown|reboot|halt|poweroff)\b/u.test(segment)),
    reason: "Stopping or restarting the machine is never part of a coding task.",
    alternative: null,
  },
  {
    pattern: "mkfs",
    test: (_, segments) => segments.some((segment) => /^mkfs(?:\.\w+)?\b/u.test(segment)),
    reason: "Formatting a filesystem destroys everything on it.",
    alternative: null,
  },
  {
    pattern: "dd of=/dev/*",
    test: (command) => /\bdd\b[^;&|]*\bof=\/dev\//u.test(command),
    reason: "Writing raw bytes to a device destroys what is on it.",
    alternative: null,
  },
  {
    pattern: "write to /etc/, /bin/, /usr/",
    test: (command) =>
      new RegExp(`>>?\\s*/${SYSTEM_DIRS}`, "u").test(command) ||
      new RegExp(`\\btee\\b(?:\\s+-\\w+)*\\s+/${SYSTEM_DIRS}`, "u").test(command) ||
      new RegExp(`\\b(?:cp|mv|install|ln|rsync)\\b[^;&|]*\\s/${SYSTEM_DIRS}\\S*\\s*(?:$|[;&|])`, "u").test(
        command,
      ) ||
      new RegExp(`\\b(?:sed|perl)\\s+-i\\S*[^;&|]*\\s/${SYSTEM_DIRS}`, "u").test(command) ||
      new RegExp(`\\b(?:chmod|chown)\\b[^;&|]*\\s/${SYSTEM_DIRS}`, "u").test(command),
    reason: "System folders (/etc, /bin, /usr, ...) are not yours to change; work inside the workspace.",
    alternative:
      "Write the file inside the workspace (file_write), or set the configuration per project (an env var, a local config file).",
  },
  {
    pattern: ":(){ :|:& };:",
    test: (command) => /:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&/u.test(command),
    reason: "A fork bomb exhausts the machine.",
    alternative: null,
  },
  {
    pattern: "sudo",
    test: (_, segments) => segments.some((segment) => /^(?:sudo|su|doas)\b/u.test(segment)),
    reason: "There is no superuser in the sandbox, and a coding task should not need one.",
    alternative:
      "Run the command without sudo; install packages per project (pip install --user, npm install).",
  },
  {
    pattern: "chmod -R 777 /",
    test: (command) => /\bchmod\s+(?:-\w+\s+)*-R\s+(?:-\w+\s+)*[0-7]{3,4}\s+\/(?:\s|$)/u.test(command),
    reason: "Opening every file of the system to everyone.",
    alternative: null,
  },
  {
    pattern: "git push --force",
    test: (_, segments) =>
      segments.some((segment) => /^git\s+push\b/u.test(segment) && /\s(?:--force|-f)(?:\s|$)/u.test(segment)),
    reason: "A forced push overwrites other people's commits on the remote.",
    alternative: "git push --force-with-lease, which refuses when the remote has commits you have not seen.",
  },
  {
    pattern: "git reset --hard",
    test: (_, segments) => segments.some((segment) => /^git\s+reset\b.*\s--hard\b/u.test(segment)),
    reason: "Throws away every uncommitted change in the working tree.",
    alternative:
      "git stash (keeps the changes, recoverable with git stash pop), or git diff first to see what would go.",
  },
  {
    pattern: "git clean -f",
    test: (_, segments) =>
      segments.some((segment) => /^git\s+clean\b/u.test(segment) && /\s-\w*f/u.test(segment)),
    reason: "Deletes untracked files, which git cannot bring back.",
    alternative: "git clean -n (a dry run that lists what would be deleted), then file_delete what you mean.",
  },
];

/** The commands safe_shell runs without asking: reading, building, testing, linting, git reading. */
const ALLOW: readonly RegExp[] = [
  /^(?:ls|cat|head|tail|wc|pwd|echo|printf|tree|grep|egrep|fgrep|rg|diff|cmp|sort|uniq|cut|tr|file|stat|du|df|which|type|true|false|test|\[|basename|dirname|realpath|readlink|jq|sed|awk|find|xargs|date|env|printenv|whoami|uname|sleep|seq|md5sum|sha1sum|sha256sum|base64|column|nl|tac|rev|fold|comm|join|paste|strings|od|xxd|less|more|zcat|gunzip|tar|unzip|cd|mkdir|touch|cp|mv|rm|ln)\b/u,
  /^git\s+(?:status|diff|log|show|branch|rev-parse|ls-files|blame|remote|stash\s+list|describe|tag|shortlog|grep|config\s+--get|add|commit|restore|switch|checkout|fetch|pull|push|init|mv|rm|stash)\b/u,
  /^(?:python3?|pytest|py\.test|pip3?|uv|poetry|pipenv|ruff|mypy|pyright|black|isort|flake8|pylint|coverage|tox|nox)\b/u,
  /^(?:node|npm|npx|yarn|pnpm|bun|deno|tsc|tsx|ts-node|eslint|prettier|vitest|jest|mocha|biome)\b/u,
  /^(?:cargo|rustc|rustfmt|go|gofmt|make|cmake|javac|java|mvn|gradle|dotnet|ruby|bundle|rake|rspec|php|composer)\b/u,
];

/**
 * The simple commands of a command line, leading `VAR=value` assignments removed; command
 * substitutions ($(...) and `...`) are listed as commands of their own.
 */
export function simpleCommands(command: string): string[] {
  const segments: string[] = [];
  const split = (text: string) => {
    let current = "";
    let quote: "'" | '"' | null = null;
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      if (quote === "'") {
        if (char === "'") quote = null;
        current += char;
        continue;
      }
      if (char === "\\") {
        current += char + (text[i + 1] ?? "");
        i++;
        continue;
      }
      if (char === "$" && text[i + 1] === "(") {
        let depth = 1;
        let j = i + 2;
        for (; j < text.length && depth > 0; j++) {
          if (text[j] === "(") depth++;
          else if (text[j] === ")") depth--;
        }
        split(text.slice(i + 2, j - 1));
        current += "$(…)";
        i = j - 1;
        continue;
      }
      if (char === "`") {
        const end = text.indexOf("`", i + 1);
        split(text.slice(i + 1, end === -1 ? text.length : end));
        current += "`…`";
        i = end === -1 ? text.length : end;
        continue;
      }
      if (quote === '"') {
        if (char === '"') quote = null;
        current += char;
        continue;
      }
      if (char === "'" || char === '"') {
        quote = char;
        current += char;
        continue;
      }
      const redirect = char === "&" && (text[i - 1] === ">" || text[i - 1] === "<" || text[i + 1] === ">");
      if (
        !redirect &&
        (char === ";" || char === "|" || char === "&" || char === "\n" || char === "(" || char === ")")
      ) {
        segments.push(current);
        current = "";
        continue;
      }
      current += char;
    }
    segments.push(current);
  };
  split(command);
  return segments
    .map((segment) =>
      segment
        .trim()
        .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/u, "")
        .replace(/^(?:time|nice|nohup|timeout\s+\S+|command|exec|builtin)\s+/u, "")
        .trim(),
    )
    .filter((segment) => segment !== "" && !/^\d*>/u.test(segment));
}

/** Checks one command line: the first deny pattern that matches wins; otherwise every part must be allowed. */
export function checkCommand(command: string): PolicyVerdict {
  const segments = simpleCommands(command);
  for (const rule of DENY) {
    if (rule.test(command, segments)) {
      return {
        blocked: true,
        reason: rule.reason,
        matchedPattern: rule.pattern,
        suggestedSafeAlternative: rule.alternative,
      };
    }
  }
  const unknown = segments.find((segment) => !ALLOW.some((allow) => allow.test(segment)));
  if (unknown !== undefined) {
    const name = unknown.split(/\s+/u)[0];
    return {
      blocked: true,
      reason: `"${name}" is not on safe_shell's allowlist (reading files, git, building, testing and linting).`,
      matchedPattern: null,
      suggestedSafeAlternative:
        "If the command is really needed, run it with the shell tool, which skips these checks (and may ask for approval).",
    };
  }
  return { blocked: false };
}

/** The deny patterns' names, for the schema's description. */
export const DENIED_PATTERNS: readonly string[] = DENY.map((rule) => rule.pattern);
