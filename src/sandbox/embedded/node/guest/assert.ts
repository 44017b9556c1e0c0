/**
 * Guest source (runs inside QuickJS) of node:assert, after Node 20's lib/assert.js and
 * lib/internal/assert/assertion_error.js: the same messages and the same "+ actual - expected" diff.
 */
export const GUEST_ASSERT = String.raw`
const inspect = internal.inspect;
const kReadableOperator = {
  deepStrictEqual: "Expected values to be strictly deep-equal:",
  strictEqual: "Expected values to be strictly equal:",
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: "Expected values to be loosely deep-equal:",
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: "Values have same structure but are not reference-equal:",
  notDeepEqualUnequal: "Expected values not to be loosely deep-equal:",
};
const kMaxShortLength = 12;
function inspectValue(val) {
  return inspect(val, { compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity, showHidden: false, showProxy: false, sorted: true, getters: true });
}
function createErrDiff(actual, expected, operator) {
  let other = "";
  let res = "";
  let end = "";
  let skipped = false;
  const actualInspected = inspectValue(actual);
  const actualLines = actualInspected.split("\n");
  const expectedLines = inspectValue(expected).split("\n");
  let i = 0;
  let indicator = "";
  if (operator === "strictEqual" && ((typeof actual === "object" && actual !== null && typeof expected === "object" && expected !== null) ||
      (typeof actual === "function" && typeof expected === "function"))) {
    operator = "strictEqualObject";
  }
  if (actualLines.length === 1 && expectedLines.length === 1 && actualLines[0] !== expectedLines[0]) {
    const actualRaw = actualLines[0];
    const expectedRaw = expectedLines[0];
    const inputLength = actualRaw.length + expectedRaw.length;
    if (inputLength <= kMaxShortLength) {
      if ((typeof actual !== "object" || actual === null) && (typeof expected !== "object" || expected === null) && (actual !== 0 || expected !== 0)) {
        return kReadableOperator[operator] + "\n\n" + actualLines[0] + " !== " + expectedLines[0] + "\n";
      }
    } else if (operator !== "strictEqualObject") {
      if (inputLength < 80) {
        while (actualRaw[i] === expectedRaw[i]) i++;
        if (i > 2) {
          indicator = "\n  " + " ".repeat(i) + "^";
          i = 0;
        }
      }
    }
  }
  let a = actualLines[actualLines.length - 1];
  let b = expectedLines[expectedLines.length - 1];
  while (a === b) {
    if (i++ < 3) end = "\n  " + a + end;
    else other = a;
    actualLines.pop();
    expectedLines.pop();
    if (actualLines.length === 0 || expectedLines.length === 0) break;
    a = actualLines[actualLines.length - 1];
    b = expectedLines[expectedLines.length - 1];
  }
  const maxLines = Math.max(actualLines.length, expectedLines.length);
  if (maxLines === 0) {
    const lines = actualInspected.split("\n");
    if (lines.length > 50) {
      lines[46] = "...";
      while (lines.length > 47) lines.pop();
    }
    return kReadableOperator.notIdentical + "\n\n" + lines.join("\n") + "\n";
  }
  if (i >= 5) {
    end = "\n..." + end;
    skipped = true;
  }
  if (other !== "") {
    end = "\n  " + other + end;
    other = "";
  }
  let printedLines = 0;
  let identical = 0;
  const msg = kReadableOperator[operator] + "\n+ actual - expected";
  const skippedMsg = " ... Lines skipped";
  let lines = actualLines;
  let plusMinus = "+";
  let maxLength = expectedLines.length;
  if (actualLines.length < maxLines) {
    lines = expectedLines;
    plusMinus = "-";
    maxLength = actualLines.length;
  }
  for (i = 0; i < maxLines; i++) {
    if (maxLength < i + 1) {
      if (identical > 2) {
        if (identical > 3) {
          if (identical > 4) {
            if (identical === 5) { res += "\n  " + lines[i - 3]; printedLines++; }
            else { res += "\n..."; skipped = true; }
          }
          res += "\n  " + lines[i - 2];
          printedLines++;
        }
        res += "\n  " + lines[i - 1];
        printedLines++;
      }
      identical = 0;
      if (lines === actualLines) res += "\n" + plusMinus + " " + lines[i];
      else other += "\n" + plusMinus + " " + lines[i];
      printedLines++;
    } else {
      const expectedLine = expectedLines[i];
      let actualLine = actualLines[i];
      let divergingLines = actualLine !== expectedLine && (!actualLine.endsWith(",") || actualLine.slice(0, -1) !== expectedLine);
      if (divergingLines && expectedLine.endsWith(",") && expectedLine.slice(0, -1) === actualLine) {
        divergingLines = false;
        actualLine += ",";
      }
      if (divergingLines) {
        if (identical > 2) {
          if (identical > 3) {
            if (identical > 4) {
              if (identical === 5) { res += "\n  " + actualLines[i - 3]; printedLines++; }
              else { res += "\n..."; skipped = true; }
            }
            res += "\n  " + actualLines[i - 2];
            printedLines++;
          }
          res += "\n  " + actualLines[i - 1];
          printedLines++;
        }
        identical = 0;
        res += "\n+ " + actualLine;
        other += "\n- " + expectedLine;
        printedLines += 2;
      } else {
        res += other;
        other = "";
        identical++;
        if (identical <= 2) {
          res += "\n  " + actualLine;
          printedLines++;
        }
      }
    }
    if (printedLines > 50 && i < maxLines - 2) {
      return msg + skippedMsg + "\n" + res + "\n..." + other + "\n...";
    }
  }
  return msg + (skipped ? skippedMsg : "") + "\n" + res + other + end + indicator;
}

class AssertionError extends Error {
  constructor(options) {
    if (typeof options !== "object" || options === null) {
      throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "options" argument must be of type object. Received ' + inspect(options));
    }
    const { message, operator, stackStartFn, details } = options;
    let { actual, expected } = options;
    if (message != null) {
      super(String(message));
    } else if (operator === "deepStrictEqual" || operator === "strictEqual") {
      super(createErrDiff(actual, expected, operator));
    } else if (operator === "notDeepStrictEqual" || operator === "notStrictEqual") {
      let base = kReadableOperator[operator];
      const res = inspectValue(actual).split("\n");
      if (operator === "notStrictEqual" && ((typeof actual === "object" && actual !== null) || typeof actual === "function")) {
        base = kReadableOperator.notStrictEqualObject;
      }
      if (res.length > 50) {
        res[46] = "...";
        while (res.length > 47) res.pop();
      }
      if (res.length === 1) super(base + (res[0].length > 5 ? "\n\n" : " ") + res[0]);
      else super(base + "\n\n" + res.join("\n") + "\n");
    } else {
      let res = inspectValue(actual);
      let other = inspectValue(expected);
      const knownOperator = kReadableOperator[operator];
      if (operator === "notDeepEqual" && res === other) {
        res = knownOperator + "\n\n" + res;
        if (res.length > 1024) res = res.slice(0, 1021) + "...";
        super(res);
      } else {
        if (res.length > 512) res = res.slice(0, 509) + "...";
        if (other.length > 512) other = other.slice(0, 509) + "...";
        if (operator === "deepEqual") {
          res = knownOperator + "\n\n" + res + "\n\nshould loosely deep-equal\n\n";
        } else {
          const newOp = kReadableOperator[operator + "Unequal"];
          if (newOp) res = newOp + "\n\n" + res + "\n\nshould not loosely deep-equal\n\n";
          else other = " " + operator + " " + other;
        }
        super(res + other);
      }
    }
    this.generatedMessage = !message;
    Object.defineProperty(this, "name", { value: "AssertionError [ERR_ASSERTION]", enumerable: false, writable: true, configurable: true });
    this.code = "ERR_ASSERTION";
    if (details) {
      this.actual = undefined; this.expected = undefined; this.operator = undefined;
      for (let i = 0; i < details.length; i++) { this["message " + i] = details[i].message; this["actual " + i] = details[i].actual; }
    } else {
      this.actual = actual;
      this.expected = expected;
      this.operator = operator;
    }
    void this.stack;
    this.name = "AssertionError";
  }
  toString() { return this.name + " [" + this.code + "]: " + this.message; }
  [Symbol.for("nodejs.util.inspect.custom")](recurseTimes, ctx) {
    const tmpActual = this.actual;
    const tmpExpected = this.expected;
    if (typeof this.actual === "string") this.actual = this.actual.length > 512 ? this.actual.slice(0, 509) + "..." : this.actual;
    if (typeof this.expected === "string") this.expected = this.expected.length > 512 ? this.expected.slice(0, 509) + "..." : this.expected;
    const result = inspect(this, Object.assign({}, ctx, { customInspect: false, depth: 0 }));
    this.actual = tmpActual;
    this.expected = tmpExpected;
    return result;
  }
}

// ---- comparison -------------------------------------------------------------------------------
const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const objectTag = (v) => Object.prototype.toString.call(v);
function isDeepEqual(a, b, strict, memo) {
  if (a === b) return a !== 0 || !strict || Object.is(a, b);
  if (strict) {
    if (typeof a !== "object") return typeof a === "number" && Number.isNaN(a) && Number.isNaN(b);
    if (typeof b !== "object" || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  } else {
    if (a === null || typeof a !== "object") {
      if (b === null || typeof b !== "object") return a == b || (Number.isNaN(a) && Number.isNaN(b));
      return false;
    }
    if (b === null || typeof b !== "object") return false;
  }
  const tag = objectTag(a);
  if (tag !== objectTag(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return keyCheck(a, b, strict, memo, true);
  }
  if (tag === "[object Object]" && !(a instanceof Map) && !(a instanceof Set)) return keyCheck(a, b, strict, memo, false);
  if (a instanceof Date) {
    if (!(b instanceof Date) || a.getTime() !== b.getTime()) return false;
  } else if (a instanceof RegExp) {
    if (!(b instanceof RegExp) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (a instanceof Error) {
    if (!(b instanceof Error) || a.message !== b.message || a.name !== b.name) return false;
  } else if (typedArrayTag.call(a) !== undefined) {
    if (typedArrayTag.call(a) !== typedArrayTag.call(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (strict ? !Object.is(a[i], b[i]) : a[i] != b[i]) return false;
    return keyCheck(a, b, strict, memo, true, true);
  } else if (a instanceof ArrayBuffer) {
    if (a.byteLength !== b.byteLength) return false;
    const x = new Uint8Array(a), y = new Uint8Array(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  } else if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    if (!setEquiv(a, b, strict, memo)) return false;
  } else if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    if (!mapEquiv(a, b, strict, memo)) return false;
  } else if (a instanceof Number || a instanceof String || a instanceof Boolean || (typeof BigInt !== "undefined" && a instanceof BigInt)) {
    if (!Object.is(a.valueOf(), b.valueOf())) return false;
  } else if (typeof a === "function" || a instanceof WeakMap || a instanceof WeakSet || a instanceof Promise) {
    return false;
  }
  return keyCheck(a, b, strict, memo, false);
}
function ownKeys(obj, strict) {
  const keys = Object.keys(obj);
  if (strict) for (const symbol of Object.getOwnPropertySymbols(obj)) if (Object.prototype.propertyIsEnumerable.call(obj, symbol)) keys.push(symbol);
  return keys;
}
function keyCheck(a, b, strict, memo, isArrayLike, skipIndices) {
  let aKeys = ownKeys(a, strict);
  let bKeys = ownKeys(b, strict);
  if (skipIndices) {
    aKeys = aKeys.filter((k) => typeof k !== "string" || !/^\d+$/.test(k));
    bKeys = bKeys.filter((k) => typeof k !== "string" || !/^\d+$/.test(k));
  }
  if (aKeys.length !== bKeys.length) return false;
  for (const key of aKeys) if (!Object.prototype.propertyIsEnumerable.call(b, key)) return false;
  if (memo === undefined) memo = { a: new Map(), b: new Map(), position: 0 };
  else {
    const memoA = memo.a.get(a);
    if (memoA !== undefined) {
      const memoB = memo.b.get(b);
      if (memoB !== undefined) return memoA === memoB;
    }
    memo.position++;
  }
  memo.a.set(a, memo.position);
  memo.b.set(b, memo.position);
  let result = true;
  for (const key of aKeys) {
    if (!isDeepEqual(a[key], b[key], strict, memo)) { result = false; break; }
  }
  memo.a.delete(a);
  memo.b.delete(b);
  return result;
}
function setEquiv(a, b, strict, memo) {
  const pending = [];
  for (const value of a) {
    if (value !== null && typeof value === "object") pending.push(value);
    else if (!b.has(value)) {
      if (strict) return false;
      let found = false;
      for (const other of b) if (other == value) { found = true; break; }
      if (!found) return false;
    }
  }
  if (pending.length === 0) return true;
  const candidates = [];
  for (const value of b) if (value !== null && typeof value === "object") candidates.push(value);
  for (const value of pending) {
    const index = candidates.findIndex((c) => isDeepEqual(value, c, strict, memo));
    if (index === -1) return false;
    candidates.splice(index, 1);
  }
  return true;
}
function mapEquiv(a, b, strict, memo) {
  const used = new Set();
  for (const [key, value] of a) {
    if (key === null || typeof key !== "object") {
      if (!b.has(key) || !isDeepEqual(value, b.get(key), strict, memo)) return false;
    } else {
      let found = false;
      for (const [otherKey, otherValue] of b) {
        if (used.has(otherKey)) continue;
        if (isDeepEqual(key, otherKey, strict, memo) && isDeepEqual(value, otherValue, strict, memo)) { used.add(otherKey); found = true; break; }
      }
      if (!found) return false;
    }
  }
  return true;
}

// ---- the API ----------------------------------------------------------------------------------
function innerFail(obj) {
  if (obj.message instanceof Error) throw obj.message;
  throw new AssertionError(obj);
}
function callSiteSource(fnName) {
  const stack = new Error().stack || "";
  const frame = stack.split("\n").find((line) => /\(\/[^()]+:\d+:\d+\)|at \/[^()]+:\d+:\d+/.test(line));
  if (!frame) return null;
  const m = /(\/[^():]+):(\d+):(\d+)/.exec(frame);
  const line = internal.readSourceLine(m[1], Number(m[2]));
  if (line === null) return null;
  const start = line.search(/\bassert\b/);
  if (start < 0) return null;
  let depth = 0;
  let end = -1;
  for (let i = line.indexOf("(", start); i >= 0 && i < line.length; i++) {
    if (line[i] === "(") depth++;
    else if (line[i] === ")") { depth--; if (depth === 0) { end = i + 1; break; } }
  }
  return end < 0 ? null : line.slice(start, end);
}
function innerOk(fn, argLen, value, message) {
  if (!value) {
    let generatedMessage = false;
    if (argLen === 0) {
      generatedMessage = true;
      message = "No value argument passed to " + String.fromCharCode(96) + "assert.ok()" + String.fromCharCode(96);
    } else if (message == null) {
      generatedMessage = true;
      const source = callSiteSource();
      message = "The expression evaluated to a falsy value:\n\n  " + (source || "assert.ok(" + inspect(value) + ")") + "\n";
    } else if (message instanceof Error) {
      throw message;
    }
    const err = new AssertionError({ actual: value, expected: true, message, operator: "==", stackStartFn: fn });
    err.generatedMessage = generatedMessage;
    throw err;
  }
}
function ok(...args) { innerOk(ok, args.length, ...args); }
const assert = ok;
assert.ok = ok;
assert.AssertionError = AssertionError;
assert.fail = function fail(actual, expected, message, operator) {
  const argsLen = arguments.length;
  let internalMessage = false;
  if (argsLen === 0) internalMessage = "Failed";
  else if (argsLen === 1) { message = actual; actual = undefined; }
  else if (argsLen === 2) operator = "!=";
  if (message instanceof Error) throw message;
  const err = new AssertionError({ actual, expected, operator: operator === undefined ? "fail" : operator, message: internalMessage || message });
  if (internalMessage) err.generatedMessage = true;
  throw err;
};
assert.equal = function equal(actual, expected, message) {
  if (!(actual == expected || (Number.isNaN(actual) && Number.isNaN(expected)))) innerFail({ actual, expected, message, operator: "==" });
};
assert.notEqual = function notEqual(actual, expected, message) {
  if (actual == expected || (Number.isNaN(actual) && Number.isNaN(expected))) innerFail({ actual, expected, message, operator: "!=" });
};
assert.strictEqual = function strictEqual(actual, expected, message) {
  if (!Object.is(actual, expected)) innerFail({ actual, expected, message, operator: "strictEqual" });
};
assert.notStrictEqual = function notStrictEqual(actual, expected, message) {
  if (Object.is(actual, expected)) innerFail({ actual, expected, message, operator: "notStrictEqual" });
};
assert.deepEqual = function deepEqual(actual, expected, message) {
  if (!isDeepEqual(actual, expected, false)) innerFail({ actual, expected, message, operator: "deepEqual" });
};
assert.notDeepEqual = function notDeepEqual(actual, expected, message) {
  if (isDeepEqual(actual, expected, false)) innerFail({ actual, expected, message, operator: "notDeepEqual" });
};
assert.deepStrictEqual = function deepStrictEqual(actual, expected, message) {
  if (!isDeepEqual(actual, expected, true)) innerFail({ actual, expected, message, operator: "deepStrictEqual" });
};
assert.notDeepStrictEqual = function notDeepStrictEqual(actual, expected, message) {
  if (isDeepEqual(actual, expected, true)) innerFail({ actual, expected, message, operator: "notDeepStrictEqual" });
};
assert.ifError = function ifError(err) {
  if (err !== null && err !== undefined) {
    let message = "ifError got unwanted exception: ";
    message += typeof err === "object" && typeof err.message === "string" ? (err.message.length === 0 && err.constructor ? err.constructor.name : err.message) : inspect(err);
    const newErr = new AssertionError({ actual: err, expected: null, operator: "ifError", message });
    throw newErr;
  }
};
function checkMatch(string, regexp, message, fn, negate) {
  if (!(regexp instanceof RegExp)) {
    throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "regexp" argument must be an instance of RegExp. Received ' + inspect(regexp));
  }
  if (typeof string !== "string" || regexp.test(string) === negate) {
    if (message instanceof Error) throw message;
    const generatedMessage = !message;
    message = message || (typeof string !== "string"
      ? 'The "string" argument must be of type string. Received type ' + typeof string + " (" + inspect(string) + ")"
      : (negate ? "The input was expected to not match the regular expression " : "The input did not match the regular expression ") +
        inspect(regexp) + ". Input:\n\n" + inspect(string) + "\n");
    const err = new AssertionError({ actual: string, expected: regexp, message, operator: fn.name, stackStartFn: fn });
    err.generatedMessage = generatedMessage;
    throw err;
  }
}
assert.match = function match(string, regexp, message) { checkMatch(string, regexp, message, match, false); };
assert.doesNotMatch = function doesNotMatch(string, regexp, message) { checkMatch(string, regexp, message, doesNotMatch, true); };

const NO_EXCEPTION = {};
function getActual(fn) {
  if (typeof fn !== "function") throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "fn" argument must be of type function. Received ' + inspect(fn));
  try { fn(); } catch (e) { return e; }
  return NO_EXCEPTION;
}
async function waitForActual(promiseFn) {
  let resultPromise;
  if (typeof promiseFn === "function") {
    resultPromise = promiseFn();
    if (!resultPromise || typeof resultPromise.then !== "function") {
      throw internal.makeError(TypeError, "ERR_INVALID_RETURN_VALUE", 'Expected instance of Promise to be returned from the "promiseFn" function but got ' + (resultPromise === undefined ? "undefined" : "type " + typeof resultPromise) + ".");
    }
  } else if (promiseFn && typeof promiseFn.then === "function") {
    resultPromise = promiseFn;
  } else {
    throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "promiseFn" argument must be of type function or an instance of Promise. Received ' + inspect(promiseFn));
  }
  try { await resultPromise; } catch (e) { return e; }
  return NO_EXCEPTION;
}
class Comparison {
  constructor(obj, keys, actual) {
    for (const key of keys) {
      if (key in obj) {
        if (actual !== undefined && typeof actual[key] === "string" && obj[key] instanceof RegExp && obj[key].exec(actual[key]) !== null) this[key] = actual[key];
        else this[key] = obj[key];
      }
    }
  }
}
function compareExceptionKey(actual, expected, key, message, keys, fn) {
  if (!(key in actual) || !isDeepEqual(actual[key], expected[key], true)) {
    if (!message) {
      const a = new Comparison(actual, keys);
      const b = new Comparison(expected, keys, actual);
      const err = new AssertionError({ actual: a, expected: b, operator: "deepStrictEqual", stackStartFn: fn });
      err.actual = actual; err.expected = expected; err.operator = fn.name;
      throw err;
    }
    innerFail({ actual, expected, message, operator: fn.name, stackStartFn: fn });
  }
}
function expectedException(actual, expected, message, fn) {
  let generatedMessage = false;
  let throwError = false;
  if (typeof expected !== "function") {
    if (expected instanceof RegExp) {
      const str = String(actual);
      if (expected.test(str)) return;
      if (!message) {
        generatedMessage = true;
        message = "The input did not match the regular expression " + inspect(expected) + ". Input:\n\n" + inspect(str) + "\n";
      }
      throwError = true;
    } else if (typeof actual !== "object" || actual === null) {
      const err = new AssertionError({ actual, expected, message, operator: "deepStrictEqual", stackStartFn: fn });
      err.operator = fn.name;
      throw err;
    } else {
      const keys = Object.keys(expected);
      if (expected instanceof Error) keys.push("name", "message");
      else if (keys.length === 0) throw internal.makeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'error' may not be an empty object. Received {}");
      for (const key of keys) {
        if (typeof actual[key] === "string" && expected[key] instanceof RegExp && expected[key].test(actual[key])) continue;
        compareExceptionKey(actual, expected, key, message, keys, fn);
      }
      return;
    }
  } else if (expected.prototype !== undefined && actual instanceof expected) {
    return;
  } else if (expected === Error || (expected.prototype !== undefined && expected.prototype instanceof Error)) {
    if (!message) {
      generatedMessage = true;
      message = "The error is expected to be an instance of \"" + expected.name + "\". Received ";
      if (actual instanceof Error) message += '"' + actual.name + '"';
      else message += '"' + inspect(actual, { depth: -1 }) + '"';
      if (actual && actual.message) message += "\n\nError message:\n\n" + actual.message;
    }
    throwError = true;
  } else {
    const res = expected.call({}, actual);
    if (res !== true) {
      if (!message) {
        generatedMessage = true;
        const name = expected.name ? '"' + expected.name + '" ' : "";
        message = "The " + name + "validation function is expected to return \"true\". Received " + inspect(res);
        if (actual instanceof Error) message += "\n\nCaught error:\n\n" + actual;
      }
      throwError = true;
    }
  }
  if (throwError) {
    const err = new AssertionError({ actual, expected, message, operator: fn.name, stackStartFn: fn });
    err.generatedMessage = generatedMessage;
    throw err;
  }
}
function expectsError(stackStartFn, actual, error, message) {
  if (typeof error === "string") {
    if (arguments.length === 4) throw internal.makeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "error" argument must be of type function or an instance of Error, RegExp, or Object. Received type string (' + inspect(error) + ")");
    message = error;
    error = undefined;
  }
  if (actual === NO_EXCEPTION) {
    let details = "";
    if (error && error.name) details += " (" + error.name + ")";
    details += message ? ": " + message : ".";
    const fnType = stackStartFn === assert.rejects ? "rejection" : "exception";
    innerFail({ actual: undefined, expected: error, operator: stackStartFn.name, message: "Missing expected " + fnType + details, stackStartFn });
  }
  if (error && !expectedException(actual, error, message, stackStartFn)) return;
}
function expectsNoError(stackStartFn, actual, error, message) {
  if (actual === NO_EXCEPTION) return;
  if (typeof error === "string") { message = error; error = undefined; }
  if (!error || (typeof error === "function" && error.prototype !== undefined && actual instanceof error) || (error instanceof RegExp && error.test(String(actual)))) {
    const details = message ? ": " + message : ".";
    const fnType = stackStartFn === assert.doesNotReject ? "rejection" : "exception";
    innerFail({ actual, expected: error, operator: stackStartFn.name, message: "Got unwanted " + fnType + details + "\nActual message: \"" + (actual && actual.message) + "\"", stackStartFn });
  }
  throw actual;
}
assert.throws = function throws(promiseFn, ...args) { expectsError(throws, getActual(promiseFn), ...args); };
assert.rejects = async function rejects(promiseFn, ...args) { expectsError(rejects, await waitForActual(promiseFn), ...args); };
assert.doesNotThrow = function doesNotThrow(fn, ...args) { expectsNoError(doesNotThrow, getActual(fn), ...args); };
assert.doesNotReject = async function doesNotReject(fn, ...args) { expectsNoError(doesNotReject, await waitForActual(fn), ...args); };
assert.isDeepEqual = isDeepEqual;
const strict = function strict(...args) { innerOk(strict, args.length, ...args); };
Object.assign(strict, assert, { equal: assert.strictEqual, deepEqual: assert.deepStrictEqual, notEqual: assert.notStrictEqual, notDeepEqual: assert.notDeepStrictEqual });
strict.strict = strict;
assert.strict = strict;
module.exports = assert;
`;

export const GUEST_ASSERT_STRICT = `
module.exports = require("assert").strict;
`;
