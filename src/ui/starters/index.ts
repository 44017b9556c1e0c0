import type { WorkspaceSeed } from "../../worker/types.ts";
import { NODE_STARTER } from "./node.ts";
import { PYTHON_STARTER } from "./python.ts";

export interface Starter {
  id: string;
  title: string;
  description: string;
  files: WorkspaceSeed["files"];
}

export const STARTERS: readonly Starter[] = [
  { id: "empty", title: "Empty", description: "Nothing yet.", files: { files: {} } },
  {
    id: "node",
    title: "Node project",
    description: "A small shopping cart whose one test fails (the total ignores quantities).",
    files: { files: NODE_STARTER },
  },
  {
    id: "python",
    title: "Python project",
    description: "A small Python module whose unittest fails (is_even() is inverted).",
    files: { files: PYTHON_STARTER },
  },
];

export function seedFromStarter(id: string, name?: string): WorkspaceSeed {
  const starter = STARTERS.find((candidate) => candidate.id === id) ?? STARTERS[0]!;
  return { name: name ?? starter.title, origin: starter.id, files: structuredClone(starter.files) };
}
