/* Items compiled from marks: list, compile (POST /api/items/) and submit for review. Items in
 * review or approved lock their marks (the API refuses edits with 409). */
(function () {
  "use strict";
  const { api } = window.Skymark;
  const { itemEntry } = window.Skymark.lists;

  function init(ws) {
    const $ = (id) => document.getElementById(id);
    const list = $("items-list");
    const itemUrl = (template, id) => template.replace("/0/", "/" + id + "/");

    ws.isLocked = (id) => {
      for (const it of ws.items.values()) {
        if ((it.state === "in_review" || it.state === "approved") && (it.mark_ids || []).includes(id)) return true;
      }
      return false;
    };

    function render() {
      if (!list) return;
      const sorted = [...ws.items.values()].sort((a, b) => b.id - a.id);
      list.replaceChildren(...sorted.map((it) => itemEntry(it, { editable: ws.editable })));
      $("items-count").textContent = String(sorted.length);
      $("items-empty").classList.toggle("hidden", sorted.length > 0);
      ws.render();  // item states decide which marks are locked
    }

    async function load() {
      if (!ws.canListItems || !list) return;
      try {
        const items = await api.get(ws.cfg.itemsUrl + "?scene=" + ws.cfg.sceneId);
        ws.items.clear();
        items.forEach((it) => ws.items.set(it.id, it));
        render();
      } catch (err) { ws.fail(err); }
    }

    async function compile(markId, task, button) {
      button.disabled = true;
      ws.setStatus("saving", "Compiling…");
      try {
        const item = await api.post(ws.cfg.itemsUrl, { task, mark_ids: [markId] });
        ws.items.set(item.id, item);
        render();
        ws.setStatus("saved", `Compiled ${item.uid} (draft): check it below, then submit`);
      } catch (err) { ws.fail(err); }
      button.disabled = false;
    }

    async function submit(id, button) {
      button.disabled = true;
      ws.setStatus("saving", "Submitting…");
      try {
        const item = await api.post(itemUrl(ws.cfg.itemSubmitUrl, id));
        ws.items.set(item.id, item);
        render();
        ws.setStatus("saved", `Submitted ${item.uid} for review`);
      } catch (err) { ws.fail(err); button.disabled = false; }
    }

    if (list) {
      list.addEventListener("click", (ev) => {
        const btn = ev.target.closest("[data-action=submit]");
        if (btn) submit(Number(btn.closest("li[data-item-id]").dataset.itemId), btn);
      });
    }

    ws.itemsApi = { load, compile, submit, render };
    return ws.itemsApi;
  }

  window.Skymark.items = { init };
})();
