// @ts-check
/* The workspace page's entry module: builds the shared state, starts every part, then loads the
 * marks (replaying unsaved edits), the items and the review overlays. #workspace gets
 * data-ready="1" once all of that is drawn. */

import { byId } from "../lib/dom.js";
import { Composer } from "../panels/compose.js";
import { ItemsPanel } from "../panels/items.js";
import { ReviewPanel } from "../panels/review.js";
import { setupEditor } from "../panels/editor.js";
import { createActions } from "./actions.js";
import { setupAssist } from "./assist.js";
import { EffortMeter, watchActivity } from "./effort.js";
import { wireEvents } from "./events.js";
import { setupKeys } from "./keys.js";
import { setupMap } from "./map_setup.js";
import { setupSplit } from "./split.js";
import { setupImages } from "./images.js";
import { createWorkspace } from "./state.js";
import { Timeline } from "./timeline.js";
import { setupTools } from "./tools.js";
import { setupTransport } from "./transport.js";
import { followCursor, setupView } from "./view.js";

/** @typedef {import("./state.js").Workspace} Workspace */

/** Load what the page shows, in the order the overlays need it (items before their feedback).
 * @param {Workspace} ws */
async function load(ws) {
  let n = 0;
  try {
    n = await ws.store.load();
    for (const m of ws.store.all()) if (ws.map && m.satellite_image === ws.imageId) ws.map.setMark(m);
  } catch (err) { ws.fail(err); }
  if (byId("status").dataset.state === "idle") {
    ws.setStatus("idle", (ws.editable ? "Ready · " : "Read-only · ") + n + " mark" + (n === 1 ? "" : "s"));
  }
  ws.render();
  await ws.itemsPanel.load();
  ws.review.applyFeedback();
  await ws.review.highlightItem();
  await ws.review.loadCvaa();
  ws.renderNow();  // "ready" means drawn: do not leave the last render to an animation frame
  ws.root.dataset.ready = "1";
}

/** Handy in the console and for browser tests: Skymark.workspace.pixelOf(x, y) gives the
 * position inside #map of an image pixel (API convention, y down). @param {Workspace} ws */
function exposeForConsole(ws) {
  const g = /** @type {any} */ (window);
  g.Skymark = g.Skymark || {};
  g.Skymark.workspace = {
    get marks() { return ws.store.marks; },
    items: ws.items, map: ws.map, store: ws.store, history: ws.history, cursor: ws.cursor, ws,
    pixelOf: (/** @type {number} */ x, /** @type {number} */ y) => (ws.map ? ws.map.pixelOf(x, y) : null),
    dotOf: (/** @type {number} */ id) => (ws.map ? ws.map.dotOf(ws.store.resolve(id)) : null),
    cvaaBox: () => (ws.map ? ws.map.cvaaBox() : null),
    select: (/** @type {number|null} */ id) => ws.select(id),
    showImage: (/** @type {number} */ id) => ws.showImage(id),
    imageId: () => ws.imageId,
    compose: () => ws.compose,
    effort: () => ws.effort,
    assist: () => ws.assist,
    uncertainty: () => (ws.map ? ws.map.uncertaintyCircles() : []),
  };
}

function start() {
  const ws = createWorkspace(byId("workspace"));
  ws.actions = createActions(ws);
  setupView(ws);
  ws.map = setupMap(ws);
  setupImages(ws);
  ws.timeline = new Timeline({
    cursor: ws.cursor,
    onSelect: (id) => { if (ws.tool !== "none") ws.setTool("none"); ws.select(id); },
  });
  setupTools(ws);
  setupTransport(ws);
  wireEvents(ws);
  setupSplit();
  setupEditor(ws);
  ws.review = new ReviewPanel(ws);
  ws.itemsPanel = new ItemsPanel(ws);
  ws.effort = new EffortMeter(() => performance.now());
  if (ws.editable && document.getElementById("compose")) {
    const compose = new Composer(ws);
    ws.compose = compose;
    watchActivity(ws.effort, (s) => compose.showClock(s));
  }
  ws.assist = setupAssist(ws);
  setupKeys(ws);
  followCursor(ws);
  ws.timeline.loadFilmstrip({ vttUrl: ws.cfg.filmstripVtt || null, keyframesUrl: ws.cfg.keyframesUrl });
  const hashT = /(?:^#|&)t=([\d.]+)/.exec(location.hash);
  if (hashT) ws.cursor.seek(Number(hashT[1]));
  exposeForConsole(ws);
  load(ws);
}

start();
