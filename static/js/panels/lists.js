// @ts-check
/* The workspace side panel's lists: one <li> per mark and per item. Pure DOM building, no requests. */

import { badge, el } from "../lib/dom.js";
import { factWords } from "../lib/facts.js";

/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {import("../lib/types.js").Item} Item */
/** @typedef {{uid: string, reasons: string[], comment: string, time?: number|null}} Feedback */

/** @type {Record<string, string>} */
export const TASK_LABELS = {
  target_visibility: "Target Visibility", scene_association: "Scene Association", zone_counting: "Zone Counting",
  event_geolocalization: "Event Geo-localization", trajectory_matching: "Trajectory Matching",
  temporal_grounding: "Temporal Grounding", relative_distance: "Relative Distance",
  relative_direction: "Relative Direction", occlusion_attribution: "Occlusion Attribution",
  spatiotemporal_ordering: "Spatiotemporal Ordering", region_interaction: "Region Interaction",
  region_reachability: "Region Reachability",
};
/** @type {Record<string, string>} */
const KIND_ICONS = { point: "●", polygon: "⬠", ellipse: "◯", polyline: "↝" };

const secs = (/** @type {number} */ t) => Number(t).toFixed(2) + " s";

/** @param {Mark} mark */
export function timeText(mark) {
  if (mark.time_end === null || mark.time_end === undefined) return "t = " + secs(mark.time_start);
  return Number(mark.time_start).toFixed(2) + "–" + secs(mark.time_end);
}

/** @param {Mark} mark */
function visibleText(mark) {
  const v = (mark.facts || {}).visible;
  return v === true ? "yes" : v === false ? "no" : "unset";
}

/** @param {Mark} mark @param {(id: number) => string|undefined} [labelOf] */
function factsText(mark, labelOf) {
  const f = mark.facts || {};
  const parts = [];
  if (f.first_seen_s !== undefined && f.first_seen_s !== null) parts.push("first seen " + secs(f.first_seen_s));
  if (f.count !== undefined && f.count !== null) parts.push("count " + f.count);
  if (Array.isArray(f.occlusion) && f.occlusion.length) {
    parts.push("occlusion: " + factWords(f.occlusion, labelOf));
  }
  return parts.join(" · ");
}

/**
 * How a mark's entry looks and what it offers. A locked mark belongs to an item in review or
 * approved: the API refuses edits (409).
 * @typedef {object} MarkEntryOptions
 * @property {boolean} editable
 * @property {boolean} showFacts
 * @property {number} pick where the mark is among those picked for the next item (0-based), or -1
 * @property {boolean} current
 * @property {boolean} selected
 * @property {boolean} locked
 * @property {boolean} pending
 * @property {boolean} hidden
 * @property {boolean} highlighted
 * @property {Feedback[]|undefined} feedback
 * @property {(id: number) => string|undefined} [labelOf] another mark's label, to name it in a relation
 * @property {string} [image] the name of the satellite image it is drawn on ("" with one image)
 * @property {boolean} [onImage] drawn on the image the map shows now (else a click switches to its image)
 */

