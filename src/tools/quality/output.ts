/** Helpers shared by the runners' output parsers. */

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/gu;

/** Output without colour codes and with \n line endings: what every parser reads. */
export function plainText(output: string): string {
  return output.replace(ANSI, "").replace(/\r\n?/gu, "\n");
}

/**
 * A path as the workspace names it: `root/` and file:// prefixes removed, so a runner's absolute
 * paths and relative paths come out the same.
 */
export function relativePath(path: string, root: string | undefined): string {
  let clean = path.replace(/^file:\/\//u, "");
  if (root) {
    const base = root.replace(/\/+$/u, "");
    if (clean === base) return ".";
    if (clean.startsWith(`${base}/`)) clean = clean.slice(base.length + 1);
  }
  return clean.replace(/^\.\//u, "");
}

/** At most `max` lines of a block, blank lines at either end dropped. */
export function snippetOf(lines: string[], max = 20): string {
  const kept = [...lines];
  while (kept.length > 0 && kept[0]!.trim() === "") kept.shift();
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === "") kept.pop();
  const cut = kept.slice(0, max);
  if (kept.length > max) cut.push(`… (${kept.length - max} more lines)`);
  return cut.join("\n");
}

/** The smallest common indentation of non-blank lines, removed. */
export function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== "").map((line) => /^ */u.exec(line)![0].length);
  const strip = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(strip));
}

export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
