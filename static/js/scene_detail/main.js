// @ts-check
/* Scene page: poll the processing jobs every second until every job has finished; each time a job
 * succeeds, what it found (probe facts, keyframes, georeference, ...) is read again from the page. */

import { api, getAll, urlFor } from "../lib/api.js";
import { el } from "../lib/dom.js";
import { jobDetailText, jobStateText } from "../lib/jobs.js";

/**
 * A media job as GET api-scene-jobs returns it.
 * @typedef {{id: number, kind: string, kind_label?: string, state: string, progress: number, attempts: number,
 *   error?: string, detail?: string, satellite_image?: number|null, started_at: string|null, finished_at: string|null,
 *   retryable?: boolean, waiting_for?: string[]}} Job
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
  const stateCell = el("td", {}, el("span", { class: "badge state-" + job.state }, jobStateText(job)));
  if (job.error) stateCell.append(el("div", { class: "error-text" }, job.error));
  const detail = jobDetailText(job);
  if (detail) stateCell.append(el("div", { class: "muted small job-detail" }, detail));
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

// The parts of the page a job's result changes, each drawn by the template alone: they are fetched
// from the page again rather than drawn a second way here.
const FINDINGS = ["#video-facts", "#satellite-images", "#keyframes-card"];

/** Read the scene page again and put its current findings in place of the ones shown. The video
 * element stays (a person may be playing it); a poster made since is given to it. */
async function refreshFindings() {
  const response = await fetch(window.location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } });
  if (!response.ok) throw new Error(`the scene page answered ${response.status}`);
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const selector of FINDINGS) {
    const now = document.querySelector(selector), next = fresh.querySelector(selector);
    if (now && next) now.replaceWith(document.importNode(next, true));
  }
  const video = /** @type {HTMLVideoElement|null} */ (document.querySelector("video.detail-video"));
  const poster = fresh.querySelector("video.detail-video")?.getAttribute("poster");
  if (video && poster && !video.getAttribute("poster")) video.setAttribute("poster", poster);
}

/** @param {HTMLElement} table #jobs-table, with the jobs and retry URLs in data-url / data-retry-url */
function watchJobs(table) {
  const tbody = /** @type {HTMLElement} */ (table.querySelector("tbody"));
  const live = /** @type {HTMLElement} */ (document.getElementById("jobs-live"));
  const canRetry = table.dataset.canRetry === "1";
  /** @type {ReturnType<typeof setTimeout>|null} */
  let timer = null;
  /** Each job's state as last shown. @type {Map<string, string>} */
  const shown = new Map([...tbody.querySelectorAll("tr[data-job-id]")].map((tr) => {
    const r = /** @type {HTMLElement} */ (tr);
    return [r.dataset.jobId || "", r.dataset.state || ""];
  }));

  async function poll() {
    timer = null;
    try {
      /** @type {Job[]} */
      const jobs = await getAll(api, table.dataset.url || "");
      tbody.replaceChildren(...(jobs.length ? jobs.map((j) => row(j, canRetry))
        : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No processing jobs."))]));
      const running = jobs.filter((j) => !DONE.has(j.state)).length;
      const succeeded = jobs.some((j) => j.state === "succeeded" && shown.get(String(j.id)) !== "succeeded");
      for (const j of jobs) shown.set(String(j.id), j.state);
      live.textContent = running ? running + " job(s) in progress, updating every second…" : "All jobs finished.";
      if (succeeded) await refreshFindings();
      if (running) timer = setTimeout(poll, 1000);
    } catch (err) {
      live.textContent = "Could not refresh jobs: " + /** @type {Error} */ (err).message + " (retrying)";
      // read the findings again next time (a job may have finished while the page could not show it)
      for (const id of shown.keys()) shown.set(id, "");
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
