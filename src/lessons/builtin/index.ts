import type { Lesson } from "../lesson.ts";
import { compareDialects } from "./compare-dialects.ts";
import { gitBasics } from "./git-basics.ts";
import { ptySession } from "./pty-session.ts";
import { pythonOnePatch } from "./python-one-patch.ts";
import { readingAndSearching } from "./reading-and-searching.ts";
import { testsAndFailures } from "./tests-and-failures.ts";
import { twoPatchFormats } from "./two-patch-formats.ts";

/** The lessons that ship with Toolroom, in the order a workshop would take them. */
export const BUILTIN_LESSONS: readonly Lesson[] = [
  readingAndSearching,
  twoPatchFormats,
  testsAndFailures,
  pythonOnePatch,
  ptySession,
  gitBasics,
  compareDialects,
];
