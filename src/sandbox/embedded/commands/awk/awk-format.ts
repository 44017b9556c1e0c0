/**
 * Numbers as gawk writes them: C's printf conversions (%d %i %o %x %X %u %c %s %e %E %f %F %g %G
 * with flags, width, precision and `*`), integral values printed as integers, and strtod's reading
 * of a string's numeric prefix.
 */

/** An integral number's digits, exact beyond 2^53 (gawk prints 1e30 in full). */
export function integerText(value: number): string {
  if (Math.abs(value) <= 2 ** 53) return String(value === 0 ? 0 : value);
  return BigInt(value).toString();
}

function nonFinite(value: number, upper: boolean): string {
  const text = Number.isNaN(value) ? "-nan" : value > 0 ? "inf" : "-inf";
  return upper ? text.toUpperCase() : text;
}

/** %e: d.ddde±XX (at least two exponent digits). */
function exponential(value: number, precision: number, upper: boolean, alternate: boolean): string {
  let text = Math.abs(value).toExponential(precision);
  if (alternate && precision === 0) text = text.replace("e", ".e");
  text = text.replace(/e([+-])(\d)$/u, "e$10$2");
  return upper ? text.toUpperCase() : text;
}

/** %f with exact digits for large values (toFixed switches to exponent form at 1e21). */
function fixed(value: number, precision: number, alternate: boolean): string {
  const magnitude = Math.abs(value);
  let text: string;
  if (magnitude >= 1e21) {
    text = BigInt(Math.round(magnitude)).toString() + (precision > 0 ? `.${"0".repeat(precision)}` : "");
  } else text = roundedFixed(magnitude, precision);
  if (alternate && precision === 0) text += ".";
  return text;
}

/** toFixed, but an exact tie rounds to even as C's printf does (2.5 → "2"), not up. */
function roundedFixed(magnitude: number, precision: number): string {
  const scaled = magnitude * 10 ** precision;
  if (precision <= 20 && Number.isInteger(scaled * 2) && !Number.isInteger(scaled) && scaled < 2 ** 52) {
    const even = Math.floor(scaled) % 2 === 0 ? Math.floor(scaled) : Math.ceil(scaled);
    const digits = String(even).padStart(precision + 1, "0");
    return precision === 0 ? digits : `${digits.slice(0, -precision)}.${digits.slice(-precision)}`;
  }
  return magnitude.toFixed(precision);
}

/** %g: %e or %f by the exponent, trailing zeros dropped unless #. */
function general(value: number, precision: number, upper: boolean, alternate: boolean): string {
  const p = precision === 0 ? 1 : precision;
  const magnitude = Math.abs(value);
  if (magnitude === 0) return alternate ? `0.${"0".repeat(p - 1)}` : "0";
  const exponent = Number(magnitude.toExponential(p - 1).split("e")[1]);
  let text: string;
  if (exponent < p && exponent >= -4) {
    text = fixed(magnitude, p - 1 - exponent, alternate);
    if (!alternate && text.includes(".")) text = text.replace(/\.?0+$/u, "");
  } else {
    text = exponential(magnitude, p - 1, upper, alternate);
    if (!alternate) text = text.replace(/\.?0+e/u, "e").replace(/\.?0+E/u, "E");
  }
  return text;
}

export interface FormatArgs {
  count: number;
  number(index: number): number;
  string(index: number): string;
  /** The value is a number (not a string) — %c prints a character code then. */
  isNumber(index: number): boolean;
}

