import { describe, expect, it } from "vitest";
import { createToolContext } from "../core/tool-context.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { writeBmp, writePng } from "../test-support/images.ts";
import { type CanvasScaler, loadImage, sniffImage, toBase64 } from "./image.ts";
import { decodeBmp, decodePng, encodePng, type Raster, resizeRaster } from "./image-raster.ts";

const rgba = (raster: Raster) => Array.from(raster.data);

describe("sniffImage", () => {
  it("recognises each format by its magic bytes and reads its dimensions", () => {
    const png = writePng({ width: 7, height: 3, colorType: 0, depth: 8, samples: new Array(21).fill(0) });
    expect(sniffImage(png)).toEqual({ format: "png", mimeType: "image/png", width: 7, height: 3 });
    expect(sniffImage(jpegHeader(640, 480))).toEqual({
      format: "jpeg",
      mimeType: "image/jpeg",
      width: 640,
      height: 480,
    });
    const gif = Uint8Array.from(atob("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"), (c) =>
      c.charCodeAt(0),
    );
    expect(sniffImage(gif)).toEqual({ format: "gif", mimeType: "image/gif", width: 1, height: 1 });
    expect(sniffImage(webp("VP8 ", 300, 200))).toMatchObject({ format: "webp", width: 300, height: 200 });
    expect(sniffImage(webp("VP8L", 1024, 768))).toMatchObject({ format: "webp", width: 1024, height: 768 });
    expect(sniffImage(webp("VP8X", 5000, 70000))).toMatchObject({
      format: "webp",
      width: 5000,
      height: 70000,
    });
    const bmp = writeBmp({ width: 5, height: 4, bitCount: 24, rgba: new Array(80).fill(0), topDown: true });
    expect(sniffImage(bmp)).toEqual({ format: "bmp", mimeType: "image/bmp", width: 5, height: 4 });
  });

  it("says null for anything else, cut-short headers included", () => {
    expect(sniffImage(new TextEncoder().encode("just text, not an image"))).toBeNull();
    expect(sniffImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00]))).toBeNull();
    expect(sniffImage(new Uint8Array())).toBeNull();
  });
});

describe("decodePng", () => {
  it("decodes 8-bit RGBA through every row filter", () => {
    const samples = Array.from({ length: 5 * 4 * 4 }, (_, i) => (i * 37 + 11) % 256);
    const decoded = decodePng(writePng({ width: 5, height: 4, colorType: 6, depth: 8, samples }));
    expect(decoded.width).toBe(5);
    expect(rgba(decoded)).toEqual(samples);
  });

  it("decodes RGB, grey, grey+alpha and 16-bit samples to 8-bit RGBA", () => {
    const rgb = decodePng(
      writePng({ width: 2, height: 1, colorType: 2, depth: 8, samples: [10, 20, 30, 40, 50, 60] }),
    );
    expect(rgba(rgb)).toEqual([10, 20, 30, 255, 40, 50, 60, 255]);
    const grey = decodePng(
      writePng({ width: 2, height: 1, colorType: 0, depth: 16, samples: [0x1234, 0xff00] }),
    );
    expect(rgba(grey)).toEqual([0x12, 0x12, 0x12, 255, 0xff, 0xff, 0xff, 255]);
    const greyAlpha = decodePng(writePng({ width: 1, height: 1, colorType: 4, depth: 8, samples: [99, 7] }));
    expect(rgba(greyAlpha)).toEqual([99, 99, 99, 7]);
    const rgba16 = decodePng(
      writePng({ width: 1, height: 1, colorType: 6, depth: 16, samples: [0xabcd, 0x0102, 0xfffe, 0x8000] }),
    );
    expect(rgba(rgba16)).toEqual([0xab, 0x01, 0xff, 0x80]);
  });

  it("scales grey below 8 bits to the full range", () => {
    const oneBit = decodePng(
      writePng({ width: 9, height: 1, colorType: 0, depth: 1, samples: [1, 0, 1, 1, 0, 0, 0, 1, 1] }),
    );
    expect(rgba(oneBit).filter((_, i) => i % 4 === 0)).toEqual([255, 0, 255, 255, 0, 0, 0, 255, 255]);
    const twoBit = decodePng(
      writePng({ width: 4, height: 1, colorType: 0, depth: 2, samples: [0, 1, 2, 3] }),
    );
    expect(rgba(twoBit).filter((_, i) => i % 4 === 0)).toEqual([0, 85, 170, 255]);
  });

  it("decodes palettes with transparency, at 4 and 8 bits", () => {
    const palette: [number, number, number][] = [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ];
    const decoded = decodePng(
      writePng({
        width: 3,
        height: 2,
        colorType: 3,
        depth: 4,
        samples: [0, 1, 2, 2, 1, 0],
        palette,
        trns: [128],
      }),
    );
    expect(rgba(decoded)).toEqual([
      255, 0, 0, 128, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 128,
    ]);
    const eight = decodePng(
      writePng({ width: 2, height: 1, colorType: 3, depth: 8, samples: [2, 1], palette }),
    );
    expect(rgba(eight)).toEqual([0, 0, 255, 255, 0, 255, 0, 255]);
  });

  it("applies a tRNS colour key to RGB", () => {
    const decoded = decodePng(
      writePng({
        width: 2,
        height: 1,
        colorType: 2,
        depth: 8,
        samples: [1, 2, 3, 4, 5, 6],
        trns: [0, 4, 0, 5, 0, 6],
      }),
    );
    expect(rgba(decoded)).toEqual([1, 2, 3, 255, 4, 5, 6, 0]);
  });

  it("decodes Adam7-interlaced images", () => {
    const width = 11;
    const height = 9;
    const samples = Array.from({ length: width * height * 3 }, (_, i) => (i * 7) % 251);
    const decoded = decodePng(writePng({ width, height, colorType: 2, depth: 8, samples, interlace: true }));
    const expected = samples.flatMap((value, i) => (i % 3 === 2 ? [value, 255] : [value]));
    expect(rgba(decoded)).toEqual(expected);
  });

  it("refuses what is not a PNG, and data cut short", () => {
    expect(() => decodePng(new Uint8Array([1, 2, 3]))).toThrow(/not a PNG/u);
    const png = writePng({
      width: 50,
      height: 50,
      colorType: 6,
      depth: 8,
      samples: new Array(10_000).fill(9),
    });
    expect(() => decodePng(png.subarray(0, 40))).toThrow();
  });
});

