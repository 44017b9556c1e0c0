import { useEffect, useRef, useState } from "react";
import { PROVIDER_PRESETS, type ProviderKind, type ProviderSettings } from "../../agent/provider.ts";
import { forgetProviderKey, isKeyRemembered } from "../../agent/settings.ts";
import type { TokenUsage, TranscriptEntry } from "../../agent/transcript.ts";
import { getModel, useAppState } from "../model.ts";
import { DemoList } from "./DemoList.tsx";
import { SafeMarkdown } from "./SafeMarkdown.tsx";

const STOP_REASONS: Record<string, string> = {
  done: "The agent says it is done.",
  max_iterations: "It reached the turn limit: press Continue to give it more turns.",
  stopped: "Stopped. Press Continue to go on.",
  error: "The model's service failed (see below); nothing is lost: fix it and press Continue.",
};

/** Connect a model, give it a task, watch it work: text as it streams, each call, tokens per turn. */
export function AgentPane() {
  const model = getModel();
  const agent = useAppState((state) => state.agent);
  const live = useAppState((state) => state.agentLive);
  const summary = useAppState((state) => state.agentSummary);
  const profiles = useAppState((state) => state.profiles);
  const approvals = useAppState((state) => state.agentApprovals);
  const [editing, setEditing] = useState(false);
  const [task, setTask] = useState("");
  const [maxIterations, setMaxIterations] = useState(30);
  const end = useRef<HTMLDivElement>(null);

  const transcriptLength = agent?.transcript.length ?? 0;
  const liveLength = live?.text.length ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll as the conversation grows.
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [transcriptLength, liveLength]);

  if (!agent) return null;
  const running = agent.status !== "idle";
  const showForm = editing || !agent.connected;
  const published = profiles.filter((profile) => !profile.internal);

  const send = () => {
    const text = task.trim();
    if (!text || running) return;
    setTask("");
    void model.sendTask(text, maxIterations);
  };

  return (
    <section className="pane agent" aria-labelledby="agent-heading" data-testid="agent-pane">
      <header className="pane-header">
        <h2 id="agent-heading">Agent</h2>
        <span className="count" data-testid="agent-tokens" title="Tokens of the whole conversation">
          {formatUsage(agent.usage)}
        </span>
      </header>
      {showForm ? (
        <ProviderForm onDone={() => setEditing(false)} canCancel={agent.connected} />
      ) : (
        <div className="row agent-connection">
          <span className="count" data-testid="agent-connected">
            {agent.provider?.model} · {hostOf(agent.provider?.baseUrl ?? "")}
          </span>
          <button type="button" className="link" onClick={() => setEditing(true)} disabled={running}>
            Change model
          </button>
          <label>
            Tools
            <select
              value={agent.profile}
              disabled={running}
              onChange={(event) => void model.setAgentProfile(event.target.value)}
              data-testid="agent-profile"
            >
              {published.map((profile) => (
                <option key={profile.name} value={profile.name}>
                  {profile.title}
                </option>
              ))}
            </select>
          </label>
          <label title="Approval for the tools that change files or run commands">
            Changes
            <select
              value={approvals}
              onChange={(event) => void model.setAgentApprovals(event.target.value as "ask" | "auto")}
              data-testid="agent-approvals"
            >
              <option value="auto">run without asking</option>
              <option value="ask">ask me first</option>
              {approvals === "mixed" && <option value="mixed">per tool (set in the console)</option>}
            </select>
          </label>
        </div>
      )}
      <div className="agent-transcript" data-testid="agent-transcript" aria-live="polite">
        {agent.transcript.length === 0 && !live && (
          <div className="empty">
            <p>
              {agent.connected
                ? "Describe a task below; the agent works in this workspace with the chosen tool API."
                : "Connect a model above (your key stays in this browser), or watch a recorded agent:"}
            </p>
            {!agent.connected && <DemoList />}
          </div>
        )}
        <Transcript entries={agent.transcript} />
        {live && (
          <div className="turn assistant live" data-testid="agent-live">
            <span className="who">model · turn {live.iteration}</span>
            {live.text && <p className="said">{live.text}</p>}
            {live.calling && <p className="calling">calling {live.calling}…</p>}
          </div>
        )}
        {summary && !running && (
          <p
            className={`agent-end ${summary.error ? "error" : ""}`}
            data-testid="agent-end"
            data-stop={summary.stopReason}
          >
            {STOP_REASONS[summary.stopReason] ?? summary.stopReason} {summary.iterations} turns,{" "}
            {formatUsage(summary.usage.total)} this run.
            {summary.error && (
              <>
                <br />
                <strong>{summary.error.message}</strong>
              </>
            )}
          </p>
        )}
        <div ref={end} />
      </div>
      <form
        className="agent-task"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <textarea
          value={task}
          rows={3}
          placeholder={
            agent.transcript.length ? "A follow-up…" : "A task, e.g. “npm test fails; fix the code.”"
          }
          aria-label="Task for the agent"
          data-testid="agent-task"
          disabled={!agent.connected}
          onChange={(event) => setTask(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              event.stopPropagation();
              send();
            }
          }}
        />
        <div className="row">
          {running ? (
            <button
              type="button"
              className="danger"
              onClick={() => void model.stopAgent()}
              data-testid="agent-stop"
              disabled={agent.status === "stopping"}
            >
              {agent.status === "stopping" ? "Stopping…" : "Stop"}
            </button>
          ) : (
            <button
              type="submit"
              className="primary"
              disabled={!agent.connected || task.trim() === ""}
              data-testid="agent-send"
            >
              Send
            </button>
          )}
          <button
            type="button"
            disabled={running || !agent.connected || agent.transcript.length === 0}
            onClick={() => void model.continueAgent(maxIterations)}
            data-testid="agent-continue"
          >
            Continue
          </button>
          <button
            type="button"
            disabled={running || agent.transcript.length === 0}
            onClick={() => void model.newConversation()}
          >
            New conversation
          </button>
          <label title="Model turns allowed per run">
            Turns
            <input
              type="number"
              min={1}
              max={200}
              value={maxIterations}
              onChange={(event) => setMaxIterations(Math.max(1, Number(event.target.value) || 1))}
              style={{ width: "4em" }}
            />
          </label>
        </div>
      </form>
    </section>
  );
}

