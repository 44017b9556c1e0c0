import { collapsePath } from "../sandbox/paths.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { isSandboxError } from "../sandbox/types.ts";
import { ToolFailure } from "./errors.ts";

/**
 * A path inside the workspace, resolved and checked: the only kind of path a tool may hand to
 * the sandbox. `relative` is "/"-separated with no "." or ".." segments ("" is the root).
 */
export interface WorkspacePath {
  readonly absolute: string;
  readonly relative: string;
}

/** How symlinks met on the way are treated: refused outright, or followed while they stay inside. */
export type SymlinkPolicy = "block" | "inside";

export interface ResolveOptions {
  symlinks?: SymlinkPolicy;
  /** Name of the parameter, for error messages ("path", "root"). */
  param?: string;
  /** `..` segments: resolved while they stay inside (default), or refused outright (sandboxed's spec). */
  parentSegments?: ParentSegmentPolicy;
  /**
   * A symlink as the last component: followed (default), or kept as the path itself, for tools that
   * act on the link (delete, move), as lstat does. Symlinks before it are treated by `symlinks`.
   */
  finalSymlink?: "follow" | "keep";
}

/** How `..` is treated: resolved lexically while it stays in the workspace, or refused. */
export type ParentSegmentPolicy = "resolve" | "refuse";

const MAX_PATH_LENGTH = 4096;
const MAX_SEGMENT_LENGTH = 255;
const MAX_SYMLINK_HOPS = 32;

/** Characters that NFKC leaves alone but that read as a slash or a dot to a person. */
const LOOKALIKE_SEPARATORS = /[\u2215\u2044\u29f8\u29f9\uff0f\uff3c\u2216\ufe68\u3033\u3035]/gu;
const LOOKALIKE_DOTS = /[\u2024\u2025\u2026\uff0e\u3002\ufe52\u0701\u0702\u00b7\u2027\u2e31]/gu;

function shown(input: string): string {
  return JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input);
}

function details(input: string, reason: string): Record<string, unknown> {
  return { path: input.length > 1000 ? `${input.slice(0, 1000)}…` : input, reason };
}

/** A path that really leads out of the workspace. */
function pathEscape(input: string, reason: string, param: string): ToolFailure {
  return new ToolFailure(
    "path_escape",
    `${param} ${shown(input)} is outside the workspace: ${reason}. Use a path relative to the workspace root, such as "src/main.py".`,
    details(input, reason),
  );
}

/** A path refused for its spelling (a trick, or a form this workspace does not take), wherever it points. */
function pathRefused(input: string, reason: string, param: string): ToolFailure {
  return new ToolFailure(
    "path_escape",
    `${param} ${shown(input)} is refused: ${reason}. Use a plain path relative to the workspace root, such as "src/main.py".`,
    details(input, reason),
  );
}

/**
 * Lexical half of the resolver: no filesystem access. Returns the "/"-separated relative path
 * ("" for the root) or throws path_escape. Names are taken literally (`...`, `%2e%2e` and `~x` are
 * names); `..` is resolved and may not climb above the root; tricks that read as something else to
 * a person or another program (NUL, control and text-direction characters, look-alike dots and
 * slashes, URLs, Windows drives) are refused, so that the filesystem half only has symlinks left.
 */
export function normalizeWorkspacePath(
  input: unknown,
  workspaceRoot: string,
  param = "path",
  parentSegments: ParentSegmentPolicy = "resolve",
): string {
  if (typeof input !== "string") {
    throw new ToolFailure("invalid_params", `${param} must be a string.`, { path: input });
  }
  if (input.length > MAX_PATH_LENGTH)
    throw pathRefused(input, `it is longer than ${MAX_PATH_LENGTH} characters`, param);
  if (input.includes("\0")) throw pathRefused(input, "it contains a NUL byte", param);
  // Control characters are never part of a real path an agent means; they hide other tricks.
  if (/[\u0001-\u001f\u007f\u202a-\u202e\u2066-\u2069]/u.test(input)) {
    throw pathRefused(input, "it contains control or text-direction characters", param);
  }
  if (input.startsWith("~")) throw pathRefused(input, "a leading '~' means a home folder to a shell", param);
  if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(input)) throw pathRefused(input, "it is a URL, not a path", param);
  if (/^[a-z]:/iu.test(input) || input.startsWith("\\\\"))
    throw pathRefused(input, "it is a Windows drive or network path", param);
  const lookalike = input.normalize("NFKC").replace(LOOKALIKE_SEPARATORS, "/").replace(LOOKALIKE_DOTS, ".");
  if (lookalike !== input && (hasDotDot(lookalike) || countSeparators(lookalike) > countSeparators(input))) {
    throw pathRefused(input, "it uses look-alike characters for '.' or '/'", param);
  }

  let path = input.replace(/\\/gu, "/");
  const root = workspaceRoot.replace(/\/+$/u, "");
  if (path.startsWith("/")) {
    const collapsed = path.replace(/\/{2,}/gu, "/");
    if (collapsed === root || collapsed === `${root}/`) return "";
    if (!collapsed.startsWith(`${root}/`))
      throw pathEscape(input, `absolute paths must be under ${root}`, param);
    path = collapsed.slice(root.length + 1);
  }
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (parentSegments === "refuse")
        throw pathRefused(input, "'..' (path traversal) is not allowed here", param);
      if (segments.length === 0) throw pathEscape(input, "its '..' climbs above the workspace root", param);
      segments.pop();
      continue;
    }
    // " .." or ".. " are names here, but read as ".." on some systems and to a person.
    if (/^\s*\.\.\s*$/u.test(segment))
      throw pathRefused(input, "a name of '..' and spaces reads as '..'", param);
    if (segment.length > MAX_SEGMENT_LENGTH)
      throw pathRefused(input, `a name is longer than ${MAX_SEGMENT_LENGTH} characters`, param);
    segments.push(segment);
  }
  return segments.join("/");
}

