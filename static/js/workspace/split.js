// @ts-check
/* The video | map split: drag the handle (or focus it and use ← →) to resize; the video's share
 * of the width is remembered in localStorage. Double-click puts it back. */

export const KEY = "skymark:workspace-split";
const DEFAULT = 0.38, MIN = 0.18, MAX = 0.75;

/** @param {number} f */
const clamp = (f) => Math.max(MIN, Math.min(MAX, f));

/** @returns {{readonly fraction: number}|null} */
export function setupSplit() {
  const split = document.getElementById("split");
  const handle = document.getElementById("splitter");
  if (!split || !handle) return null;
  const apply = (/** @type {number} */ f) => {
    split.style.setProperty("--split", (clamp(f) * 100).toFixed(2) + "%");
    handle.setAttribute("aria-valuenow", String(Math.round(clamp(f) * 100)));
  };
  const stored = Number(localStorage.getItem(KEY));
  let fraction = stored > 0 ? clamp(stored) : DEFAULT;
  apply(fraction);
  const remember = () => { try { localStorage.setItem(KEY, String(fraction)); } catch (err) { /* private mode */ } };

  handle.addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    handle.setPointerCapture(ev.pointerId);
    split.classList.add("resizing");
    const box = split.getBoundingClientRect();
    const move = (/** @type {PointerEvent} */ e) => { fraction = clamp((e.clientX - box.left) / box.width); apply(fraction); };
    const up = () => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
      split.classList.remove("resizing");
      remember();
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
  });
  handle.addEventListener("dblclick", () => { fraction = DEFAULT; apply(fraction); remember(); });
  handle.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    ev.preventDefault();
    ev.stopPropagation();  // not a time jump
    fraction = clamp(fraction + (ev.key === "ArrowLeft" ? -0.02 : 0.02));
    apply(fraction);
    remember();
  });
  return { get fraction() { return fraction; } };
}
