// @ts-check
/* Pure helpers for video time: what marks store, which frame a time shows, how to print it. */

/** A time in seconds rounded to the millisecond, as marks store it. @param {number} t */
export function roundMs(t) {
  return Math.round((t || 0) * 1000) / 1000;
}

/** Index of the frame shown at time t: frame k covers [k/fps, (k+1)/fps). Half a millisecond is
 * added first because times are kept to the millisecond (marks store roundMs(t), the clock prints
 * two decimals): a time set from k/fps and stored rounded (1/3 s -> 0.333) or reported a hair
 * below by the video (3.9996 s, printed "4.00") still names frame k, the frame it was set on.
 * @param {number} t @param {number} fps */
export function frameIndex(t, fps) {
  return Math.floor((t + 0.0005) * fps);
}

/** What the workspace prints for the frame shown at t: "frame N of M", N counted from 1 as people
 * count (frame index k is frame k + 1). M is the probe's frame count, so the last frame, index M - 1,
 * spans [duration - 1/fps, duration); at t = duration (a video played to its end) the element
 * still shows that last frame, hence the clamp to M. With no frame count known, "frame N" alone.
 * @param {number} t @param {number} fps @param {number} [frameCount] */
export function frameLabel(t, fps, frameCount) {
  const n = Math.max(0, frameIndex(t, fps)) + 1;
  if (!frameCount || frameCount < 1) return `frame ${n}`;
  return `frame ${Math.min(n, frameCount)} of ${frameCount}`;
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
