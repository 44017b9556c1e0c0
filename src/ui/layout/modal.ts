import { type RefObject, useEffect } from "react";

/**
 * While `open`, the page behind a modal overlay is inert: Tab, F6 and the mouse stay in the dialog
 * (WAI-ARIA's modal dialog), and screen readers read only it. On close, focus goes back where it was,
 * or to `fallback()` when that control is gone or hidden (a menu closed over it).
 */
export function useModal(
  overlay: RefObject<HTMLElement | null>,
  open: boolean,
  fallback?: () => HTMLElement | null,
): void {
  useEffect(() => {
    const element = overlay.current;
    if (!open || !element?.parentElement) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // Only what this dialog made inert is given back (another modal may be open beneath it).
    const made = [...element.parentElement.children].filter(
      (sibling): sibling is HTMLElement =>
        sibling !== element && sibling instanceof HTMLElement && !sibling.inert,
    );
    for (const sibling of made) sibling.inert = true;
    return () => {
      for (const sibling of made) sibling.inert = false;
      const back =
        before && before !== document.body && before.isConnected && before.getClientRects().length > 0
          ? before
          : (fallback?.() ?? null);
      back?.focus();
    };
  }, [open, overlay, fallback]);
}

/** Whether a modal dialog is open, for page-wide shortcuts that must not act behind it. */
export const modalOpen = (): boolean => document.querySelector('[aria-modal="true"]') !== null;
