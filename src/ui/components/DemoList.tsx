import { getModel, useAppState } from "../model.ts";

/** The built-in demo sessions, each played with one click; `onPlay` runs first (a menu closes). */
export function DemoList({ onPlay }: { onPlay?: () => void }) {
  const model = getModel();
  const demos = useAppState((state) => state.demos);
  return (
    <ul className="lesson-list">
      {demos.map((demo) => (
        <li key={demo.id}>
          <button
            type="button"
            className="link"
            title={demo.description}
            data-demo={demo.id}
            onClick={() => {
              onPlay?.();
              void model.openDemo(demo.id);
            }}
          >
            ▶ {demo.title}
          </button>
        </li>
      ))}
    </ul>
  );
}
