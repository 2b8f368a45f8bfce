// @ts-check
/* The workspace's shared state `ws`: what the server told the page (#workspace data-*), the time
 * cursor, the mark store with its history, and the status line. The other modules add their
 * parts (map, timeline, editor, items, review, actions) as main.js starts them. */

import { ApiError, urlFor } from "../lib/api.js";
import { byId, jsonScript } from "../lib/dom.js";
import { isCurrentAt } from "../lib/geom.js";
import { TimeCursor } from "./cursor.js";
import { History } from "./history.js";
import { PendingBox, browserEnv } from "./pending.js";
import { MarkStore } from "./store.js";

/** @typedef {import("../lib/types.js").Mark} Mark */
/** @typedef {import("../lib/types.js").Item} Item */
/** @typedef {import("../panels/lists.js").Feedback} Feedback */

/**
 * The page's configuration, from the data-* attributes of #workspace (see workspace.html): the
 * URLs the page calls, with 0 where an id goes, and what this user may do here.
 * @typedef {object} Config
 * @property {string} sceneId
 * @property {string} userId
 * @property {string} sceneUrl
 * @property {string} marksUrl
 * @property {string} markUrl
 * @property {string} itemsUrl
 * @property {string} itemUrl the item API for this user's role (the item named by ?item=)
 * @property {string} itemSubmitUrl
 * @property {string} itemRecompileUrl
 * @property {string} itemEffortUrl
 * @property {string} itemsCheckUrl
 * @property {string} itemsPreviewUrl
 * @property {string} compileAllUrl
 * @property {string} videoUrl
 * @property {string} itemReviseUrl
 * @property {string} itemWithdrawUrl
 * @property {string} itemsBulkUrl submit, recompile or withdraw many items (POST {action, ids})
 * @property {string} [itemRecordUrl] an item's revisions and reviews (the author's and admins' page)
 * @property {string} keyframesUrl
 * @property {string} cvaaUrl CVAA previews of every keyframe (boxes and footprints)
 * @property {string} tracksUrl start tracking a target (assisted trajectories)
 * @property {string} tracksBatchUrl track every marked target of a label in a clip
 * @property {string} trackUrl a tracking job (0 where its id goes)
 * @property {string} trackCancelUrl
 * @property {string} markConfirmUrl confirm a draft trajectory (0 where the mark id goes)
 * @property {string} markTrackUrl the tracking job that drew a draft (0 where the mark id goes)
 * @property {string} [filmstripVtt] only when the pipeline built the thumbnails track
 * @property {string} editable "1" or ""
 * @property {string} canListItems
 * @property {string} showFacts
 * @property {string} fps
 * @property {string} duration
 * @property {string} frameCount the probe's frame count ("" until probed)
 * @property {string} [imageId] the image the map opens on
 */

/**
 * One satellite image of the scene (json_script "ws-images", annotator/marking/views.py).
 * @typedef {object} ImageInfo
 * @property {number} id
 * @property {string} name
 * @property {number} width
 * @property {number} height
 * @property {string} url the whole display image
 * @property {{url: string, size: number, format: string}|null} tiles the tile pyramid, with TILE where a tile's path goes
 * @property {any} georef the browser georeference, or null
 * @property {number|null} gsd_m metres per pixel, when georeferenced
 * @property {string} georef_kind
 * @property {string} georef_label how it is georeferenced, for people ("" when it is not)
 * @property {number|null} rms_m
 * @property {string} note where the picture comes from
 */

