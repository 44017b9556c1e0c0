/**
 * Guest source (runs inside QuickJS): `util.inspect` and `util.format`, ported from Node 20's
 * lib/internal/util/inspect.js without colors. Defines `inspect`, `format`, `formatWithOptions`
 * in the bootstrap's scope. No backticks and no dollar-brace in guest sources: they live in String.raw.
 */
export const GUEST_INSPECT = String.raw`
const kObjectType = 0;
const kArrayType = 1;
const kArrayExtrasType = 2;
const customInspectSymbol = Symbol.for("nodejs.util.inspect.custom");
const inspectDefaultOptions = {
  showHidden: false, depth: 2, colors: false, customInspect: true, showProxy: false,
  maxArrayLength: 100, maxStringLength: 10000, breakLength: 80, compact: 3, sorted: false, getters: false,
};
const identifierRe = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
const promiseState = (p) => host("promiseState", p);

function inspect(value, opts) {
  const ctx = {
    budget: {}, indentationLvl: 0, seen: [], currentDepth: 0,
    showHidden: inspectDefaultOptions.showHidden, depth: inspectDefaultOptions.depth,
    customInspect: inspectDefaultOptions.customInspect, maxArrayLength: inspectDefaultOptions.maxArrayLength,
    maxStringLength: inspectDefaultOptions.maxStringLength, breakLength: inspectDefaultOptions.breakLength,
    compact: inspectDefaultOptions.compact, sorted: inspectDefaultOptions.sorted, getters: inspectDefaultOptions.getters,
  };
  if (arguments.length > 1) {
    if (arguments.length > 2) {
      if (arguments[2] !== undefined) ctx.depth = arguments[2];
      if (arguments.length > 3 && arguments[3] !== undefined) ctx.colors = arguments[3];
    }
    if (typeof opts === "boolean") ctx.showHidden = opts;
    else if (opts) {
      for (const key of Object.keys(opts)) {
        if (Object.prototype.hasOwnProperty.call(inspectDefaultOptions, key) || key === "stylize") ctx[key] = opts[key];
      }
    }
  }
  if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
  if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
  if (ctx.depth === null) ctx.depth = Infinity;
  return formatValue(ctx, value, 0);
}
inspect.custom = customInspectSymbol;
inspect.defaultOptions = inspectDefaultOptions;

function strEscape(str) {
  let quote = "'";
  if (str.includes("'")) {
    if (!str.includes('"')) quote = '"';
    else if (!str.includes(String.fromCharCode(96)) && !str.includes(String.fromCharCode(36, 123))) quote = String.fromCharCode(96);
  }
  let result = "";
  for (let i = 0; i < str.length; i++) {
    const ch = str[i];
    const code = str.charCodeAt(i);
    if (ch === quote || ch === "\\") result += "\\" + ch;
    else if (ch === "\n") result += "\\n";
    else if (ch === "\t") result += "\\t";
    else if (ch === "\r") result += "\\r";
    else if (ch === "\b") result += "\\b";
    else if (ch === "\f") result += "\\f";
    else if (ch === "\v") result += "\\v";
    else if (code < 32 || code === 127) result += "\\x" + code.toString(16).toUpperCase().padStart(2, "0");
    else result += ch;
  }
  return quote + result + quote;
}

function formatNumber(n) {
  if (Object.is(n, -0)) return "-0";
  return String(n);
}

function formatPrimitive(value, ctx) {
  switch (typeof value) {
    case "string": {
      let trailer = "";
      if (value.length > ctx.maxStringLength) {
        const remaining = value.length - ctx.maxStringLength;
        value = value.slice(0, ctx.maxStringLength);
        trailer = "... " + remaining + " more character" + (remaining > 1 ? "s" : "");
      }
      if (ctx.compact !== true && value.length > 16 && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
        const parts = value.split(/(?<=\n)/);
        if (parts.length > 1) {
          return parts.map((line) => strEscape(line)).join(" +\n" + " ".repeat(ctx.indentationLvl + 2)) + trailer;
        }
      }
      return strEscape(value) + trailer;
    }
    case "number": return formatNumber(value);
    case "bigint": return String(value) + "n";
    case "boolean": return String(value);
    case "undefined": return "undefined";
    default: return Symbol.prototype.toString.call(value);
  }
}

function getConstructorName(obj) {
  let tmp = obj;
  while (tmp !== null && tmp !== undefined) {
    const descriptor = Object.getOwnPropertyDescriptor(tmp, "constructor");
    if (descriptor !== undefined && typeof descriptor.value === "function" && descriptor.value.name !== "") {
      try { if (obj instanceof descriptor.value) return descriptor.value.name; } catch {}
      return descriptor.value.name;
    }
    tmp = Object.getPrototypeOf(tmp);
  }
  return null;
}

function getPrefix(constructor, tag, fallback, size) {
  size = size || "";
  if (constructor === null) {
    if (tag !== "" && fallback !== tag) return "[" + fallback + size + ": null prototype] [" + tag + "] ";
    return "[" + fallback + size + ": null prototype] ";
  }
  if (tag !== "" && constructor !== tag) return constructor + size + " [" + tag + "] ";
  return constructor + size + " ";
}

function getKeys(value, showHidden) {
  let keys;
  const symbols = Object.getOwnPropertySymbols(value);
  if (showHidden) {
    keys = Object.getOwnPropertyNames(value);
    if (symbols.length !== 0) keys.push(...symbols);
  } else {
    keys = Object.keys(value);
    for (const symbol of symbols) if (Object.prototype.propertyIsEnumerable.call(value, symbol)) keys.push(symbol);
  }
  return keys;
}

function isIndex(key) {
  return typeof key === "string" && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295;
}

function getOwnNonIndexProperties(value, showHidden) {
  return getKeys(value, showHidden).filter((key) => !isIndex(key) && !(showHidden && key === "length" && Array.isArray(value)));
}

const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;
function isTypedArray(value) { return typedArrayTag.call(value) !== undefined; }
function isError(value) {
  return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
}
function isBoxed(value) {
  return value instanceof Number || value instanceof String || value instanceof Boolean ||
    (typeof BigInt === "function" && value instanceof BigInt) || value instanceof Symbol;
}

function formatValue(ctx, value, recurseTimes, typedArray) {
  if (typeof value !== "object" && typeof value !== "function") return formatPrimitive(value, ctx);
  if (value === null) return "null";
  if (ctx.customInspect) {
    let maybeCustom;
    try { maybeCustom = value[customInspectSymbol]; } catch {}
    if (typeof maybeCustom === "function" && maybeCustom !== inspect) {
      const depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
      const options = Object.assign({}, ctx, { depth: depth, stylize: (s) => s });
      delete options.seen; delete options.budget;
      const ret = maybeCustom.call(value, depth, options, inspect);
      if (ret !== value) {
        if (typeof ret !== "string") return formatValue(ctx, ret, recurseTimes);
        return ret.split("\n").join("\n" + " ".repeat(ctx.indentationLvl));
      }
    }
  }
  if (ctx.seen.includes(value)) {
    let index = 1;
    if (ctx.circular === undefined) {
      ctx.circular = new Map();
      ctx.circular.set(value, index);
    } else {
      index = ctx.circular.get(value);
      if (index === undefined) {
        index = ctx.circular.size + 1;
        ctx.circular.set(value, index);
      }
    }
    return "[Circular *" + index + "]";
  }
  return formatRaw(ctx, value, recurseTimes, typedArray);
}

function formatRaw(ctx, value, recurseTimes, typedArray) {
  let keys;
  const constructor = getConstructorName(value);
  let tag = "";
  try {
    const t = value[Symbol.toStringTag];
    if (typeof t === "string" && t !== "" && t !== constructor) tag = t;
  } catch {}
  let base = "";
  let formatter = () => [];
  let braces;
  let noIterator = true;
  let extrasType = kObjectType;
  let iterable = false;
  try { iterable = typeof value[Symbol.iterator] === "function"; } catch {}
  if (iterable || constructor === null) {
    noIterator = false;
    if (Array.isArray(value)) {
      const prefix = (constructor !== "Array" || tag !== "") ? getPrefix(constructor, tag, "Array", "(" + value.length + ")") : "";
      keys = getOwnNonIndexProperties(value, ctx.showHidden);
      braces = [prefix + "[", "]"];
      if (value.length === 0 && keys.length === 0) return braces[0] + "]";
      extrasType = kArrayExtrasType;
      formatter = formatArray;
    } else if (value instanceof Set) {
      const prefix = getPrefix(constructor, tag, "Set", "(" + value.size + ")");
      keys = getKeys(value, ctx.showHidden);
      formatter = formatSet;
      if (value.size === 0 && keys.length === 0) return prefix + "{}";
      braces = [prefix + "{", "}"];
    } else if (value instanceof Map) {
      const prefix = getPrefix(constructor, tag, "Map", "(" + value.size + ")");
      keys = getKeys(value, ctx.showHidden);
      formatter = formatMap;
      if (value.size === 0 && keys.length === 0) return prefix + "{}";
      braces = [prefix + "{", "}"];
    } else if (isTypedArray(value)) {
      keys = getOwnNonIndexProperties(value, ctx.showHidden);
      const fallback = typedArrayTag.call(value);
      const prefix = getPrefix(constructor, tag, fallback, "(" + value.length + ")");
      braces = [prefix + "[", "]"];
      if (value.length === 0 && keys.length === 0) return braces[0] + "]";
      formatter = formatTypedArray;
      extrasType = kArrayExtrasType;
    } else {
      noIterator = true;
    }
  }
  if (noIterator) {
    keys = getKeys(value, ctx.showHidden);
    braces = ["{", "}"];
    if (constructor === "Object" && !isError(value) && typeof value !== "function") {
      if (Object.prototype.toString.call(value) === "[object Arguments]") braces[0] = "[Arguments] [";
      else if (tag !== "") braces[0] = getPrefix(constructor, tag, "Object") + "{";
      if (keys.length === 0) return braces[0] + "}";
    } else if (typeof value === "function") {
      base = getFunctionBase(value, constructor, tag);
      if (keys.length === 0) return base;
    } else if (value instanceof RegExp) {
      base = RegExp.prototype.toString.call(value);
      const prefix = getPrefix(constructor, tag, "RegExp");
      if (prefix !== "RegExp ") base = prefix + base;
      if (keys.length === 0 || recurseTimes > ctx.depth) return base;
    } else if (value instanceof Date) {
      base = Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
      const prefix = getPrefix(constructor, tag, "Date");
      if (prefix !== "Date ") base = prefix + base;
      if (keys.length === 0) return base;
    } else if (isError(value)) {
      base = formatError(value, constructor, tag, ctx, keys);
      if (keys.length === 0) return base;
    } else if (value instanceof ArrayBuffer) {
      const prefix = getPrefix(constructor, tag, "ArrayBuffer");
      if (typedArray === undefined) formatter = formatArrayBuffer;
      else if (keys.length === 0) return prefix + "{ byteLength: " + value.byteLength + " }";
      braces[0] = prefix + "{";
      keys.unshift("byteLength");
    } else if (value instanceof Promise) {
      braces[0] = getPrefix(constructor, tag, "Promise") + "{";
      formatter = formatPromise;
    } else if (value instanceof WeakSet || value instanceof WeakMap) {
      braces[0] = getPrefix(constructor, tag, value instanceof WeakSet ? "WeakSet" : "WeakMap") + "{";
      formatter = () => ["<items unknown>"];
    } else if (isBoxed(value)) {
      const primitive = value.valueOf();
      const type = typeof primitive === "string" ? "String" : typeof primitive === "number" ? "Number" :
        typeof primitive === "boolean" ? "Boolean" : typeof primitive === "bigint" ? "BigInt" : "Symbol";
      base = "[" + type;
      if (type !== constructor) base += constructor === null ? " (null prototype)" : " (" + constructor + ")";
      base += ": " + formatPrimitive(primitive, Object.assign({}, ctx, { compact: true })) + "]";
      if (tag !== "" && tag !== constructor) base += " [" + tag + "]";
      if (type === "String") keys = keys.filter((key) => !isIndex(key));
      if (keys.length === 0) return base;
    } else {
      if (keys.length === 0) return getPrefix(constructor, tag, "Object") + "{}";
      braces[0] = getPrefix(constructor, tag, "Object") + "{";
    }
  }
  if (recurseTimes > ctx.depth) {
    let name = getPrefix(constructor, tag, "Object").slice(0, -1);
    if (constructor !== null) name = "[" + name + "]";
    return name;
  }
  recurseTimes += 1;
  ctx.seen.push(value);
  ctx.currentDepth = recurseTimes;
  let output;
  try {
    output = formatter(ctx, value, recurseTimes);
    for (let i = 0; i < keys.length; i++) output.push(formatProperty(ctx, value, recurseTimes, keys[i], extrasType));
  } finally {
    ctx.seen.pop();
  }
  if (ctx.sorted) {
    const comparator = ctx.sorted === true ? undefined : ctx.sorted;
    if (extrasType === kObjectType) output.sort(comparator);
  }
  if (ctx.circular !== undefined) {
    const index = ctx.circular.get(value);
    if (index !== undefined) {
      const reference = "<ref *" + index + ">";
      if (ctx.compact !== true) base = base === "" ? reference : reference + " " + base;
      else braces[0] = reference + " " + braces[0];
    }
  }
  return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
}

function getFunctionBase(value, constructor, tag) {
  let source = "";
  try { source = Function.prototype.toString.call(value); } catch {}
  if (source.startsWith("class") && /^class(\s|\{)/.test(source)) {
    let base = "[class";
    base += value.name ? " " + value.name : " (anonymous)";
    const superClass = Object.getPrototypeOf(value);
    if (superClass && superClass.name) base += " extends " + superClass.name;
    return base + "]";
  }
  let type = "Function";
  if (constructor === "AsyncFunction") type = "AsyncFunction";
  else if (constructor === "GeneratorFunction") type = "GeneratorFunction";
  else if (constructor === "AsyncGeneratorFunction") type = "AsyncGeneratorFunction";
  let base = "[" + type;
  if (constructor === null) base += " (null prototype)";
  base += value.name === "" ? " (anonymous)" : ": " + value.name;
  base += "]";
  if (constructor !== type && constructor !== null && constructor !== "Function") base += " " + constructor;
  if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
  return base;
}

function formatError(err, constructor, tag, ctx, keys) {
  const name = err.name != null ? String(err.name) : "Error";
  let stack = errorStack(err);
  for (const key of ["name", "message", "stack"]) {
    const index = keys.indexOf(key);
    if (index !== -1 && (typeof err[key] !== "string" || stack.includes(err[key]))) keys.splice(index, 1);
  }
  if ("cause" in err && !keys.includes("cause")) keys.push("cause");
  if (Array.isArray(err.errors) && !keys.includes("errors")) keys.push("errors");
  if (constructor === null || (name.endsWith("Error") && stack.startsWith(name) &&
      (stack.length === name.length || stack[name.length] === ":" || stack[name.length] === "\n"))) {
    let fallback = "Error";
    if (constructor === null) {
      const start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/.exec(stack) || /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
      fallback = (start && start[1]) || "";
      stack = "[" + fallback + ": null prototype]" + stack.slice(fallback.length);
    } else if (constructor !== name && !constructor.includes(name) && name.includes(constructor) === false) {
      stack = constructor + " [" + name + "]" + stack.slice(name.length);
    }
  }
  let pos = (err.message && stack.indexOf(err.message)) || -1;
  if (pos !== -1) pos += err.message.length;
  const stackStart = stack.indexOf("\n    at", pos);
  if (stackStart === -1) stack = "[" + stack + "]";
  if (ctx.indentationLvl !== 0) {
    const indentation = " ".repeat(ctx.indentationLvl);
    stack = stack.split("\n").join("\n" + indentation);
  }
  return stack;
}

function formatArrayBuffer(ctx, value) {
  const bytes = new Uint8Array(value);
  let str = Array.from(bytes.slice(0, Math.min(ctx.maxArrayLength, bytes.length)), (b) => b.toString(16).padStart(2, "0")).join(" ");
  const remaining = bytes.length - ctx.maxArrayLength;
  if (remaining > 0) str += " ... " + remaining + " more byte" + (remaining > 1 ? "s" : "");
  return ["[Uint8Contents]: <" + str + ">"];
}

function formatArray(ctx, value, recurseTimes) {
  const valLen = value.length;
  const len = Math.min(Math.max(0, ctx.maxArrayLength), valLen);
  const remaining = valLen - len;
  const output = [];
  let holes = 0;
  for (let i = 0; i < len; i++) {
    if (!Object.prototype.hasOwnProperty.call(value, i)) { holes++; continue; }
    if (holes > 0) { output.push("<" + holes + " empty item" + (holes > 1 ? "s" : "") + ">"); holes = 0; }
    output.push(formatProperty(ctx, value, recurseTimes, i, kArrayType));
  }
  if (holes > 0) output.push("<" + holes + " empty item" + (holes > 1 ? "s" : "") + ">");
  if (remaining > 0) output.push("... " + remaining + " more item" + (remaining > 1 ? "s" : ""));
  return output;
}

function formatTypedArray(ctx, value, recurseTimes) {
  const length = value.length;
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const remaining = length - maxLength;
  const output = [];
  for (let i = 0; i < maxLength; i++) output.push(typeof value[i] === "bigint" ? value[i] + "n" : formatNumber(value[i]));
  if (remaining > 0) output.push("... " + remaining + " more item" + (remaining > 1 ? "s" : ""));
  if (ctx.showHidden) {
    ctx.indentationLvl += 2;
    for (const key of ["BYTES_PER_ELEMENT", "length", "byteLength", "byteOffset", "buffer"]) {
      output.push("[" + key + "]: " + formatValue(ctx, value[key], recurseTimes, true));
    }
    ctx.indentationLvl -= 2;
  }
  return output;
}

function formatSet(ctx, value, recurseTimes) {
  const output = [];
  ctx.indentationLvl += 2;
  let i = 0;
  const max = Math.min(ctx.maxArrayLength, value.size);
  for (const v of value) {
    if (i++ >= max) break;
    output.push(formatValue(ctx, v, recurseTimes));
  }
  if (value.size > max) output.push("... " + (value.size - max) + " more item" + (value.size - max > 1 ? "s" : ""));
  ctx.indentationLvl -= 2;
  return output;
}

function formatMap(ctx, value, recurseTimes) {
  const output = [];
  ctx.indentationLvl += 2;
  let i = 0;
  const max = Math.min(ctx.maxArrayLength, value.size);
  for (const [k, v] of value) {
    if (i++ >= max) break;
    output.push(formatValue(ctx, k, recurseTimes) + " => " + formatValue(ctx, v, recurseTimes));
  }
  if (value.size > max) output.push("... " + (value.size - max) + " more item" + (value.size - max > 1 ? "s" : ""));
  ctx.indentationLvl -= 2;
  return output;
}

function formatPromise(ctx, value, recurseTimes) {
  const state = promiseState(value);
  if (state[0] === "pending") return ["<pending>"];
  ctx.indentationLvl += 2;
  const str = formatValue(ctx, state[1], recurseTimes);
  ctx.indentationLvl -= 2;
  return [state[0] === "rejected" ? "<rejected> " + str : str];
}

function formatProperty(ctx, value, recurseTimes, key, type) {
  let name;
  let str;
  let extra = " ";
  const desc = Object.getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
  if (desc.value !== undefined) {
    const diff = (ctx.compact !== true || type !== kObjectType) ? 2 : 3;
    ctx.indentationLvl += diff;
    str = formatValue(ctx, desc.value, recurseTimes);
    if (diff === 3 && ctx.breakLength < str.length + ctx.indentationLvl) extra = "\n" + " ".repeat(ctx.indentationLvl);
    ctx.indentationLvl -= diff;
  } else if (desc.get !== undefined) {
    const label = desc.set !== undefined ? "Getter/Setter" : "Getter";
    if (ctx.getters) {
      try {
        const tmp = desc.get.call(value);
        ctx.indentationLvl += 2;
        if (tmp === null || typeof tmp !== "object") str = "[" + label + ": " + formatPrimitive(tmp, ctx) + "]";
        else str = "[" + label + "] " + formatValue(ctx, tmp, recurseTimes);
        ctx.indentationLvl -= 2;
      } catch (err) {
        str = "[" + label + ": <Inspection threw (" + err.message + ")>]";
      }
    } else str = "[" + label + "]";
  } else if (desc.set !== undefined) str = "[Setter]";
  else str = "undefined";
  if (type === kArrayType) return str;
  if (typeof key === "symbol") name = "[" + key.toString() + "]";
  else if (key === "__proto__") name = "['__proto__']";
  else if (desc.enumerable === false) name = "[" + key + "]";
  else if (identifierRe.test(key)) name = key;
  else name = strEscape(key);
  return name + ":" + extra + str;
}

function groupArrayElements(ctx, output, value) {
  let totalLength = 0;
  let maxLength = 0;
  let i = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--;
  const separatorSpace = 2;
  const dataLen = new Array(outputLength);
  for (; i < outputLength; i++) {
    const len = output[i].length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength && (totalLength / actualMax > 5 || maxLength <= 6)) {
    const averageBias = Math.sqrt(actualMax - totalLength / output.length);
    const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const tmp = [];
    const maxLineLength = [];
    for (let c = 0; c < columns; c++) {
      let lineLength = 0;
      for (let j = c; j < output.length; j += columns) if (dataLen[j] > lineLength) lineLength = dataLen[j];
      maxLineLength.push(lineLength + separatorSpace);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let k = 0; k < output.length; k++) {
        if (typeof value[k] !== "number" && typeof value[k] !== "bigint") { padStart = false; break; }
      }
    }
    for (let k = 0; k < outputLength; k += columns) {
      const max = Math.min(k + columns, outputLength);
      let str = "";
      let j = k;
      for (; j < max - 1; j++) {
        const padding = maxLineLength[j - k] + output[j].length - dataLen[j];
        str += padStart ? (output[j] + ", ").padStart(padding, " ") : (output[j] + ", ").padEnd(padding, " ");
      }
      if (padStart) {
        const padding = maxLineLength[j - k] + output[j].length - dataLen[j] - separatorSpace;
        str += output[j].padStart(padding, " ");
      } else {
        str += output[j];
      }
      tmp.push(str);
    }
    if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
    output = tmp;
  }
  return output;
}

function isBelowBreakLength(ctx, output, start, base) {
  let totalLength = output.length + start;
  if (totalLength + output.length > ctx.breakLength) return false;
  for (let i = 0; i < output.length; i++) {
    totalLength += output[i].length;
    if (totalLength > ctx.breakLength) return false;
  }
  return base === "" || !base.includes("\n");
}

function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
  if (ctx.compact !== true) {
    if (typeof ctx.compact === "number" && ctx.compact >= 1) {
      const entries = output.length;
      if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
      if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
        const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        if (isBelowBreakLength(ctx, output, start, base)) {
          const joined = output.join(", ");
          if (!joined.includes("\n")) return (base ? base + " " : "") + braces[0] + " " + joined + " " + braces[1];
        }
      }
    }
    const indentation = "\n" + " ".repeat(ctx.indentationLvl);
    return (base ? base + " " : "") + braces[0] + indentation + "  " + output.join("," + indentation + "  ") + indentation + braces[1];
  }
  if (isBelowBreakLength(ctx, output, 0, base)) {
    return braces[0] + (base ? " " + base : "") + " " + output.join(", ") + " " + braces[1];
  }
  const indentation = " ".repeat(ctx.indentationLvl);
  const ln = base === "" && braces[0].length === 1 ? " " : (base ? " " + base : "") + "\n" + indentation + "  ";
  return braces[0] + ln + output.join(",\n" + indentation + "  ") + " " + braces[1];
}

function hasBuiltInToString(value) {
  let proto = value;
  while (proto !== null && proto !== undefined) {
    if (Object.prototype.hasOwnProperty.call(proto, "toString")) {
      return proto === Object.prototype || proto === Array.prototype || proto === Error.prototype ||
        proto === Date.prototype || proto === RegExp.prototype || proto === Function.prototype;
    }
    proto = Object.getPrototypeOf(proto);
  }
  return true;
}

function formatWithOptions(inspectOptions, ...args) {
  const first = args[0];
  let a = 0;
  let str = "";
  let join = "";
  if (typeof first === "string") {
    if (args.length === 1) return first;
    let tempStr;
    let lastPos = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) === 37) {
        const nextChar = first.charCodeAt(++i);
        if (a + 1 !== args.length) {
          switch (nextChar) {
            case 115: {
              const tempArg = args[++a];
              if (typeof tempArg === "number") tempStr = formatNumber(tempArg);
              else if (typeof tempArg === "bigint") tempStr = tempArg + "n";
              else if (typeof tempArg !== "object" || tempArg === null || !hasBuiltInToString(tempArg)) tempStr = String(tempArg);
              else tempStr = inspect(tempArg, Object.assign({}, inspectOptions, { depth: 0, colors: false, compact: 3 }));
              break;
            }
            case 106: {
              try { tempStr = JSON.stringify(args[++a]); } catch (err) { tempStr = "[Circular]"; }
              break;
            }
            case 100: {
              const n = args[++a];
              tempStr = typeof n === "bigint" ? n + "n" : typeof n === "symbol" ? "NaN" : formatNumber(Number(n));
              break;
            }
            case 79: tempStr = inspect(args[++a], inspectOptions); break;
            case 111: tempStr = inspect(args[++a], Object.assign({}, inspectOptions, { showHidden: true, showProxy: true, depth: 4 })); break;
            case 105: {
              const n = args[++a];
              tempStr = typeof n === "bigint" ? n + "n" : typeof n === "symbol" ? "NaN" : formatNumber(parseInt(n));
              break;
            }
            case 102: {
              const n = args[++a];
              tempStr = typeof n === "symbol" ? "NaN" : formatNumber(parseFloat(n));
              break;
            }
            case 99: a += 1; tempStr = ""; break;
            case 37: str += first.slice(lastPos, i); lastPos = i + 1; continue;
            default: continue;
          }
          if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
          str += tempStr;
          lastPos = i + 1;
        } else if (nextChar === 37) {
          str += first.slice(lastPos, i);
          lastPos = i + 1;
        }
      }
    }
    if (lastPos !== 0) {
      a++;
      join = " ";
      if (lastPos < first.length) str += first.slice(lastPos);
    }
  }
  while (a < args.length) {
    const value = args[a];
    str += join;
    str += typeof value !== "string" ? inspect(value, inspectOptions) : value;
    join = " ";
    a++;
  }
  return str;
}

function format(...args) {
  return formatWithOptions(undefined, ...args);
}
`;
