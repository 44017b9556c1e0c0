import { describe, expect, it } from "vitest";
import { ToolFailure } from "../core/errors.ts";
import type { CallInfo } from "../core/profile.ts";
import { editorProfile } from "../worker/editor-profile.ts";
import { PROFILES } from "./index.ts";

const call: CallInfo = {
  requestId: "r1",
  tool: "read_file",
  params: {},
  step: 1,
  startedAt: new Date(0),
  endedAt: new Date(0),
};

describe("each dialect's notion of failure", () => {
  it.each([...PROFILES, editorProfile].map((profile) => [profile.name, profile] as const))(
    "%s: its failure envelope fails, its success envelope does not",
    (_name, profile) => {
      const failure = profile.envelope.failure(call, new ToolFailure("file_not_found", "No such file."));
      expect(profile.envelope.failed(failure)).toBe(true);
      const success = profile.envelope.success(call, { output: "fine", success: true });
      expect(profile.envelope.failed(success)).toBe(false);
    },
  );

  it("a result the dialect itself calls unsuccessful fails in baseagent; a non-zero returncode is a result in toolrouter", () => {
    const find = (name: string) => PROFILES.find((profile) => profile.name === name)!;
    const baseagent = find("baseagent");
    expect(baseagent.envelope.failed(baseagent.envelope.success(call, { output: "x", success: false }))).toBe(
      true,
    );
    const toolrouter = find("toolrouter");
    expect(toolrouter.envelope.failed(toolrouter.envelope.success(call, { returncode: 1, stdout: "" }))).toBe(
      false,
    );
  });
});
