import Markdown from "react-markdown";

/** Only http(s) and mailto links (and in-page anchors) are followed; anything else is dropped. */
function safeUrl(url: string): string {
  return /^(?:https?:|mailto:|#)/iu.test(url) ? url : "";
}

/**
 * Untrusted Markdown (a lesson's instructions, a model's answer) as React elements: raw HTML is
 * skipped, not rendered, and links go only to the web or mail, so the text stays inert.
 */
export function SafeMarkdown({ text }: { text: string }) {
  return (
    <Markdown skipHtml urlTransform={safeUrl}>
      {text}
    </Markdown>
  );
}
