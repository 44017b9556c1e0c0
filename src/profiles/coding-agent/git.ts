import { stepNumber } from "../../core/artifacts.ts";
import { isToolFailure, ToolFailure } from "../../core/errors.ts";
import { normalizeWorkspacePath } from "../../core/workspace-path.ts";
import { gitCommit } from "../../tools/git/commit.ts";
import { gitDiff } from "../../tools/git/diff.ts";
import { gitStatus } from "../../tools/git/status.ts";
import { applyPatchInWorkspace } from "../../tools/patch/index.ts";
import { type AnyTool, plural, report } from "./result.ts";

/** Diff text above this size is cut in the result (the whole diff is saved as an artifact). */
export const DIFF_TEXT_LIMIT_BYTES = 200 * 1024;

const filePatch: AnyTool = {
  name: "file_patch",
  description:
    "Apply a unified diff or structured hunks to one or more files; preferred for edits. All or nothing: every hunk of every file is checked first, and if any does not apply no file changes (ok=false, error_code PATCH_HUNK_FAIL, data.rejected_hunks says which and why, with the closest lines found).",
  inputSchema: {
    type: "object",
    properties: {
      diff_text: {
        type: "string",
        description:
          "Unified diff (---/+++ headers, @@ hunks; git's a/ b/ prefixes are stripped). Mutually exclusive with patches.",
      },
      patches: {
        type: "array",
        description:
          "Structured hunks: [{path, hunks: [{start, end, replace_with}]}]. Lines start..end (1-based, inclusive, numbered as the file is before the patch) become replace_with; end = start - 1 inserts before start. Mutually exclusive with diff_text.",
        items: {
          type: "object",
          properties: {
            path: { type: "string", description: "File path, relative to the workspace root." },
            hunks: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  start: { type: "integer", minimum: 1, description: "First line replaced (1-based)." },
                  end: {
                    type: "integer",
                    minimum: 0,
                    description: "Last line replaced (inclusive); start - 1 to insert.",
                  },
                  replace_with: { type: "string", description: "The new text of those lines." },
                },
                required: ["start", "end", "replace_with"],
                additionalProperties: false,
              },
            },
          },
          required: ["path", "hunks"],
          additionalProperties: false,
        },
      },
      file_hash: {
        type: "string",
        description:
          "Optional SHA-256 (hex) of the file's current content: the patch is refused (HASH_MISMATCH) if the file changed since you read it. Only for patches touching one file.",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  async run(
    params: {
      diff_text?: string;
      patches?: { path: string; hunks: { start: number; end: number; replace_with: string }[] }[];
      file_hash?: string;
    },
    context,
  ) {
    if ((params.diff_text === undefined) === (params.patches === undefined)) {
      throw new ToolFailure(
        "invalid_params",
        "Give exactly one of diff_text (a unified diff) or patches (structured hunks).",
        {
          applied: false,
          files_changed: [],
          rejected_hunks: [],
        },
      );
    }
    const hash = params.file_hash ? { fileHash: params.file_hash } : {};
    try {
      const applied = await applyPatchInWorkspace(
        context,
        params.diff_text !== undefined
          ? { kind: "text", text: params.diff_text, formats: ["unified"], ...hash }
          : { kind: "structured", patches: params.patches!, ...hash },
      );
      return report(
        { applied: true, files_changed: applied.changedFiles, rejected_hunks: [] },
        {
          message: `Applied ${plural(applied.plan.hunks.length, "hunk")} to ${plural(applied.changedFiles.length, "file")}: ${applied.changedFiles.join(", ")}.`,
          warnings: applied.plan.hunks
            .filter((hunk) => hunk.match !== "exact" || hunk.offset !== 0)
            .map(
              (hunk) =>
                `${hunk.file} hunk ${hunk.hunk} applied at line ${hunk.line}${hunk.offset !== 0 ? ` (offset ${hunk.offset > 0 ? "+" : ""}${hunk.offset})` : ""}${hunk.match !== "exact" ? `, matched ignoring ${hunk.match.replace(/_/gu, " ")}` : ""}.`,
            ),
          artifacts: [
            { type: "diff", path: applied.artifactPath, description: "The diff of what the patch changed" },
          ],
        },
      );
    } catch (error) {
      if (!isToolFailure(error)) throw error;
      const rejected = (error.details?.rejected_hunks as unknown[] | undefined) ?? [];
      throw new ToolFailure(error.code, error.message, {
        ...error.details,
        applied: false,
        files_changed: [],
        rejected_hunks: rejected,
      });
    }
  },
};

const gitStatusTool: AnyTool = {
  name: "git_status",
  description:
    "Return structured branch, tracking, and file-state information: staged (index vs HEAD, renames detected), unstaged (working tree vs index), untracked files one by one; .gitignore'd files are left out.",
  inputSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
  kind: "read",
  deadlineMs: 60_000,
  async run(_params, context) {
    const status = await gitStatus(context);
    const counts = [
      plural(status.staged.length, "staged change"),
      plural(status.unstaged.length, "unstaged change"),
      plural(status.untracked.length, "untracked file"),
    ];
    const tracking = status.upstream
      ? ` tracking ${status.upstream} (ahead ${status.ahead}, behind ${status.behind})`
      : "";
    return report(status, {
      message: `${status.branch ? `On branch ${status.branch}` : `HEAD detached at ${status.head?.slice(0, 7)}`}${tracking}: ${counts.join(", ")}.`,
      warnings:
        status.head === null ? ["No commits yet: everything staged will be in the first commit."] : [],
    });
  },
};

