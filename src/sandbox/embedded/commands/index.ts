import type { Command } from "just-bash";
import { awkCommands } from "./awk/awk.ts";
import { shellCommands } from "./bash/bash.ts";
import { envCommands } from "./env/env.ts";
import { findCommands } from "./find/find.ts";
import { grepCommands } from "./grep/grep.ts";
import { jqCommands } from "./jq/jq.ts";
import { lsCommands } from "./ls/ls.ts";
import { rgCommands } from "./rg/rg.ts";
import { rmCommands } from "./rm/rm.ts";
import { sedCommands } from "./sed/sed.ts";
import { statCommands } from "./stat/stat.ts";
import { timeoutCommands } from "./timeout/timeout.ts";

/**
 * Toolroom's own commands that replace just-bash's built-ins of the same name in every embedded
 * shell (awk, gawk, bash, sh, env, printenv, find, grep, egrep, fgrep, jq, ls, rg, rm, sed, stat, timeout): one implementation serves the shell and the
 * tools. Each command lives in its own folder with its tests; add a command here to register it.
 */
export function embeddedCommands(): Command[] {
  return [
    ...awkCommands(),
    ...shellCommands(),
    ...envCommands(),
    ...findCommands(),
    ...grepCommands(),
    ...jqCommands(),
    ...lsCommands(),
    ...rgCommands(),
    ...rmCommands(),
    ...sedCommands(),
    ...statCommands(),
    ...timeoutCommands(),
  ];
}
