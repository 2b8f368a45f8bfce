/* Filmstrip thumbnails for the timeline: the scene's WebVTT thumbnails track (cues point at cells
 * of one sprite, `filmstrip.jpg#xywh=x,y,w,h`), or the keyframes API when there is no track.
 * render() fills a strip with as many thumbnails as fit, each showing the frame at its slot's time. */
(function () {
  "use strict";
  const { api, el } = window.Skymark;

  function vttTime(text) {
    const parts = text.trim().split(":").map(Number);
    return parts.reduce((acc, v) => acc * 60 + v, 0);
  }

  /** Cues of a WebVTT thumbnails track: [{start, end, src, xywh: [x, y, w, h] | null}]. */
  function parseVtt(text, baseUrl) {
    const cues = [];
    for (const block of text.replace(/\r/g, "").split(/\n\n+/)) {
      const lines = block.split("\n").filter((l) => l.trim());
      const timing = lines.findIndex((l) => l.includes("-->"));
      if (timing < 0 || !lines[timing + 1]) continue;
      const [a, b] = lines[timing].split("-->");
      const [ref, frag] = lines[timing + 1].trim().split("#xywh=");
      cues.push({
        start: vttTime(a), end: vttTime(b.trim().split(/\s+/)[0]),
        src: new URL(ref, new URL(baseUrl, location.href)).href,
        xywh: frag ? frag.split(",").map(Number) : null,
      });
    }
    return cues.sort((p, q) => p.start - q.start);
  }

  /** The frames to show: the sprite track when the pipeline built one, else the keyframes. */
  async function loadFrames({ vttUrl, keyframesUrl, duration }) {
    if (vttUrl) {
      try {
        const res = await fetch(vttUrl, { credentials: "same-origin" });
        if (res.ok) {
          const cues = parseVtt(await res.text(), vttUrl);
          if (cues.length) return { source: "sprite", frames: cues };
        }
      } catch (err) { /* fall back to the keyframes below */ }
    }
    const list = await api.get(keyframesUrl);
    return {
      source: "keyframes",
      frames: list.map((k, i) => ({ start: k.time_s, end: i + 1 < list.length ? list[i + 1].time_s : Math.max(duration, k.time_s), src: k.url, xywh: null })),
    };
  }

  function frameAt(frames, t) {
    let hit = frames[0];
    for (const f of frames) { if (f.start <= t + 1e-3) hit = f; else break; }
    return hit;
  }

  /** Fill `strip` with thumbnails across [0, duration]: one slot per thumbnail width. */
  function render(strip, frames, duration) {
    const width = strip.clientWidth, height = strip.clientHeight;
    if (!frames.length || !width || !height || !duration) { strip.replaceChildren(); return; }
    const first = frames.find((f) => f.xywh) || null;
    const aspect = first ? first.xywh[2] / first.xywh[3] : 16 / 9;
    const count = Math.max(1, Math.floor(width / (height * aspect)));
    const slot = width / count;
    // A sprite is a grid of equal cells: its size follows from the cells' far corners.
    const sheetW = Math.max(...frames.map((f) => (f.xywh ? f.xywh[0] + f.xywh[2] : 0)));
    const sheetH = Math.max(...frames.map((f) => (f.xywh ? f.xywh[1] + f.xywh[3] : 0)));
    const nodes = [];
    for (let k = 0; k < count; k++) {
      const t = ((k + 0.5) * duration) / count;
      const f = frameAt(frames, t);
      const style = `left:${k * slot}px;width:${Math.ceil(slot)}px`;
      if (f.xywh) {
        const [x, y, w, h] = f.xywh;
        const scale = Math.max(height / h, slot / w);
        const bx = -x * scale - (w * scale - slot) / 2, by = -y * scale - (h * scale - height) / 2;
        nodes.push(el("div", {
          class: "tl-thumb", title: `${f.start.toFixed(2)} s`,
          style: `${style};background-image:url("${f.src}");background-size:${sheetW * scale}px ${sheetH * scale}px;background-position:${bx}px ${by}px`,
        }));
      } else {
        nodes.push(el("div", { class: "tl-thumb", style, title: `${f.start.toFixed(2)} s` },
          el("img", { src: f.src, alt: "", loading: "lazy", draggable: "false" })));
      }
    }
    strip.replaceChildren(...nodes);
  }

  window.Skymark.filmstrip = { parseVtt, loadFrames, render, frameAt };
})();