const gitDiffTool: AnyTool = {
  name: "git_diff",
  description:
    "Return a structured diff (per-file additions/deletions + raw diff text, exactly as `git diff` prints it). Default: working tree vs index; staged=true: index vs HEAD; base_ref: that commit vs the working tree (vs the index with staged); base_ref + target_ref: between two commits; target_ref alone: HEAD vs target_ref. Refs: branches, tags, hashes, with ~N and ^.",
  inputSchema: {
    type: "object",
    properties: {
      staged: {
        type: "boolean",
        default: false,
        description: "Diff the index (what git_commit would commit) instead of the working tree.",
      },
      pathspec: {
        type: "array",
        items: { type: "string" },
        description:
          "Limit the diff to these files, folders or globs (relative to the workspace root). Default: all.",
      },
      base_ref: { type: "string", description: "The commit to diff from (e.g. 'main', 'HEAD~3', a hash)." },
      target_ref: { type: "string", description: "The commit to diff to; needs no working tree." },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 60_000,
  async run(
    params: { staged: boolean; pathspec?: string[]; base_ref?: string; target_ref?: string },
    context,
  ) {
    // Each pathspec goes through the path guard: inside the workspace, as a workspace-relative path.
    const root = context.sandbox.workspaceRoot;
    const pathspec = params.pathspec?.map((spec) => normalizeWorkspacePath(spec, root, "pathspec") || ".");
    const diff = await gitDiff(context, {
      staged: params.staged,
      ...(pathspec ? { pathspec } : {}),
      ...(params.base_ref ? { baseRef: params.base_ref } : {}),
      ...(params.target_ref ? { targetRef: params.target_ref } : {}),
    });
    const warnings: string[] = [];
    const artifacts = [];
    let text = diff.diff_text;
    const size = new TextEncoder().encode(text).length;
    if (size > DIFF_TEXT_LIMIT_BYTES) {
      const path = `diffs/git_diff_step_${stepNumber(context.step)}.patch`;
      context.artifacts.put(path, text);
      artifacts.push({ type: "diff", path, description: `The whole diff (${size} bytes)` });
      text = text.slice(0, DIFF_TEXT_LIMIT_BYTES);
      text = text.slice(0, text.lastIndexOf("\n") + 1);
      warnings.push(
        `diff_text cut at ${DIFF_TEXT_LIMIT_BYTES / 1024} KB of ${size} bytes; per-file diffs are whole. Narrow with pathspec.`,
      );
    }
    const additions = diff.files_changed.reduce((sum, file) => sum + file.additions, 0);
    const deletions = diff.files_changed.reduce((sum, file) => sum + file.deletions, 0);
    return report(
      { diff_text: text, files_changed: diff.files_changed },
      {
        message:
          diff.files_changed.length === 0
            ? `No differences (${diff.compared}).`
            : `${plural(diff.files_changed.length, "file")} changed, ${additions} insertions(+), ${deletions} deletions(-) (${diff.compared}).`,
        warnings,
        artifacts,
      },
    );
  },
};

const gitCommitTool: AnyTool = {
  name: "git_commit",
  description:
    "Stage and commit files. Requires confirmed=true (CONFIRMATION_REQUIRED otherwise): show the user git_status/git_diff first. paths are staged first (new and changed files added, deleted ones removed; '.' for everything not ignored); without paths what is already staged is committed. NOTHING_TO_COMMIT when nothing is staged.",
  inputSchema: {
    type: "object",
    properties: {
      message: {
        type: "string",
        description: "The commit message: a short summary line, then a blank line and details.",
      },
      confirmed: { type: "boolean", description: "Must be true: confirms the commit was reviewed." },
      paths: {
        type: "array",
        items: { type: "string" },
        description: "Files or folders to stage before committing. Default: commit what is already staged.",
      },
      signoff: {
        type: "boolean",
        default: false,
        description: "Add a Signed-off-by trailer with the committer's name and email.",
      },
    },
    required: ["message", "confirmed"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 60_000,
  checkSent(params: { confirmed?: unknown }) {
    if (params.confirmed !== true) {
      throw new ToolFailure(
        "confirmation_required",
        "git_commit needs confirmed=true. Review the change with git_status and git_diff (and ask the user if they should approve), then call again with confirmed=true.",
        { committed: false },
      );
    }
  },
  async run(params: { message: string; paths?: string[]; signoff: boolean }, context) {
    const result = await gitCommit(context, {
      message: params.message,
      ...(params.paths ? { paths: params.paths } : {}),
      signoff: params.signoff,
    });
    return report(
      {
        committed: true,
        commit_hash: result.commit_hash,
        files_committed: result.files_committed,
        message: result.message,
      },
      {
        message: `Committed ${result.commit_hash.slice(0, 7)} with ${plural(result.files_committed.length, "file")}: ${result.message.split("\n")[0]}`,
        warnings: result.warnings,
      },
    );
  },
};

export const PATCH_TOOLS: AnyTool[] = [filePatch];
export const GIT_TOOLS: AnyTool[] = [gitStatusTool, gitDiffTool, gitCommitTool];
