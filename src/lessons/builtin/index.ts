import type { Lesson } from "../lesson.ts";
import { readingAndSearching } from "./reading-and-searching.ts";

/** The lessons that ship with Toolroom, in the order a workshop would take them. */
export const BUILTIN_LESSONS: readonly Lesson[] = [readingAndSearching];
