// @ts-check
/* Filmstrip thumbnails for the timeline: the scene's WebVTT thumbnails track (cues point at cells
 * of one sprite), or the keyframes API when the scene has no track or it cannot be read (the
 * page is told both URLs; the track is only named when the pipeline built one).
 * render() fills a strip with as many thumbnails as fit, each showing the frame at its slot's time. */

import { api, getAll } from "../lib/api.js";
import { el } from "../lib/dom.js";
import { frameAt, parseVtt } from "../lib/vtt.js";

/** @typedef {import("../lib/vtt.js").Frame} Frame */

/** The frames to show: the sprite track when the pipeline built one, else the keyframes.
 * @param {{vttUrl: string|null, keyframesUrl: string, duration: number}} opts
 * @returns {Promise<{source: "sprite"|"keyframes", frames: Frame[]}>} */
export async function loadFrames({ vttUrl, keyframesUrl, duration }) {
  if (vttUrl) {
    try {
      const res = await fetch(vttUrl, { credentials: "same-origin" });
      if (res.ok) {
        const cues = parseVtt(await res.text(), new URL(vttUrl, location.href).href);
        if (cues.length) return { source: "sprite", frames: cues };
      }
    } catch (err) { /* a track that cannot be read: the keyframes below still show the video */ }
  }
  /** @type {{time_s: number, url: string}[]} */
  const list = await getAll(api, keyframesUrl);
  return {
    source: "keyframes",
    frames: list.map((k, i) => ({ start: k.time_s, end: i + 1 < list.length ? list[i + 1].time_s : Math.max(duration, k.time_s), src: k.url, xywh: null })),
  };
}

/** One thumbnail: a sprite cell scaled to cover the slot, or a whole keyframe image.
 * @param {Frame} f @param {{left: number, slot: number, height: number, sheet: number[]}} box */
function thumb(f, { left, slot, height, sheet }) {
  const style = `left:${left}px;width:${Math.ceil(slot)}px`;
  if (!f.xywh) {
    return el("div", { class: "tl-thumb", style, title: `${f.start.toFixed(2)} s` },
      el("img", { src: f.src, alt: "", loading: "lazy", draggable: "false" }));
  }
  const [x, y, w, h] = f.xywh;
  const scale = Math.max(height / h, slot / w);
  const bx = -x * scale - (w * scale - slot) / 2, by = -y * scale - (h * scale - height) / 2;
  return el("div", {
    class: "tl-thumb", title: `${f.start.toFixed(2)} s`,
    style: `${style};background-image:url("${f.src}");background-size:${sheet[0] * scale}px ${sheet[1] * scale}px;background-position:${bx}px ${by}px`,
  });
}

/** Fill `strip` with thumbnails across [0, duration]: one slot per thumbnail width.
 * @param {HTMLElement} strip @param {Frame[]} frames @param {number} duration */
export function render(strip, frames, duration) {
  const width = strip.clientWidth, height = strip.clientHeight;
  if (!frames.length || !width || !height || !duration) { strip.replaceChildren(); return; }
  const first = frames.find((f) => f.xywh) || null;
  const aspect = first && first.xywh ? first.xywh[2] / first.xywh[3] : 16 / 9;
  const count = Math.max(1, Math.floor(width / (height * aspect)));
  const slot = width / count;
  // A sprite is a grid of equal cells: its size follows from the cells' far corners.
  const sheet = [
    Math.max(...frames.map((f) => (f.xywh ? f.xywh[0] + f.xywh[2] : 0))),
    Math.max(...frames.map((f) => (f.xywh ? f.xywh[1] + f.xywh[3] : 0))),
  ];
  const nodes = [];
  for (let k = 0; k < count; k++) {
    const f = frameAt(frames, ((k + 0.5) * duration) / count);
    nodes.push(thumb(f, { left: k * slot, slot, height, sheet }));
  }
  strip.replaceChildren(...nodes);
}
