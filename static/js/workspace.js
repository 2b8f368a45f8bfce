/* Workspace controller: wires the time cursor (the video), the map, the timeline, the mark store
 * (autosave queue), undo/redo, the side panel and the keyboard together. The pieces live in
 * workspace_*.js; this file owns the shared state `ws` and the actions shortcuts and buttons call. */
(function () {
  "use strict";
  const S = window.Skymark;
  const { ApiError } = S;
  const { markEntry, labelFilter } = S.lists;
  const G = S.geom;

  const root = document.getElementById("workspace");
  const cfg = root.dataset;
  const $ = (id) => document.getElementById(id);
  const jsonScript = (id, fallback) => {
    try { return $(id) ? JSON.parse($(id).textContent) : fallback; } catch (err) { return fallback; }
  };
  const hiddenKey = `skymark:hidden-labels:${cfg.sceneId}`;
  function readJson(text, fallback) { try { return JSON.parse(text) || fallback; } catch (err) { return fallback; } }

  const ws = {
    cfg, $,
    editable: cfg.editable === "1",
    canListItems: cfg.canListItems === "1",
    showFacts: cfg.showFacts === "1",
    imageId: cfg.imageId ? Number(cfg.imageId) : null,
    labels: (jsonScript("label-set", []) || []).filter((l) => typeof l === "string"),
    tasks: jsonScript("ws-tasks", []) || [],
    items: new Map(),
    feedback: new Map(),
    highlighted: new Set(),
    hiddenLabels: new Set(readJson(localStorage.getItem(hiddenKey), [])),
    selectedId: null,
    tool: "none",
    map: null,
  };
  ws.cursor = new S.TimeCursor($("video"), { fps: Number(cfg.fps) || 25, duration: Number(cfg.duration) || 0 });
  ws.store = new S.MarkStore({
    marksUrl: cfg.marksUrl,
    markUrl: (id) => cfg.markUrl.replace("/0/", "/" + id + "/"),
    storageKey: `skymark:pending:${cfg.sceneId}:${cfg.userId}`,
  });
  ws.history = new S.History(ws.store);
  ws.isLocked = () => false;  // replaced by the items module

  // ---- status line ------------------------------------------------------------------------
  const statusEl = $("status");
  ws.setStatus = (state, text) => {
    statusEl.dataset.state = state;
    statusEl.textContent = text;
    statusEl.title = text;
  };
  ws.fail = (err) => ws.setStatus("error", "Error: " + (err instanceof ApiError ? err.message : String(err)));
  const isCurrent = (mark) => G.isCurrentAt(mark, ws.cursor.t);
  const selectedMark = () => (ws.selectedId === null ? null : ws.store.get(ws.selectedId));

  // ---- map --------------------------------------------------------------------------------
  if (ws.imageId && $("map")) {
    ws.map = new S.WorkspaceMap($("map"), {
      width: Number(cfg.imageWidth), height: Number(cfg.imageHeight), url: cfg.imageUrl, isCurrent,
      tiles: cfg.tilesUrl
        ? { url: cfg.tilesUrl.replace(/TILE$/, `{TileGroup}/{z}-{x}-{y}.${cfg.tileFormat || "jpg"}`), tileSize: Number(cfg.tileSize) }
        : null,
      georef: jsonScript("georef-data", null),
      // Selecting a mark that is not "now" brings the video to it; a current one keeps the cursor.
      onSelect: (id) => { const m = id === null ? null : ws.store.get(id); ws.select(id, { seek: !!m && !isCurrent(m) }); },
    });
    ws.map.trackPointer((xy) => {
      let text = "";
      if (xy) {
        text = `x ${xy[0].toFixed(0)}  y ${xy[1].toFixed(0)} px`;
        const ll = ws.map.latLonOf(xy[0], xy[1]);
        if (ll) text += `  ·  ${ll[0].toFixed(6)}, ${ll[1].toFixed(6)}`;
      }
      $("cursor-px").textContent = text;
    });
    if (ws.editable) {
      ws.map.enableEditing({
        canModify: (id) => !!ws.store.get(id) && !ws.isLocked(id),
        onModified: (id, geometry) => ws.actions.reshape(id, geometry),
      });
    }
    ws.map.setHiddenLabels(ws.hiddenLabels);
  }

  ws.timeline = new S.Timeline({
    cursor: ws.cursor,
    onSelect: (id) => { if (ws.tool !== "none") ws.setTool("none"); ws.select(id); },
  });

  // ---- rendering ---------------------------------------------------------------------------
  const marksList = $("marks-list");
  let renderQueued = false;
  ws.render = () => {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; renderNow(); });
  };

  function renderNow() {
    const order = (m) => (m.id > 0 ? m.id : 1e12 - m.id);  // unsaved marks last, in drawing order
    const marks = ws.store.all().sort((a, b) => order(a) - order(b));
    marksList.replaceChildren(...marks.map((m) => markEntry(m, {
      editable: ws.editable, showFacts: ws.showFacts, tasks: ws.tasks, current: isCurrent(m), selected: m.id === ws.selectedId,
      locked: ws.isLocked(m.id), pending: ws.store.isPending(m.id), hidden: ws.hiddenLabels.has(m.label),
      highlighted: ws.highlighted.has(m.id), feedback: ws.feedback.get(m.id),
    })));
    $("marks-count").textContent = String(marks.length);
    $("marks-empty").classList.toggle("hidden", marks.length > 0);
    const counts = new Map();
    marks.forEach((m) => counts.set(m.label, (counts.get(m.label) || 0) + 1));
    $("label-filter").replaceChildren(...(counts.size > 1 || ws.hiddenLabels.size ? labelFilter(counts, ws.hiddenLabels) : []));
    ws.timeline.renderMarks(marks, {
      selectedId: ws.selectedId, highlighted: ws.highlighted, flagged: ws.feedback, hidden: (m) => ws.hiddenLabels.has(m.label),
    });
    if (ws.editor) ws.editor.refresh();
  }

  // ---- time cursor ------------------------------------------------------------------------
  function onTime(t) {
    $("current-time").textContent = t.toFixed(2);
    $("frame-no").textContent = "frame " + ws.cursor.frame();
    $("play").textContent = ws.cursor.paused ? "▶ Play" : "❚❚ Pause";
    if (ws.map) ws.map.refresh(t);
    ws.timeline.update(t);
    for (const li of marksList.children) {
      const mark = ws.store.get(Number(li.dataset.markId));
      if (!mark) continue;
      const cur = isCurrent(mark);
      li.classList.toggle("current", cur);
      li.classList.toggle("dim", !cur);
    }
  }
  $("play").addEventListener("click", () => ws.cursor.toggle());
  $("frame-prev").addEventListener("click", () => ws.cursor.step(-1));
  $("frame-next").addEventListener("click", () => ws.cursor.step(1));
  [["jump-back-5", -5], ["jump-back-1", -1], ["jump-fwd-1", 1], ["jump-fwd-5", 5]]
    .forEach(([id, s]) => $(id).addEventListener("click", () => ws.cursor.jump(s)));
  $("rate").addEventListener("change", () => ws.cursor.setRate(Number($("rate").value)));
  $("video").addEventListener("loadedmetadata", () => {
    $("duration").textContent = ws.cursor.duration.toFixed(2);
    ws.timeline.layout();
  });
  $("video").addEventListener("click", () => ws.cursor.toggle());

  // ---- selection & tools --------------------------------------------------------------------
  ws.select = (id, { seek } = {}) => {
    id = id === null || id === undefined ? null : ws.store.resolve(id);
    if (id !== null && !ws.store.get(id)) id = null;
    ws.selectedId = id;
    if (ws.map) ws.map.select(id);
    for (const li of marksList.children) li.classList.toggle("selected", Number(li.dataset.markId) === id);
    const mark = selectedMark();
    if (ws.editor) { ws.editor.clearErrors(); ws.editor.refresh(); }
    ws.render();
    if (!mark) return;
    if (seek) ws.cursor.seek(mark.time_start);
    const li = marksList.querySelector(`li[data-mark-id="${id}"]`);
    if (li) li.scrollIntoView({ block: "nearest" });
  };

  const recording = $("recording");
  const toolCallbacks = {
    canStart: () => {
      const errors = ws.editor.draftErrors();
      const keys = Object.keys(errors);
      if (!keys.length) return null;
      ws.editor.showErrors(errors);
      return errors[keys[0]];
    },
    onEnd: (kind, geometry, extra) => ws.actions.createDrawn(kind, geometry, extra),
    onError: (msg) => {
      ws.setStatus("error", "Not drawn: " + msg);
      if (ws.tool === "polyline") { recording.textContent = msg; recording.classList.add("warn"); }
    },
    onProgress: (n, times) => {
      recording.classList.remove("warn");
      recording.textContent = n
        ? `Recording: ${n} ${n === 1 ? "vertex" : "vertices"} at ${times.map((t) => t.toFixed(2)).join(", ")} s — move the video on and click the next position; Enter finishes, Backspace removes the last, Esc cancels.`
        : "Trajectory: move the video to the first moment and click the target's position; each click takes the video time.";
    },
    now: () => ws.cursor.now(),
  };

  ws.setTool = (tool) => {
    if (!ws.editable || !ws.map) return;
    ws.tool = tool;
    if (tool !== "none" && ws.selectedId !== null) ws.select(null);
    document.querySelectorAll("#tools [data-tool]").forEach((b) => {
      b.classList.toggle("active", b.dataset.tool === tool);
      b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
    });
    ws.map.setTool(tool, toolCallbacks);
    recording.classList.toggle("hidden", tool !== "polyline");
    if (tool === "polyline") toolCallbacks.onProgress(0, []);
    if (ws.editor) ws.editor.refresh();
  };
  ws.drawingInProgress = () => ws.tool !== "none";
  document.querySelectorAll("#tools [data-tool]").forEach((b) => b.addEventListener("click", () => {
    // Clicking the trajectory tool again finishes the trajectory being recorded.
    if (b.dataset.tool === "polyline" && ws.tool === "polyline" && ws.map.recording()) ws.map.finishDrawing();
    else ws.setTool(b.dataset.tool);
  }));

  // ---- actions (buttons and shortcuts) -------------------------------------------------------
  const mayEdit = (id) => ws.editable && id !== null && ws.store.get(id) && !ws.isLocked(id);
  const flash = (text) => { if (text) ws.setStatus(statusEl.dataset.state === "conflict" ? "conflict" : "unsaved", text); };
  ws.actions = {
    toggle: () => ws.cursor.toggle(),
    step: (n) => ws.cursor.step(n),
    jump: (s) => ws.cursor.jump(s),
    tool: (t) => ws.setTool(t),
    fit: () => ws.map && ws.map.fit(),
    finish: () => ws.map && ws.map.finishDrawing(),
    backspace: () => ws.map && ws.map.removeLastPoint(),
    escape: () => {
      if (ws.map) ws.map.abortDrawing();
      if (ws.tool !== "none") ws.setTool("none"); else ws.select(null);
    },
    anchor: (which) => { if (ws.editable && ws.editor) ws.editor.anchor(which); },
    undo: () => { if (ws.editable) flash(ws.history.undo()); },
    redo: () => { if (ws.editable) flash(ws.history.redo()); },
    remove: (id = ws.selectedId) => {
      if (!mayEdit(id)) return;
      ws.history.remove(id);
      if (ws.selectedId === id) ws.select(null);
    },
    copy: () => {
      const m = selectedMark();
      if (!ws.editor || !m) return;
      const fields = {
        satellite_image: m.satellite_image, kind: m.kind, geometry: m.geometry, label: m.label, facts: m.facts || {},
        ...G.shiftedTo(m, ws.cursor.now()),
      };
      const errors = G.timeErrors(fields, ws.cursor.duration);
      if (Object.keys(errors).length) { ws.editor.showErrors(errors); return; }
      ws.select(ws.history.create(fields));
      ws.setStatus("unsaved", `Copied ${m.kind === "polyline" ? "trajectory" : m.kind} “${m.label}” to ${ws.cursor.now().toFixed(2)} s`);
    },
    createDrawn: (kind, geometry, extra) => {
      const d = ws.editor.draft();
      const fields = {
        satellite_image: ws.imageId, kind, geometry, label: d.label, time_start: d.time_start, time_end: d.time_end,
        vertex_times: [], facts: d.facts,
      };
      if (kind === "polyline") {
        const vt = extra.vertex_times;
        Object.assign(fields, { vertex_times: vt, time_start: vt[0], time_end: vt[vt.length - 1] });
      }
      const errors = { ...ws.editor.draftErrors(), ...G.geometryErrors(kind, geometry, ws.map.w, ws.map.h), ...G.timeErrors(fields, ws.cursor.duration) };
      if (Object.keys(errors).length) {
        ws.editor.showErrors(errors);
        ws.setStatus("error", "Not saved: " + Object.values(errors)[0]);
        return;
      }
      ws.editor.clearErrors();
      ws.history.create(fields);
      ws.editor.resetFacts();
    },
    reshape: (id, geometry) => {
      const mark = ws.store.get(id);
      if (!mark) return;
      const errors = G.geometryErrors(mark.kind, geometry, ws.map.w, ws.map.h);
      if (Object.keys(errors).length) {
        ws.map.setMark(mark);  // put the shape back as it was
        ws.editor.showErrors(errors);
        ws.setStatus("error", "Not saved: " + errors.geometry);
        return;
      }
      ws.history.update(id, { geometry });
    },
  };

  // ---- store events --------------------------------------------------------------------------
  ws.store.on("change", (id) => {
    const mark = ws.store.get(id);
    if (ws.map && mark && (mark.satellite_image === ws.imageId)) ws.map.setMark(mark);
    ws.render();
  });
  ws.store.on("remove", (id) => {
    if (ws.map) ws.map.removeMark(id);
    if (ws.selectedId === id) ws.select(null);
    ws.render();
  });
  ws.store.on("rekey", (oldId, newId) => {
    if (ws.map) ws.map.rekey(oldId, newId);
    if (ws.selectedId === oldId) ws.selectedId = newId;
    ws.render();
  });
  ws.store.on("status", (state, text) => ws.setStatus(state, text));
  ws.store.on("conflict", () => { if (ws.editor) ws.editor.showConflicts(); });
  ws.store.on("invalid", (id, errors) => {
    if (ws.tool === "none" && ws.selectedId !== id) ws.select(id);
    if (ws.editor) ws.editor.showErrors(errors);
  });
  ws.store.on("refused", (id, err) => ws.fail(err));
  ws.history.onChange(() => {
    if (!$("undo")) return;
    $("undo").disabled = !ws.history.canUndo;
    $("redo").disabled = !ws.history.canRedo;
  });
  if ($("undo")) {
    $("undo").addEventListener("click", () => ws.actions.undo());
    $("redo").addEventListener("click", () => ws.actions.redo());
  }

  // ---- list events ------------------------------------------------------------------------
  marksList.addEventListener("click", (ev) => {
    const li = ev.target.closest("li[data-mark-id]");
    if (!li) return;
    const id = Number(li.dataset.markId);
    const mark = ws.store.get(id);
    if (!mark) return;
    const action = ev.target.closest("[data-action]");
    const what = action ? action.dataset.action : null;
    if (what === "compile") { if (id > 0) ws.itemsApi.compile(id, action.dataset.task, action); }
    else if (what === "delete") ws.actions.remove(id);
    else if (what === "retime" && mayEdit(id) && ws.editor) {
      const d = ws.editor.draft();
      ws.history.update(id, { time_start: d.time_start, time_end: d.time_end });
    } else if (!what) {
      if (ws.tool !== "none") ws.setTool("none");
      ws.select(id, { seek: true });
      if (ws.map) ws.map.reveal(id);
    }
  });
  marksList.addEventListener("change", (ev) => {
    if (ev.target.dataset.action !== "visible") return;
    const id = Number(ev.target.closest("li[data-mark-id]").dataset.markId);
    const mark = ws.store.get(id);
    if (!mayEdit(id)) return;
    const facts = { ...(mark.facts || {}) };
    if (ev.target.value === "") delete facts.visible; else facts.visible = ev.target.value === "yes";
    ws.history.update(id, { facts });
  });
  $("label-filter").addEventListener("change", (ev) => {
    const label = ev.target.dataset.label;
    if (label === undefined) return;
    if (ev.target.checked) ws.hiddenLabels.delete(label); else ws.hiddenLabels.add(label);
    try { localStorage.setItem(hiddenKey, JSON.stringify([...ws.hiddenLabels])); } catch (err) { /* private mode */ }
    if (ws.map) ws.map.setHiddenLabels(ws.hiddenLabels);
    ws.render();
  });
  document.querySelectorAll("[data-focus-mark]").forEach((a) => a.addEventListener("click", (ev) => {
    ev.preventDefault();
    const id = Number(a.dataset.focusMark);
    ws.select(id, { seek: true });
    if (ws.map) ws.map.reveal(id);
  }));

  // ---- start ------------------------------------------------------------------------------
  S.split.init();
  if (ws.editable) S.editor.init(ws);
  S.review.init(ws);
  S.items.init(ws);
  S.keys.init(ws);
  ws.cursor.subscribe(onTime);
  ws.timeline.loadFilmstrip({ vttUrl: cfg.filmstripVtt || null, keyframesUrl: cfg.keyframesUrl });
  const hashT = /(?:^#|&)t=([\d.]+)/.exec(location.hash);
  if (hashT) ws.cursor.seek(Number(hashT[1]));

  ws.ready = (async () => {
    let n = 0;
    try {
      n = await ws.store.load();
      for (const m of ws.store.all()) if (ws.map && m.satellite_image === ws.imageId) ws.map.setMark(m);
    } catch (err) { ws.fail(err); }
    if (statusEl.dataset.state === "idle") {
      ws.setStatus("idle", (ws.editable ? "Ready · " : "Read-only · ") + n + " mark" + (n === 1 ? "" : "s"));
    }
    ws.render();
    await ws.itemsApi.load();
    ws.review.applyFeedback();
    await ws.review.highlightItem();
    await ws.review.loadCvaa();
    renderNow();  // "ready" means drawn: do not leave the last render to an animation frame
    root.dataset.ready = "1";
  })();

  // Handy in the console and for browser tests: Skymark.workspace.pixelOf(x, y) gives the
  // position inside #map of an image pixel (API convention, y down).
  S.workspace = {
    get marks() { return ws.store.marks; },
    items: ws.items, map: ws.map, store: ws.store, history: ws.history, cursor: ws.cursor, ws,
    pixelOf: (x, y) => (ws.map ? ws.map.pixelOf(x, y) : null),
    dotOf: (id) => (ws.map ? ws.map.dotOf(ws.store.resolve(id)) : null),
    cvaaBox: () => (ws.map ? ws.map.cvaaBox() : null),
    select: (id) => ws.select(id),
  };
})();
