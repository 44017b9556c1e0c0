// The jq worker's entry in Node (a worker_thread): TypeScript runs through tsx, as in bin/toolroom.
import { register } from "tsx/esm/api";

register();
await import("./node-worker.ts");
