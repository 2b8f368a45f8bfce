/* Scene page: poll the processing jobs every second until every job has finished. */
(function () {
  "use strict";
  const { api, el } = window.Skymark;
  const table = document.getElementById("jobs-table");
  if (!table) return;
  const tbody = table.querySelector("tbody");
  const live = document.getElementById("jobs-live");
  const canRetry = table.dataset.canRetry === "1";
  const DONE = new Set(["succeeded", "failed"]);
  let timer = null;

  // Same shape as the server-rendered cells: 2026-11-23 07:20:01.
  const pad = (n) => String(n).padStart(2, "0");
  const fmt = (iso) => {
    if (!iso) return "—";
    const d = new Date(iso);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
      `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  };

  function row(job) {
    const stateCell = el("td", {}, el("span", { class: "badge state-" + job.state }, job.state));
    if (job.error) stateCell.append(el("div", { class: "error-text" }, job.error));
    if (job.detail) stateCell.append(el("div", { class: "muted small job-detail" }, job.detail));
    const action = el("td", {});
    if (canRetry && job.state === "failed") {
      action.append(el("button", { class: "btn small", type: "button", dataset: { retry: job.id } }, "Retry"));
    }
    const kind = el("td", {}, job.kind_label || job.kind);
    if (job.satellite_image) kind.append(" ", el("span", { class: "muted small" }, "(image " + job.satellite_image + ")"));
    return el("tr", { dataset: { jobId: job.id, state: job.state } },
      kind, stateCell,
      el("td", {}, el("div", { class: "progress-cell" },
        el("div", { class: "progress state-" + job.state }, el("span", { style: "width: " + job.progress + "%" })),
        el("span", { class: "pct" }, job.progress + "%"))),
      el("td", { class: "num" }, job.attempts),
      el("td", { class: "small nowrap" }, fmt(job.started_at)),
      el("td", { class: "small nowrap" }, fmt(job.finished_at)),
      action);
  }

  async function poll() {
    timer = null;
    try {
      const jobs = await api.get(table.dataset.url);
      tbody.replaceChildren(...(jobs.length ? jobs.map(row)
        : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No processing jobs."))]));
      const running = jobs.filter((j) => !DONE.has(j.state)).length;
      live.textContent = running ? running + " job(s) in progress, updating every second…" : "All jobs finished.";
      if (running) timer = setTimeout(poll, 1000);
    } catch (err) {
      live.textContent = "Could not refresh jobs: " + err.message + " (retrying)";
      timer = setTimeout(poll, 3000);
    }
  }

  tbody.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button[data-retry]");
    if (!btn) return;
    btn.disabled = true;
    try {
      await api.post(table.dataset.retryUrl.replace("/0/", "/" + btn.dataset.retry + "/"));
      live.textContent = "Retry queued.";
    } catch (err) {
      live.textContent = "Retry failed: " + err.message;
    }
    if (!timer) poll();
  });

  const pending = [...tbody.querySelectorAll("tr[data-state]")].some((tr) => !DONE.has(tr.dataset.state));
  if (pending) poll(); else live.textContent = "All jobs finished.";
})();