/** The conversation: the person's tasks, the model's text and calls, each result (as text, never HTML). */
export function Transcript({ entries }: { entries: readonly TranscriptEntry[] }) {
  return (
    <>
      {entries.map((entry, index) => {
        const key = `${index}:${entry.role}`;
        if (entry.role === "system") {
          // Shown folded: what the model was told is part of what a workshop looks at.
          return (
            <details key={key} className="turn system" data-testid="agent-system">
              <summary className="system-summary">system prompt</summary>
              <pre className="system-text">{entry.text}</pre>
            </details>
          );
        }
        if (entry.role === "user") {
          return (
            <div key={key} className="turn user">
              <span className="who">task</span>
              <p className="said">{entry.text}</p>
            </div>
          );
        }
        if (entry.role === "assistant") {
          return (
            <div key={key} className="turn assistant" data-testid="agent-turn">
              <span className="who">
                model{entry.usage ? ` · ${formatUsage(entry.usage)}` : ""}
                {entry.incomplete ? " · cut short" : ""}
              </span>
              {entry.text && (
                <div className="said markdown">
                  <SafeMarkdown text={entry.text} />
                </div>
              )}
              {entry.toolCalls.map((call) => (
                <p key={call.id} className="call">
                  → <strong>{call.name}</strong> <code>{clip(call.arguments, 300)}</code>
                </p>
              ))}
            </div>
          );
        }
        return (
          <details
            key={key}
            className={`turn tool ${entry.isError ? "error" : ""}`}
            data-testid="agent-result"
            data-tool={entry.tool}
            data-error={entry.isError ? "true" : "false"}
          >
            <summary>
              ← {entry.tool} {entry.isError ? "error" : "ok"}
              {entry.step !== undefined ? ` · step ${entry.step}` : ""}
            </summary>
            <pre>{clip(entry.content, 4000)}</pre>
          </details>
        );
      })}
    </>
  );
}

