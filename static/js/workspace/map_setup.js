// @ts-check
/* The satellite map of the workspace, built from what the server put on #workspace: the image or
 * its tile pyramid, the georeference, and (when the user may edit) reshaping of the selection. */

import { byId, jsonScript } from "../lib/dom.js";
import { WorkspaceMap } from "../map/map_edit.js";

/** @typedef {import("./state.js").Workspace} Workspace */

/** The map, or null when the scene has no satellite image. @param {Workspace} ws */
export function setupMap(ws) {
  const cfg = ws.cfg;
  const target = document.getElementById("map");
  if (!ws.imageId || !target) return null;
  const map = new WorkspaceMap(target, {
    width: Number(cfg.imageWidth), height: Number(cfg.imageHeight), url: cfg.imageUrl || "", isCurrent: ws.isCurrent,
    tiles: cfg.tilesUrl
      ? { url: cfg.tilesUrl.replace(/TILE$/, `{TileGroup}/{z}-{x}-{y}.${cfg.tileFormat || "jpg"}`), tileSize: Number(cfg.tileSize) }
      : null,
    georef: jsonScript("georef-data", null),
    // Selecting a mark that is not "now" brings the video to it; a current one keeps the cursor.
    onSelect: (id) => {
      const m = id === null ? null : ws.store.get(id);
      ws.select(id, { seek: !!m && !ws.isCurrent(m) });
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