/** @param {Mark} mark @param {MarkEntryOptions} opts */
export function markEntry(mark, opts) {
  const top = el("div", { class: "mk-top" },
    el("span", { class: "badge kind", title: mark.kind }, (KIND_ICONS[mark.kind] || "") + " " + (mark.kind === "polyline" ? "trajectory" : mark.kind)),
    el("span", { class: "mk-label", title: mark.label }, mark.label || "(no label)"));
  if (opts.feedback && opts.feedback.length) {
    top.append(el("span", { class: "badge state-rejected mk-flag", title: opts.feedback.map((f) => f.uid + ": " + f.reasons.join("; ")).join("\n") }, "✗ rejected"));
  }
  if (opts.pending) top.append(el("span", { class: "mk-pending", title: "Not saved on the server yet" }, "unsaved"));
  if (mark.draft) top.append(el("span", { class: "mk-pending mk-draft", title: "Drawn by the tracker: check it, then Confirm (no item can use it before)" }, "draft"));
  if (opts.editable && opts.locked) {
    top.append(el("span", { class: "mk-lock", title: "Part of an item in review or approved; it cannot change now" }, "locked"));
  } else if (opts.editable) {
    top.append(el("button", { class: "mk-del", type: "button", title: "Delete this mark (Delete)", "aria-label": "Delete mark",
      dataset: { action: "delete" } }, "×"));
  }
  const facts = opts.showFacts ? factsText(mark, opts.labelOf) : "";
  const meta = el("div", { class: "mk-meta" },
    el("span", { class: "mk-time" }, timeText(mark)),
    mark.kind === "polyline" && (mark.vertex_times || []).length ? el("span", {}, (mark.vertex_times || []).length + " timed vertices") : null,
    opts.showFacts ? el("span", { class: "mk-visible" }, "visible: " + visibleText(mark)) : null,
    facts ? el("span", { class: "mk-facts" }, facts) : null,
    opts.image ? el("span", { class: "mk-image", dataset: { testid: "mark-image" }, title: "The satellite image this mark is drawn on" }, "on " + opts.image) : null,
    el("span", { class: "mono" }, mark.id > 0 ? "#" + mark.id : "new"));
  const offImage = opts.onImage === false;
  const classes = [opts.current ? "current" : "dim", opts.selected ? "selected" : "", opts.highlighted ? "highlight" : "",
    opts.hidden ? "concealed" : "", opts.pending ? "pending" : "", offImage ? "other-image" : ""];
  const li = el("li", {
    class: classes.join(" ").replace(/\s+/g, " ").trim(),
    dataset: { markId: mark.id, kind: mark.kind, label: mark.label, image: mark.satellite_image ?? "" },
    title: offImage ? `Drawn on ${opts.image}: click to show that image, select this mark and seek the video to it`
      : "Click to select this mark and seek the video to it",
  }, top, meta);
  for (const f of opts.feedback || []) {
    li.append(el("div", { class: "mk-feedback" },
      el("strong", {}, f.uid + ": "), f.reasons.join("; "), f.comment ? el("em", {}, " “" + f.comment + "”") : null,
      typeof f.time === "number" ? el("a", { href: "#", class: "fb-time", dataset: { seek: f.time } }, " at " + f.time.toFixed(2) + " s") : null));
  }
  if (opts.editable) li.append(markActions(mark, opts));
  return li;
}

/** The editing row of a mark's entry: visible?, retime, and picking it for the next item.
 * @param {Mark} mark @param {MarkEntryOptions} opts */
function markActions(mark, opts) {
  const select = el("select", { class: "mk-visible-edit", "aria-label": "Visible in video?", disabled: opts.locked,
    dataset: { action: "visible" } },
    ["", "yes", "no"].map((v) => el("option", { value: v, selected: visibleText(mark) === (v || "unset") },
      v ? "visible: " + v : "visible: unset")));
  const picked = opts.pick >= 0;
  return el("div", { class: "mk-actions" }, select,
    opts.locked ? null : el("button", { class: "btn small", type: "button", dataset: { action: "retime" },
      title: "Replace this mark's time with the time anchor of the editor (instant at cursor, or the start/end you set)" },
    "Use anchor time"),
    el("button", { class: "btn small mk-pick" + (picked ? " on" : ""), type: "button", "aria-pressed": String(picked),
      dataset: { action: "pick", testid: "pick" },
      title: picked ? "Take this mark out of the next item" : "Add this mark to the next item (the order you pick in is the order the question uses)" },
    picked ? `item #${opts.pick + 1} ×` : "+ item"));
}

/** One checkbox per label present, to hide or show its marks on the map, timeline and list.
 * @param {Map<string, number>} counts @param {Set<string>} hidden */
export function labelFilter(counts, hidden) {
  return [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([label, n]) =>
    el("label", { class: "chip" + (hidden.has(label) ? " off" : ""), title: (hidden.has(label) ? "Show" : "Hide") + " marks labelled " + label },
      el("input", { type: "checkbox", checked: !hidden.has(label), dataset: { label } }), label + " ", el("span", { class: "muted" }, String(n))));
}

/** Where an item stands beyond its state: stale (and why), replaced, its model view being drawn.
 * @param {Item} item */
function itemFlags(item) {
  const flags = [];
  if (item.replaced_by) flags.push(el("span", { class: "badge" }, "replaced by skm-" + String(item.replaced_by).padStart(6, "0")));
  else if (item.stale) flags.push(el("span", { class: "badge stale", dataset: { testid: "stale" } }, "stale"));
  const view = item.model_view;
  if (view && view.state !== "succeeded") {
    flags.push(el("span", { class: "badge", title: view.error || "" },
      view.state === "failed" ? "model view failed: " + view.error : `model view ${view.state}…`));
  }
  return flags.length ? el("div", { class: "it-flags" }, ...flags) : null;
}

