import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { decodeBmp, decodePng, encodePng, type Raster, RasterError, resizeRaster } from "./image-raster.ts";
import { readWorkspaceBytes } from "./read-text.ts";
import { formatBytes } from "./write-text.ts";

export type ImageFormat = "png" | "jpeg" | "gif" | "webp" | "bmp";

export const IMAGE_MIME_TYPES: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
};

/** Longest side sent to a model; larger images are shrunk to it (what the vision APIs do anyway). */
export const MAX_IMAGE_DIMENSION = 2048;
/** Largest encoded image sent to a model (the strictest provider's per-image limit). */
export const MAX_IMAGE_SEND_BYTES = 5 * 1024 * 1024;
/** Largest file view_image reads at all. */
export const MAX_IMAGE_FILE_BYTES = 32 * 1024 * 1024;
/** Largest raster decoded in pure TypeScript (4 bytes a pixel: 160 MB). */
const MAX_DECODE_PIXELS = 40_000_000;

export interface ImageInfo {
  format: ImageFormat;
  mimeType: string;
  width: number;
  height: number;
}

/** Recognises PNG, JPEG, GIF, WebP and BMP by their magic bytes and reads their dimensions. */
export function sniffImage(bytes: Uint8Array): ImageInfo | null {
  const at = (offset: number, ...values: number[]) => values.every((value, i) => bytes[offset + i] === value);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const info = (format: ImageFormat, width: number, height: number): ImageInfo | null =>
    width > 0 && height > 0 ? { format, mimeType: IMAGE_MIME_TYPES[format], width, height } : null;
  try {
    if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a) && bytes.length >= 24) {
      return info("png", view.getUint32(16), view.getUint32(20));
    }
    if (at(0, 0xff, 0xd8, 0xff)) return sniffJpeg(bytes, view);
    if (
      (at(0, 0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || at(0, 0x47, 0x49, 0x46, 0x38, 0x39, 0x61)) &&
      bytes.length >= 10
    ) {
      return info("gif", view.getUint16(6, true), view.getUint16(8, true));
    }
    if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50) && bytes.length >= 30) {
      const chunk = String.fromCharCode(...bytes.subarray(12, 16));
      if (chunk === "VP8 ")
        return info("webp", view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
      if (chunk === "VP8L") {
        const bits = view.getUint32(21, true);
        return info("webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
      }
      if (chunk === "VP8X") {
        const u24 = (offset: number) =>
          bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16);
        return info("webp", u24(24) + 1, u24(27) + 1);
      }
      return null;
    }
    if (at(0, 0x42, 0x4d) && bytes.length >= 26) {
      const core = view.getUint32(14, true) === 12;
      const width = core ? view.getUint16(18, true) : view.getInt32(18, true);
      const height = core ? view.getInt16(20, true) : view.getInt32(22, true);
      return info("bmp", width, Math.abs(height));
    }
  } catch {
    // A header cut short reads past the end: not an image we can use.
  }
  return null;
}

/** JPEG dimensions live in the first start-of-frame segment, after any number of others. */
function sniffJpeg(bytes: Uint8Array, view: DataView): ImageInfo | null {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1]!;
    if (marker === 0xff) {
      offset++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = view.getUint16(offset + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      const height = view.getUint16(offset + 5);
      const width = view.getUint16(offset + 7);
      return width > 0 && height > 0 ? { format: "jpeg", mimeType: "image/jpeg", width, height } : null;
    }
    offset += 2 + length;
  }
  return null;
}

/** An image ready for a multimodal model: base64 bytes, their MIME type, and what was done to them. */
export interface LoadedImage extends ImageInfo {
  path: string;
  /** The format read from the file (the sent one may differ: BMP is sent as PNG). */
  sourceFormat: ImageFormat;
  originalWidth: number;
  originalHeight: number;
  /** Size of the file, and of the image sent. */
  originalBytes: number;
  bytes: number;
  resized: boolean;
  /** Base64 of the image sent. */
  data: string;
  warnings: string[];
}

/** Decodes, scales and re-encodes on a canvas; only where OffscreenCanvas and createImageBitmap exist. */
export type CanvasScaler = (
  bytes: Uint8Array,
  info: ImageInfo,
  width: number,
  height: number,
) => Promise<{ bytes: Uint8Array; mimeType: string }>;

export interface LoadImageOptions {
  maxDimension?: number;
  maxSendBytes?: number;
  /** The canvas to scale with; default: the platform's, or none in Node (then pure TypeScript). */
  canvas?: CanvasScaler | null;
}

/**
 * Reads a workspace image for a multimodal model. PNG, JPEG, GIF and WebP are sent as they are
 * when small enough; larger ones are shrunk to fit maxDimension and maxSendBytes. With a canvas (a
 * browser worker) any format is scaled; without one (Node) PNG and BMP are scaled in pure
 * TypeScript, and JPEG, GIF and WebP are sent at full size with a warning that says so. BMP, which
 * models do not accept, is always converted to PNG.
 */
