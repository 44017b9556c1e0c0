/**
 * Files a run produces beside the workspace (diffs/step_NNNN.patch, logs/tool_step_NNNN_stdout.txt).
 * They live outside the workspace so that an agent's own files are never polluted by them.
 */
export interface ArtifactStore {
  put(path: string, content: string | Uint8Array): void;
  get(path: string): Uint8Array | undefined;
  list(): string[];
}

export class MemoryArtifacts implements ArtifactStore {
  private readonly files = new Map<string, Uint8Array>();
  private readonly listeners = new Set<(path: string) => void>();

  put(path: string, content: string | Uint8Array): void {
    this.files.set(path, typeof content === "string" ? new TextEncoder().encode(content) : content);
    for (const listener of this.listeners) listener(path);
  }

  get(path: string): Uint8Array | undefined {
    return this.files.get(path);
  }

  list(): string[] {
    return [...this.files.keys()].sort();
  }

  /** Called with each new artifact's path (the CLI writes it to disk; the UI offers a download). */
  onPut(listener: (path: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** "0005" for step 5: the numbering AgentBench artifacts use. */
export function stepNumber(step: number): string {
  return String(step).padStart(4, "0");
}
