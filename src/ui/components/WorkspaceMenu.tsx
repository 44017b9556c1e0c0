import { type FormEvent, useRef, useState } from "react";
import { download } from "../download.ts";
import { getModel, message, useAppState } from "../model.ts";
import { canPickFolders, folderFromUpload, type OpenedFolder, pickFolder } from "../open-folder.ts";
import { STARTERS, seedFromStarter } from "../starters/index.ts";

/** Several named workspaces: switch, create from a starter, open a local folder, rename, delete, download. */
export function WorkspaceMenu() {
  const model = getModel();
  const workspace = useAppState((state) => state.workspace);
  const workspaces = useAppState((state) => state.workspaces);
  const [creating, setCreating] = useState(false);
  const [starter, setStarter] = useState("node");
  const [name, setName] = useState("");
  const [renaming, setRenaming] = useState<string | null>(null);
  const upload = useRef<HTMLInputElement>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const seed = seedFromStarter(starter, name.trim() || undefined);
    await model.createWorkspace(seed.name, seed.origin, seed.files);
    setCreating(false);
    setName("");
  };

  const opened = async (folder: OpenedFolder | null) => {
    if (!folder) return;
    await model.createWorkspace(folder.name, "folder", folder.files);
    model.notify(
      "ok",
      `Opened ${folder.name}: ${folder.count} files copied into the sandbox (the folder on disk is not changed).${
        folder.skipped.length > 0
          ? ` Skipped ${folder.skipped.slice(0, 5).join(", ")}${folder.skipped.length > 5 ? "…" : ""}.`
          : ""
      }`,
    );
  };

  const openFolder = async () => {
    try {
      if (canPickFolders()) await opened(await pickFolder());
      else upload.current?.click();
    } catch (error) {
      model.notify(
        "error",
        `Could not read the folder: ${message(error)}. Try a smaller folder, or pick it again.`,
      );
    }
  };

  if (!workspace) return null;
  return (
    <div className="workspace-menu">
      <label>
        Workspace
        <select
          value={workspace.id}
          title={workspace.name}
          onChange={(event) => void model.switchWorkspace(event.target.value)}
          data-testid="workspace-select"
        >
          {workspaces.map((item) => (
            <option key={item.id} value={item.id}>
              {item.name}
            </option>
          ))}
        </select>
      </label>
      <details className="menu" open={creating || renaming !== null ? true : undefined}>
        <summary>Workspace actions</summary>
        <div className="menu-body">
          {creating ? (
            <form onSubmit={(event) => void create(event)} className="stack">
              <fieldset>
                <legend>Start from</legend>
                {STARTERS.map((item) => (
                  <label key={item.id} className="radio">
                    <input
                      type="radio"
                      name="starter"
                      value={item.id}
                      checked={starter === item.id}
                      onChange={() => setStarter(item.id)}
                    />
                    <strong>{item.title}</strong> — {item.description}
                  </label>
                ))}
              </fieldset>
              <label>
                Name
                <input
                  value={name}
                  placeholder={STARTERS.find((item) => item.id === starter)?.title}
                  onChange={(event) => setName(event.target.value)}
                />
              </label>
              <div className="row">
                <button type="submit" className="primary" data-testid="create-workspace">
                  Create
                </button>
                <button type="button" onClick={() => setCreating(false)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : renaming !== null ? (
            <form
              className="stack"
              onSubmit={(event) => {
                event.preventDefault();
                void model.renameWorkspace(workspace.id, renaming).then(() => setRenaming(null));
              }}
            >
              <label>
                New name
                <input value={renaming} onChange={(event) => setRenaming(event.target.value)} />
              </label>
              <div className="row">
                <button type="submit" className="primary">
                  Rename
                </button>
                <button type="button" onClick={() => setRenaming(null)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : (
            <div className="stack">
              <button type="button" onClick={() => setCreating(true)} data-testid="new-workspace">
                New workspace…
              </button>
              <button type="button" onClick={() => void openFolder()}>
                Open local folder…
              </button>
              <button type="button" onClick={() => setRenaming(workspace.name)} className="ellipsis">
                Rename “{workspace.name}”…
              </button>
              <button
                type="button"
                onClick={() =>
                  void model.host.api.workspaces
                    .exportZip()
                    .then((zip) =>
                      download(`${workspace.name.replace(/[^\w.-]+/gu, "_")}.zip`, zip, "application/zip"),
                    )
                    .catch((error: unknown) =>
                      model.notify("error", `Could not build the zip: ${message(error)}`),
                    )
                }
              >
                Download as zip
              </button>
              <button
                type="button"
                className="danger ellipsis"
                onClick={() => {
                  if (
                    window.confirm(
                      `Delete the workspace “${workspace.name}” with its files and log? This cannot be undone.`,
                    )
                  )
                    void model.deleteWorkspace(workspace.id);
                }}
              >
                Delete “{workspace.name}”
              </button>
            </div>
          )}
        </div>
      </details>
      <input
        ref={upload}
        type="file"
        hidden
        multiple
        // @ts-expect-error webkitdirectory is not in React's input attributes, but every browser knows it
        webkitdirectory=""
        onChange={(event) => {
          const list = event.target.files;
          if (list) void folderFromUpload(list).then(opened);
          event.target.value = "";
        }}
      />
    </div>
  );
}