/** sprintf(format, args…) as gawk formats it; `fail` reports a fatal error. */
export function formatPrintf(format: string, args: FormatArgs, fail: (message: string) => never): string {
  let out = "";
  let next = 0;
  const take = () => next++;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== "%") {
      out += c;
      continue;
    }
    const spec = /^([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([hlLqjzt]?)([a-zA-Z%])?/u.exec(format.slice(i + 1))!;
    const [whole, flags = "", widthText, precisionText, , conversion] = spec;
    if (conversion === undefined) {
      out += format.slice(i);
      break;
    }
    i += whole.length;
    if (conversion === "%") {
      out += "%";
      continue;
    }
    let width = 0;
    let left = flags.includes("-");
    if (widthText === "*") {
      width = Math.trunc(args.number(take()));
      if (width < 0) {
        left = true;
        width = -width;
      }
    } else if (widthText) width = Number(widthText);
    let precision: number | null = null;
    if (precisionText === "*") {
      const value = Math.trunc(args.number(take()));
      precision = value < 0 ? null : value;
    } else if (precisionText !== undefined) precision = precisionText === "" ? 0 : Number(precisionText);
    if (!"cdiouxXeEfFgGs".includes(conversion)) {
      // Not a conversion gawk knows (such as a second "l" in %lld): printed as written.
      out += `%${whole}`;
      continue;
    }
    const index = take();
    if (index >= args.count) fail("fatal: not enough arguments to satisfy format string");
    const zero = flags.includes("0") && !left;
    const pad = (body: string, sign: string, numeric: boolean) => {
      const length = [...body].length + sign.length;
      if (length >= width) return sign + body;
      if (zero && numeric) return sign + "0".repeat(width - length) + body;
      const spaces = " ".repeat(width - length);
      return left ? sign + body + spaces : spaces + sign + body;
    };
    const signOf = (negative: boolean) =>
      negative ? "-" : flags.includes("+") ? "+" : flags.includes(" ") ? " " : "";
    switch (conversion) {
      case "s": {
        let text = args.string(index);
        if (precision !== null) text = [...text].slice(0, precision).join("");
        out += pad(text, "", false);
        break;
      }
      case "c": {
        let text: string;
        if (args.isNumber(index)) {
          const code = Math.trunc(args.number(index));
          text = code >= 0 && code < 0x110000 ? String.fromCodePoint(code) : "";
        } else text = [...args.string(index)][0] ?? "\0";
        out += pad(text, "", false);
        break;
      }
      case "d":
      case "i": {
        const value = args.number(index);
        if (!Number.isFinite(value)) {
          out += pad(nonFinite(value, false), "", false);
          break;
        }
        const truncated = Math.trunc(value);
        let digits = integerText(Math.abs(truncated));
        if (precision !== null)
          digits = precision === 0 && truncated === 0 ? "" : digits.padStart(precision, "0");
        out +=
          precision !== null
            ? padNoZero(digits, signOf(truncated < 0), width, left)
            : pad(digits, signOf(truncated < 0), true);
        break;
      }
      case "o":
      case "x":
      case "X":
      case "u": {
        const value = Math.trunc(args.number(index));
        let big = BigInt(Number.isFinite(value) ? value : 0);
        if (big < 0n) big += 1n << 64n;
        const radix = conversion === "o" ? 8 : conversion === "u" ? 10 : 16;
        let digits = big.toString(radix);
        if (conversion === "X") digits = digits.toUpperCase();
        if (precision !== null) digits = precision === 0 && big === 0n ? "" : digits.padStart(precision, "0");
        let prefix = "";
        if (flags.includes("#") && big !== 0n) {
          if (conversion === "o" && !digits.startsWith("0")) digits = `0${digits}`;
          if (conversion === "x") prefix = "0x";
          if (conversion === "X") prefix = "0X";
        }
        out += precision !== null ? padNoZero(digits, prefix, width, left) : pad(digits, prefix, true);
        break;
      }
      default: {
        const value = args.number(index);
        const upper = conversion === "E" || conversion === "G" || conversion === "F";
        const p = precision ?? 6;
        const alternate = flags.includes("#");
        const negative = value < 0 || Object.is(value, -0);
        let body: string;
        if (!Number.isFinite(value)) {
          body = nonFinite(Math.abs(value), upper);
          out += pad(body, Number.isNaN(value) ? "-" : signOf(negative), false);
          break;
        }
        if (conversion === "e" || conversion === "E") body = exponential(value, p, upper, alternate);
        else if (conversion === "f" || conversion === "F") body = fixed(value, p, alternate);
        else body = general(value, p, upper, alternate);
        out += pad(body, signOf(negative), true);
      }
    }
  }
  return out;
}

function padNoZero(digits: string, sign: string, width: number, left: boolean): string {
  const length = digits.length + sign.length;
  if (length >= width) return sign + digits;
  const spaces = " ".repeat(width - length);
  return left ? sign + digits + spaces : spaces + sign + digits;
}

const NUMBER_PREFIX = /^[ \t\n\r\f\v]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/u;
const SPECIAL = /^[ \t\n\r\f\v]*([+-])(inf|nan)/iu;

/** The number at the start of a string, as strtod reads it (0 when there is none). */
export function stringToNumber(text: string): number {
  const match = NUMBER_PREFIX.exec(text);
  if (match) return Number(match[1]);
  const special = SPECIAL.exec(text);
  if (special) {
    const value = special[2]!.toLowerCase() === "inf" ? Number.POSITIVE_INFINITY : Number.NaN;
    return special[1] === "-" ? -value : value;
  }
  return 0;
}

const WHOLE_NUMBER = /^[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\f\v]*$/u;
const WHOLE_SPECIAL = /^[ \t\n\r\f\v]*[+-](?:inf|nan)[ \t\n\r\f\v]*$/iu;

/** Does input text look like a number (a "strnum": compared as a number)? */
export function looksNumeric(text: string): boolean {
  return WHOLE_NUMBER.test(text) || WHOLE_SPECIAL.test(text);
}