/**
 * @typedef {object} Workspace
 * @property {HTMLElement} root
 * @property {Config} cfg
 * @property {boolean} editable
 * @property {boolean} canListItems
 * @property {boolean} showFacts
 * @property {number|null} imageId the image the map shows now
 * @property {ImageInfo[]} images every satellite image of the scene
 * @property {() => ImageInfo|null} image the one the map shows now
 * @property {(id: number) => boolean} showImage switch the map to another image (false: no such image)
 * @property {string[]} labels the project's label set
 * @property {string[]} tasks the tasks items can be compiled for
 * @property {Map<number, Item>} items
 * @property {Map<number, Feedback[]>} feedback mark id -> feedback of rejected items that used it
 * @property {Set<number>} highlighted marks of the item under review
 * @property {Set<string>} hiddenLabels
 * @property {number|null} selectedId
 * @property {string} tool "none" or the drawing tool
 * @property {TimeCursor} cursor
 * @property {MarkStore} store
 * @property {History} history
 * @property {import("../map/map_edit.js").WorkspaceMap|null} map
 * @property {import("./timeline.js").Timeline} timeline
 * @property {import("../panels/editor.js").Editor|null} editor
 * @property {import("../panels/items.js").ItemsPanel} itemsPanel
 * @property {import("../panels/compose.js").Composer|null} compose the Items panel's maker, for annotators
 * @property {import("./effort.js").EffortMeter} effort active time since the last item
 * @property {import("../panels/review.js").ReviewPanel} review
 * @property {import("./keys.js").Help} help
 * @property {import("./actions.js").Actions} actions
 * @property {import("./assist.js").Assist|null} assist tracking a target into a draft trajectory (editable pages)
 * @property {(id: number) => boolean} isLocked part of an item in review or approved
 * @property {(mark: Mark) => boolean} isCurrent the mark's time anchor contains the cursor
 * @property {() => Mark|null} selectedMark
 * @property {(state: string, text: string) => void} setStatus
 * @property {(err: unknown) => void} fail
 * @property {() => void} render on the next animation frame
 * @property {() => void} renderNow
 * @property {(id: number|null, opts?: {seek?: boolean}) => void} select
 * @property {(tool: string) => void} setTool
 * @property {() => boolean} drawingInProgress
 * @property {() => void} saveHiddenLabels
 */

/** @param {string|null} text @param {any} fallback */
function parseJson(text, fallback) { try { return JSON.parse(text || "") || fallback; } catch (err) { return fallback; } }

/** The state every part of the page shares; nothing is drawn yet.
 * @param {HTMLElement} root #workspace @returns {Workspace} */
export function createWorkspace(root) {
  const cfg = /** @type {Config} */ (/** @type {unknown} */ (root.dataset));
  const hiddenKey = `skymark:hidden-labels:${cfg.sceneId}`;
  const cursor = new TimeCursor(byId("video"), { fps: Number(cfg.fps) || 25, duration: Number(cfg.duration) || 0, frameCount: Number(cfg.frameCount) || 0 });
  const store = new MarkStore({
    marksUrl: cfg.marksUrl,
    markUrl: (id) => urlFor(cfg.markUrl, id),
    box: new PendingBox(`skymark:pending:${cfg.sceneId}:${cfg.userId}`, browserEnv()),
    online: navigator.onLine,
    events: window,
  });
  // The other parts are added as main.js starts them.
  const ws = /** @type {Workspace} */ (/** @type {unknown} */ ({
    root, cfg, cursor, store,
    history: new History(store),
    editable: cfg.editable === "1",
    canListItems: cfg.canListItems === "1",
    showFacts: cfg.showFacts === "1",
    imageId: cfg.imageId ? Number(cfg.imageId) : null,
    images: jsonScript("ws-images", []) || [],
    showImage: () => false,  // images.js
    labels: (jsonScript("label-set", []) || []).filter((/** @type {unknown} */ l) => typeof l === "string"),
    tasks: jsonScript("ws-tasks", []) || [],
    items: new Map(),
    feedback: new Map(),
    highlighted: new Set(),
    hiddenLabels: new Set(parseJson(localStorage.getItem(hiddenKey), [])),
    selectedId: null,
    tool: "none",
    map: null,
    editor: null,
    compose: null,
    // The server says which marks an item in review or approved holds (mark.locked) and which of
    // those an edit copies for the author's drafts and rejected items (mark.copy_on_edit); the page
    // only reads them, so the rule lives in one place (annotator/compiling/lifecycle.py).
    isLocked: (/** @type {number} */ id) => {
      const mark = store.get(id);
      return Boolean(mark?.locked && !mark?.copy_on_edit);
    },
  }));
  ws.image = () => ws.images.find((i) => i.id === ws.imageId) || null;
  ws.isCurrent = (mark) => isCurrentAt(mark, cursor.t);
  ws.selectedMark = () => (ws.selectedId === null ? null : ws.store.get(ws.selectedId) || null);
  ws.saveHiddenLabels = () => {
    try { localStorage.setItem(hiddenKey, JSON.stringify([...ws.hiddenLabels])); } catch (err) { /* private mode */ }
  };
  const statusEl = byId("status");
  ws.setStatus = (state, text) => {
    statusEl.dataset.state = state;
    statusEl.textContent = text;
    statusEl.title = text;
  };
  ws.fail = (err) => ws.setStatus("error", "Error: " + (err instanceof ApiError ? err.message : String(err)));
  return ws;
}
