import {
  type KeyboardEvent,
  type ReactNode,
  type UIEvent,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from "react";

interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  /** Accessible name of the list. */
  label: string;
  role: "tree" | "listbox";
  activeIndex: number;
  onActiveChange(index: number): void;
  /** Enter / Space / Left / Right on the active row, for the owner to handle. */
  onKey?(key: string, index: number): boolean;
  renderRow(item: T, index: number, active: boolean): ReactNode;
  rowId(index: number): string;
  /** Keep the last row in view as rows are added (a live log). */
  follow?: boolean;
  testId?: string;
}

const OVERSCAN = 8;

/**
 * Renders only the rows in view, so 10,000 files or a long log scroll as fast as ten. Keyboard:
 * the list is one tab stop; arrows, Home, End, PageUp and PageDown move the active row.
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, rowHeight, activeIndex, onActiveChange } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 400 });
  const atBottom = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => setView({ top: element.scrollTop, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when rows are added, to keep following the end
  useEffect(() => {
    const element = scroller.current;
    if (!props.follow || !element || !atBottom.current) return;
    element.scrollTop = element.scrollHeight;
  }, [items.length, props.follow]);

  useEffect(() => {
    const element = scroller.current;
    if (!element || activeIndex < 0) return;
    const top = activeIndex * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight)
      element.scrollTop = top + rowHeight - element.clientHeight;
  }, [activeIndex, rowHeight]);

  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let index = first; index < last; index++) {
    rows.push(
      <div key={index} className="virtual-row" style={{ top: index * rowHeight, height: rowHeight }}>
        {props.renderRow(items[index]!, index, index === activeIndex)}
      </div>,
    );
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, Math.floor(view.height / rowHeight) - 1);
    const move = (index: number) => {
      event.preventDefault();
      if (items.length > 0) onActiveChange(Math.max(0, Math.min(items.length - 1, index)));
    };
    switch (event.key) {
      case "ArrowDown":
        return move(activeIndex + 1);
      case "ArrowUp":
        return move(activeIndex - 1);
      case "Home":
        return move(0);
      case "End":
        return move(items.length - 1);
      case "PageDown":
        return move(activeIndex + page);
      case "PageUp":
        return move(activeIndex - page);
      default:
        if (activeIndex >= 0 && props.onKey?.(event.key, activeIndex)) event.preventDefault();
    }
  };

  const common = {
    ref: scroller,
    className: "virtual-list",
    "aria-label": props.label,
    "aria-activedescendant":
      activeIndex >= 0 && activeIndex < items.length ? props.rowId(activeIndex) : undefined,
    tabIndex: 0,
    "data-testid": props.testId,
    "data-pane-focus": "",
    onKeyDown,
    onScroll: (event: UIEvent<HTMLDivElement>) => {
      const element = event.currentTarget;
      atBottom.current = element.scrollTop + element.clientHeight >= element.scrollHeight - rowHeight;
      setView({ top: element.scrollTop, height: element.clientHeight });
    },
  };
  const space = (
    <div className="virtual-space" style={{ height: items.length * rowHeight }}>
      {rows}
    </div>
  );
  return props.role === "tree" ? (
    <div role="tree" {...common}>
      {space}
    </div>
  ) : (
    <div role="listbox" {...common}>
      {space}
    </div>
  );
}
