/**
 * The patch engine shared by every dialect's patch tool: unified diffs, the apply_patch envelope
 * and structured hunks are planned against a PatchSource (checked, never written), then committed
 * all or nothing through the Sandbox.
 */
import type { ToolContext } from "../../core/profile.ts";
import type { AppliedPatch } from "./apply-in-workspace.ts";
import type { PatchRequest } from "./types.ts";

export type { AppliedPatch } from "./apply-in-workspace.ts";
export type {
  HunkMatch,
  HunkOutcome,
  PatchPlan,
  PatchRequest,
  PatchSource,
  PlannedFile,
  RejectedHunk,
  StructuredFilePatch,
  StructuredHunk,
  TextPatchFormat,
} from "./types.ts";

/** Applies a patch in the workspace; the engine loads on the first patch, so a worker boots without it. */
export async function applyPatchInWorkspace(
  context: ToolContext,
  request: PatchRequest,
): Promise<AppliedPatch> {
  return (await import("./apply-in-workspace.ts")).applyPatchInWorkspace(context, request);
}
