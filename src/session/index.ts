/** Sessions anyone can replay: the file, export and share, replay, and the built-in demos. */
export {
  type CompareOptions,
  compareValues,
  type Divergence,
  formatDivergence,
  VOLATILE_KEYS,
  VOLATILE_TEXT,
} from "./compare.ts";
export { DEMO_SESSIONS, type DemoSession } from "./demos/index.ts";
export {
  type ExportOptions,
  exportSession,
  KEY_PATTERNS,
  REDACTED,
  type Redaction,
  redactSecrets,
  sessionFileName,
} from "./export.ts";
export {
  parseSession,
  SESSION_FORMAT,
  SESSION_VERSION,
  type SessionFile,
  SessionFormatError,
  type SessionMeta,
  validateSession,
} from "./format.ts";
export { agentMeta, buildSession, type SessionParts, SessionRecorder, safeBaseUrl } from "./record.ts";
export {
  type RecordedApproval,
  type ReplayAction,
  type ReplayOptions,
  type ReplayReport,
  type ReplayStepResult,
  recordedApprovals,
  recordedApprover,
  replayPlan,
  replayReport,
  replaySession,
  SessionReplay,
} from "./replay.ts";
export {
  decodeShareFragment,
  encodeShareFragment,
  loadSessionFromUrl,
  SESSION_DOWNLOAD_LIMIT,
  type SessionSource,
  SHARE_LINK_LIMIT,
  type ShareResult,
  sessionSourceOf,
  shareSession,
} from "./share.ts";
