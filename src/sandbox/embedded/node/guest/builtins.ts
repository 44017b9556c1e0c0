import { GUEST_ASSERT, GUEST_ASSERT_STRICT } from "./assert.ts";
import { GUEST_BUFFER, GUEST_EVENTS, GUEST_UTIL, GUEST_UTIL_TYPES } from "./core-builtins.ts";
import { GUEST_FS, GUEST_FS_PROMISES } from "./fs.ts";
import { GUEST_READLINE, GUEST_READLINE_PROMISES } from "./readline.ts";
import {
  GUEST_CHILD_PROCESS,
  GUEST_CRYPTO,
  GUEST_MODULE,
  GUEST_OS,
  GUEST_PATH,
  GUEST_STREAM,
  GUEST_STRING_DECODER,
  GUEST_TIMERS,
  GUEST_TIMERS_PROMISES,
  GUEST_URL,
} from "./small-builtins.ts";
import { GUEST_TEST } from "./test-runner.ts";

/** Guest sources of the builtin modules, by name; each is compiled on its first `require`. */
export const BUILTIN_SOURCES: Readonly<Record<string, string>> = {
  assert: GUEST_ASSERT,
  "assert/strict": GUEST_ASSERT_STRICT,
  buffer: GUEST_BUFFER,
  child_process: GUEST_CHILD_PROCESS,
  console: "module.exports = internal.console;",
  crypto: GUEST_CRYPTO,
  events: GUEST_EVENTS,
  fs: GUEST_FS,
  "fs/promises": GUEST_FS_PROMISES,
  module: GUEST_MODULE,
  os: GUEST_OS,
  path: GUEST_PATH,
  "path/posix": 'module.exports = require("path");',
  process: "module.exports = internal.process;",
  readline: GUEST_READLINE,
  "readline/promises": GUEST_READLINE_PROMISES,
  stream: GUEST_STREAM,
  string_decoder: GUEST_STRING_DECODER,
  test: GUEST_TEST,
  timers: GUEST_TIMERS,
  "timers/promises": GUEST_TIMERS_PROMISES,
  url: GUEST_URL,
  util: GUEST_UTIL,
  "util/types": GUEST_UTIL_TYPES,
};
