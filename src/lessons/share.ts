import { decodeFragmentText, encodeShareFragment, SHARE_LINK_LIMIT } from "../session/share.ts";
import { checkLesson, type Lesson, parseLesson } from "./lesson.ts";

/**
 * A link that opens the lesson (`#lesson=` + base64url of deflate, as session links), or null when
 * it would pass the share-link limit: then the lesson travels as its file.
 */
export function lessonLink(lesson: Lesson, pageUrl: string): string | null {
  const url = `${pageUrl.replace(/#.*$/u, "")}#lesson=${encodeShareFragment(JSON.stringify(checkLesson(lesson)))}`;
  return url.length <= SHARE_LINK_LIMIT ? url : null;
}

/** The lesson a page URL carries in its #lesson= fragment, null when it carries none. */
export function lessonFromUrl(pageUrl: string): Lesson | null {
  const value = new URLSearchParams(new URL(pageUrl).hash.replace(/^#/u, "")).get("lesson");
  if (!value) return null;
  let text: string;
  try {
    text = decodeFragmentText(value);
  } catch {
    throw new Error(
      "This lesson link is damaged (it did not decompress): it was probably cut short when it was copied.",
    );
  }
  return parseLesson(text);
}
