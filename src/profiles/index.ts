import type { Profile } from "../core/profile.ts";
import { agentbench } from "./agentbench.ts";
import { baseagent } from "./baseagent.ts";
import { codingAgent } from "./coding-agent.ts";
import { sandboxed } from "./sandboxed.ts";
import { toolrouter } from "./toolrouter.ts";

/** Every dialect Toolroom speaks, by profile name (../shared/specs/README.md). */
export const PROFILES: readonly Profile[] = [agentbench, toolrouter, codingAgent, sandboxed, baseagent];

export function findProfile(name: string): Profile | undefined {
  return PROFILES.find((profile) => profile.name === name);
}
