// @ts-check
/* The image switcher: a scene with several satellite images (an RGB and a panchromatic image of
 * the same place, say) shows one at a time. Each image has its own pixels, so a mark belongs to the
 * image it was drawn on: the map draws only the current image's marks, new marks go on it, and
 * selecting a mark of another image (list, timeline, feedback link) switches to that image first.
 * The time cursor, the selection and the hidden labels stay as they are. */

import { byId } from "../lib/dom.js";
import { imageMapOptions } from "./map_setup.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {import("./state.js").ImageInfo} ImageInfo */

/** "0.50 m/px · GeoTIFF tags" and the like, for the bar under the map. @param {ImageInfo} img */
export function imageFacts(img) {
  let text = `${img.name} · ${img.width}×${img.height} px`;
  if (img.gsd_m) text += ` · ${img.gsd_m.toFixed(2)} m/px`;
  if (img.georef_label) text += ` · ${img.georef_label}${img.rms_m !== null && img.rms_m !== undefined ? `, RMS ${img.rms_m.toFixed(2)} m` : ""}`;
  return text;
}

/** The switcher's buttons, the bar under the map and the header's provenance say which image shows.
 * @param {Workspace} ws @param {ImageInfo} img */
function showChosen(ws, img) {
  document.querySelectorAll("#image-switcher [data-image-id]").forEach((b) => {
    const on = Number(/** @type {HTMLElement} */ (b).dataset.imageId) === img.id;
    b.classList.toggle("active", on);
    b.setAttribute("aria-checked", String(on));
  });
  const facts = document.getElementById("image-facts");
  if (facts) facts.textContent = imageFacts(img);
  const note = document.getElementById("provenance-note");
  if (note) {
    byId("provenance-text").textContent = img.note;
    note.classList.toggle("hidden", !img.note);
  }
  // A reload (or a link passed on) opens on the same image.
  const url = new URL(location.href);
  url.searchParams.set("image", String(img.id));
  history.replaceState(history.state, "", url);
}

/** @param {Workspace} ws @param {number} id */
function showImage(ws, id) {
  const img = ws.images.find((i) => i.id === id);
  if (!img || !ws.map) return false;
  if (id === ws.imageId) return true;
  ws.imageId = id;
  const selected = ws.selectedMark();
  if (selected && selected.satellite_image !== id) ws.select(null);
  ws.map.setImage(imageMapOptions(img));
  for (const m of ws.store.all()) if (m.satellite_image === id) ws.map.setMark(m);
  ws.map.select(ws.selectedId);
  ws.map.refresh(ws.cursor.t);  // dim, trajectory dots at the cursor as before the switch
  showChosen(ws, img);
  ws.review.loadCvaa();
  ws.render();
  return true;
}

/** How many marks each image has, on its switcher button. @param {Workspace} ws */
export function renderImageCounts(ws) {
  if (ws.images.length < 2) return;
  /** @type {Map<number|null, number>} */
  const counts = new Map();
  for (const m of ws.store.all()) counts.set(m.satellite_image, (counts.get(m.satellite_image) || 0) + 1);
  document.querySelectorAll("#image-switcher [data-count-for]").forEach((node) => {
    const n = counts.get(Number(/** @type {HTMLElement} */ (node).dataset.countFor)) || 0;
    node.textContent = `· ${n} mark${n === 1 ? "" : "s"}`;
  });
}

/** The image's name, for lists that say which image a mark or an item is on. @param {Workspace} ws
 * @param {number|null|undefined} id */
export function imageName(ws, id) {
  const img = ws.images.find((i) => i.id === id);
  return img ? img.name : id === null || id === undefined ? "" : "image " + id;
}

/** Give ws its showImage() and wire the switcher. @param {Workspace} ws */
export function setupImages(ws) {
  ws.showImage = (id) => showImage(ws, id);
  const box = document.getElementById("image-switcher");
  if (!box) return;
  box.addEventListener("click", (ev) => {
    const button = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("[data-image-id]"));
    if (button) ws.showImage(Number(button.dataset.imageId));
  });
}
