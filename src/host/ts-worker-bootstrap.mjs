// A worker_thread's first module: registers tsx (as bin/toolroom does), then runs the TypeScript
// entry named in workerData, so Node hosts start workers from .ts files with no build step.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
