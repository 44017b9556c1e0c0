import { deflateSync } from "node:zlib";

/**
 * Test-only image writers, written independently of src/tools/image-raster.ts (node:zlib, their own
 * filters) so that decoding what they write checks the decoder against something else.
 */

export interface PngSpec {
  width: number;
  height: number;
  colorType: 0 | 2 | 3 | 4 | 6;
  depth: 1 | 2 | 4 | 8 | 16;
  /** Samples per pixel, row-major: one value per channel at the given depth. */
  samples: number[];
  palette?: [number, number, number][];
  trns?: number[];
  interlace?: boolean;
  /** PNG filter per row (cycled); default: all five. */
  filters?: number[];
}

const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as const;

export function writePng(spec: PngSpec): Uint8Array {
  const channels = CHANNELS[spec.colorType];
  const filters = spec.filters ?? [0, 1, 2, 3, 4];
  const pixel = (x: number, y: number) =>
    spec.samples.slice((y * spec.width + x) * channels, (y * spec.width + x + 1) * channels);
  const passes = spec.interlace
    ? [
        [0, 0, 8, 8],
        [4, 0, 8, 8],
        [0, 4, 4, 8],
        [2, 0, 4, 4],
        [0, 2, 2, 4],
        [1, 0, 2, 2],
        [0, 1, 1, 2],
      ]
    : [[0, 0, 1, 1]];
  const out: number[] = [];
  let rowCount = 0;
  for (const [x0, y0, dx, dy] of passes as [number, number, number, number][]) {
    const xs: number[] = [];
    for (let x = x0; x < spec.width; x += dx) xs.push(x);
    if (xs.length === 0) continue;
    let previous: number[] | null = null;
    for (let y = y0; y < spec.height; y += dy) {
      const row = packRow(
        xs.flatMap((x) => pixel(x, y)),
        spec.depth,
      );
      const bpp = Math.max(1, (channels * spec.depth) >> 3);
      const filter = filters[rowCount++ % filters.length]!;
      out.push(filter, ...applyFilter(row, previous, bpp, filter));
      previous = row;
    }
  }
  const chunks: Uint8Array[] = [];
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(spec.width, 0);
  ihdr.writeUInt32BE(spec.height, 4);
  ihdr[8] = spec.depth;
  ihdr[9] = spec.colorType;
  ihdr[12] = spec.interlace ? 1 : 0;
  chunks.push(pngChunk("IHDR", ihdr));
  if (spec.palette) chunks.push(pngChunk("PLTE", Buffer.from(spec.palette.flat())));
  if (spec.trns) chunks.push(pngChunk("tRNS", Buffer.from(spec.trns)));
  const data = deflateSync(Buffer.from(out));
  // Split the data over two IDAT chunks, as encoders do for large images.
  const half = Math.floor(data.length / 2);
  chunks.push(pngChunk("IDAT", data.subarray(0, half)), pngChunk("IDAT", data.subarray(half)));
  chunks.push(pngChunk("IEND", Buffer.alloc(0)));
  return new Uint8Array(
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks]),
  );
}

function packRow(values: number[], depth: number): number[] {
  if (depth === 8) return values;
  if (depth === 16) return values.flatMap((value) => [value >> 8, value & 0xff]);
  const bytes = new Array(Math.ceil((values.length * depth) / 8)).fill(0);
  values.forEach((value, i) => {
    const bit = i * depth;
    bytes[bit >> 3] |= value << (8 - depth - (bit % 8));
  });
  return bytes;
}

