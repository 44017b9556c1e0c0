import picomatch from "picomatch/posix";

export type GlobTest = (relativePath: string) => boolean;

/**
 * Path-style glob, as Python's pathlib and most tools read it: matched against the whole path
 * relative to the search root; `**` spans folders (zero or more); hidden names match too.
 */
export function pathGlob(glob: string): GlobTest {
  const matcher = picomatch(stripDotSlash(glob), { dot: true });
  return (path) => matcher(path);
}

/**
 * ripgrep-style glob (rg --glob, --include): a glob without a "/" matches a file's name at any
 * depth; one with a "/" matches the path from the search root.
 */
export function ripgrepGlob(glob: string): GlobTest {
  const pattern = stripDotSlash(glob);
  if (!pattern.includes("/")) {
    const matcher = picomatch(pattern, { dot: true });
    return (path) => matcher(path.slice(path.lastIndexOf("/") + 1));
  }
  const matcher = picomatch(pattern.startsWith("/") ? pattern.slice(1) : pattern, { dot: true });
  return (path) => matcher(path);
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

function stripDotSlash(glob: string): string {
  return glob.startsWith("./") ? glob.slice(2) : glob;
}
