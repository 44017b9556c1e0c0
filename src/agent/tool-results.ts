import type { CallOutcome } from "../core/runtime.ts";
import type { ImagePart, ToolEntry, TranscriptToolCall } from "./transcript.ts";

/**
 * What the model reads back from a call: the dialect's envelope as compact JSON, and the images a
 * result injects (baseagent's view_image `inject_content`) taken out as image parts, so the JSON
 * text stays small and the provider gets real image blocks.
 */
export interface ToolResultForModel {
  content: string;
  images: ImagePart[];
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/isu;

/** An image in any of the shapes a result may carry it; undefined when `item` is not one. */
function imageOf(item: unknown): ImagePart | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const record = item as Record<string, unknown>;
  const type = record.type;
  if (type === "image") {
    const source = (record.source ?? record) as Record<string, unknown>;
    const mediaType = source.media_type ?? source.mime_type ?? source.mediaType ?? source.mimeType;
    const data = source.data;
    if (typeof mediaType === "string" && typeof data === "string") return { mediaType, data };
    if (typeof source.url === "string") return fromDataUrl(source.url);
  }
  if (type === "image_url") {
    const url = record.image_url;
    if (typeof url === "string") return fromDataUrl(url);
    if (typeof url === "object" && url !== null) {
      const inner = (url as Record<string, unknown>).url;
      if (typeof inner === "string") return fromDataUrl(inner);
    }
  }
  return undefined;
}

function fromDataUrl(url: string): ImagePart | undefined {
  const match = DATA_URL.exec(url);
  return match ? { mediaType: match[1]!.toLowerCase(), data: match[2]! } : undefined;
}

function placeholder(image: ImagePart): string {
  const kb = Math.max(1, Math.round((image.data.length * 3) / 4 / 1024));
  return `[${image.mediaType} image, ${kb} KB, attached after this result]`;
}

/** Splits an envelope into the JSON text the model reads and the images it injects. */
/** The transcript entry that answers a model's call with the runtime's outcome. */
export function toolEntryOf(call: TranscriptToolCall, outcome: CallOutcome): ToolEntry {
  const forModel = toolResultForModel(outcome.envelope);
  return {
    role: "tool",
    callId: call.id,
    tool: call.name,
    content: forModel.content,
    isError: outcome.status === "error",
    ...(forModel.images.length > 0 ? { images: forModel.images } : {}),
    requestId: outcome.requestId,
    step: outcome.step,
  };
}

export function toolResultForModel(envelope: unknown): ToolResultForModel {
  const images: ImagePart[] = [];
  const strip = (value: unknown, depth: number): unknown => {
    if (depth > 6 || typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) return value.map((item) => strip(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (key === "inject_content" && field !== null && typeof field === "object") {
        const take = (item: unknown) => {
          const image = imageOf(item);
          if (!image) return item;
          images.push(image);
          return { type: "image", note: placeholder(image) };
        };
        out[key] = Array.isArray(field) ? field.map(take) : take(field);
      } else {
        out[key] = strip(field, depth + 1);
      }
    }
    return out;
  };
  const stripped = strip(envelope, 0);
  return { content: JSON.stringify(stripped) ?? "null", images };
}
