import { describe, expect, it } from "vitest";
import { exportSession, MIN_SECRET_LENGTH, REDACTED, redactSecrets, sessionFileName } from "./export.ts";
import { parseSession, type SessionFile, SessionFormatError, validateSession } from "./format.ts";
import { buildSession, safeBaseUrl } from "./record.ts";

function minimal(): SessionFile {
  return buildSession({
    profile: "agentbench",
    workspace: { files: { "README.md": "# hi\n", "src/a.js": "module.exports = 1;\n" } },
    events: [],
    transcript: [{ role: "user", text: "hi" }],
    meta: { title: "Minimal" },
    now: () => new Date("2026-02-03T04:05:06Z"),
  });
}

function problemsOf(value: unknown, profiles?: string[]): string[] {
  try {
    validateSession(value, profiles ? { profiles } : {});
  } catch (error) {
    expect(error).toBeInstanceOf(SessionFormatError);
    return (error as SessionFormatError).problems;
  }
  throw new Error("expected the session to be refused");
}

describe("session format", () => {
  it("builds the documented shape", () => {
    const session = minimal();
    expect(Object.keys(session)).toEqual([
      "format",
      "version",
      "profile",
      "sandbox",
      "workspace",
      "events",
      "transcript",
      "meta",
    ]);
    expect(session).toMatchObject({ format: "toolroom-session", version: 1, sandbox: "embedded" });
    expect(session.meta).toEqual({ createdAt: "2026-02-03T04:05:06.000Z", title: "Minimal" });
    expect(validateSession(JSON.parse(JSON.stringify(session)))).toEqual(session);
  });

  it("says what is wrong: not an object, another format, no format", () => {
    expect(problemsOf([])).toEqual(["It is not a JSON object."]);
    expect(problemsOf({ format: "har" })[0]).toBe(
      'It is not a Toolroom session: its format is "har", not "toolroom-session".',
    );
    expect(problemsOf({ version: 1 })[0]).toMatch(/it has no "format" field/u);
  });

  it("refuses a newer version with a message that says to update", () => {
    const problems = problemsOf({ ...minimal(), version: 2 });
    expect(problems).toEqual([
      "It was saved by a newer Toolroom (session version 2; this one reads up to 1). Open it in an up-to-date Toolroom.",
    ]);
    expect(problemsOf({ ...minimal(), version: "1" })[0]).toMatch(/is not a version number/u);
  });

  it("lists every missing or malformed field at once", () => {
    const { profile: _p, sandbox: _s, meta: _m, ...rest } = minimal();
    const broken = {
      ...rest,
      workspace: { files: { "../etc/passwd": "x", "ok.txt": 3 } },
      events: [{ seq: 1, type: "tool_call_started" }, { type: "x" }],
      transcript: [{ role: "wizard" }],
    };
    expect(problemsOf(broken)).toEqual([
      '"profile" is missing (the tool API the session used, e.g. "agentbench").',
      '"sandbox" is missing (the backend it was recorded on, e.g. "embedded").',
      '"workspace.files" entry "../etc/passwd" is not a relative path inside the workspace.',
      '"workspace.files" entry "ok.txt" is not text, {"base64"} or {"symlink"}.',
      '"events" item 2 is not an event (it needs "seq" and "type").',
      '"transcript" entry 1 has an unknown role "wizard".',
      '"meta" is missing or not an object.',
    ]);
  });

  it("keeps files' modes, and refuses modes that are not permission bits", () => {
    const session = minimal();
    const withModes = { ...session, workspace: { ...session.workspace, modes: { "src/a.js": 0o755 } } };
    expect(validateSession(JSON.parse(JSON.stringify(withModes))).workspace.modes).toEqual({
      "src/a.js": 0o755,
    });
    for (const modes of [{ "src/a.js": "755" }, { "src/a.js": 0o10000 }, { "src/a.js": 1.5 }, [493]])
      expect(problemsOf({ ...session, workspace: { ...session.workspace, modes } })).toEqual([
        '"workspace.modes" must map file paths to permission bits (0 to 4095, e.g. 493 for 0755).',
      ]);
  });

  it("checks the profile against the ones this build has, when told them", () => {
    expect(problemsOf({ ...minimal(), profile: "martian" }, ["agentbench", "toolrouter"])).toEqual([
      'It uses the "martian" profile, which this Toolroom does not have (it has agentbench, toolrouter).',
    ]);
  });

  it("parses text and says when it is not JSON", () => {
    expect(parseSession(JSON.stringify(minimal())).meta.title).toBe("Minimal");
    expect(() => parseSession("<html>")).toThrow(/This session file cannot be opened: It is not JSON \(/u);
  });
});

describe("export", () => {
  const KEY = "sk-proj-Zz9_live-key-for-tests-0123456789";

  it("redacts the key in use wherever it appears, and key shapes as a last line of defence", () => {
    const session = minimal();
    session.transcript.push({ role: "assistant", text: `Your key is ${KEY}.`, toolCalls: [] });
    session.workspace.files[".env"] =
      "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz\nOPENAI=sk-abcdefghijklmnop1234\nGOOGLE=AIzaSyA1234567890abcdefghijklmnopqrstuv\n";
    session.events.push({
      seq: 1,
      ts: "2026-01-01T00:00:00Z",
      session: "s",
      type: "tool_call_started",
      params: { command: `curl -H "Authorization: Bearer ${"x".repeat(24)}" https://api.test` },
    });
    const { text, redactions } = exportSession(session, { secrets: [KEY] });
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/sk-ant-api03|sk-abcdefghijklmnop1234|AIzaSy|x{24}/u);
    expect(text.match(/\[REDACTED\]/gu)).toHaveLength(5);
    expect(redactions).toEqual([
      { what: "the API key in use", count: 1 },
      { what: "Anthropic key", count: 1 },
      { what: "OpenAI-style key (sk-…)", count: 1 },
      { what: "Google API key", count: 1 },
      { what: "bearer token", count: 1 },
    ]);
    expect(() => parseSession(text)).not.toThrow();
  });

  it("finds a key even as JSON escapes it, and leaves ordinary words and short local keys alone", () => {
    const odd = 'key"with\\quotes-and-more';
    const json = JSON.stringify({ a: `x${odd}y`, b: "task-list sk-short ollama" });
    const { text } = redactSecrets(json, [odd, "ollama"]);
    expect(text).toBe(JSON.stringify({ a: `x${REDACTED}y`, b: "task-list sk-short ollama" }));
    expect("ollama".length).toBeLessThan(MIN_SECRET_LENGTH);
  });

  it("exports compact or indented JSON and names the file after the title", () => {
    const session = minimal();
    expect(exportSession(session).text).not.toContain("\n");
    expect(exportSession(session, { pretty: true }).text).toContain('\n  "format": "toolroom-session"');
    expect(sessionFileName(session)).toBe("minimal-2026-02-03.toolroom.json");
  });

  it("keeps only the origin and path of a base URL in meta", () => {
    expect(safeBaseUrl("https://user:pw@proxy.test/v1/?key=sk-123#x")).toBe("https://proxy.test/v1");
    expect(safeBaseUrl("not a url")).toBeUndefined();
  });
});
