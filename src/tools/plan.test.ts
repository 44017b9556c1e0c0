import { describe, expect, it } from "vitest";
import type { EventType } from "../core/events.ts";
import { createToolContext } from "../core/tool-context.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { currentPlan, renderPlan, updatePlan } from "./plan.ts";

async function setup() {
  const events: { type: EventType; data: Record<string, unknown> }[] = [];
  const context = createToolContext(await EmbeddedSandbox.create(), {
    emit: (type, data) => void events.push({ type, data }),
  });
  return { context, events };
}

describe("updatePlan", () => {
  it("replaces the plan, numbers its versions and emits plan_updated", async () => {
    const { context, events } = await setup();
    expect(currentPlan(context)).toBeNull();
    updatePlan(context, [{ description: "Read code", status: "in_progress" }]);
    const plan = updatePlan(
      context,
      [
        { description: "Read code", status: "completed" },
        { description: "Write tests", status: "in_progress" },
        { description: "Ship", status: "pending" },
      ],
      "Tests first",
    );
    expect(plan).toMatchObject({ version: 2, explanation: "Tests first" });
    expect(currentPlan(context)).toEqual(plan);
    expect(events.map((event) => event.type)).toEqual(["plan_updated", "plan_updated"]);
    expect(events[1]?.data).toMatchObject({ version: 2, completed: 1, total: 3, explanation: "Tests first" });
    expect(renderPlan(plan)).toBe("[x] Read code\n[~] Write tests\n[ ] Ship");
  });

  it("allows at most one step in progress", async () => {
    const { context, events } = await setup();
    expect(() =>
      updatePlan(context, [
        { description: "a", status: "in_progress" },
        { description: "b", status: "in_progress" },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: "invalid_params",
        message: expect.stringContaining("at most one step"),
      }),
    );
    expect(currentPlan(context)).toBeNull();
    expect(events).toEqual([]);
  });

  it("refuses an unknown status and an empty description", async () => {
    const { context } = await setup();
    expect(() => updatePlan(context, [{ description: "a", status: "done" as never }])).toThrow(
      /pending, in_progress or completed/u,
    );
    expect(() => updatePlan(context, [{ description: "  ", status: "pending" }])).toThrow(/no description/u);
  });

  it("accepts an empty plan, which clears the list", async () => {
    const { context } = await setup();
    expect(updatePlan(context, []).steps).toEqual([]);
  });
});
