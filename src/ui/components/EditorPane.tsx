import { useEffect, useRef, useState } from "react";
import { PaneToggle } from "../layout/panes.tsx";
import { getModel, message, rememberedFile, rememberFile, useAppState } from "../model.ts";

type MonacoModule = typeof import("../editor/monaco.ts");
type Monaco = MonacoModule["monaco"];
type CodeEditor = ReturnType<Monaco["editor"]["create"]>;
type DiffEditor = ReturnType<Monaco["editor"]["createDiffEditor"]>;

let loading: Promise<MonacoModule> | undefined;
/** Monaco is megabytes: it is fetched the first time a file is shown, never on the boot path. */
function loadMonaco(): Promise<MonacoModule> {
  loading ??= import("../editor/monaco.ts");
  return loading;
}

/** The selected file in Monaco (saves go through the runtime), or the last change to it as a diff. */
export function EditorPane() {
  const model = getModel();
  const openFile = useAppState((state) => state.openFile);
  const workspace = useAppState((state) => state.workspace?.id);
  // The editor's header names what it shows: the open file (never a folder picked in the tree), or the diff's file.
  const shownPath = useAppState((state) =>
    state.editorView === "diff" && state.diff ? state.diff.path : (state.openFile?.path ?? null),
  );
  const view = useAppState((state) => state.editorView);
  const diff = useAppState((state) => state.diff);
  const [monaco, setMonaco] = useState<MonacoModule | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const editorHost = useRef<HTMLDivElement>(null);
  const diffHost = useRef<HTMLDivElement>(null);
  const editor = useRef<CodeEditor | null>(null);
  const diffEditor = useRef<DiffEditor | null>(null);
  const modelPath = useRef<string | null>(null);
  const workspaceRef = useRef(workspace);
  workspaceRef.current = workspace;
  const save = useRef<() => void>(() => undefined);

  const wantsEditor = openFile !== null || diff !== null;
  useEffect(() => {
    if (!wantsEditor || monaco) return;
    loadMonaco().then(setMonaco, (error: unknown) =>
      setLoadError(`The editor did not load (${message(error)}). Reload the page to try again.`),
    );
  }, [wantsEditor, monaco]);

  save.current = () => {
    if (saving) return;
    setSaving(true);
    void model
      .saveOpenFile()
      .catch((error: unknown) => model.notify("error", `Save failed: ${message(error)}`))
      .finally(() => setSaving(false));
  };

  // One code editor for the pane; its model is swapped per file.
  useEffect(() => {
    if (!monaco || !editorHost.current || editor.current) return;
    const created = monaco.monaco.editor.create(editorHost.current, {
      automaticLayout: true,
      theme: "vs-dark",
      minimap: { enabled: false },
      fontSize: 13,
      ariaLabel: "File editor",
      // Monaco dims the number of the line after a final newline below WCAG AA contrast.
      renderFinalNewline: "on",
    });
    created.addCommand(monaco.monaco.KeyMod.CtrlCmd | monaco.monaco.KeyCode.KeyS, () => save.current());
    let saving: ReturnType<typeof setTimeout> | undefined;
    created.onDidScrollChange(() => {
      // Where the person was reading comes back after a reload.
      clearTimeout(saving);
      saving = setTimeout(() => {
        const path = modelPath.current;
        if (path) rememberFile(workspaceRef.current, { path, scrollTop: created.getScrollTop() });
      }, 200);
    });
    created.onDidChangeModelContent(() => {
      const value = created.getValue();
      if (getModel().state.openFile?.draft !== value) getModel().editDraft(value);
    });
    editor.current = created;
    return () => {
      created.getModel()?.dispose();
      created.dispose();
      editor.current = null;
      modelPath.current = null;
    };
  }, [monaco]);

  // Show the open file; replace the text when it changed in the workspace and has no unsaved edits.
  useEffect(() => {
    const current = editor.current;
    if (!monaco || !current) return;
    if (!openFile || openFile.text === null) {
      current.getModel()?.dispose();
      current.setModel(null);
      modelPath.current = null;
      return;
    }
    if (modelPath.current !== openFile.path) {
      current.getModel()?.dispose();
      const text = openFile.draft ?? openFile.text;
      current.setModel(monaco.monaco.editor.createModel(text, monaco.languageFor(openFile.path)));
      modelPath.current = openFile.path;
      const remembered = rememberedFile(workspaceRef.current);
      if (remembered?.path === openFile.path && remembered.scrollTop) {
        current.setScrollTop(remembered.scrollTop);
      }
    } else if (openFile.draft === openFile.text && current.getValue() !== openFile.text) {
      current.setValue(openFile.text);
    }
  }, [monaco, openFile]);

  useEffect(() => {
    if (!monaco || !diffHost.current || !diff || view !== "diff") return;
    const created =
      diffEditor.current ??
      monaco.monaco.editor.createDiffEditor(diffHost.current, {
        automaticLayout: true,
        theme: "vs-dark",
        readOnly: true,
        renderSideBySide: true,
        minimap: { enabled: false },
      });
    diffEditor.current = created;
    const language = monaco.languageFor(diff.path);
    const previous = created.getModel();
    created.setModel({
      original: monaco.monaco.editor.createModel(diff.before, language),
      modified: monaco.monaco.editor.createModel(diff.after, language),
    });
    previous?.original.dispose();
    previous?.modified.dispose();
  }, [monaco, diff, view]);

  useEffect(
    () => () => {
      const models = diffEditor.current?.getModel();
      diffEditor.current?.dispose();
      models?.original.dispose();
      models?.modified.dispose();
      diffEditor.current = null;
    },
    [],
  );

  const dirty = openFile !== null && openFile.draft !== openFile.text;
  const language = monaco && openFile ? monaco.languageFor(openFile.path) : "";

  return (
    <section className="pane editor" aria-labelledby="editor-heading">
      <header className="pane-header">
        <PaneToggle label="the editor" />
        <h2 id="editor-heading">
          {shownPath ? (
            <>
              <span className="path" data-testid="editor-path" title={shownPath}>
                {shownPath}
              </span>
              {dirty && (
                <span className="dirty" title="Unsaved changes">
                  {" "}
                  ●
                </span>
              )}
            </>
          ) : (
            "Editor"
          )}
        </h2>
        <div className="toolbar" role="toolbar" aria-label="Editor">
          <div className="tabs" role="tablist" aria-label="Editor view">
            <button
              type="button"
              role="tab"
              aria-selected={view === "file"}
              onClick={() => model.setEditorView("file")}
            >
              File
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={view === "diff"}
              disabled={!openFile}
              onClick={() =>
                openFile && diff?.path !== openFile.path
                  ? void model.showLastChange(openFile.path)
                  : model.setEditorView("diff")
              }
            >
              Last change
            </button>
          </div>
          {language && <span className="language">{language}</span>}
          <button
            type="button"
            disabled={!dirty || saving}
            onClick={() => save.current()}
            title="Save (Ctrl+S)"
          >
            {saving ? "Saving…" : "Save"}
          </button>
          <button type="button" disabled={!dirty} onClick={() => void model.reloadOpenFile()}>
            Revert
          </button>
        </div>
      </header>
      {openFile?.changedOnDisk && (
        <p className="banner warn" role="status">
          {openFile.path} changed in the workspace while you were editing it.{" "}
          <button type="button" onClick={() => void model.reloadOpenFile()}>
            Load the workspace version
          </button>{" "}
          or save to keep yours.
        </p>
      )}
      {loadError && (
        <p className="banner error" role="alert">
          {loadError}
        </p>
      )}
      <div className="editor-body">
        {!openFile && !diff && (
          <p className="empty">Pick a file in the tree, or run a tool that writes one.</p>
        )}
        {openFile && openFile.text === null && (
          <p className="empty">
            {openFile.tooLarge
              ? `${openFile.path} is ${openFile.size} bytes, too large to edit here. Download the workspace to open it elsewhere.`
              : `${openFile.path} is binary (${openFile.size} bytes) and is not shown.`}
          </p>
        )}
        {wantsEditor && !monaco && !loadError && <p className="empty">Loading the editor…</p>}
        <div
          ref={editorHost}
          className="monaco-host"
          data-pane-focus=""
          data-testid="monaco-editor"
          data-path={openFile?.path ?? ""}
          hidden={view !== "file" || !openFile || openFile.text === null}
        />
        <div
          ref={diffHost}
          className="monaco-host"
          data-testid="monaco-diff"
          hidden={view !== "diff" || !diff}
        />
        {view === "diff" && diff && (
          <p className="diff-title">
            {diff.title}
            {diff.note ? ` — ${diff.note}` : ""}
          </p>
        )}
      </div>
    </section>
  );
}
