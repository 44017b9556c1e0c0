import type { FileContent } from "just-bash";

/**
 * Turns what just-bash appends to an output device into text, in order: strings it marks "binary"
 * are bytes one per character (decoded as UTF-8, a character split across two appends included),
 * other strings are text, and byte arrays are bytes.
 */
export class DeviceText {
  private readonly decoder = new TextDecoder();

  /** The text of one append; "" while a split character waits for its rest. */
  push(content: FileContent, encoding: string | undefined): string {
    if (typeof content === "string") {
      if (encoding !== "binary" && encoding !== "latin1") return this.flush() + content;
      const bytes = new Uint8Array(content.length);
      for (let i = 0; i < content.length; i++) bytes[i] = content.charCodeAt(i) & 0xff;
      return this.decoder.decode(bytes, { stream: true });
    }
    return this.decoder.decode(content, { stream: true });
  }

  /** Whatever is left of a split character (as U+FFFD), when the output ends. */
  flush(): string {
    return this.decoder.decode();
  }
}
