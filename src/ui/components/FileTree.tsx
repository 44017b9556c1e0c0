import { type FormEvent, useEffect, useMemo, useState } from "react";
import { ancestorsOf, indexTree, type TreeRow, visibleRows } from "../files/tree-rows.ts";
import { PaneToggle } from "../layout/panes.tsx";
import { getModel, useAppState } from "../model.ts";
import { VirtualList } from "./VirtualList.tsx";

const ROW_HEIGHT = 22;

type Action = { kind: "new-file" | "new-folder" | "rename"; value: string } | null;

/** The workspace's files, live: every file_changed event updates it, and only visible rows are drawn. */
export function FileTree() {
  const model = getModel();
  const filesVersion = useAppState((state) => state.filesVersion);
  const selectedPath = useAppState((state) => state.selectedPath);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [active, setActive] = useState(-1);
  const [action, setAction] = useState<Action>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: filesVersion says when model.files changed in place
  const index = useMemo(() => indexTree(model.files), [filesVersion, model]);
  const rows = useMemo(() => visibleRows(index, expanded), [index, expanded]);

  // A file picked elsewhere (the log, a diff) is revealed here; collapsing it again stays collapsed.
  useEffect(() => {
    if (!selectedPath) return;
    setExpanded((current) => {
      const missing = ancestorsOf(selectedPath).filter((folder) => !current.has(folder));
      return missing.length > 0 ? new Set([...current, ...missing]) : current;
    });
  }, [selectedPath]);

  useEffect(() => {
    if (!selectedPath) return;
    const found = rows.findIndex((row) => row.path === selectedPath);
    if (found >= 0) setActive(found);
  }, [rows, selectedPath]);

  const toggle = (row: TreeRow, open?: boolean) => {
    const next = new Set(expanded);
    if (open ?? !next.has(row.path)) next.add(row.path);
    else next.delete(row.path);
    setExpanded(next);
  };

  const activate = (row: TreeRow) => {
    if (row.type === "directory") toggle(row);
    model.selectPath(row.path);
  };

  const onKey = (key: string, at: number): boolean => {
    const row = rows[at];
    if (!row) return false;
    if (key === "Enter" || key === " ") {
      activate(row);
      return true;
    }
    if (key === "ArrowRight" && row.type === "directory") {
      if (!row.expanded) toggle(row, true);
      else if (rows[at + 1]?.depth === row.depth + 1) setActive(at + 1);
      return true;
    }
    if (key === "ArrowLeft") {
      if (row.type === "directory" && row.expanded) toggle(row, false);
      else {
        const parent = row.path.slice(0, row.path.lastIndexOf("/"));
        const found = rows.findIndex((candidate) => candidate.path === parent);
        if (found >= 0) setActive(found);
      }
      return true;
    }
    if (key === "Delete") {
      void remove(row.path);
      return true;
    }
    if (key === "F2") {
      setAction({ kind: "rename", value: row.path });
      return true;
    }
    return false;
  };

  const target = selectedPath ?? rows[active]?.path ?? null;
  const folderOf = (path: string | null) => {
    if (!path) return "";
    return model.files.get(path) === "directory"
      ? `${path}/`
      : path.includes("/")
        ? `${path.slice(0, path.lastIndexOf("/"))}/`
        : "";
  };

  const remove = async (path: string) => {
    if (
      !window.confirm(
        `Delete ${path}${model.files.get(path) === "directory" ? " and everything in it" : ""}?`,
      )
    )
      return;
    await model.editFiles(
      "delete_path",
      { path },
      `Deleted ${path}. Restore it from the event log if that was a mistake.`,
    );
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!action) return;
    const value = action.value.trim().replace(/^\/+/u, "");
    if (value === "") return;
    let ok = false;
    if (action.kind === "new-file") {
      ok = await model.editFiles("write_file", { path: value, content: "" }, `Created ${value}.`);
      if (ok) void model.openPath(value, { force: true });
    } else if (action.kind === "new-folder") {
      ok = await model.editFiles("create_folder", { path: value }, `Created folder ${value}.`);
    } else if (target) {
      ok = await model.editFiles(
        "rename_path",
        { from: target, to: value },
        `Renamed ${target} to ${value}.`,
      );
      if (ok) model.selectPath(value);
    }
    if (ok) setAction(null);
  };

  return (
    <section className="pane files" aria-labelledby="files-heading">
      <header className="pane-header">
        <PaneToggle label="the files" />
        <h2 id="files-heading">Files</h2>
        <span className="count" aria-live="polite">
          {model.files.size} entries
        </span>
      </header>
      <div className="toolbar pane-toolbar" role="toolbar" aria-label="File actions">
        <button type="button" onClick={() => setAction({ kind: "new-file", value: folderOf(target) })}>
          New file
        </button>
        <button type="button" onClick={() => setAction({ kind: "new-folder", value: folderOf(target) })}>
          New folder
        </button>
        <button
          type="button"
          disabled={!target}
          onClick={() => target && setAction({ kind: "rename", value: target })}
        >
          Rename
        </button>
        <button type="button" disabled={!target} onClick={() => target && void remove(target)}>
          Delete
        </button>
      </div>
      {action && (
        <form className="inline-form" onSubmit={submit}>
          <label>
            {action.kind === "new-file"
              ? "New file path"
              : action.kind === "new-folder"
                ? "New folder path"
                : `Rename ${target} to`}
            <input
              // biome-ignore lint/a11y/noAutofocus: the person just asked for this field
              autoFocus
              value={action.value}
              onChange={(event) => setAction({ ...action, value: event.target.value })}
              onKeyDown={(event) => event.key === "Escape" && setAction(null)}
            />
          </label>
          <button type="submit">OK</button>
          <button type="button" onClick={() => setAction(null)}>
            Cancel
          </button>
        </form>
      )}
      {rows.length === 0 ? (
        <p className="empty">
          This workspace is empty. Create a file, open a folder, or run a tool that writes one.
        </p>
      ) : (
        <VirtualList
          items={rows}
          rowHeight={ROW_HEIGHT}
          label="Workspace files"
          role="tree"
          testId="file-tree"
          activeIndex={active}
          onActiveChange={setActive}
          onKey={onKey}
          rowId={(at) => `file-row-${at}`}
          renderRow={(row, at, isActive) => (
            <div
              id={`file-row-${at}`}
              role="treeitem"
              tabIndex={-1}
              aria-level={row.depth + 1}
              aria-expanded={row.type === "directory" ? row.expanded : undefined}
              aria-selected={row.path === selectedPath}
              data-path={row.path}
              className={`tree-row ${row.type} ${isActive ? "active" : ""} ${row.path === selectedPath ? "selected" : ""}`}
              style={{ paddingLeft: 8 + row.depth * 14 }}
              onClick={() => {
                setActive(at);
                activate(row);
              }}
              onKeyDown={() => undefined}
              title={row.path}
            >
              <span className="tree-icon" aria-hidden="true">
                {row.type === "directory" ? (row.expanded ? "▾" : "▸") : row.type === "symlink" ? "↪" : "·"}
              </span>
              {row.name}
            </div>
          )}
        />
      )}
    </section>
  );
}