describe("encodePng", () => {
  it("round-trips through the decoder, as RGB when opaque and RGBA otherwise", () => {
    const opaque: Raster = {
      width: 3,
      height: 2,
      data: Uint8Array.from({ length: 24 }, (_, i) => (i % 4 === 3 ? 255 : i * 10)),
    };
    const encoded = encodePng(opaque);
    expect(encoded[25]).toBe(2);
    expect(rgba(decodePng(encoded))).toEqual(rgba(opaque));
    const clear: Raster = { width: 2, height: 2, data: Uint8Array.from({ length: 16 }, (_, i) => i * 15) };
    const encodedClear = encodePng(clear);
    expect(encodedClear[25]).toBe(6);
    expect(rgba(decodePng(encodedClear))).toEqual(rgba(clear));
  });
});

describe("decodeBmp", () => {
  const pixels = [
    255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255,
  ];

  it("decodes 24-bit, bottom-up and top-down", () => {
    expect(rgba(decodeBmp(writeBmp({ width: 3, height: 2, bitCount: 24, rgba: pixels })))).toEqual(pixels);
    expect(
      rgba(decodeBmp(writeBmp({ width: 3, height: 2, bitCount: 24, rgba: pixels, topDown: true }))),
    ).toEqual(pixels);
  });

  it("decodes 32-bit, treating all-zero alpha as opaque and honouring real alpha in a V5 header", () => {
    const noAlpha = writeBmp({
      width: 3,
      height: 2,
      bitCount: 32,
      rgba: pixels.map((v, i) => (i % 4 === 3 ? 0 : v)),
    });
    expect(rgba(decodeBmp(noAlpha))).toEqual(pixels);
    const withAlpha = pixels.map((v, i) => (i % 4 === 3 ? i * 10 : v));
    const v5 = writeBmp({
      ...{ width: 3, height: 2, bitCount: 32, rgba: withAlpha, headerSize: 124 },
      masks: [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000],
    });
    expect(rgba(decodeBmp(v5))).toEqual(withAlpha);
  });

  it("decodes 16-bit 5-5-5 and 5-6-5 bit fields", () => {
    const white = [255, 255, 255, 255, 0, 0, 0, 255];
    expect(rgba(decodeBmp(writeBmp({ width: 2, height: 1, bitCount: 16, rgba: white })))).toEqual(white);
    const rgb565 = writeBmp({
      width: 2,
      height: 1,
      bitCount: 16,
      rgba: white,
      masks: [0xf800, 0x07e0, 0x001f, 0],
    });
    expect(rgba(decodeBmp(rgb565))).toEqual(white);
  });

  it("decodes 1-, 4- and 8-bit palettes, and the old core header", () => {
    const palette: [number, number, number][] = [
      [0, 0, 0],
      [255, 128, 0],
    ];
    const expected = [0, 0, 0, 255, 255, 128, 0, 255, 255, 128, 0, 255];
    for (const bitCount of [1, 4, 8] as const) {
      const bmp = writeBmp({ width: 3, height: 1, bitCount, indexes: [0, 1, 1], palette });
      expect(rgba(decodeBmp(bmp)), `${bitCount}-bit`).toEqual(expected);
    }
    const core = writeBmp({ width: 3, height: 1, bitCount: 8, indexes: [0, 1, 1], palette, headerSize: 12 });
    expect(rgba(decodeBmp(core))).toEqual(expected);
  });

  it("refuses RLE compression and data cut short", () => {
    const rle = writeBmp({
      width: 2,
      height: 1,
      bitCount: 8,
      indexes: [0, 0],
      palette: [[0, 0, 0]],
      compression: 1,
    });
    expect(() => decodeBmp(rle)).toThrow(/compressed BMP/u);
    const bmp = writeBmp({ width: 3, height: 2, bitCount: 24, rgba: pixels });
    expect(() => decodeBmp(bmp.subarray(0, bmp.length - 4))).toThrow(/cut short/u);
  });
});

