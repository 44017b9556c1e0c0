import type { SerializedWorkspace } from "../../sandbox/snapshot.ts";
import type { WorkspaceSeed } from "../../worker/types.ts";
import { NODE_STARTER } from "./node.ts";
import { PYTHON_STARTER } from "./python.ts";
import repositories from "./repositories.json" with { type: "json" };

export interface Starter {
  id: string;
  title: string;
  description: string;
  files: WorkspaceSeed["files"];
}

/** Each starter's own files; what a workspace made from it holds besides its repository. */
export const STARTER_FILES: Readonly<Record<string, Record<string, string>>> = {
  empty: {},
  node: NODE_STARTER,
  python: PYTHON_STARTER,
};

/**
 * A starter's files with their repository (.git, one commit of everything), made ahead from the
 * same files by the same code a new workspace runs (repositories.json, kept exact by
 * starters.test.ts): a first visit's workspace is ready without running git on the way to its
 * first answer. The files carry the commit's time, so git's stat cache finds them unchanged.
 */
function withRepository(id: string): SerializedWorkspace {
  const repository = (repositories.starters as Record<string, SerializedWorkspace>)[id];
  // Without one (a starter just added), the workspace is made a repository when it is made.
  if (!repository) return { files: { ...STARTER_FILES[id] } };
  return { ...repository, files: { ...STARTER_FILES[id], ...repository.files } };
}

export const STARTERS: readonly Starter[] = [
  { id: "empty", title: "Empty", description: "Nothing yet.", files: withRepository("empty") },
  {
    id: "node",
    title: "Node project",
    description: "A small shopping cart whose one test fails (the total ignores quantities).",
    files: withRepository("node"),
  },
  {
    id: "python",
    title: "Python project",
    description: "A small Python module whose unittest fails (is_even() is inverted).",
    files: withRepository("python"),
  },
];

export function seedFromStarter(id: string, name?: string): WorkspaceSeed {
  const starter = STARTERS.find((candidate) => candidate.id === id) ?? STARTERS[0]!;
  return { name: name ?? starter.title, origin: starter.id, files: structuredClone(starter.files) };
}