function applyFilter(row: number[], previous: number[] | null, bpp: number, filter: number): number[] {
  return row.map((value, i) => {
    const a = i >= bpp ? row[i - bpp]! : 0;
    const b = previous ? previous[i]! : 0;
    const c = previous && i >= bpp ? previous[i - bpp]! : 0;
    let predicted = 0;
    if (filter === 1) predicted = a;
    if (filter === 2) predicted = b;
    if (filter === 3) predicted = Math.floor((a + b) / 2);
    if (filter === 4) {
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    return (value - predicted + 256) % 256;
  });
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

export interface BmpSpec {
  width: number;
  height: number;
  bitCount: 1 | 4 | 8 | 16 | 24 | 32;
  /** RGBA per pixel, top row first. For palette images, the palette index goes in `indexes`. */
  rgba?: number[];
  indexes?: number[];
  palette?: [number, number, number][];
  /** 12 (core), 40 (info), 108 (V4) or 124 (V5). */
  headerSize?: 12 | 40 | 108 | 124;
  /** Bit-field masks (compression 3): [r, g, b, a]. */
  masks?: [number, number, number, number];
  topDown?: boolean;
  compression?: number;
}

export function writeBmp(spec: BmpSpec): Uint8Array {
  const headerSize = spec.headerSize ?? 40;
  const core = headerSize === 12;
  const masksAfterHeader = spec.masks && headerSize === 40 ? 12 : 0;
  const paletteBytes = (spec.palette?.length ?? 0) * (core ? 3 : 4);
  const pixelOffset = 14 + headerSize + masksAfterHeader + paletteBytes;
  const stride = Math.ceil((spec.width * spec.bitCount) / 32) * 4;
  const file = Buffer.alloc(pixelOffset + stride * spec.height);
  file.write("BM", 0, "ascii");
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(pixelOffset, 10);
  file.writeUInt32LE(headerSize, 14);
  if (core) {
    file.writeUInt16LE(spec.width, 18);
    file.writeInt16LE(spec.height, 20);
    file.writeUInt16LE(1, 22);
    file.writeUInt16LE(spec.bitCount, 24);
  } else {
    file.writeInt32LE(spec.width, 18);
    file.writeInt32LE(spec.topDown ? -spec.height : spec.height, 22);
    file.writeUInt16LE(1, 26);
    file.writeUInt16LE(spec.bitCount, 28);
    file.writeUInt32LE(spec.compression ?? (spec.masks ? 3 : 0), 30);
    file.writeUInt32LE(spec.palette?.length ?? 0, 46);
    if (spec.masks) {
      const at = 54;
      spec.masks.slice(0, headerSize === 40 ? 3 : 4).forEach((mask, i) => {
        file.writeUInt32LE(mask >>> 0, at + i * 4);
      });
    }
  }
  let at = 14 + headerSize + masksAfterHeader;
  for (const [r, g, b] of spec.palette ?? []) {
    file[at++] = b;
    file[at++] = g;
    file[at++] = r;
    if (!core) file[at++] = 0;
  }
  for (let y = 0; y < spec.height; y++) {
    const row = pixelOffset + (spec.topDown ? y : spec.height - 1 - y) * stride;
    for (let x = 0; x < spec.width; x++) {
      const i = y * spec.width + x;
      if (spec.bitCount <= 8) {
        const bit = x * spec.bitCount;
        file[row + (bit >> 3)]! |= spec.indexes![i]! << (8 - spec.bitCount - (bit % 8));
        continue;
      }
      const [r, g, b, a] = spec.rgba!.slice(i * 4, i * 4 + 4) as [number, number, number, number];
      if (spec.bitCount === 24) {
        file[row + x * 3] = b;
        file[row + x * 3 + 1] = g;
        file[row + x * 3 + 2] = r;
      } else if (spec.bitCount === 32) {
        const [mr, mg, mb, ma] = spec.masks ?? [0xff0000, 0xff00, 0xff, 0];
        const place = (value: number, mask: number) =>
          mask ? ((value >> (8 - bits(mask))) << shift(mask)) >>> 0 : 0;
        file.writeUInt32LE((place(r, mr) | place(g, mg) | place(b, mb) | place(a, ma)) >>> 0, row + x * 4);
      } else {
        const [mr, mg, mb] = spec.masks ?? [0x7c00, 0x3e0, 0x1f, 0];
        const place = (value: number, mask: number) => (value >> (8 - bits(mask))) << shift(mask);
        file.writeUInt16LE(place(r, mr) | place(g, mg) | place(b, mb), row + x * 2);
      }
    }
  }
  return new Uint8Array(file);
}

const shift = (mask: number) => Math.log2(mask & -mask);
const bits = (mask: number) => (mask >>> shift(mask)).toString(2).length;
