export { jqCommands, runJq } from "./jq.ts";
export { parseJqLoader } from "./jq-wasm.ts";
export { JQ_MEMORY_LIMIT_BYTES, JqRunner, jqRunner, setJqRunner } from "./runner.ts";
