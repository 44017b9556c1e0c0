import type { Lesson } from "../lesson.ts";
import { compareDialects } from "./compare-dialects.ts";
import { ptySession } from "./pty-session.ts";
import { readingAndSearching } from "./reading-and-searching.ts";
import { twoPatchFormats } from "./two-patch-formats.ts";

/** The lessons that ship with Toolroom, in the order a workshop would take them. */
export const BUILTIN_LESSONS: readonly Lesson[] = [
  readingAndSearching,
  twoPatchFormats,
  ptySession,
  compareDialects,
];
