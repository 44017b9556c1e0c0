import { expose } from "comlink";
import { createWorkerApi } from "./api.ts";

/** The dedicated module Worker: the runtime, the sandbox (or its port) and the store live here. */
performance.mark("toolroom:worker");
expose(createWorkerApi({ eager: true }));
