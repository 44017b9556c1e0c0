/**
 * Guest source (runs inside QuickJS, which has no TextEncoder): UTF-8, base64 and latin1
 * conversions shared by the bootstrap, Buffer and fs, plus the TextEncoder/TextDecoder globals.
 */
export const GUEST_ENCODING = String.raw`
function encodeUtf8(text) {
  text = String(text);
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) { code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00); i++; }
      else code = 0xfffd;
    } else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) out[n++] = code;
    else if (code < 0x800) { out[n++] = 0xc0 | (code >> 6); out[n++] = 0x80 | (code & 63); }
    else if (code < 0x10000) { out[n++] = 0xe0 | (code >> 12); out[n++] = 0x80 | ((code >> 6) & 63); out[n++] = 0x80 | (code & 63); }
    else { out[n++] = 0xf0 | (code >> 18); out[n++] = 0x80 | ((code >> 12) & 63); out[n++] = 0x80 | ((code >> 6) & 63); out[n++] = 0x80 | (code & 63); }
  }
  return out.slice(0, n);
}
function decodeUtf8(bytes, start, end) {
  start = start || 0;
  end = end === undefined ? bytes.length : end;
  let out = "";
  let chunk = [];
  for (let i = start; i < end; ) {
    const b = bytes[i];
    let code;
    let size = 1;
    if (b < 0x80) code = b;
    else if (b >= 0xc2 && b < 0xe0 && i + 1 < end && (bytes[i + 1] & 0xc0) === 0x80) { code = ((b & 31) << 6) | (bytes[i + 1] & 63); size = 2; }
    else if (b >= 0xe0 && b < 0xf0 && i + 2 < end && (bytes[i + 1] & 0xc0) === 0x80 && (bytes[i + 2] & 0xc0) === 0x80) {
      code = ((b & 15) << 12) | ((bytes[i + 1] & 63) << 6) | (bytes[i + 2] & 63); size = 3;
      if (code < 0x800 || (code >= 0xd800 && code <= 0xdfff)) { code = 0xfffd; size = 1; }
    } else if (b >= 0xf0 && b < 0xf5 && i + 3 < end && (bytes[i + 1] & 0xc0) === 0x80 && (bytes[i + 2] & 0xc0) === 0x80 && (bytes[i + 3] & 0xc0) === 0x80) {
      code = ((b & 7) << 18) | ((bytes[i + 1] & 63) << 12) | ((bytes[i + 2] & 63) << 6) | (bytes[i + 3] & 63); size = 4;
      if (code < 0x10000 || code > 0x10ffff) { code = 0xfffd; size = 1; }
    } else code = 0xfffd;
    if (code >= 0x10000) { code -= 0x10000; chunk.push(0xd800 + (code >> 10), 0xdc00 + (code & 1023)); }
    else chunk.push(code);
    if (chunk.length > 8192) { out += String.fromCharCode.apply(null, chunk); chunk = []; }
    i += size;
  }
  return out + String.fromCharCode.apply(null, chunk);
}
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function base64Encode(bytes, url) {
  let out = "";
  const alphabet = url ? B64.slice(0, 62) + "-_" : B64;
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i], b = bytes[i + 1], c = bytes[i + 2];
    out += alphabet[a >> 2] + alphabet[((a & 3) << 4) | ((b || 0) >> 4)];
    out += i + 1 < bytes.length ? alphabet[((b & 15) << 2) | ((c || 0) >> 6)] : url ? "" : "=";
    out += i + 2 < bytes.length ? alphabet[c & 63] : url ? "" : "=";
  }
  return out;
}
function base64Decode(text) {
  const clean = String(text).replace(/[^A-Za-z0-9+/\-_]/g, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let n = 0, buffer = 0, bits = 0;
  for (let i = 0; i < clean.length; i++) {
    let ch = clean[i];
    if (ch === "-") ch = "+"; else if (ch === "_") ch = "/";
    buffer = (buffer << 6) | B64.indexOf(ch);
    bits += 6;
    if (bits >= 8) { bits -= 8; out[n++] = (buffer >> bits) & 255; }
  }
  return out.slice(0, n);
}
function latin1FromBytes(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return out;
}
function bytesFromLatin1(text) {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 255;
  return out;
}
class TextEncoder {
  get encoding() { return "utf-8"; }
  encode(text) { return encodeUtf8(text === undefined ? "" : text); }
  encodeInto(text, dest) { const bytes = encodeUtf8(text); const n = Math.min(bytes.length, dest.length); dest.set(bytes.subarray(0, n)); return { read: text.length, written: n }; }
}
class TextDecoder {
  constructor(label, options) {
    const name = String(label || "utf-8").toLowerCase();
    if (name !== "utf-8" && name !== "utf8" && name !== "latin1" && name !== "ascii") throw new RangeError('The "' + label + '" encoding is not supported');
    this._latin1 = name === "latin1" || name === "ascii";
    this.fatal = Boolean(options && options.fatal);
    this.ignoreBOM = Boolean(options && options.ignoreBOM);
  }
  get encoding() { return this._latin1 ? "windows-1252" : "utf-8"; }
  decode(input) {
    if (input === undefined) return "";
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (this._latin1) return latin1FromBytes(bytes);
    const text = decodeUtf8(bytes);
    return !this.ignoreBOM && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
`;