function ProviderForm({ onDone, canCancel }: { onDone: () => void; canCancel: boolean }) {
  const model = getModel();
  const draft = useAppState((state) => state.providerDraft);
  const [preset, setPreset] = useState(() => presetOf(draft) ?? "openai");
  const [kind, setKind] = useState<ProviderKind>(draft?.kind ?? "openai");
  const [baseUrl, setBaseUrl] = useState(draft?.baseUrl ?? PROVIDER_PRESETS[0]!.baseUrl);
  const [modelName, setModelName] = useState(draft?.model ?? PROVIDER_PRESETS[0]!.exampleModel);
  const [apiKey, setApiKey] = useState("");
  const [remember, setRemember] = useState(() => safeStorage(isKeyRemembered));

  const choose = (id: string) => {
    setPreset(id);
    const chosen = PROVIDER_PRESETS.find((candidate) => candidate.id === id);
    if (!chosen) return;
    setKind(chosen.kind);
    setBaseUrl(chosen.baseUrl);
    setModelName(chosen.exampleModel);
  };
  const needsKey = PROVIDER_PRESETS.find((candidate) => candidate.id === preset)?.needsKey ?? false;

  return (
    <form
      className="provider-form"
      data-testid="provider-form"
      onSubmit={(event) => {
        event.preventDefault();
        const settings: ProviderSettings = {
          kind,
          baseUrl: baseUrl.trim(),
          model: modelName.trim(),
          ...(apiKey ? { apiKey } : draft?.apiKey ? { apiKey: draft.apiKey } : {}),
        };
        void model.connectAgent(settings, remember).then((ok) => {
          if (ok) {
            setApiKey("");
            onDone();
          }
        });
      }}
    >
      <div className="row">
        <label>
          Provider
          <select
            value={preset}
            onChange={(event) => choose(event.target.value)}
            data-testid="provider-preset"
          >
            {PROVIDER_PRESETS.map((item) => (
              <option key={item.id} value={item.id}>
                {item.label}
              </option>
            ))}
            <option value="custom">Other (OpenAI-compatible)</option>
          </select>
        </label>
        <label>
          Format
          <select
            value={kind}
            onChange={(event) => setKind(event.target.value as ProviderKind)}
            data-testid="provider-kind"
          >
            <option value="openai">OpenAI chat completions</option>
            <option value="anthropic">Anthropic Messages</option>
          </select>
        </label>
      </div>
      <label className="field">
        <span className="field-name">Base URL</span>
        <input
          value={baseUrl}
          onChange={(event) => setBaseUrl(event.target.value)}
          data-testid="provider-url"
        />
      </label>
      <label className="field">
        <span className="field-name">Model</span>
        <input
          value={modelName}
          onChange={(event) => setModelName(event.target.value)}
          data-testid="provider-model"
        />
      </label>
      <label className="field">
        <span className="field-name">API key{needsKey ? "" : " (local servers need none)"}</span>
        <input
          type="password"
          autoComplete="off"
          value={apiKey}
          placeholder={draft?.apiKey ? "remembered on this device" : "kept in this page's memory"}
          onChange={(event) => setApiKey(event.target.value)}
          data-testid="provider-key"
        />
      </label>
      <div className="row">
        <label title="Otherwise the key is forgotten when the page closes">
          <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} />
          Remember the key on this device
        </label>
        {safeStorage(isKeyRemembered) && (
          <button
            type="button"
            className="link"
            onClick={() => {
              safeStorage((storage) => forgetProviderKey(storage));
              setRemember(false);
              model.notify("ok", "The remembered key was removed from this device.");
            }}
          >
            Forget the remembered key
          </button>
        )}
      </div>
      <p className="count">
        The key goes only to the base URL above, straight from this browser. It is never put in a session, a
        link or the log.
      </p>
      <div className="row">
        <button type="submit" className="primary" data-testid="provider-connect">
          Connect
        </button>
        {canCancel && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function presetOf(settings: ProviderSettings | null): string | undefined {
  if (!settings) return undefined;
  return PROVIDER_PRESETS.find((item) => item.baseUrl === settings.baseUrl)?.id ?? "custom";
}

function safeStorage<T>(use: (storage: Storage) => T): T | false {
  try {
    return use(localStorage);
  } catch {
    return false;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function formatUsage(usage: TokenUsage): string {
  return `${usage.input.toLocaleString("en")} in · ${usage.output.toLocaleString("en")} out tokens`;
}

function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${(text.length - max).toLocaleString("en")} more characters)`;
}
