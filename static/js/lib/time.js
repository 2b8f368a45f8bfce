// @ts-check
/* Pure helpers for video time: what marks store, which frame a time shows, how to print it. */

/** A time in seconds rounded to the millisecond, as marks store it. @param {number} t */
export function roundMs(t) {
  return Math.round((t || 0) * 1000) / 1000;
}

/** Index of the frame shown at time t: frame k covers [k/fps, (k+1)/fps). The epsilon keeps a
 * time set from k/fps (which floats may put a hair below) on frame k.
 * @param {number} t @param {number} fps */
export function frameIndex(t, fps) {
  return Math.floor(t * fps + 1e-6);
}

/** The start time of `frames` frames after the one shown at t (never before 0).
 * @param {number} t @param {number} fps @param {number} frames */
export function frameStepTime(t, fps, frames) {
  return Math.max(0, (frameIndex(t, fps) + frames) / fps);
}

/** t kept inside [0, duration]; with no known duration only the lower bound holds.
 * @param {number} t @param {number} duration */
export function clampTime(t, duration) {
  return Math.max(0, Math.min(t, duration || t));
}

/** "1:05.33" or "5.33" for a time in seconds. @param {number} t */
export function clock(t) {
  t = Math.max(0, t || 0);
  const m = Math.floor(t / 60), s = t - m * 60;
  return m ? `${m}:${s.toFixed(2).padStart(5, "0")}` : t.toFixed(2);
}
