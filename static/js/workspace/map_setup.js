// @ts-check
/* The satellite map of the workspace, built from what the server put in json_script "ws-images":
 * the image or its tile pyramid, the georeference, and (when the user may edit) reshaping of the
 * selection. A scene with several images shows one at a time (images.js switches). */

import { byId } from "../lib/dom.js";
import { WorkspaceMap } from "../map/map_edit.js";

/** @typedef {import("./state.js").Workspace} Workspace */
/** @typedef {import("./state.js").ImageInfo} ImageInfo */

/** The map's options for one image (annotator/marking/views.py image_config). @param {ImageInfo} img */
export function imageMapOptions(img) {
  return {
    width: img.width, height: img.height, url: img.url,
    tiles: img.tiles
      ? { url: img.tiles.url.replace(/TILE$/, `{TileGroup}/{z}-{x}-{y}.${img.tiles.format || "jpg"}`), tileSize: Number(img.tiles.size) }
      : null,
    georef: img.georef || null,
  };
}

/** The map, or null when the scene has no satellite image. @param {Workspace} ws */
export function setupMap(ws) {
  const target = document.getElementById("map");
  const img = ws.image();
  if (!img || !target) return null;
  const map = new WorkspaceMap(target, {
    ...imageMapOptions(img), isCurrent: ws.isCurrent,
    // Selecting a mark that is not "now" brings the video to it; a current one keeps the cursor.
    onSelect: (id) => {
      const m = id === null ? null : ws.store.get(id);
      ws.select(id, { seek: !!m && !ws.isCurrent(m) });
    },
    onPlacement: (note) => {
      const line = document.getElementById("placement-status");
      if (line) line.textContent = note;
    },
  });
  map.trackPointer((/** @type {number[]|null} */ xy) => {
    let text = "";
    if (xy) {
      text = `x ${xy[0].toFixed(0)}  y ${xy[1].toFixed(0)} px`;
      const ll = map.latLonOf(xy[0], xy[1]);
      if (ll) text += `  ·  ${ll[0].toFixed(6)}, ${ll[1].toFixed(6)}`;
    }
    byId("cursor-px").textContent = text;
  });
  if (ws.editable) {
    map.enableEditing({
      canModify: (id) => !!ws.store.get(id) && !ws.isLocked(id),
      onModified: (id, geometry) => ws.actions.reshape(id, geometry),
    });
  }
  map.setHiddenLabels(ws.hiddenLabels);
  return map;
}
