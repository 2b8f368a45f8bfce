/* The one time cursor of the workspace: the drone video's currentTime. Transport (play/pause,
 * frame step, jumps, rate) goes through here, and everything time-dependent subscribes to it. */
(function () {
  "use strict";

  class TimeCursor {
    /** @param {HTMLVideoElement} video @param {{fps:number, duration:number}} opts */
    constructor(video, opts) {
      this.video = video;
      this.fps = opts.fps || 25;
      this.fallbackDuration = opts.duration || 0;
      this.listeners = [];
      this.raf = null;
      this.lastT = null;
      const notify = () => this.notify();
      ["timeupdate", "seeked", "seeking", "loadedmetadata", "durationchange", "pause", "play", "ratechange"]
        .forEach((ev) => video.addEventListener(ev, notify));
      video.addEventListener("play", () => this.loop());
    }

    /** Current time in seconds, rounded to the millisecond (what marks store). */
    now() { return Math.round((this.video.currentTime || 0) * 1000) / 1000; }
    get t() { return this.video.currentTime || 0; }
    get duration() {
      const d = this.video.duration;
      return Number.isFinite(d) && d > 0 ? d : this.fallbackDuration;
    }
    get paused() { return this.video.paused; }

    /** fn(t) after every change of time, play state or rate; called once at once. */
    subscribe(fn) { this.listeners.push(fn); fn(this.t); }

    notify() {
      const t = this.t;
      for (const fn of this.listeners) {
        try { fn(t); } catch (err) { console.warn("time listener failed", err); }  // one bad view must not stop the others
      }
    }

    loop() {
      if (this.raf) return;
      const tick = () => {
        this.raf = null;
        if (this.t !== this.lastT) { this.lastT = this.t; this.notify(); }
        if (!this.video.paused) this.raf = requestAnimationFrame(tick);
      };
      this.raf = requestAnimationFrame(tick);
    }

    seek(t) {
      const go = () => {
        const end = this.duration || t;
        this.video.currentTime = Math.max(0, Math.min(t, end));
        this.notify();
      };
      if (this.video.readyState >= 1) go(); else this.video.addEventListener("loadedmetadata", go, { once: true });
    }

    /** Step whole frames from the current frame (pauses first, as a frame step is for precision). */
    step(frames) {
      this.video.pause();
      const frame = this.frame();
      this.seek(Math.max(0, (frame + frames) / this.fps));
    }

    /** Index of the frame shown at the cursor (frame k covers [k/fps, (k+1)/fps)). */
    frame() { return Math.floor(this.t * this.fps + 1e-6); }

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

    setRate(rate) { this.video.playbackRate = rate; }
  }

  /** "1:05.33" or "5.33" for a time in seconds. */
  function clock(t) {
    t = Math.max(0, t || 0);
    const m = Math.floor(t / 60), s = t - m * 60;
    return m ? `${m}:${s.toFixed(2).padStart(5, "0")}` : t.toFixed(2);
  }

  window.Skymark.TimeCursor = TimeCursor;
  window.Skymark.clock = clock;
})();
