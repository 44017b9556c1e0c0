import type { Profile } from "../core/profile.ts";
import { agentbench } from "./agentbench.ts";
import { codingAgent } from "./coding-agent.ts";

/** Every dialect Toolroom speaks, by profile name (../shared/specs/README.md). */
export const PROFILES: readonly Profile[] = [agentbench, codingAgent];

export function findProfile(name: string): Profile | undefined {
  return PROFILES.find((profile) => profile.name === name);
}
