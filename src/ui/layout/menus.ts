/** Space kept between an open menu and the window's edge. */
const MARGIN = 8;

/** Moves an open menu's body sideways so all of it is inside the window (a menu near the right edge opens leftwards). */
function placeInView(menu: HTMLDetailsElement): void {
  const body = menu.querySelector<HTMLElement>(":scope > .menu-body");
  if (!body) return;
  body.style.translate = "";
  if (!menu.open) return;
  const box = body.getBoundingClientRect();
  const room = document.documentElement.clientWidth - MARGIN;
  const shift =
    box.right > room
      ? Math.max(room - box.right, MARGIN - box.left)
      : box.left < MARGIN
        ? MARGIN - box.left
        : 0;
  if (shift !== 0) body.style.translate = `${Math.round(shift)}px 0`;
}

/** Keeps every menu (a `details.menu`) inside the window as it opens and as the window is resized. */
export function keepMenusInView(): () => void {
  const onToggle = (event: Event) => {
    if (event.target instanceof HTMLDetailsElement && event.target.classList.contains("menu"))
      placeInView(event.target);
  };
  const onResize = () => {
    for (const menu of document.querySelectorAll<HTMLDetailsElement>("details.menu[open]")) placeInView(menu);
  };
  // toggle does not bubble; it is seen on its way down.
  document.addEventListener("toggle", onToggle, true);
  window.addEventListener("resize", onResize);
  return () => {
    document.removeEventListener("toggle", onToggle, true);
    window.removeEventListener("resize", onResize);
  };
}