describe("resizeRaster", () => {
  it("averages the source pixels each output pixel covers", () => {
    const source: Raster = { width: 4, height: 2, data: new Uint8Array(32) };
    const values = [0, 100, 200, 40, 20, 60, 255, 255];
    for (const [i, value] of values.entries()) source.data.set([value, value, value, 255], i * 4);
    const half = resizeRaster(source, 2, 1);
    expect(rgba(half)).toEqual([45, 45, 45, 255, 188, 188, 188, 255]);
  });

  it("does not let a transparent pixel's colour bleed into its neighbour", () => {
    const source: Raster = { width: 2, height: 1, data: Uint8Array.from([255, 0, 0, 0, 0, 0, 255, 255]) };
    expect(rgba(resizeRaster(source, 1, 1))).toEqual([0, 0, 255, 128]);
  });

  it("handles scale factors that are not whole numbers", () => {
    const source: Raster = {
      width: 3,
      height: 1,
      data: Uint8Array.from([0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255]),
    };
    expect(rgba(resizeRaster(source, 2, 1))).toEqual([30, 30, 30, 255, 150, 150, 150, 255]);
  });
});

describe("loadImage", () => {
  async function setup(files: Record<string, Uint8Array>) {
    const sandbox = await EmbeddedSandbox.create();
    for (const [path, bytes] of Object.entries(files)) await sandbox.writeFile(`/workspace/${path}`, bytes);
    return createToolContext(sandbox);
  }
  const solid = (width: number, height: number) =>
    writePng({
      width,
      height,
      colorType: 2,
      depth: 8,
      samples: new Array(width * height * 3).fill(77),
      filters: [0],
    });

  it("sends a small image as it is", async () => {
    const png = solid(10, 10);
    const context = await setup({ "small.png": png });
    const image = await loadImage(context, "small.png", { canvas: null });
    expect(image).toMatchObject({
      path: "small.png",
      format: "png",
      mimeType: "image/png",
      width: 10,
      height: 10,
      resized: false,
      bytes: png.length,
      warnings: [],
    });
    expect(image.data).toBe(toBase64(png));
  });

  it("shrinks a large PNG to the longest side allowed, in pure TypeScript", async () => {
    const context = await setup({ "wide.png": solid(3000, 600) });
    const image = await loadImage(context, "wide.png", { canvas: null });
    expect(image).toMatchObject({
      width: 2048,
      height: 410,
      originalWidth: 3000,
      originalHeight: 600,
      resized: true,
    });
    const decoded = decodePng(Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0)));
    expect([decoded.width, decoded.height]).toEqual([2048, 410]);
    expect(Array.from(decoded.data.subarray(0, 4))).toEqual([77, 77, 77, 255]);
  });

  it("shrinks until the encoded image fits the byte limit", async () => {
    let seed = 42;
    const noise = Array.from({ length: 400 * 400 * 3 }, () => {
      // xorshift32: noise that deflate cannot squeeze.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) & 0xff;
    });
    const png = writePng({ width: 400, height: 400, colorType: 2, depth: 8, samples: noise, filters: [0] });
    const context = await setup({ "noise.png": png });
    const image = await loadImage(context, "noise.png", { canvas: null, maxSendBytes: 100_000 });
    expect(png.length).toBeGreaterThan(100_000);
    expect(image.bytes).toBeLessThanOrEqual(100_000);
    expect(image.resized).toBe(true);
    expect(image.width).toBeLessThan(400);
  });

  it("converts BMP, which models do not take, to PNG", async () => {
    const bmp = writeBmp({ width: 2, height: 1, bitCount: 24, rgba: [1, 2, 3, 255, 4, 5, 6, 255] });
    const context = await setup({ "shot.bmp": bmp });
    const image = await loadImage(context, "shot.bmp", { canvas: null });
    expect(image).toMatchObject({
      format: "png",
      sourceFormat: "bmp",
      mimeType: "image/png",
      width: 2,
      resized: false,
    });
    expect(rgba(decodePng(Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0))))).toEqual([
      1, 2, 3, 255, 4, 5, 6, 255,
    ]);
  });

  it("without a canvas, sends a large JPEG at full size and says so", async () => {
    const context = await setup({ "photo.jpg": jpegHeader(4000, 3000) });
    const image = await loadImage(context, "photo.jpg", { canvas: null });
    expect(image).toMatchObject({ format: "jpeg", width: 4000, height: 3000, resized: false });
    expect(image.warnings).toEqual([expect.stringContaining("cannot be resized here (no canvas")]);
  });

  it("with a canvas, scales any format with it", async () => {
    const calls: [string, number, number][] = [];
    const canvas: CanvasScaler = async (_bytes, info, width, height) => {
      calls.push([info.format, width, height]);
      return { bytes: new Uint8Array([1, 2, 3]), mimeType: "image/jpeg" };
    };
    const context = await setup({ "photo.jpg": jpegHeader(4096, 1024) });
    const image = await loadImage(context, "photo.jpg", { canvas });
    expect(calls).toEqual([["jpeg", 2048, 512]]);
    expect(image).toMatchObject({
      format: "jpeg",
      width: 2048,
      height: 512,
      resized: true,
      data: "AQID",
      bytes: 3,
    });
  });

  it("refuses what is not an image, and paths the resolver refuses", async () => {
    const context = await setup({ "notes.txt": new TextEncoder().encode("hello") });
    await expect(loadImage(context, "notes.txt", { canvas: null })).rejects.toMatchObject({
      code: "unsupported_image",
    });
    await expect(loadImage(context, "missing.png", { canvas: null })).rejects.toMatchObject({
      code: "file_not_found",
    });
    await expect(loadImage(context, "../x.png", { canvas: null })).rejects.toMatchObject({
      code: "path_escape",
    });
  });
});

/** The start of a JPEG: SOI, an APP0 segment, then a baseline SOF0 with the dimensions. */
function jpegHeader(width: number, height: number): Uint8Array {
  return Uint8Array.from([
    ...[
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
      0x01, 0x00, 0x00,
    ],
    ...[0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03],
    ...new Array(9).fill(0),
    ...[0xff, 0xd9],
  ]);
}

function webp(chunk: "VP8 " | "VP8L" | "VP8X", width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(40);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode("RIFF"), 0);
  view.setUint32(4, 32, true);
  bytes.set(new TextEncoder().encode(`WEBP${chunk}`), 8);
  if (chunk === "VP8 ") {
    bytes.set([0x9d, 0x01, 0x2a], 23);
    view.setUint16(26, width, true);
    view.setUint16(28, height, true);
  } else if (chunk === "VP8L") {
    bytes[20] = 0x2f;
    view.setUint32(21, (width - 1) | ((height - 1) << 14), true);
  } else {
    const w = width - 1;
    const h = height - 1;
    bytes.set([w & 0xff, (w >> 8) & 0xff, w >> 16, h & 0xff, (h >> 8) & 0xff, h >> 16], 24);
  }
  return bytes;
}