/**
 * The one resolver every tool uses: lexical checks, then a walk from the workspace root that
 * lstat()s each existing component. With the "block" policy any symlink on the way (the final
 * component included) is refused with symlink_blocked; with "inside" a symlink is followed only
 * while its target stays in the workspace. Missing components are fine (a file about to be created).
 */
export async function resolveWorkspacePath(
  sandbox: Sandbox,
  input: unknown,
  options: ResolveOptions = {},
): Promise<WorkspacePath> {
  const param = options.param ?? "path";
  const policy = options.symlinks ?? "block";
  const root = sandbox.workspaceRoot.replace(/\/+$/u, "");
  const relative = normalizeWorkspacePath(input, root, param, options.parentSegments);
  const original = String(input);

  let segments = relative === "" ? [] : relative.split("/");
  let hops = 0;
  for (let i = 0; i < segments.length; i++) {
    const prefix = segments.slice(0, i + 1).join("/");
    let type: string;
    try {
      type = (await sandbox.lstat(`${root}/${prefix}`)).type;
    } catch (error) {
      if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) break;
      if (isSandboxError(error, "ELOOP")) {
        throw new ToolFailure(
          "symlink_blocked",
          `${param} ${JSON.stringify(original)} runs into a symlink loop.`,
          {
            path: original,
            symlink: prefix,
          },
        );
      }
      throw error;
    }
    if (type !== "symlink") continue;
    if (i === segments.length - 1 && options.finalSymlink === "keep") break;
    if (policy === "block") {
      throw new ToolFailure(
        "symlink_blocked",
        `${param} ${JSON.stringify(original)} goes through the symlink "${prefix}", and symlinks are not followed. Use the path of the file it points to.`,
        { path: original, symlink: prefix },
      );
    }
    if (++hops > MAX_SYMLINK_HOPS) {
      throw new ToolFailure(
        "symlink_blocked",
        `${param} ${JSON.stringify(original)} has too many levels of symlinks.`,
        {
          path: original,
          symlink: prefix,
        },
      );
    }
    const target = await sandbox.readlink(`${root}/${prefix}`);
    const base = target.startsWith("/") ? target : `${root}/${segments.slice(0, i).join("/")}/${target}`;
    const resolved = collapsePath(base);
    if (resolved !== root && !resolved.startsWith(`${root}/`)) {
      throw new ToolFailure(
        "symlink_blocked",
        `${param} ${JSON.stringify(original)} goes through the symlink "${prefix}", which points outside the workspace.`,
        { path: original, symlink: prefix, target },
      );
    }
    const inside = resolved === root ? [] : resolved.slice(root.length + 1).split("/");
    // Walk again from the top: the target may itself run through symlinks.
    segments = [...inside, ...segments.slice(i + 1)];
    i = -1;
  }
  const finalRelative = segments.join("/");
  return { absolute: finalRelative === "" ? root : `${root}/${finalRelative}`, relative: finalRelative };
}

function hasDotDot(path: string): boolean {
  return path.split(/[\\/]/u).some((segment) => /^\s*\.{2,}\s*$/u.test(segment));
}

function countSeparators(path: string): number {
  return (path.match(/[\\/]/gu) ?? []).length;
}

/** The workspace-relative form of an absolute sandbox path under the root, for display. */
export function toRelative(workspaceRoot: string, absolute: string): string {
  const root = workspaceRoot.replace(/\/+$/u, "");
  if (absolute === root) return "";
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}
