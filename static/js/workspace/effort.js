// @ts-check
/* The annotator's active time: seconds the page is focused and in use (input in the last 60 s),
 * counted in the browser and booked on the item the work ends in (sent with compile, submit and
 * recompile; annotator/compiling/services.py adds it to the item). EffortMeter is pure (a clock is
 * passed in), so node tests can drive it; watchActivity ties it to the page. */

// Without input for this long the person is away (reading mail, at lunch): the time stops counting.
export const IDLE_AFTER_MS = 60_000;
// The server takes at most this much in one report (MAX_EFFORT_REPORT_S).
export const MAX_REPORT_S = 4 * 3600;

export class EffortMeter {
  /** @param {() => number} now milliseconds */
  constructor(now) {
    this.now = now;
    this.focused = true;
    this.lastInput = -Infinity;
    this.lastTick = now();
    this.ms = 0;
  }

  /** Count the time since the last call: while focused, up to a minute after the last input. */
  tick() {
    const t = this.now();
    const from = this.lastTick;
    this.lastTick = t;
    if (!this.focused) return;
    const until = Math.min(t, this.lastInput + IDLE_AFTER_MS);
    if (until > from) this.ms += until - from;
  }

  /** A key, click, scroll or pointer move. */
  input() { this.tick(); this.lastInput = this.lastTick; }

  /** The page gained or lost focus (another tab, another window, a minimised browser). @param {boolean} focused */
  focus(focused) { this.tick(); this.focused = focused; }

  /** Seconds counted so far, to one decimal. */
  peek() { this.tick(); return Math.min(MAX_REPORT_S, Math.round(this.ms / 100) / 10); }

  /** Seconds counted since the last take(), to one decimal; counting starts again from zero. */
  take() { const s = this.peek(); this.ms = 0; return s; }

  /** Put back seconds a report could not deliver (the request failed), so they go with the next. @param {number} s */
  giveBack(s) { this.ms += s * 1000; }
}

/** "3:07" for a count of seconds; "1:02:03" past the hour. @param {number} s */
export function clockText(s) {
  const t = Math.floor(s);
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

/** Feed the meter from the page: input events, focus and visibility, a tick a second for the clock.
 * @param {EffortMeter} meter @param {(seconds: number) => void} [onSecond] */
export function watchActivity(meter, onSecond) {
  const input = () => meter.input();
  for (const type of ["keydown", "pointerdown", "pointermove", "wheel", "input"]) {
    window.addEventListener(type, input, { passive: true, capture: true });
  }
  const focused = () => meter.focus(document.visibilityState === "visible" && document.hasFocus());
  document.addEventListener("visibilitychange", focused);
  window.addEventListener("focus", focused);
  window.addEventListener("blur", focused);
  focused();
  setInterval(() => { if (onSecond) onSecond(meter.peek()); }, 1000);
}
