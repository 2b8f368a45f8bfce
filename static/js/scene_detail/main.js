// @ts-check
/* Scene page: poll the processing jobs every second until every job has finished. */

import { api, urlFor } from "../lib/api.js";
import { el } from "../lib/dom.js";

/**
 * A media job as GET api-scene-jobs returns it.
 * @typedef {{id: number, kind: string, kind_label?: string, state: string, progress: number, attempts: number,
 *   error?: string, detail?: string, satellite_image?: number|null, started_at: string|null, finished_at: string|null,
 *   retryable?: boolean}} Job
 */

const DONE = new Set(["succeeded", "failed", "skipped"]);

// Same shape as the server-rendered cells: 2026-11-23 07:20:01.
const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
/** @param {string|null} iso */
const fmt = (iso) => {
  if (!iso) return "—";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

/** One row of the jobs table, as the template draws it. @param {Job} job @param {boolean} canRetry */
function row(job, canRetry) {
  const stateCell = el("td", {}, el("span", { class: "badge state-" + job.state }, job.state));
  if (job.error) stateCell.append(el("div", { class: "error-text" }, job.error));
  if (job.detail) stateCell.append(el("div", { class: "muted small job-detail" }, job.detail));
  const action = el("td", {});
  // Anything but a job a live worker runs can go again (a running one whose worker vanished too).
  if (canRetry && job.retryable) {
    const label = job.state === "succeeded" ? "Run again" : "Retry";
    action.append(el("button", { class: "btn small", type: "button", dataset: { retry: job.id } }, label));
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

/** @param {HTMLElement} table #jobs-table, with the jobs and retry URLs in data-url / data-retry-url */
function watchJobs(table) {
  const tbody = /** @type {HTMLElement} */ (table.querySelector("tbody"));
  const live = /** @type {HTMLElement} */ (document.getElementById("jobs-live"));
  const canRetry = table.dataset.canRetry === "1";
  /** @type {ReturnType<typeof setTimeout>|null} */
  let timer = null;

  async function poll() {
    timer = null;
    try {
      /** @type {Job[]} */
      const jobs = await api.get(table.dataset.url || "");
      tbody.replaceChildren(...(jobs.length ? jobs.map((j) => row(j, canRetry))
        : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No processing jobs."))]));
      const running = jobs.filter((j) => !DONE.has(j.state)).length;
      live.textContent = running ? running + " job(s) in progress, updating every second…" : "All jobs finished.";
      if (running) timer = setTimeout(poll, 1000);
    } catch (err) {
      live.textContent = "Could not refresh jobs: " + /** @type {Error} */ (err).message + " (retrying)";
      timer = setTimeout(poll, 3000);
    }
  }

  tbody.addEventListener("click", async (ev) => {
    const btn = /** @type {HTMLButtonElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest("button[data-retry]"));
    if (!btn) return;
    btn.disabled = true;
    try {
      await api.post(urlFor(table.dataset.retryUrl || "", Number(btn.dataset.retry)));
      live.textContent = "Retry queued.";
    } catch (err) {
      live.textContent = "Retry failed: " + /** @type {Error} */ (err).message;
    }
    if (!timer) poll();
  });

  const rows = /** @type {HTMLElement[]} */ ([...tbody.querySelectorAll("tr[data-state]")]);
  if (rows.some((tr) => !DONE.has(tr.dataset.state || ""))) poll(); else live.textContent = "All jobs finished.";
}

const table = document.getElementById("jobs-table");
if (table) watchJobs(table);
