// @ts-check
/* The one time cursor of the workspace: the drone video's currentTime. Transport (play/pause,
 * frame step, jumps, rate) goes through here, and everything time-dependent subscribes to it. */

import { clampTime, frameIndex, frameLabel, frameStepTime, roundMs } from "../lib/time.js";

export class TimeCursor {
  /** @param {HTMLVideoElement} video @param {{fps: number, duration: number, frameCount?: number}} opts
   *  duration: the server's figure, used until the video has loaded its own; frameCount: the probe's */
  constructor(video, opts) {
    this.video = video;
    this.fps = opts.fps || 25;
    this.frameCount = opts.frameCount || 0;
    this.fallbackDuration = opts.duration || 0;
    /** @type {((t: number) => void)[]} */
    this.listeners = [];
    /** @type {number|null} */
    this.raf = null;
    /** @type {number|null} */
    this.lastT = null;
    const notify = () => this.notify();
    ["timeupdate", "seeked", "seeking", "loadedmetadata", "durationchange", "pause", "play", "ratechange"]
      .forEach((ev) => video.addEventListener(ev, notify));
    video.addEventListener("play", () => this.loop());
  }

  /** Current time in seconds, rounded to the millisecond (what marks store). */
  now() { return roundMs(this.video.currentTime); }
  get t() { return this.video.currentTime || 0; }
  get duration() {
    const d = this.video.duration;
    return Number.isFinite(d) && d > 0 ? d : this.fallbackDuration;
  }
  get paused() { return this.video.paused; }

  /** fn(t) after every change of time, play state or rate; called once at once.
   * @param {(t: number) => void} fn */
  subscribe(fn) { this.listeners.push(fn); fn(this.t); }

  notify() {
    const t = this.t;
    for (const fn of this.listeners) {
      try { fn(t); } catch (err) { console.warn("time listener failed", err); }  // one bad view must not stop the others
    }
  }

  /** While playing, notify every animation frame: timeupdate alone fires only ~4 times a second. */
  loop() {
    if (this.raf) return;
    const tick = () => {
      this.raf = null;
      if (this.t !== this.lastT) { this.lastT = this.t; this.notify(); }
      if (!this.video.paused) this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  /** @param {number} t seconds; kept inside the video (waits for its metadata if needed) */
  seek(t) {
    const go = () => {
      this.video.currentTime = clampTime(t, this.duration);
      this.notify();
    };
    if (this.video.readyState >= 1) go(); else this.video.addEventListener("loadedmetadata", go, { once: true });
  }

  /** Step whole frames from the current frame (pauses first, as a frame step is for precision).
   * @param {number} frames */
  step(frames) {
    this.video.pause();
    this.seek(frameStepTime(this.t, this.fps, frames));
  }

  /** Index of the frame shown at the cursor. */
  frame() { return frameIndex(this.t, this.fps); }

  /** "frame N of M" for the frame shown at the cursor (1-based; lib/time.js says why). */
  frameLabel() { return frameLabel(this.t, this.fps, this.frameCount); }

  /** @param {number} seconds */
  jump(seconds) { this.seek(this.t + seconds); }

  toggle() {
    if (this.video.paused) {
      if (this.duration && this.t >= this.duration - 1e-3) this.seek(0);
      const p = this.video.play();
      if (p && p.catch) p.catch(() => {});  // autoplay policies; the button state follows the video
    } else {
      this.video.pause();
    }
  }

  /** @param {number} rate */
  setRate(rate) { this.video.playbackRate = rate; }
}
