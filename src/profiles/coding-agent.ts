import type { Profile } from "../core/profile.ts";
import { FILE_TOOLS } from "./coding-agent/files.ts";
import { GIT_TOOLS, PATCH_TOOLS } from "./coding-agent/git.ts";
import { PROJECT_TOOLS, STATE_TOOLS } from "./coding-agent/project.ts";
import { QUALITY_TOOLS } from "./coding-agent/quality.ts";
import { codingAgentEnvelope } from "./coding-agent/result.ts";
import { SEARCH_TOOLS } from "./coding-agent/search.ts";
import { SHELL_TOOLS } from "./coding-agent/shell.ts";

/**
 * Coding Agent Tools (../shared/specs/002_0acf6c619cf0d055.txt): ToolResult {ok, error_code,
 * message, data, warnings, artifacts} around files, search, shell, git, the quality loop, project
 * intelligence and session state. ToolGuard is the runtime's validate and guard steps (with
 * safe_shell's own policy) plus the workspace-path resolver.
 */
export const codingAgent: Profile = {
  name: "coding-agent",
  title: "Coding Agent Tools",
  spec: "002_0acf6c619cf0d055.txt",
  description:
    "File, search, shell, git, quality-loop, project and state tools with {ok, error_code, message, data, warnings, artifacts} results.",
  tools: [
    ...FILE_TOOLS.slice(0, 3),
    ...PATCH_TOOLS,
    ...FILE_TOOLS.slice(3),
    ...SEARCH_TOOLS,
    ...SHELL_TOOLS,
    PROJECT_TOOLS[0]!,
    ...GIT_TOOLS,
    ...QUALITY_TOOLS,
    ...PROJECT_TOOLS.slice(1),
    ...STATE_TOOLS,
  ],
  // Symlinks that stay inside are followed (as toolrouter's FsBoundary does); the rest are refused.
  symlinks: "inside",
  approval: { write: "auto", command: "auto" },
  envelope: codingAgentEnvelope,
};