const withdrawButton = () => el("button", { class: "btn small danger withdraw-item", type: "button",
  dataset: { action: "withdraw", testid: "withdraw-item" },
  title: "Give this item up: it leaves review for good (its reviews stay on its record)" }, "Withdraw");

/** @param {Item} item @param {{editable: boolean, recordUrl?: string, refusal?: string, image?: string, selected?: boolean}} opts
 *  image: the name of the satellite image its marks are on ("" leaves it out: a scene with one);
 *  selected: its checkbox for the bulk actions (an editable list has one per item) */
export function itemEntry(item, opts) {
  const view = item.model_view;
  const li = el("li", { dataset: { itemId: item.id, state: item.state, stale: item.stale ? "1" : "", revision: item.revision || 1 },
    class: opts.selected ? "chosen" : null },
    el("div", { class: "mk-top" },
      opts.editable ? el("input", { type: "checkbox", class: "it-select", checked: Boolean(opts.selected),
        "aria-label": "Select " + item.uid, dataset: { action: "select", testid: "item-select" } }) : null,
      el("span", { class: "mono small" }, item.uid),
      (item.revision || 1) > 1 ? el("span", { class: "small muted it-rev", title: "revision" }, "rev " + item.revision) : null,
      el("span", { class: "it-task small" }, TASK_LABELS[item.task] || item.task),
      badge(item.state || "")),
    itemFlags(item),
    item.stale && item.stale_reason && !item.replaced_by ? el("div", { class: "it-stale", dataset: { testid: "stale-reason" } }, item.stale_reason) : null,
    el("p", { class: "it-q item-question" }, item.question),
    el("div", { class: "it-meta" },
      el("span", {}, "Answer: ", el("strong", { class: "item-answer" }, item.answer)),
      item.options && item.options.length ? el("span", {}, "Options: " + item.options.join(" / ")) : null,
      el("span", {}, "Marks: " + (item.mark_ids || []).map((id) => "#" + id).join(", ")),
      opts.image ? el("span", { class: "it-image", dataset: { testid: "item-image" } }, "Image: " + opts.image) : null,
      item.state !== "draft" ? el("span", { title: "approvals · rejections" }, "✓ " + (item.approvals || 0) + " · ✗ " + (item.rejections || 0)) : null),
    view && view.image_url ? el("a", { class: "it-view", href: view.image_url, target: "_blank", rel: "noopener",
      title: "The model view: what a model is given for this item" + (view.segment_s ? ` (video ${view.segment_s[0]}–${view.segment_s[1]} s)` : "") },
    el("img", { src: view.image_url, alt: "Model view of " + item.uid, loading: "lazy", dataset: { testid: "model-view" } })) : null);
  // Drafts are submitted, or compiled again when a mark changed; a rejected item is revised (its next
  // revision, reviewed again); earlier revisions and their reviews are on the item's record page.
  const record = opts.recordUrl ? opts.recordUrl.replace("/0/", "/" + item.id + "/") : null;
  const history = record && (item.state === "rejected" || (item.revision || 1) > 1)
    ? el("a", { class: "btn small", href: record, target: "_blank", rel: "noopener" }, "History") : null;
  let actions = [];
  if (opts.editable && item.state === "draft" && !item.replaced_by) {
    actions = [
      !item.stale ? el("button", { class: "btn small primary submit-item", type: "button",
        dataset: { action: "submit", testid: "submit-item" } }, "Submit for review") : null,
      item.stale ? el("button", { class: "btn small primary", type: "button", dataset: { action: "recompile", testid: "recompile" },
        title: "A fresh draft of the same task from the same marks, as they are now" }, "Recompile") : null,
      // a revision of a rejected item can be given up too
      (item.revision || 1) > 1 ? withdrawButton() : null,
    ];
  } else if (opts.editable && item.state === "rejected" && !item.replaced_by) {
    actions = [el("button", { class: "btn small primary revise-item", type: "button", dataset: { action: "revise", testid: "revise-item" },
      title: "Compile this item again from its marks as they are now, as its next revision" }, "Revise"),
    withdrawButton()];
  }
  if (actions.length || history) li.append(el("div", { class: "mk-actions" }, ...actions, history));
  if (opts.refusal) li.append(el("div", { class: "field-error it-refusal", role: "alert", dataset: { testid: "item-refusal" } }, opts.refusal));
  return li;
}
