/** Collapses "." and ".." of an absolute sandbox path; ".." never climbs above "/". */
export function collapsePath(absolute: string): string {
  const out: string[] = [];
  for (const segment of absolute.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

/** The folder an absolute sandbox path is in ("/" for top-level entries). */
export function parentOf(path: string): string {
  const index = path.lastIndexOf("/");
  return index <= 0 ? "/" : path.slice(0, index);
}
