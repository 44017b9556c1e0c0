/**
 * Guest source (runs inside QuickJS) of node:test: test/describe/it with hooks, skip/todo, subtests,
 * timeouts and mocks, reported as Node 20's default TAP reporter does when stdout is not a TTY.
 * Under `node --test` (internal.testFile set) the header, plan and summary are left to the host,
 * which numbers top-level entries across files and prints one summary.
 */
export const GUEST_TEST = String.raw`
const inspect = internal.inspect;
const now = () => internal.rawHost("now");
const fileMode = internal.testFile || null;
const EXIT = internal.EXIT;
const kUnwrap = new Set(["testCodeFailure", "hookFailed", "testTimeoutFailure"]);
let headerPrinted = false;
function out(text) {
  if (!fileMode && !headerPrinted) { headerPrinted = true; internal.rawHost("write", 3, "TAP version 13\n"); }
  internal.rawHost("write", 3, text);
}
function tapEscape(input) {
  return String(input).replace(/\\/g, "\\\\").replace(/#/g, "\\#").replace(/\x08/g, "\\b").replace(/\f/g, "\\f")
    .replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\v/g, "\\v");
}
const yamlInspect = (v) => inspect(v, { colors: false, breakLength: Infinity });
function jsToYaml(indent, name, value, seen) {
  if (value === undefined) return "";
  const prefix = indent + "  " + name + ":";
  if (value === null) return prefix + " ~\n";
  if (typeof value !== "object") {
    if (typeof value !== "string") return prefix + " " + yamlInspect(value) + "\n";
    const lines = value.split(/\r?\n/);
    if (lines.length === 1) return prefix + " " + yamlInspect(value) + "\n";
    let str = prefix + " |-\n";
    for (const line of lines) str += indent + "    " + line + "\n";
    return str;
  }
  seen.add(value);
  const entries = Object.entries(value);
  const isErrorObj = value instanceof Error;
  let result = "";
  let propsIndent = indent;
  if (name != null) {
    result += prefix;
    if (value instanceof Date) result += " " + value.toISOString();
    result += "\n";
    propsIndent += "  ";
  }
  for (const [key, v] of entries) {
    if (isErrorObj && (key === "cause" || key === "code")) continue;
    if (seen.has(v)) { result += propsIndent + "  " + key + ": <Circular>\n"; continue; }
    result += jsToYaml(propsIndent, key, v, seen);
  }
  if (isErrorObj) {
    const { cause, code, failureType, message, expected, actual, operator, stack, name: errName0 } = value;
    let errMsg = message ?? "<unknown error>";
    let errName = errName0;
    let errStack = stack;
    let errCode = code;
    let errExpected = expected;
    let errActual = actual;
    let errOperator = operator;
    let errIsAssertion = isAssertionError(value);
    if (code === "ERR_TEST_FAILURE" && kUnwrap.has(failureType)) {
      errStack = cause && cause.stack !== undefined ? internal.errorStack(cause) : errStack;
      errCode = (cause && cause.code) ?? errCode;
      errName = (cause && cause.name) ?? errName;
      errMsg = cause && typeof cause === "object" && "message" in cause ? cause.message : typeof cause === "object" || cause === undefined ? errMsg : inspect(cause);
      if (isAssertionError(cause)) {
        errExpected = cause.expected;
        errActual = cause.actual;
        errOperator = cause.operator ?? errOperator;
        errIsAssertion = true;
      }
    }
    result += jsToYaml(indent, "error", errMsg, seen);
    if (errCode) result += jsToYaml(indent, "code", errCode, seen);
    if (errIsAssertion) {
      result += jsToYaml(indent, "name", errName, seen);
      result += jsToYaml(indent, "expected", errExpected, seen);
      result += jsToYaml(indent, "actual", errActual, seen);
      if (errOperator) result += jsToYaml(indent, "operator", errOperator, seen);
    }
    if (typeof errStack === "string") {
      const frames = [];
      for (const frame of errStack.split(/\r?\n/)) {
        const processed = frame.replace(/^\s+at\s+/, "");
        if (processed.length > 0 && processed.length !== frame.length) frames.push(processed);
      }
      if (frames.length > 0) {
        const delimiter = "\n" + indent + "    ";
        result += indent + "  stack: |-" + delimiter + frames.join(delimiter) + "\n";
      }
    }
  }
  return result;
}
function isAssertionError(err) {
  return err instanceof Error && err.code === "ERR_ASSERTION" && typeof err.operator !== "undefined";
}
function testFailure(cause, failureType, message) {
  const err = new Error(message !== undefined ? message : cause && cause.message !== undefined ? String(cause.message) : inspect(cause));
  err.code = "ERR_TEST_FAILURE";
  err.failureType = failureType;
  err.cause = cause;
  return err;
}

function callerLocation() {
  const stack = new Error().stack || "";
  for (const line of stack.split("\n")) {
    const m = /\((\/[^():]+):(\d+):(\d+)\)|at (\/[^():]+):(\d+):(\d+)/.exec(line);
    if (!m) continue;
    const file = m[1] || m[4];
    const lineNo = Number(m[2] || m[5]);
    let col = Number(m[3] || m[6]);
    const source = internal.readSourceLine(file, lineNo);
    if (source !== null) {
      let i = col - 1;
      while (i > 0 && (source[i] === "(" || source[i] === " ")) i--;
      while (i > 0 && /[\w$]/.test(source[i - 1])) i--;
      if (/[\w$]/.test(source[i] || "")) col = i + 1;
    }
    return file + ":" + lineNo + ":" + col;
  }
  return undefined;
}

const counts = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
/** --test-name-pattern, as Node reads it: "/source/flags" is a regular expression literal, anything else its source. */
const namePatterns = (internal.process.execArgv || [])
  .filter((arg) => arg.startsWith("--test-name-pattern="))
  .map((arg) => {
    const text = arg.slice("--test-name-pattern=".length);
    const literal = /^\/(.*)\/([a-z]*)$/s.exec(text);
    return literal ? new RegExp(literal[1], literal[2]) : new RegExp(text);
  });
const startedAt = now();
let current = null;

class TestNode {
  constructor(parent, name, options, fn, isSuite) {
    this.parent = parent;
    this.name = name;
    this.fn = fn;
    this.isSuite = isSuite;
    this.nesting = parent ? parent.nesting + 1 : -1;
    this.children = [];
    this.pending = [];
    this.hooks = { before: [], after: [], beforeEach: [], afterEach: [] };
    this.diagnostics = [];
    this.skip = options.skip !== undefined && options.skip !== false;
    this.skipReason = typeof options.skip === "string" ? options.skip : "";
    // With name patterns, a test runs when its name or an enclosing test's or suite's matches;
    // suites themselves always run (their tests are filtered).
    this.nameMatched = namePatterns.length > 0 && parent !== null && parent !== undefined &&
      (parent.nameMatched || namePatterns.some((re) => re.test(name)));
    if (namePatterns.length > 0 && parent && !isSuite && !this.nameMatched && !this.skip) {
      this.skip = true;
      this.skipReason = "test name does not match pattern";
    }
    this.todo = options.todo !== undefined && options.todo !== false;
    this.todoReason = typeof options.todo === "string" ? options.todo : "";
    this.timeout = typeof options.timeout === "number" ? options.timeout : Infinity;
    this.error = null;
    this.finished = false;
    this.reported = false;
    this.headerReported = false;
    this.nextNumber = 1;
    this.location = parent ? callerLocation() : undefined;
    this.controller = null;
    this.done = null;
  }
  get fullName() {
    const names = [];
    for (let t = this; t && t.parent; t = t.parent) names.unshift(t.name);
    return names.join(" > ");
  }
  addChild(child) {
    this.children.push(child);
    if (this.parent && this.parent.isSuite === false && this.finished) {
      child.error = testFailure(new Error("test did not finish before its parent and was cancelled"), "cancelledByParent");
    }
    return child;
  }
}

const root = new TestNode(null, "<root>", {}, null, false);
root.nextNumber = fileMode ? fileMode.startNumber : 1;
root.topLevel = 0;
let rootRunning = false;
let rootFinalized = false;
let rootQueue = [];

function indentOf(node) { return "    ".repeat(Math.max(0, node.nesting)); }
function reportHeader(node) {
  if (!node.parent || node.headerReported) return;
  reportHeader(node.parent);
  node.headerReported = true;
  out(indentOf(node) + "# Subtest: " + tapEscape(node.name) + "\n");
}
function report(node) {
  if (node.reported) return;
  node.reported = true;
  reportHeader(node);
  const indent = indentOf(node);
  if (node.children.length > 0) out(indent + "    1.." + node.children.length + "\n");
  const number = node.parent.nextNumber++;
  if (node.parent === root) root.topLevel++;
  const failed = node.error !== null;
  let line = indent + (failed ? "not ok " : "ok ") + number + " - " + tapEscape(node.name);
  if (node.skip) line += " # SKIP" + (node.skipReason ? " " + tapEscape(node.skipReason) : "");
  else if (node.todo) line += " # TODO" + (node.todoReason ? " " + tapEscape(node.todoReason) : "");
  let yaml = indent + "  ---\n";
  yaml += indent + "  duration_ms: " + Number((node.duration || 0).toFixed(6)) + "\n";
  if (node.isSuite) yaml += indent + "  type: 'suite'\n";
  if (failed) {
    if (node.location) yaml += indent + "  location: " + yamlInspect(node.location) + "\n";
    yaml += jsToYaml(indent, null, node.error, new Set());
  }
  yaml += indent + "  ...\n";
  out(line + "\n" + yaml);
  for (const message of node.diagnostics) out(indent + "# " + tapEscape(message) + "\n");
  if (node.isSuite) counts.suites++;
  else {
    counts.tests++;
    const cancelled = failed && (node.error.failureType === "cancelledByParent" || node.error.failureType === "testTimeoutFailure");
    if (node.skip) counts.skipped++;
    else if (node.todo) counts.todo++;
    else if (cancelled) counts.cancelled++;
    else if (failed) counts.fail++;
    else counts.pass++;
  }
}

class TestContext {
  constructor(node) { this._node = node; this._mock = null; }
  get name() { return this._node.name; }
  get fullName() { return this._node.fullName; }
  get signal() { return this._node.controller.signal; }
  get mock() { if (!this._mock) { this._mock = new MockTracker(); this._node.mocks = this._mock; } return this._mock; }
  get assert() { return require("assert"); }
  diagnostic(message) { this._node.diagnostics.push(String(message)); }
  skip(message) { this._node.skip = true; this._node.skipReason = message === undefined ? "" : String(message); }
  todo(message) { this._node.todo = true; this._node.todoReason = message === undefined ? "" : String(message); }
  plan(count) { this._node.plan = count; }
  runOnly() {}
  before(fn, options) { this._node.hooks.before.push(fn); }
  after(fn, options) { this._node.hooks.after.push(fn); }
  beforeEach(fn, options) { this._node.hooks.beforeEach.push(fn); }
  afterEach(fn, options) { this._node.hooks.afterEach.push(fn); }
  test(name, options, fn) { return createTest(this._node, name, options, fn, false, {}); }
  waitFor(condition, options) {
    const interval = (options && options.interval) || 50;
    const timeout = (options && options.timeout) || 1000;
    const start = now();
    return new Promise((resolve, reject) => {
      const attempt = async () => {
        try { resolve(await condition()); }
        catch (err) { if (now() - start >= timeout) reject(err); else internal.timers.setTimeout(attempt, interval); }
      };
      attempt();
    });
  }
}
class SuiteContext {
  constructor(node) { this._node = node; }
  get name() { return this._node.name; }
  get fullName() { return this._node.fullName; }
  get signal() { return (this._node.controller || new (require("events").AbortController)()).signal; }
}

function parseArgs(name, options, fn) {
  if (typeof name === "function") { fn = name; options = {}; name = fn.name || "<anonymous>"; }
  else if (typeof name === "object" && name !== null) { fn = options; options = name; name = (fn && fn.name) || "<anonymous>"; }
  else if (typeof options === "function") { fn = options; options = {}; }
  if (options === undefined || options === null) options = {};
  if (typeof fn !== "function") fn = () => {};
  return { name: String(name), options, fn };
}

function createTest(parent, name, options, fn, isSuite, extra) {
  const args = parseArgs(name, options, fn);
  const opts = Object.assign({}, args.options, extra);
  const node = new TestNode(parent, args.name, opts, args.fn, isSuite);
  if (opts.only) node.diagnostics.push("'only' and 'runOnly' require the --test-only command-line option.");
  parent.addChild(node);
  let resolveDone;
  node.done = new Promise((resolve) => { resolveDone = resolve; });
  node.resolveDone = resolveDone;
  if (isSuite && !node.skip) {
    const previous = current;
    current = node;
    try {
      const result = node.fn.call(new SuiteContext(node), new SuiteContext(node));
      if (result && typeof result.then === "function") node.buildPromise = result;
    } catch (err) {
      if (err === EXIT) throw err;
      node.error = testFailure(err, "testCodeFailure");
    } finally {
      current = previous;
    }
  }
  if (parent === root) {
    rootQueue.push(node);
    scheduleRoot();
  } else if (!parent.isSuite) {
    parent.pending.push(node);
    runNode(node).then(node.resolveDone);
  }
  return node.done;
}

function scheduleRoot() {
  if (rootRunning) return;
  rootRunning = true;
  Promise.resolve().then(drainRoot);
}
async function drainRoot() {
  try {
    if (!root.beforeRan) {
      root.beforeRan = true;
      for (const hook of root.hooks.before) await runHook(hook, root, new TestContext(root));
    }
    while (rootQueue.length > 0) {
      const node = rootQueue.shift();
      await runNode(node);
      node.resolveDone();
    }
  } catch (err) {
    if (err !== EXIT) internal.uncaught(err);
  }
  rootRunning = false;
}

async function runHook(hook, node, context) {
  const result = hook.length > 1
    ? new Promise((resolve, reject) => { hook.call(context, context, (err) => (err ? reject(err) : resolve())); })
    : hook.call(context, context);
  if (result && typeof result.then === "function") await result;
}
function ancestorsOf(node) {
  const list = [];
  for (let t = node.parent; t; t = t.parent) list.unshift(t);
  return list;
}
function withTimeout(promise, node) {
  if (node.timeout === Infinity) return promise;
  return new Promise((resolve, reject) => {
    const timer = internal.timers.setTimeout(() => {
      reject(testFailure(new Error("test timed out after " + node.timeout + "ms"), "testTimeoutFailure", "test timed out after " + node.timeout + "ms"));
    }, node.timeout);
    promise.then((v) => { internal.timers.clearTimeout(timer); resolve(v); }, (e) => { internal.timers.clearTimeout(timer); reject(e); });
  });
}
function asFailure(err, failureType) {
  if (err && err.code === "ERR_TEST_FAILURE" && err.failureType) return err;
  return testFailure(err, failureType);
}

async function runNode(node) {
  const start = now();
  node.started = true;
  node.controller = new (require("events").AbortController)();
  if (node.skip || node.error) {
    node.duration = now() - start;
    finish(node);
    return;
  }
  const context = new TestContext(node);
  const ancestors = ancestorsOf(node);
  try {
    if (node.isSuite) {
      if (node.buildPromise) await node.buildPromise;
      for (const hook of node.hooks.before) await runHook(hook, node, context);
      for (const child of node.children) {
        await runNode(child);
        child.resolveDone();
      }
      for (const hook of node.hooks.after) await runHook(hook, node, context);
    } else {
      let hookFailed = false;
      try {
        for (const a of ancestors) for (const hook of a.hooks.beforeEach) await runHook(hook, node, context);
      } catch (err) {
        if (err === EXIT) throw err;
        hookFailed = true;
        node.error = testFailure(err, "hookFailed");
      }
      if (!hookFailed) {
        const previous = current;
        current = node;
        let result;
        try {
          if (node.fn.length >= 2) {
            result = new Promise((resolve, reject) => {
              const ret = node.fn.call(context, context, (err) => (err ? reject(err) : resolve()));
              if (ret && typeof ret.then === "function") reject(testFailure(new Error("passed a callback but also returned a Promise"), "callbackAndPromisePresent"));
            });
          } else {
            result = node.fn.call(context, context);
          }
        } catch (err) {
          if (err === EXIT) throw err;
          node.error = asFailure(err, "testCodeFailure");
        } finally {
          current = previous;
        }
        if (!node.error && result && typeof result.then === "function") {
          try { await withTimeout(Promise.resolve(result), node); }
          catch (err) { if (err === EXIT) throw err; node.error = asFailure(err, "testCodeFailure"); }
        }
        if (node.pending.length > 0) {
          const pending = node.pending.slice();
          await Promise.all(pending.map((child) => child.done));
        }
        for (const hook of node.hooks.after) {
          try { await runHook(hook, node, context); }
          catch (err) { if (err === EXIT) throw err; if (!node.error) node.error = testFailure(err, "hookFailed"); }
        }
        try {
          for (const a of ancestors.slice().reverse()) for (const hook of a.hooks.afterEach) await runHook(hook, node, context);
        } catch (err) {
          if (err === EXIT) throw err;
          if (!node.error) node.error = testFailure(err, "hookFailed");
        }
      }
      if (!node.error && node.plan !== undefined) {
        const got = node.children.length;
        if (got !== node.plan) node.error = testFailure(new Error("plan expected " + node.plan + " assertions but received " + got), "testCodeFailure");
      }
    }
  } catch (err) {
    if (err === EXIT) throw err;
    if (!node.error) node.error = testFailure(err, node.isSuite ? "hookFailed" : "testCodeFailure");
  }
  if (node.mocks) node.mocks.restoreAll();
  node.duration = now() - start;
  finish(node);
}
function finish(node) {
  node.finished = true;
  if (!node.error) {
    const failedChildren = node.children.filter((c) => c.error && !(c.todo && c.error.failureType !== "cancelledByParent")).length;
    if (failedChildren > 0) {
      node.error = testFailure(new Error(""), "subtestsFailed", failedChildren + " subtest" + (failedChildren > 1 ? "s" : "") + " failed");
      node.error.cause = undefined;
    }
  }
  for (const child of node.children) if (!child.reported) report(child);
  report(node);
  if (node.controller) node.controller.abort();
}

function cancelUnfinished(node) {
  for (const child of node.children) {
    if (child.finished) continue;
    if (!child.error) child.error = testFailure(new Error("Promise resolution is still pending but the event loop has already resolved"), "cancelledByParent", "Promise resolution is still pending but the event loop has already resolved");
    cancelUnfinished(child);
    child.finished = true;
  }
}
function onIdle() {
  if (rootFinalized || (root.children.length === 0 && rootQueue.length === 0)) return false;
  if (rootQueue.length > 0 && !rootRunning) { scheduleRoot(); return true; }
  if (rootRunning) {
    cancelUnfinished(root);
    for (const child of root.children) if (!child.reported) { finish(child); }
    rootRunning = false;
    rootQueue = [];
  }
  if (!root.afterRan && root.hooks.after.length > 0) {
    root.afterRan = true;
    (async () => { for (const hook of root.hooks.after) await runHook(hook, root, new TestContext(root)); })().catch((err) => internal.uncaught(err));
    return true;
  }
  rootFinalized = true;
  if (fileMode) {
    internal.rawHost("testsDone", JSON.stringify(Object.assign({ topLevel: root.topLevel }, counts)));
    if (counts.fail > 0 || counts.cancelled > 0) internal.process.exitCode = 1;
    return false;
  }
  let summary = "1.." + root.topLevel + "\n";
  for (const key of ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo"]) summary += "# " + key + " " + counts[key] + "\n";
  summary += "# duration_ms " + Number((now() - startedAt).toFixed(6)) + "\n";
  out(summary);
  if (counts.fail > 0 || counts.cancelled > 0) internal.process.exitCode = 1;
  return false;
}
internal.beforeExitHooks.push(onIdle);

// ---- mocks -------------------------------------------------------------------------------------
class MockFunctionContext {
  constructor(implementation, restore, times) {
    this.calls = [];
    this._implementation = implementation;
    this._once = new Map();
    this._restore = restore;
    this._times = times;
  }
  callCount() { return this.calls.length; }
  mockImplementation(fn) { this._implementation = fn; }
  mockImplementationOnce(fn, onCall) { this._once.set(onCall === undefined ? this.calls.length : onCall, fn); }
  resetCalls() { this.calls = []; }
  restore() { if (this._restore) this._restore(); }
}
class MockTracker {
  constructor() { this._mocks = []; }
  fn(original, implementation, options) {
    if (original !== null && typeof original === "object") { options = original; original = undefined; }
    else if (implementation !== null && typeof implementation === "object") { options = implementation; implementation = undefined; }
    if (original === undefined) original = function () {};
    if (implementation === undefined) implementation = original;
    const ctx = new MockFunctionContext(implementation, null, options && options.times);
    this._mocks.push(ctx);
    return makeMock(original, ctx);
  }
  method(object, methodName, implementation, options) {
    const original = object[methodName];
    if (typeof original !== "function") throw internal.makeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'methodName' must be a method. Received " + inspect(original));
    if (implementation !== null && typeof implementation === "object") { options = implementation; implementation = undefined; }
    const descriptor = Object.getOwnPropertyDescriptor(object, methodName);
    const ctx = new MockFunctionContext(implementation || original, () => {
      if (descriptor) Object.defineProperty(object, methodName, descriptor); else delete object[methodName];
    }, options && options.times);
    this._mocks.push(ctx);
    const mock = makeMock(original, ctx);
    Object.defineProperty(object, methodName, { value: mock, writable: true, configurable: true, enumerable: descriptor ? descriptor.enumerable : true });
    return mock;
  }
  getter(object, name, implementation) { return this.method(object, name, implementation, { getter: true }); }
  reset() { this.restoreAll(); this._mocks = []; }
  restoreAll() { for (const ctx of this._mocks) ctx.restore(); }
}
function makeMock(original, ctx) {
  const mock = function (...args) {
    const onceImpl = ctx._once.get(ctx.calls.length);
    if (onceImpl) ctx._once.delete(ctx.calls.length);
    const impl = onceImpl || (ctx._times !== undefined && ctx.calls.length >= ctx._times ? original : ctx._implementation);
    const call = { arguments: args, error: undefined, result: undefined, stack: new Error(), target: new.target, this: this };
    ctx.calls.push(call);
    try {
      call.result = new.target ? Reflect.construct(impl, args, new.target) : impl.apply(this, args);
      return call.result;
    } catch (err) {
      call.error = err;
      throw err;
    }
  };
  Object.defineProperty(mock, "mock", { value: ctx, enumerable: false });
  Object.defineProperty(mock, "name", { value: original.name, configurable: true });
  Object.defineProperty(mock, "length", { value: original.length, configurable: true });
  return mock;
}

// ---- the module --------------------------------------------------------------------------------
function parent() { return current || root; }
function test(name, options, fn) { return createTest(parent(), name, options, fn, false, {}); }
function describe(name, options, fn) { return createTest(parent(), name, options, fn, true, {}); }
for (const [api, isSuite] of [[test, false], [describe, true]]) {
  api.skip = (name, options, fn) => createTest(parent(), name, options, fn, isSuite, { skip: true });
  api.todo = (name, options, fn) => createTest(parent(), name, options, fn, isSuite, { todo: true });
  api.only = (name, options, fn) => createTest(parent(), name, options, fn, isSuite, { only: true });
}
function hook(kind) {
  return (fn, options) => { parent().hooks[kind].push(fn); };
}
test.test = test;
test.it = test;
test.describe = describe;
test.suite = describe;
test.before = hook("before");
test.after = hook("after");
test.beforeEach = hook("beforeEach");
test.afterEach = hook("afterEach");
test.mock = new MockTracker();
test.MockTracker = MockTracker;
test.run = () => { throw internal.makeError(Error, "ERR_EMBEDDED_UNSUPPORTED", "run() from node:test is not available in the embedded node; use node --test"); };
module.exports = test;
`;
