import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";

export type StepStatus = "pending" | "in_progress" | "completed";
export const STEP_STATUSES: readonly StepStatus[] = ["pending", "in_progress", "completed"];

export interface PlanStep {
  description: string;
  status: StepStatus;
}

/** The agent's current plan, as the UI's plan pane shows it. */
export interface Plan {
  steps: PlanStep[];
  explanation: string | null;
  /** How many times the plan was set in this runtime. */
  version: number;
  updatedAt: string;
}

interface PlanState {
  plan: Plan | null;
}

const MARKS: Record<StepStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/**
 * Replaces the plan (each update sends the whole list). Every step needs a description and a
 * known status, and at most one step may be in progress. Emits `plan_updated` with the plan.
 */
export function updatePlan(
  context: ToolContext,
  steps: readonly PlanStep[],
  explanation?: string | null,
): Plan {
  for (const [index, step] of steps.entries()) {
    if (typeof step.description !== "string" || step.description.trim() === "") {
      throw new ToolFailure("invalid_params", `Step ${index + 1} has no description.`, { step: index + 1 });
    }
    if (!STEP_STATUSES.includes(step.status)) {
      throw new ToolFailure(
        "invalid_params",
        `Step ${index + 1} has status ${JSON.stringify(step.status)}; use pending, in_progress or completed.`,
        { step: index + 1 },
      );
    }
  }
  const active = steps.filter((step) => step.status === "in_progress");
  if (active.length > 1) {
    throw new ToolFailure(
      "invalid_params",
      `${active.length} steps are in_progress (${active.map((step) => JSON.stringify(step.description)).join(", ")}); at most one step may be in progress at a time.`,
      { in_progress: active.map((step) => step.description) },
    );
  }
  const state = planState(context);
  const plan: Plan = {
    steps: steps.map((step) => ({ description: step.description, status: step.status })),
    explanation: explanation ?? null,
    version: (state.plan?.version ?? 0) + 1,
    updatedAt: context.clock.now().toISOString(),
  };
  state.plan = plan;
  context.emit("plan_updated", {
    steps: plan.steps,
    explanation: plan.explanation,
    version: plan.version,
    completed: plan.steps.filter((step) => step.status === "completed").length,
    total: plan.steps.length,
  });
  return plan;
}

/** The plan last set in this runtime, or null before the first update. */
export function currentPlan(context: ToolContext): Plan | null {
  return planState(context).plan;
}

/** The plan as a checklist: "[x] done", "[~] doing", "[ ] to do". */
export function renderPlan(plan: Plan): string {
  return plan.steps.map((step) => `${MARKS[step.status]} ${step.description}`).join("\n");
}

function planState(context: ToolContext): PlanState {
  return context.services.get<PlanState>("plan", () => ({ plan: null }));
}
