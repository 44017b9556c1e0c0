/** Saves bytes or text as a file through the browser's download. */
export function download(name: string, data: Uint8Array | string, type = "application/octet-stream"): void {
  const blob = new Blob([typeof data === "string" ? data : new Uint8Array(data)], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Pretty JSON for people; untrusted content stays text (it is only ever put in text nodes). */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}
