// @ts-check
/* Review overlays: marks used by rejected items carry the reviewers' reasons and comment (badge
 * in the list, red dashed outline on the map); `?item=<id>` highlights the marks of the item under
 * review; and the CVAA retrieval previews (where each frame looks on the map, with the footprint
 * from the best source the scene has), drawn by the map as the cursor moves. */

import { api, urlFor } from "../lib/api.js";
import { el } from "../lib/dom.js";
import { TASK_LABELS } from "./lists.js";

/** @typedef {import("../workspace/state.js").Workspace} Workspace */
/** @typedef {import("./lists.js").Feedback} Feedback */
/** @typedef {Feedback & {itemId: number, anchorMark: number|null}} ServerFeedback */

/** Reviewer feedback the server rendered in #feedback. @returns {ServerFeedback[]} */
export function readFeedback() {
  return [...document.querySelectorAll("#feedback .fb[data-item-id]")].map((n) => {
    const node = /** @type {HTMLElement} */ (n);
    const comment = node.querySelector(".fb-comment");
    let text = "";
    if (comment) {
      const copy = /** @type {HTMLElement} */ (comment.cloneNode(true));
      copy.querySelectorAll("a").forEach((a) => a.remove());  // "on mark #12", "at 4.20 s"
      text = (copy.textContent || "").trim().replace(/^“|”$/g, "");
    }
    return {
      itemId: Number(node.dataset.itemId), uid: node.dataset.itemUid || "#" + node.dataset.itemId,
      reasons: [...node.querySelectorAll(".fb-reasons li")].map((li) => (li.textContent || "").trim()),
      comment: text, anchorMark: node.dataset.anchorMark ? Number(node.dataset.anchorMark) : null,
      time: node.dataset.anchorTime ? Number(node.dataset.anchorTime) : null,
    };
  });
}

/** The banner over the panel for the item under review. @param {number} id @param {import("../lib/types.js").Item} item */
function itemBanner(id, item) {
  const ids = item.mark_ids || [];
  return [
    el("h3", {}, "Item under review"),
    el("div", {}, el("span", { class: "mono small" }, item.uid || "#" + id), " ", el("span", { class: "small" }, TASK_LABELS[item.task] || item.task || "")),
    item.question ? el("p", { class: "it-q" }, item.question) : null,
    el("div", { class: "small muted" }, ids.length
      ? `Its ${ids.length} mark${ids.length === 1 ? " is" : "s are"} highlighted in purple: ${ids.map((m) => "#" + m).join(", ")}`
      : "This item's marks are not listed for your role."),
  ];
}

/** One line under the map on what the CVAA layer can show. @param {any} data */
function cvaaStatus(data) {
  const frames = /** @type {any[]} */ (data.frames || []);
  const boxes = frames.filter((f) => f.cvaa).length;
  const placed = frames.filter((f) => f.footprint).length;
  const parts = [];
  if (boxes) parts.push(`CVAA boxes for ${boxes}/${frames.length} keyframes (shown when significant at ${data.significance}${data.calibrated ? ` and p(hit) ≥ ${Number(data.min_confidence).toFixed(2)}` : ", uncalibrated model"})`);
  else if (!data.checkpoint) parts.push("CVAA: no model yet");
  else parts.push("CVAA: previews " + (data.job && data.job.state ? data.job.state : "not computed"));
  if (placed) parts.push(`placed ${placed}/${frames.length}`);
  else parts.push("placements " + (data.placements_job && data.placements_job.state ? data.placements_job.state : "not computed"));
  return parts.join(" · ");
}

export class ReviewPanel {
  /** @param {Workspace} ws */
  constructor(ws) {
    this.ws = ws;
    this.feedback = readFeedback();
  }

  /** Recompute which marks carry feedback once the items (and their mark ids) are known. */
  applyFeedback() {
    const ws = this.ws;
    /** @type {Map<number, Feedback[]>} */
    const byMark = new Map();
    const add = (/** @type {number} */ id, /** @type {Feedback} */ f) => {
      const list = byMark.get(id) || [];
      if (!list.some((x) => x.uid === f.uid && x.comment === f.comment && x.reasons.join() === f.reasons.join())) list.push(f);
      byMark.set(id, list);
    };
    for (const f of this.feedback) {
      const item = ws.items.get(f.itemId);
      for (const id of (item && item.mark_ids) || []) add(id, f);
      if (f.anchorMark) add(f.anchorMark, f);
    }
    ws.feedback = byMark;
    if (ws.map) ws.map.setFlags(byMark);
    ws.render();
  }

  /** The item under review (?item=<id>): its marks are highlighted and framed. The page was told
   * which item API this user's role reads (data-item-url). */
  async highlightItem() {
    const ws = this.ws;
    const id = Number(new URLSearchParams(location.search).get("item"));
    if (!id) return;
    let item = null;
    try { item = await api.get(urlFor(ws.cfg.itemUrl, id)); } catch (err) { /* not visible to this user: said below */ }
    const banner = /** @type {HTMLElement} */ (document.getElementById("review-banner"));
    if (!item) {
      banner.replaceChildren(el("strong", {}, `Item #${id} `), "is not available to you.");
      banner.classList.remove("hidden");
      return;
    }
    const ids = item.mark_ids || [];
    ws.highlighted = new Set(ids);
    banner.dataset.itemId = String(id);
    banner.replaceChildren(...itemBanner(id, item).filter((n) => n !== null));
    banner.classList.remove("hidden");
    // The item's marks are drawn on one image: show that one.
    const first = ids.map((/** @type {number} */ m) => ws.store.get(m)).find(Boolean);
    const imageId = item.satellite_image || (first ? first.satellite_image : null);
    if (imageId) ws.showImage(imageId);
    if (ws.map) { ws.map.setHighlight(ids); ws.map.fitTo(ids); }
    ws.render();
    const earliest = ids.map((/** @type {number} */ m) => ws.store.get(m)).filter(Boolean)
      .sort((/** @type {any} */ a, /** @type {any} */ b) => a.time_start - b.time_start)[0];
    if (earliest) ws.cursor.seek(earliest.time_start);
  }

  /** CVAA previews of every keyframe on the image the map shows, fetched once per image; the map
   * picks the frame for the cursor. */
  async loadCvaa() {
    const ws = this.ws;
    const status = document.getElementById("cvaa-status");
    const imageId = ws.imageId;
    if (!ws.map || !ws.cfg.cvaaUrl || !imageId) return;
    try {
      const data = await api.get(ws.cfg.cvaaUrl + "?image=" + imageId);
      if (ws.imageId !== imageId) return;  // switched meanwhile: that image's answer draws
      ws.map.setCvaa(data.frames, data.placement_min_confidence);
      if (status) status.textContent = cvaaStatus(data);
    } catch (err) {
      if (status) status.textContent = "CVAA previews unavailable";
    }
  }
}
