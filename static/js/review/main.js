// @ts-check
/* The review item page and the adjudication page: the item's shapes drawn over the satellite
 * image, the video held to its segment, the keyboard (review/keys.js), the time taken, and the
 * "video time" button that reads the embedded workspace's cursor. */

import { drawShape, overlayScale } from "./overlay.js";
import { elapsedSeconds, reviewKeyAction } from "./keys.js";

const SVG = "http://www.w3.org/2000/svg";
const started = performance.now();

/** @param {string} tag @param {Record<string, string|number>} attrs */
function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** Draw the shapes the server listed (#mv-shapes) over the image, in its pixel coordinates. */
function drawOverlay() {
  const box = document.getElementById("mv-image");
  const data = document.getElementById("mv-shapes");
  if (!box || !data) return;
  const width = Number(box.dataset.width), height = Number(box.dataset.height);
  if (!width || !height) return;
  const { font, radius } = overlayScale(width, height);
  const layer = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "mv-overlay", "aria-hidden": "true" });
  for (const shape of JSON.parse(data.textContent || "[]")) {
    const drawn = drawShape(shape);
    if (!drawn) continue;
    const group = svg("g", { class: "mv-shape", "data-name": drawn.name });
    if (drawn.point) group.append(svg("circle", { cx: drawn.label[0], cy: drawn.label[1], r: radius }));
    else group.append(svg("path", { d: drawn.d, class: drawn.closed ? "closed" : "open" }));
    const text = svg("text", { x: drawn.label[0], y: drawn.label[1] - radius - 2, "font-size": font });
    text.textContent = drawn.name;
    group.append(text);
    layer.append(group);
  }
  box.append(layer);
}

/** A media fragment (#t=a,b) starts the video at a and pauses at b; seeking back before a is
 * the reviewer's choice and allowed. */
function holdSegment() {
  const video = /** @type {HTMLVideoElement|null} */ (document.getElementById("mv-video"));
  if (!video || !video.dataset.start) return;
  const start = Number(video.dataset.start);
  video.addEventListener("loadedmetadata", () => { if (video.currentTime < start) video.currentTime = start; });
}

/** The embedded workspace's video time, if it is loaded (same origin). @returns {number|null} */
function workspaceTime() {
  const frame = /** @type {HTMLIFrameElement|null} */ (document.getElementById("workspace-embed"));
  const video = frame && frame.contentDocument && frame.contentDocument.getElementById("video");
  return video ? Math.round(/** @type {HTMLVideoElement} */ (video).currentTime * 100) / 100 : null;
}

function wireForms() {
  const blind = /** @type {HTMLFormElement|null} */ (document.getElementById("blind-form"));
  if (blind) blind.addEventListener("submit", () => {
    /** @type {HTMLInputElement} */ (document.getElementById("answer_seconds")).value = String(elapsedSeconds(started, performance.now()));
  });
  const decision = /** @type {HTMLFormElement|null} */ (document.querySelector("#decision-form, #adjudication-form"));
  if (decision) {
    decision.addEventListener("submit", () => {
      const field = /** @type {HTMLInputElement|null} */ (document.getElementById("decision_seconds"));
      if (field) field.value = String(elapsedSeconds(started, performance.now()));
    });
    // Reasons only make sense for a rejection: grey them out for an approval.
    const box = /** @type {HTMLFieldSetElement|null} */ (document.getElementById("reasons-box"));
    decision.addEventListener("change", () => {
      const approve = /** @type {HTMLInputElement|null} */ (document.getElementById("decision-approve"));
      if (!box || !approve) return;
      box.disabled = approve.checked;
      box.classList.toggle("off", approve.checked);
      if (approve.checked) box.querySelectorAll("input").forEach((i) => { i.checked = false; });
    });
  }
  const now = document.getElementById("anchor-time-now");
  if (now) now.addEventListener("click", () => {
    const t = workspaceTime();
    if (t !== null) /** @type {HTMLInputElement} */ (document.getElementById("anchor_time_s")).value = String(t);
  });
}

/** @param {import("./keys.js").KeyAction} action */
function perform(action) {
  const page = /** @type {HTMLElement} */ (document.getElementById("review-page"));
  if (action.type === "next") { location.href = page.dataset.nextUrl || "/review/"; return; }
  if (action.type === "choose") {
    const radios = /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("input[name=blind_answer]"));
    radios[action.index].checked = true;
    radios[action.index].focus();
    return;
  }
  if (action.type === "answer") {
    const form = /** @type {HTMLFormElement|null} */ (document.getElementById("blind-form"));
    if (form && form.reportValidity()) form.requestSubmit();
    return;
  }
  const form = /** @type {HTMLFormElement|null} */ (document.getElementById("decision-form"));
  if (!form) return;
  const radio = /** @type {HTMLInputElement} */ (document.getElementById(action.type === "approve" ? "decision-approve" : "decision-reject"));
  radio.checked = true;
  radio.dispatchEvent(new Event("change", { bubbles: true }));
  // An approval needs nothing more; a rejection needs its reasons, so the focus goes there.
  if (action.type === "approve") form.requestSubmit();
  else /** @type {HTMLInputElement|null} */ (document.querySelector("#reasons-box input"))?.focus();
}

function wireKeys() {
  const page = document.getElementById("review-page");
  if (!page) return;
  document.addEventListener("keydown", (ev) => {
    const target = /** @type {HTMLElement} */ (ev.target);
    const typing = Boolean(target.closest("textarea, select, input[type=text], input[type=number]"));
    const stage = /** @type {import("./keys.js").Stage} */ (page.dataset.stage || "decided");
    const options = document.querySelectorAll("input[name=blind_answer][type=radio]").length;
    const action = reviewKeyAction(ev, stage, options, typing);
    if (!action) return;
    ev.preventDefault();
    perform(action);
  });
}

drawOverlay();
holdSegment();
wireForms();
wireKeys();
