import picomatch from "picomatch/posix";

export type GlobTest = (relativePath: string) => boolean;

/**
 * Path-style glob, as Python's pathlib and most tools read it: matched against the whole path
 * relative to the search root; `**` spans folders (zero or more); hidden names match too.
 */
export function pathGlob(glob: string): GlobTest {
  return globTest(stripDotSlash(glob));
}

/**
 * ripgrep-style glob (rg --glob, --include): a glob without a "/" matches a file's name at any
 * depth; one with a "/" matches the path from the search root.
 */
export function ripgrepGlob(glob: string): GlobTest {
  const pattern = stripDotSlash(glob);
  if (!pattern.includes("/")) {
    const matcher = globTest(pattern);
    return (path) => matcher(path.slice(path.lastIndexOf("/") + 1));
  }
  return globTest(pattern.startsWith("/") ? pattern.slice(1) : pattern);
}

/** Matches if any glob matches (an include list); no globs matches everything. */
export function anyGlob(
  globs: readonly string[] | null | undefined,
  make: (glob: string) => GlobTest,
): GlobTest {
  if (!globs || globs.length === 0) return () => true;
  const tests = globs.map(make);
  return (path) => tests.some((test) => test(path));
}

/** Characters with a meaning to picomatch beyond `*`, `?` and `/`: such globs go to picomatch as they are. */
const SPECIAL = /[\\[\]{}()!+@]/u;

/**
 * picomatch's answer (dot: true), without its worst case: picomatch compiles to a backtracking
 * RegExp, and a glob like `*a*a*a…*c` against a long name of a's takes exponential time (minutes
 * for 25 stars: no deadline can stop a RegExp). A glob of plain text, `*` and `?` is matched here
 * segment by segment in O(name × glob) instead; with `**` or other syntax, the last segment (when it
 * is plain) must match the path's last name first, which rules out the slow failures.
 */
function globTest(pattern: string): GlobTest {
  const matcher = picomatch(pattern, { dot: true });
  if (SPECIAL.test(pattern)) return (path) => matcher(path);
  const segments = pattern.split("/");
  if (!segments.includes("**")) {
    return (path) => {
      const names = path.split("/");
      if (names.some((name) => name === "" || name === "." || name === "..")) return matcher(path);
      return names.length === segments.length && segments.every((segment, i) => wildcard(segment, names[i]!));
    };
  }
  const last = segments[segments.length - 1]!;
  if (last === "**" || last.includes("**")) return (path) => matcher(path);
  return (path) => wildcard(last, path.slice(path.lastIndexOf("/") + 1)) && matcher(path);
}

/** Whether `name` matches a one-segment glob of text, `*` and `?` (greedy with one backtrack point: linear per star). */
export function wildcard(glob: string, name: string): boolean {
  // A glob of stars only must not match an empty name (picomatch's (?=.)).
  if (name === "") return false;
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && (glob[g] === "?" || glob[g] === name[n])) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else return false;
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

function stripDotSlash(glob: string): string {
  return glob.startsWith("./") ? glob.slice(2) : glob;
}