export async function loadImage(
  context: ToolContext,
  input: unknown,
  options: LoadImageOptions = {},
): Promise<LoadedImage> {
  const maxDimension = options.maxDimension ?? MAX_IMAGE_DIMENSION;
  const maxSendBytes = options.maxSendBytes ?? MAX_IMAGE_SEND_BYTES;
  const canvas = options.canvas === undefined ? platformCanvas() : options.canvas;
  const path = await context.resolve(input, { param: "path" });
  const stat = await context.sandbox.stat(path.absolute).catch(() => null);
  if (stat && stat.type === "file" && stat.size > MAX_IMAGE_FILE_BYTES) {
    throw new ToolFailure(
      "limit_exceeded",
      `${path.relative} is ${stat.size} bytes, over the ${formatBytes(MAX_IMAGE_FILE_BYTES)} image file limit.`,
      {
        path: path.relative,
        limit: "max_image_file_size",
        limit_bytes: MAX_IMAGE_FILE_BYTES,
        size_bytes: stat.size,
      },
    );
  }
  const original = await readWorkspaceBytes(context, path, input);
  const info = sniffImage(original);
  if (!info) {
    throw new ToolFailure(
      "unsupported_image",
      `${path.relative} is not a PNG, JPEG, GIF, WebP or BMP image (its first bytes say otherwise).`,
      { path: path.relative },
    );
  }
  const base = {
    path: path.relative,
    sourceFormat: info.format,
    originalWidth: info.width,
    originalHeight: info.height,
    originalBytes: original.length,
  };
  const warnings: string[] = [];
  const fits = (width: number, height: number) => Math.max(width, height) <= maxDimension;
  const needsResize = !fits(info.width, info.height) || original.length > maxSendBytes;
  if (!needsResize && info.format !== "bmp") {
    return { ...info, ...base, bytes: original.length, resized: false, data: toBase64(original), warnings };
  }

  let scale = Math.min(1, maxDimension / Math.max(info.width, info.height));
  for (let attempt = 0; attempt < 4; attempt++) {
    const width = Math.max(1, Math.round(info.width * scale));
    const height = Math.max(1, Math.round(info.height * scale));
    let encoded: { bytes: Uint8Array; mimeType: string; format: ImageFormat } | null = null;
    if (canvas) {
      const scaled = await canvas(original, info, width, height);
      encoded = { ...scaled, format: scaled.mimeType === "image/jpeg" ? "jpeg" : "png" };
    } else if (info.format === "png" || info.format === "bmp") {
      encoded = {
        bytes: encodePng(scaleRaster(decodeRaster(original, info, path.relative), width, height)),
        mimeType: "image/png",
        format: "png",
      };
    }
    if (!encoded) {
      warnings.push(
        `${info.format.toUpperCase()} images cannot be resized here (no canvas in this environment); sent at full size, ${info.width}x${info.height}, ${formatBytes(original.length)}.`,
      );
      return { ...info, ...base, bytes: original.length, resized: false, data: toBase64(original), warnings };
    }
    if (encoded.bytes.length <= maxSendBytes || attempt === 3) {
      if (encoded.bytes.length > maxSendBytes)
        warnings.push(`Still ${formatBytes(encoded.bytes.length)} after resizing.`);
      return {
        format: encoded.format,
        mimeType: encoded.mimeType,
        width,
        height,
        ...base,
        bytes: encoded.bytes.length,
        resized: width !== info.width || height !== info.height,
        data: toBase64(encoded.bytes),
        warnings,
      };
    }
    // Too many bytes still: shrink the area in proportion, with a margin.
    scale *= Math.sqrt(maxSendBytes / encoded.bytes.length) * 0.9;
  }
  throw new Error("unreachable");
}

function decodeRaster(bytes: Uint8Array, info: ImageInfo, path: string): Raster {
  if (info.width * info.height > MAX_DECODE_PIXELS) {
    throw new ToolFailure(
      "limit_exceeded",
      `${path} is ${info.width}x${info.height}, too large to decode here (limit ${MAX_DECODE_PIXELS / 1_000_000} megapixels).`,
      { path, limit: "max_decode_pixels", limit_pixels: MAX_DECODE_PIXELS },
    );
  }
  try {
    return info.format === "png" ? decodePng(bytes) : decodeBmp(bytes);
  } catch (error) {
    if (!(error instanceof RasterError)) throw error;
    throw new ToolFailure("unsupported_image", `${path} could not be decoded: ${error.message}.`, { path });
  }
}

function scaleRaster(raster: Raster, width: number, height: number): Raster {
  return width === raster.width && height === raster.height ? raster : resizeRaster(raster, width, height);
}

/** The platform's canvas scaler (a browser or worker), or null where there is none (Node). */
export function platformCanvas(): CanvasScaler | null {
  const scope = globalThis as unknown as {
    OffscreenCanvas?: new (
      width: number,
      height: number,
    ) => {
      getContext(
        kind: "2d",
      ): { drawImage(image: unknown, x: number, y: number, w: number, h: number): void } | null;
      convertToBlob(options: { type: string; quality?: number }): Promise<Blob>;
    };
    createImageBitmap?: (blob: Blob) => Promise<{ close?(): void }>;
  };
  const Canvas = scope.OffscreenCanvas;
  const createBitmap = scope.createImageBitmap;
  if (!Canvas || !createBitmap) return null;
  return async (bytes, info, width, height) => {
    const bitmap = await createBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: info.mimeType }));
    const canvas = new Canvas(width, height);
    const context = canvas.getContext("2d");
    if (!context)
      throw new ToolFailure("tool_unavailable", "This browser has no 2D canvas to resize images with.");
    context.drawImage(bitmap, 0, 0, width, height);
    bitmap.close?.();
    // Photos stay JPEG (far smaller); everything else becomes PNG, which keeps transparency.
    const type = info.format === "jpeg" ? "image/jpeg" : "image/png";
    const blob = await canvas.convertToBlob({ type, quality: 0.85 });
    return { bytes: new Uint8Array(await blob.arrayBuffer()), mimeType: type };
  };
}

/** Base64 without Buffer (a browser worker has none). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
