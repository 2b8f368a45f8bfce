/* The mark editor in the side panel: label (restricted to the project's label set), time anchor,
 * task facts, field messages (the page's own checks and the server's 400s) and the conflict box.
 * With a mark selected (select tool) every change is saved; otherwise the fields are the draft
 * the next drawn shape takes. */
(function () {
  "use strict";
  const { el, errorText } = window.Skymark;
  const { timeErrors } = window.Skymark.geom;
  const FACT_FIELDS = ["visible", "first_seen_s", "count", "occlusion", "note"];

  function init(ws) {
    const $ = (id) => document.getElementById(id);
    const root = $("editor");
    const labels = ws.labels;
    const anchor = { start: null, end: null };  // draft: null start = instant at the cursor
    if (!root) return null;  // no satellite image: nothing can be drawn or edited here
    const api = { draft, draftErrors, showErrors, clearErrors, refresh, anchor: setAnchor, labelError, showConflicts, canonicalLabel, resetFacts };
    ws.editor = api;

    $("label-options").replaceChildren(...labels.map((l) => el("option", { value: l })));
    const selected = () => (ws.tool === "none" && ws.selectedId !== null ? ws.store.get(ws.selectedId) : null);
    const r3 = (v) => Math.round(v * 1000) / 1000;

    function canonicalLabel(value) {
      const wanted = value.trim().replace(/\s+/g, " ").toLowerCase();
      return labels.find((l) => l.toLowerCase() === wanted) || value.trim();
    }
    function labelError(value) {
      if (!value.trim()) return "choose a label from the project's label set first";
      if (labels.length && !labels.some((l) => l.toLowerCase() === value.trim().replace(/\s+/g, " ").toLowerCase())) {
        return `“${value.trim()}” is not in the project's label set (${labels.slice(0, 6).join(", ")}, …)`;
      }
      return null;
    }

    // ---- facts ---------------------------------------------------------------------------
    function factValue(key) {
      if (key === "visible") { const v = $("mark-visible").value; return v === "" ? undefined : v === "yes"; }
      if (key === "first_seen_s") { const v = $("fact-first-seen").value; return v === "" ? undefined : r3(Number(v)); }
      if (key === "count") { const v = $("fact-count").value; return v === "" ? undefined : Number(v); }
      if (key === "occlusion") return $("fact-occlusion").value || undefined;
      return $("fact-note").value.trim() || undefined;
    }
    function factErrors(facts) {
      if (facts.count !== undefined && !(Number.isInteger(facts.count) && facts.count >= 0)) return { facts: "count must be a whole number, 0 or more" };
      if (facts.first_seen_s !== undefined && !(facts.first_seen_s >= 0 && (!ws.cursor.duration || facts.first_seen_s <= ws.cursor.duration + 1e-6))) {
        return { facts: "first seen at must be a time inside the video" };
      }
      return {};
    }
    function factsFromFields(base) {
      const facts = { ...(base || {}) };
      for (const key of FACT_FIELDS) {
        const v = factValue(key);
        if (v === undefined || Number.isNaN(v)) delete facts[key]; else facts[key] = v;
      }
      return facts;
    }

    /** After a shape is drawn: facts belong to that mark, the next one starts without them. */
    function resetFacts() {
      ["mark-visible", "fact-occlusion", "fact-count", "fact-first-seen", "fact-note"].forEach((id) => { $(id).value = ""; });
    }

    // ---- draft -------------------------------------------------------------------------------
    function draft() {
      const now = ws.cursor.now();
      return {
        label: canonicalLabel($("mark-label").value),
        time_start: anchor.start === null ? now : anchor.start,
        time_end: anchor.start === null ? null : anchor.end,
        facts: factsFromFields({}),
      };
    }
    function draftErrors() {
      const d = draft();
      const errors = { ...factErrors(d.facts) };
      const le = labelError($("mark-label").value);
      if (le) errors.label = le;
      return errors;
    }

    // ---- errors --------------------------------------------------------------------------
    function clearErrors() {
      root.querySelectorAll("[data-error-for]").forEach((n) => { n.textContent = ""; });
      root.querySelectorAll(".field.has-error").forEach((n) => n.classList.remove("has-error"));
      $("mark-errors").classList.add("hidden");
      $("mark-errors").replaceChildren();
    }
    /** Show each message next to its field; anything without a field goes in the box below. */
    function showErrors(errors) {
      clearErrors();
      const loose = [];
      for (const [field, msgs] of Object.entries(errors || {})) {
        if (field === "current") continue;
        const text = (Array.isArray(msgs) ? msgs : [msgs]).map((m) => (typeof m === "object" ? errorText(m, 400) : String(m))).join(" ");
        const slot = root.querySelector(`[data-error-for="${field}"]`);
        if (slot) {
          slot.textContent = text;
          const wrap = slot.closest(".field");
          if (wrap) wrap.classList.add("has-error");
        } else {
          loose.push(el("li", { dataset: { field } }, field === "detail" || field === "non_field_errors" ? text : field + ": " + text));
        }
      }
      if (loose.length) {
        $("mark-errors").replaceChildren(el("ul", {}, loose));
        $("mark-errors").classList.remove("hidden");
      }
    }

    // ---- showing the selection or the draft ---------------------------------------------------
    const setValue = (id, value) => { if (document.activeElement !== $(id)) $(id).value = value; };

    function refresh() {
      const mark = selected();
      $("editor-title").textContent = mark ? `Mark ${mark.id > 0 ? "#" + mark.id : "(new)"} · ${mark.kind === "polyline" ? "trajectory" : mark.kind}` : "New mark";
      $("editor-hint").textContent = mark
        ? (ws.isLocked(mark.id) ? "Part of an item in review or approved: it cannot change now." : "Changes save automatically.")
        : ws.tool === "none" ? "Pick a tool (E, P, G, T) to draw; these fields apply to the next shape." : "These fields apply to the shape you are drawing.";
      $("selected-actions").classList.toggle("hidden", !mark);
      root.classList.toggle("has-mark", !!mark);
      root.querySelectorAll("input, select, textarea, #anchor-instant, #anchor-start, #anchor-end, #first-seen-now, #delete-mark")
        .forEach((n) => { n.disabled = !!mark && ws.isLocked(mark.id); });
      // A trajectory's times come from its vertices while it is being recorded.
      if (!mark && ws.tool === "polyline") ["anchor-instant", "anchor-start", "anchor-end"].forEach((id) => { $(id).disabled = true; });
      if (mark) {
        const f = mark.facts || {};
        setValue("mark-label", mark.label || "");
        setValue("mark-visible", f.visible === true ? "yes" : f.visible === false ? "no" : "");
        setValue("fact-occlusion", f.occlusion || "");
        setValue("fact-first-seen", f.first_seen_s === undefined || f.first_seen_s === null ? "" : f.first_seen_s);
        setValue("fact-count", f.count === undefined || f.count === null ? "" : f.count);
        setValue("fact-note", f.note || "");
        const entry = ws.store.entryFor(mark.id);
        if (entry && entry.blocked === "invalid") showErrors(entry.errors);
      }
      renderAnchor();
      showConflicts();
    }

    function renderAnchor() {
      const mark = selected();
      const box = $("anchor-display");
      let interval, text;
      if (mark) {
        interval = mark.time_end !== null && mark.time_end !== undefined;
        text = interval ? `Interval ${mark.time_start.toFixed(2)} s – ${mark.time_end.toFixed(2)} s` : `Instant at ${mark.time_start.toFixed(2)} s`;
        if (mark.kind === "polyline" && (mark.vertex_times || []).length) text += ` · ${mark.vertex_times.length} timed vertices`;
      } else {
        interval = anchor.start !== null && anchor.end !== null;
        if (anchor.start === null) text = `Instant at the video cursor (t = ${ws.cursor.t.toFixed(2)} s)`;
        else if (anchor.end === null) text = `Instant at ${anchor.start.toFixed(2)} s — End (]) makes it an interval`;
        else text = `Interval ${anchor.start.toFixed(2)} s – ${anchor.end.toFixed(2)} s`;
        if (ws.tool === "polyline") text = "Trajectory: each vertex takes the video time when you click";
      }
      $("anchor-instant").classList.toggle("active", !interval);
      $("anchor-start").classList.toggle("active", interval);
      $("anchor-end").classList.toggle("active", interval);
      box.textContent = text;
    }
    ws.cursor.subscribe(() => { if (!selected()) renderAnchor(); });

    /** Save a change to the selected mark after the page's own checks. */
    function save(changes, typing = false) {
      const mark = selected();
      if (!mark || ws.isLocked(mark.id)) return false;
      const merged = { ...mark, ...changes };
      const errors = { ...timeErrors(merged, ws.cursor.duration), ...(changes.facts ? factErrors(changes.facts) : {}) };
      if ("label" in changes) { const le = labelError(changes.label); if (le) errors.label = le; }
      if (Object.keys(errors).length) { showErrors(errors); return false; }
      clearErrors();
      ws.history.update(mark.id, changes, { typing });
      return true;
    }

    /** `[` start = now, `]` end = now, `i` instant at now. */
    function setAnchor(which) {
      const now = ws.cursor.now();
      const mark = selected();
      if (mark) {
        if (which === "start") save({ time_start: now });
        else if (which === "end") save({ time_end: now });
        else save({ time_start: now, time_end: null });
        renderAnchor();
        return;
      }
      clearErrors();
      if (which === "start") {
        anchor.start = now;
        if (anchor.end !== null && anchor.end < anchor.start) anchor.end = null;
      } else if (which === "end") {
        if (anchor.start === null) showErrors({ time_start: "set the start ([) before the end of the interval" });
        else if (now < anchor.start) showErrors({ time_end: `the interval would end (${now.toFixed(2)} s) before it starts (${anchor.start.toFixed(2)} s)` });
        else anchor.end = now;
      } else {
        anchor.start = anchor.end = null;
      }
      renderAnchor();
    }

    // ---- conflicts -----------------------------------------------------------------------------
    function showConflicts() {
      const box = $("conflict");
      const entry = ws.store.conflicts()[0];
      box.classList.toggle("hidden", !entry);
      if (!entry) return;
      box.dataset.markId = entry.key;
      const mine = ws.store.get(entry.key) || {};
      const theirs = entry.current;
      $("conflict-text").textContent = entry.op === "delete"
        ? ` You deleted mark #${entry.key}, but it was changed meanwhile (now version ${theirs.version}).`
        : ` Mark #${entry.key} “${theirs.label}” is at version ${theirs.version}; your edit was made on version ${entry.baseVersion}.`;
      const rows = [];
      for (const key of ["label", "geometry", "time_start", "time_end", "vertex_times", "facts"]) {
        if (entry.op === "delete" || !(key in (entry.changes || {}))) continue;
        const a = JSON.stringify(mine[key]), b = JSON.stringify(theirs[key]);
        if (a !== b) rows.push(el("li", {}, el("strong", {}, key + ": "), "mine ", el("code", {}, short(a)), " · theirs ", el("code", {}, short(b))));
      }
      $("conflict-diff").replaceChildren(...rows);
    }
    const short = (s) => (s && s.length > 60 ? s.slice(0, 57) + "…" : s);
    // Refresh the fields at once rather than on the next animation frame, which a tab in the
    // background may not get for a while: the person just chose what the fields should show.
    $("conflict-mine").addEventListener("click", () => { ws.store.keepMine(Number($("conflict").dataset.markId)); refresh(); });
    $("conflict-theirs").addEventListener("click", () => { ws.store.takeTheirs(Number($("conflict").dataset.markId)); refresh(); });

    // ---- field events --------------------------------------------------------------------------
    $("mark-label").addEventListener("input", () => {
      const value = $("mark-label").value;
      if (!labelError(value)) {
        clearErrors();
        if (selected() && canonicalLabel(value) !== selected().label) save({ label: canonicalLabel(value) }, true);
      }
    });
    $("mark-label").addEventListener("change", () => {
      const value = $("mark-label").value;
      const le = labelError(value);
      if (le) showErrors({ label: le });
      else if (selected() && canonicalLabel(value) !== selected().label) save({ label: canonicalLabel(value) });
    });
    const factEvents = [["mark-visible", "change"], ["fact-occlusion", "change"], ["fact-first-seen", "change"],
      ["fact-count", "change"], ["fact-note", "input"], ["fact-first-seen", "input"], ["fact-count", "input"]];
    for (const [id, ev] of factEvents) {
      $(id).addEventListener(ev, () => {
        const mark = selected();
        if (!mark) { showErrors(factErrors(factsFromFields({}))); return; }
        const facts = factsFromFields(mark.facts);
        if (JSON.stringify(facts) !== JSON.stringify(mark.facts || {})) save({ facts }, ev === "input");
      });
    }
    $("first-seen-now").addEventListener("click", () => {
      $("fact-first-seen").value = ws.cursor.now();
      $("fact-first-seen").dispatchEvent(new Event("change"));
    });
    $("anchor-instant").addEventListener("click", () => setAnchor("instant"));
    $("anchor-start").addEventListener("click", () => setAnchor("start"));
    $("anchor-end").addEventListener("click", () => setAnchor("end"));
    $("copy-now").addEventListener("click", () => ws.actions.copy());
    $("delete-mark").addEventListener("click", () => ws.actions.remove());
    refresh();
    return api;
  }

  window.Skymark.editor = { init };
})();
