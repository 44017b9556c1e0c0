/**
 * The patch engine shared by every dialect's patch tool: unified diffs, the apply_patch envelope
 * and structured hunks are planned against a PatchSource (checked, never written), then committed
 * all or nothing through the Sandbox.
 */
export { type AppliedPatch, applyPatchInWorkspace } from "./apply-in-workspace.ts";
export { commitPatch } from "./commit.ts";
export { planPatch } from "./plan.ts";
export { sourceFromContext, sourceFromSandbox } from "./source.ts";
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
