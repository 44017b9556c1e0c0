import { stepNumber } from "../../core/artifacts.ts";
import type { ToolContext } from "../../core/profile.ts";
import { commitPatch } from "./commit.ts";
import { planPatch } from "./plan.ts";
import { sourceFromContext } from "./source.ts";
import type { PatchPlan, PatchRequest } from "./types.ts";

export interface AppliedPatch {
  plan: PatchPlan;
  /** Workspace-relative paths the patch created, changed, moved or deleted, sorted. */
  changedFiles: string[];
  /** Where the diff of what really changed was saved among the run's artifacts. */
  artifactPath: string;
}

/**
 * What every dialect's patch tool does: plan the patch against the workspace (every hunk of
 * every file checked, nothing written), commit it all or nothing, save the diff of what really
 * changed as diffs/step_NNNN.patch, and emit PATCH_APPLIED.
 */
export async function applyPatchInWorkspace(
  context: ToolContext,
  request: PatchRequest,
): Promise<AppliedPatch> {
  const plan = await planPatch(request, sourceFromContext(context));
  await commitPatch(plan, context.sandbox, context.sandbox.workspaceRoot);
  const changedFiles = [...new Set(plan.files.map((file) => file.path))].sort();
  const artifactPath = `diffs/step_${stepNumber(context.step)}.patch`;
  context.artifacts.put(artifactPath, plan.diff);
  context.emit("PATCH_APPLIED", {
    changed_files: changedFiles,
    patch_path: artifactPath,
    format: plan.format,
    hunks: plan.hunks,
    diff: plan.diff,
  });
  return { plan, changedFiles, artifactPath };
}
