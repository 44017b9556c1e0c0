import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The user's own git identity, as `git config --global` would find it: $XDG_CONFIG_HOME/git/config
 * (or ~/.config/git/config), then ~/.gitconfig, the later winning. Commits in the workspace use it
 * when the repository's config names nobody. Undefined fields when nothing says.
 */
export async function hostGitIdentity(env: NodeJS.ProcessEnv = process.env): Promise<{
  name?: string;
  email?: string;
}> {
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  const identity: { name?: string; email?: string } = {};
  for (const file of [join(xdg, "git", "config"), join(home, ".gitconfig")]) {
    const text = await readFile(file, "utf8").catch(() => null);
    if (text === null) continue;
    const user = userSection(text);
    if (user.name !== undefined) identity.name = user.name;
    if (user.email !== undefined) identity.email = user.email;
  }
  return identity;
}

/** user.name and user.email of a git config file (git's INI: sections, `key = value`, quotes, comments). */
export function userSection(text: string): { name?: string; email?: string } {
  const found: { name?: string; email?: string } = {};
  let inUser = false;
  for (const raw of text.split(/\r?\n/u)) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/u.exec(line);
    if (section) {
      inUser = section[1]!.toLowerCase() === "user" && !line.includes('"');
      continue;
    }
    if (!inUser) continue;
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/u.exec(line);
    if (!entry) continue;
    const key = entry[1]!.toLowerCase();
    if (key === "name" || key === "email") found[key] = configValue(entry[2]!);
  }
  return found;
}

/** A value as git reads it: quoted parts unquoted, escapes undone, an unquoted `#` or `;` starting a comment. */
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '"') quoted = !quoted;
    else if (ch === "\\" && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
    } else if (!quoted && (ch === "#" || ch === ";")) break;
    else out += ch;
  }
  return out.trim();
}
