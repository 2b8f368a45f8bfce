// @ts-check
/* WebVTT thumbnail tracks, as the media pipeline writes them: each cue names a cell of one sprite
 * (`filmstrip.jpg#xywh=x,y,w,h`). Pure: the caller gives the absolute URL of the track. */

/**
 * A thumbnail covering [start, end) seconds: a sprite cell (xywh) or a whole image (xywh null).
 * @typedef {{start: number, end: number, src: string, xywh: number[]|null}} Frame
 */

/** "00:01:02.500" or "01:02.5" -> seconds. @param {string} text */
export function vttTime(text) {
  const parts = text.trim().split(":").map(Number);
  return parts.reduce((acc, v) => acc * 60 + v, 0);
}

/** Cues of a WebVTT thumbnails track, sorted by start; image references resolve against trackUrl.
 * @param {string} text @param {string} trackUrl absolute URL of the track @returns {Frame[]} */
export function parseVtt(text, trackUrl) {
  const cues = [];
  for (const block of text.replace(/\r/g, "").split(/\n\n+/)) {
    const lines = block.split("\n").filter((l) => l.trim());
    const timing = lines.findIndex((l) => l.includes("-->"));
    if (timing < 0 || !lines[timing + 1]) continue;
    const [a, b] = lines[timing].split("-->");
    const [ref, frag] = lines[timing + 1].trim().split("#xywh=");
    cues.push({
      start: vttTime(a), end: vttTime(b.trim().split(/\s+/)[0]),
      src: new URL(ref, trackUrl).href,
      xywh: frag ? frag.split(",").map(Number) : null,
    });
  }
  return cues.sort((p, q) => p.start - q.start);
}

/** The frame shown at time t: the last one starting at or before t (the first before any).
 * @param {Frame[]} frames sorted by start @param {number} t */
export function frameAt(frames, t) {
  let hit = frames[0];
  for (const f of frames) { if (f.start <= t + 1e-3) hit = f; else break; }
  return hit;
}
