import { unzlibSync, zlibSync } from "fflate";

/**
 * Pure TypeScript raster work for where there is no canvas (Node, the CLI, tests): decode PNG and
 * BMP to RGBA, shrink by area averaging, encode PNG. JPEG, GIF and WebP decoders are not carried.
 */

/** 8-bit RGBA pixels, row by row, top to bottom. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8Array;
}

export class RasterError extends Error {
  override readonly name = "RasterError";
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Adam7 passes: x start, y start, x step, y step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

const u32be = (b: Uint8Array, i: number) =>
  ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;

/** Decodes any standard PNG: every colour type and bit depth, palettes, tRNS and Adam7 interlacing. */
export function decodePng(bytes: Uint8Array): Raster {
  if (!PNG_SIGNATURE.every((value, index) => bytes[index] === value)) throw new RasterError("not a PNG file");
  let offset = 8;
  let header: { width: number; height: number; depth: number; colorType: number; interlace: number } | null =
    null;
  let palette: Uint8Array | null = null;
  let transparency: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  while (offset + 8 <= bytes.length) {
    const length = u32be(bytes, offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (data.length < length) throw new RasterError(`PNG chunk ${type} is cut short`);
    if (type === "IHDR") {
      header = {
        width: u32be(data, 0),
        height: u32be(data, 4),
        depth: data[8]!,
        colorType: data[9]!,
        interlace: data[12]!,
      };
    } else if (type === "PLTE") palette = data;
    else if (type === "tRNS") transparency = data;
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  if (!header) throw new RasterError("PNG has no IHDR chunk");
  const { width, height, depth, colorType, interlace } = header;
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  if (!channels || ![1, 2, 4, 8, 16].includes(depth)) {
    throw new RasterError(`unsupported PNG colour type ${colorType} / bit depth ${depth}`);
  }
  if (colorType === 3 && !palette) throw new RasterError("palette PNG without a PLTE chunk");
  const inflated = unzlibSync(concat(idat));
  const bitsPerPixel = channels * depth;
  const out: Raster = { width, height, data: new Uint8Array(width * height * 4) };
  const maxSample = (1 << Math.min(depth, 8)) - 1;
  const sample = (row: Uint8Array, index: number): number => {
    if (depth === 8) return row[index]!;
    if (depth === 16) return (row[index * 2]! << 8) | row[index * 2 + 1]!;
    const bit = index * depth;
    return (row[bit >> 3]! >> (8 - depth - (bit & 7))) & maxSample;
  };
  const to8 = (value: number) =>
    depth === 16 ? value >> 8 : depth === 8 ? value : Math.round((value * 255) / maxSample);
  const transparentKey =
    transparency && (colorType === 0 || colorType === 2)
      ? Array.from(
          { length: colorType === 0 ? 1 : 3 },
          (_, i) => (transparency![i * 2]! << 8) | transparency![i * 2 + 1]!,
        )
      : null;
  const put = (row: Uint8Array, x: number, target: number) => {
    const base = x * channels;
    const p = target * 4;
    if (colorType === 3) {
      const index = sample(row, x);
      out.data[p] = palette![index * 3] ?? 0;
      out.data[p + 1] = palette![index * 3 + 1] ?? 0;
      out.data[p + 2] = palette![index * 3 + 2] ?? 0;
      out.data[p + 3] = transparency?.[index] ?? 255;
      return;
    }
    const gray = colorType === 0 || colorType === 4;
    const v0 = sample(row, base);
    const v1 = gray ? v0 : sample(row, base + 1);
    const v2 = gray ? v0 : sample(row, base + 2);
    out.data[p] = to8(v0);
    out.data[p + 1] = to8(v1);
    out.data[p + 2] = to8(v2);
    if (colorType === 4 || colorType === 6) out.data[p + 3] = to8(sample(row, base + channels - 1));
    else if (!transparentKey) out.data[p + 3] = 255;
    else
      out.data[p + 3] =
        transparentKey[0] === v0 && (gray || (transparentKey[1] === v1 && transparentKey[2] === v2))
          ? 0
          : 255;
  };
  let position = 0;
  const passes = interlace === 1 ? ADAM7 : ([[0, 0, 1, 1]] as const);
  for (const [x0, y0, dx, dy] of passes) {
    const passWidth = Math.ceil((width - x0) / dx);
    const passHeight = Math.ceil((height - y0) / dy);
    if (passWidth <= 0 || passHeight <= 0) continue;
    const stride = Math.ceil((passWidth * bitsPerPixel) / 8);
    const rows = unfilter(inflated, position, stride, passHeight, Math.max(1, bitsPerPixel >> 3));
    position += (stride + 1) * passHeight;
    for (let y = 0; y < passHeight; y++) {
      const row = rows.subarray(y * stride, (y + 1) * stride);
      const first = (y0 + y * dy) * width + x0;
      if (dx === 1 && depth === 8 && (colorType === 6 || (colorType === 2 && !transparentKey))) {
        // The common cases, without the per-sample calls: most PNGs are 8-bit RGB or RGBA.
        const target = out.data;
        for (let x = 0, s = 0, p = first * 4; x < passWidth; x++, p += 4) {
          target[p] = row[s++]!;
          target[p + 1] = row[s++]!;
          target[p + 2] = row[s++]!;
          target[p + 3] = colorType === 6 ? row[s++]! : 255;
        }
        continue;
      }
      for (let x = 0; x < passWidth; x++) put(row, x, first + x * dx);
    }
  }
  return out;
}

/** Undoes PNG's per-row filters (None, Sub, Up, Average, Paeth). */
function unfilter(data: Uint8Array, start: number, stride: number, rows: number, bpp: number): Uint8Array {
  if (start + (stride + 1) * rows > data.length) throw new RasterError("PNG image data is cut short");
  const out = new Uint8Array(stride * rows);
  for (let y = 0; y < rows; y++) {
    const filter = data[start + y * (stride + 1)]!;
    const source = start + y * (stride + 1) + 1;
    const row = y * stride;
    const up = row - stride;
    // One loop per filter: the switch stays out of the per-byte path.
    switch (filter) {
      case 0:
        out.set(data.subarray(source, source + stride), row);
        break;
      case 1:
        for (let x = 0; x < stride; x++)
          out[row + x] = data[source + x]! + (x >= bpp ? out[row + x - bpp]! : 0);
        break;
      case 2:
        for (let x = 0; x < stride; x++) out[row + x] = data[source + x]! + (y > 0 ? out[up + x]! : 0);
        break;
      case 3:
        for (let x = 0; x < stride; x++) {
          const left = x >= bpp ? out[row + x - bpp]! : 0;
          out[row + x] = data[source + x]! + ((left + (y > 0 ? out[up + x]! : 0)) >> 1);
        }
        break;
      case 4:
        for (let x = 0; x < stride; x++) {
          const left = x >= bpp ? out[row + x - bpp]! : 0;
          const above = y > 0 ? out[up + x]! : 0;
          const upLeft = y > 0 && x >= bpp ? out[up + x - bpp]! : 0;
          out[row + x] = data[source + x]! + paeth(left, above, upLeft);
        }
        break;
      default:
        throw new RasterError(`unknown PNG filter type ${filter}`);
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Decodes uncompressed BMP (BITMAPCOREHEADER through V5): 1/4/8-bit palettes, 16/24/32-bit with
 * or without bit-field masks, bottom-up or top-down. RLE and embedded JPEG/PNG are refused.
 */
export function decodeBmp(bytes: Uint8Array): Raster {
  if (bytes[0] !== 0x42 || bytes[1] !== 0x4d) throw new RasterError("not a BMP file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pixelOffset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  const core = headerSize === 12;
  const width = core ? view.getUint16(18, true) : view.getInt32(18, true);
  const rawHeight = core ? view.getInt16(20, true) : view.getInt32(22, true);
  const bitCount = core ? view.getUint16(24, true) : view.getUint16(28, true);
  const compression = core ? 0 : view.getUint32(30, true);
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height === 0) throw new RasterError("BMP has no pixels");
  if (compression !== 0 && compression !== 3 && compression !== 6) {
    throw new RasterError(`compressed BMP (method ${compression}) is not supported`);
  }
  let masks: [number, number, number, number] | null = null;
  if (compression === 3 || compression === 6) {
    const at = headerSize >= 52 ? 54 : 14 + headerSize;
    masks = [
      view.getUint32(at, true),
      view.getUint32(at + 4, true),
      view.getUint32(at + 8, true),
      compression === 6 || headerSize >= 56 ? view.getUint32(at + 12, true) : 0,
    ];
  } else if (bitCount === 16) {
    masks = [0x7c00, 0x03e0, 0x001f, 0];
  }
  const paletteStart = 14 + headerSize + (masks && headerSize === 40 ? (compression === 6 ? 16 : 12) : 0);
  const entrySize = core ? 3 : 4;
  const colorsUsed = core ? 0 : view.getUint32(46, true);
  const paletteSize = bitCount <= 8 ? colorsUsed || 1 << bitCount : 0;
  const stride = Math.ceil((width * bitCount) / 32) * 4;
  if (pixelOffset + stride * height > bytes.length) throw new RasterError("BMP pixel data is cut short");
  const out: Raster = { width, height, data: new Uint8Array(width * height * 4) };
  const channel = (value: number, mask: number) => {
    if (mask === 0) return 255;
    const shift = Math.log2(mask & -mask);
    const max = mask >>> shift;
    return Math.round((((value & mask) >>> shift) * 255) / max);
  };
  let anyAlpha = false;
  for (let y = 0; y < height; y++) {
    const row = pixelOffset + (topDown ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      if (bitCount <= 8) {
        const bit = x * bitCount;
        const index = (bytes[row + (bit >> 3)]! >> (8 - bitCount - (bit & 7))) & ((1 << bitCount) - 1);
        if (index >= paletteSize) throw new RasterError("BMP palette index out of range");
        const entry = paletteStart + index * entrySize;
        out.data[p] = bytes[entry + 2]!;
        out.data[p + 1] = bytes[entry + 1]!;
        out.data[p + 2] = bytes[entry]!;
        out.data[p + 3] = 255;
      } else if (bitCount === 24) {
        const at = row + x * 3;
        out.data[p] = bytes[at + 2]!;
        out.data[p + 1] = bytes[at + 1]!;
        out.data[p + 2] = bytes[at]!;
        out.data[p + 3] = 255;
      } else if (bitCount === 16 || bitCount === 32) {
        const value = bitCount === 16 ? view.getUint16(row + x * 2, true) : view.getUint32(row + x * 4, true);
        const [r, g, b, a] = masks ?? [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000];
        out.data[p] = channel(value, r);
        out.data[p + 1] = channel(value, g);
        out.data[p + 2] = channel(value, b);
        out.data[p + 3] = channel(value, a);
        if (a !== 0 && (value & a) !== 0) anyAlpha = true;
      } else {
        throw new RasterError(`unsupported BMP bit depth ${bitCount}`);
      }
    }
  }
  // A 32-bit BMP whose alpha bytes are all zero does not use them: it is opaque.
  if ((bitCount === 32 || bitCount === 16) && !anyAlpha) {
    for (let p = 3; p < out.data.length; p += 4) out.data[p] = 255;
  }
  return out;
}

/**
 * Shrinks a raster to width × height by area averaging (each output pixel is the mean of the
 * source pixels it covers), with premultiplied alpha so transparent pixels do not bleed colour.
 */
export function resizeRaster(source: Raster, width: number, height: number): Raster {
  const horizontal = areaWeights(source.width, width);
  const vertical = areaWeights(source.height, height);
  const src = source.data;
  // Horizontal pass into floats, premultiplied.
  const mid = new Float32Array(width * source.height * 4);
  for (let y = 0; y < source.height; y++) {
    const rowStart = y * source.width;
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let k = horizontal.start[x]!; k < horizontal.start[x + 1]!; k++) {
        const p = (rowStart + horizontal.index[k]!) * 4;
        const alpha = src[p + 3]! * horizontal.weight[k]!;
        r += src[p]! * alpha;
        g += src[p + 1]! * alpha;
        b += src[p + 2]! * alpha;
        a += alpha;
      }
      const q = (y * width + x) * 4;
      mid[q] = r;
      mid[q + 1] = g;
      mid[q + 2] = b;
      mid[q + 3] = a;
    }
  }
  const out: Raster = { width, height, data: new Uint8Array(width * height * 4) };
  const sums = new Float64Array(width * 4);
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    for (let k = vertical.start[y]!; k < vertical.start[y + 1]!; k++) {
      const weight = vertical.weight[k]!;
      const base = vertical.index[k]! * width * 4;
      for (let i = 0; i < sums.length; i++) sums[i]! += mid[base + i]! * weight;
    }
    for (let x = 0; x < width; x++) {
      const a = sums[x * 4 + 3]!;
      const p = (y * width + x) * 4;
      out.data[p] = a > 0 ? Math.round(sums[x * 4]! / a) : 0;
      out.data[p + 1] = a > 0 ? Math.round(sums[x * 4 + 1]! / a) : 0;
      out.data[p + 2] = a > 0 ? Math.round(sums[x * 4 + 2]! / a) : 0;
      out.data[p + 3] = Math.round(a);
    }
  }
  return out;
}

/** For each output cell, the source cells it overlaps and the share of the cell each covers (CSR layout). */
function areaWeights(
  from: number,
  to: number,
): { start: Uint32Array; index: Uint32Array; weight: Float64Array } {
  const scale = from / to;
  const start = new Uint32Array(to + 1);
  const index: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < to; i++) {
    start[i] = index.length;
    const begin = i * scale;
    const end = Math.min(from, (i + 1) * scale);
    for (let s = Math.floor(begin); s < end; s++) {
      const overlap = Math.min(end, s + 1) - Math.max(begin, s);
      if (overlap > 1e-9) {
        index.push(s);
        weight.push(overlap / (end - begin));
      }
    }
  }
  start[to] = index.length;
  return { start, index: Uint32Array.from(index), weight: Float64Array.from(weight) };
}

/** Encodes RGBA as PNG (RGB when every pixel is opaque), choosing each row's filter by the usual heuristic. */
export function encodePng(raster: Raster): Uint8Array {
  const { width, height, data } = raster;
  let opaque = true;
  for (let p = 3; p < data.length; p += 4) {
    if (data[p] !== 255) {
      opaque = false;
      break;
    }
  }
  const channels = opaque ? 3 : 4;
  const stride = width * channels;
  const raw = new Uint8Array(stride * height);
  for (let i = 0, o = 0; i < data.length; i += 4) {
    raw[o++] = data[i]!;
    raw[o++] = data[i + 1]!;
    raw[o++] = data[i + 2]!;
    if (!opaque) raw[o++] = data[i + 3]!;
  }
  const filtered = new Uint8Array((stride + 1) * height);
  const candidate = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    let bestScore = Number.POSITIVE_INFINITY;
    for (let filter = 0; filter <= 4; filter++) {
      let score = 0;
      for (let x = 0; x < stride; x++) {
        const left = x >= channels ? raw[row + x - channels]! : 0;
        const up = y > 0 ? raw[row - stride + x]! : 0;
        const upLeft = y > 0 && x >= channels ? raw[row - stride + x - channels]! : 0;
        const predictor =
          filter === 0
            ? 0
            : filter === 1
              ? left
              : filter === 2
                ? up
                : filter === 3
                  ? (left + up) >> 1
                  : paeth(left, up, upLeft);
        const value = (raw[row + x]! - predictor) & 0xff;
        candidate[x] = value;
        score += value < 128 ? value : 256 - value;
      }
      if (score < bestScore) {
        bestScore = score;
        filtered[y * (stride + 1)] = filter;
        filtered.set(candidate, y * (stride + 1) + 1);
      }
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = 8;
  header[9] = opaque ? 2 : 6;
  return concat([
    new Uint8Array(PNG_SIGNATURE),
    chunk("IHDR", header),
    chunk("IDAT", zlibSync(filtered, { level: 6 })),
    chunk("IEND", new Uint8Array()),
  ]);
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

let crcTable: Uint32Array | null = null;

export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
