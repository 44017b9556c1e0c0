import { proxy } from "comlink";
import { useEffect, useState } from "react";
import type { InstalledPackage, InstallProgress } from "../../sandbox/embedded/python/pypi.ts";
import { getModel, message } from "../model.ts";

/**
 * The embedded Python's packages: what is installed, and installing more from PyPI (online, once;
 * kept in this browser for every workspace). pytest is the usual one.
 */
export function PythonPackages() {
  const api = getModel().host.api;
  const [installed, setInstalled] = useState<InstalledPackage[] | null>(null);
  const [names, setNames] = useState("pytest");
  const [progress, setProgress] = useState<InstallProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void api.python.list().then(setInstalled, (failure) => setError(message(failure)));
  }, [api]);

  const install = async () => {
    const wanted = names.split(/[\s,]+/u).filter(Boolean);
    if (wanted.length === 0) return;
    setBusy(true);
    setError(null);
    try {
      setInstalled(await api.python.install(wanted, proxy(setProgress)));
    } catch (failure) {
      setError(
        `${message(failure)}. Installing needs the internet (pypi.org); a workspace can also bring its packages in .venv/lib/python3.13/site-packages.`,
      );
    } finally {
      setBusy(false);
    }
  };
  const clear = async () => {
    setBusy(true);
    try {
      await api.python.clear();
      setInstalled([]);
      setProgress(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="python-packages" data-testid="python-packages">
      <h3>Python packages</h3>
      <p>
        <code>python3</code> is CPython 3.13 (WebAssembly) with its standard library; <code>unittest</code>{" "}
        works offline. Pure-Python packages such as pytest are installed from PyPI once and kept in this
        browser.
      </p>
      <ul data-testid="python-installed">
        {installed === null ? (
          <li>Reading…</li>
        ) : installed.length === 0 ? (
          <li>None installed.</li>
        ) : (
          installed.map((item) => (
            <li key={item.name}>
              {item.name} {item.version}
            </li>
          ))
        )}
      </ul>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void install();
        }}
      >
        <label>
          Packages{" "}
          <input
            data-testid="python-install-names"
            value={names}
            onChange={(event) => setNames(event.target.value)}
            disabled={busy}
          />
        </label>{" "}
        <button type="submit" data-testid="python-install" disabled={busy}>
          Install from PyPI
        </button>{" "}
        <button type="button" onClick={() => void clear()} disabled={busy || !installed?.length}>
          Remove all
        </button>
      </form>
      {progress && (
        <p aria-live="polite" data-testid="python-progress">
          {progress.message} ({progress.done}/{progress.total})
        </p>
      )}
      {error && (
        <p className="error" role="alert" data-testid="python-error">
          {error}
        </p>
      )}
    </section>
  );
}
