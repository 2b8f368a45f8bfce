// @ts-check
/* The scene upload page: sends the form in the background so a refused field keeps every chosen
 * file, shows the upload's progress, and lets the admin name a CSV track's columns from a preview.
 * Without JavaScript the form still posts as a plain page. */

import { cookie } from "../lib/api.js";
import { byId, el } from "../lib/dom.js";
import { fieldErrors, pickedColumns, pickProblems, progressText } from "./columns.js";

/** @typedef {import("./columns.js").TrackField} TrackField */

const form = /** @type {HTMLFormElement} */ (byId("upload-form"));
const columnsInput = /** @type {HTMLInputElement} */ (byId("id_telemetry_columns"));
const telemetryInput = /** @type {HTMLInputElement} */ (byId("id_telemetry"));
const picker = byId("telemetry-columns");
const progress = byId("upload-progress");

/** @type {TrackField[]} */
let trackFields = [];
/** @type {Record<string, string>} */
let picks = {};

function savePicks() {
  const problems = pickProblems(trackFields, picks);
  columnsInput.value = trackFields.length ? JSON.stringify(pickedColumns(trackFields, picks)) : "";
  for (const f of trackFields) {
    const note = picker.querySelector(`[data-problem="${f.name}"]`);
    if (note) note.textContent = problems[f.name] || "";
  }
}

/** @param {{header: string[], rows: string[][], columns: Record<string, string>, fields: TrackField[]}} preview */
function showPreview(preview) {
  trackFields = preview.fields;
  picks = { ...preview.columns };
  for (const f of trackFields) if (!(f.name in picks)) picks[f.name] = "";
  const selects = trackFields.map((f) => {
    const select = el(
      "select",
      { id: "col-" + f.name, dataset: { field: f.name }, onchange: (/** @type {Event} */ e) => {
        picks[f.name] = /** @type {HTMLSelectElement} */ (e.target).value;
        savePicks();
      } },
      el("option", { value: "" }, f.required ? "— pick a column —" : "— not in this file —"),
      preview.header.map((h) => el("option", { value: h, selected: picks[f.name] === h }, h)),
    );
    return el("label", { class: "col-pick" }, el("span", null, f.label, f.required ? " *" : ""), select,
      el("span", { class: "error small", dataset: { problem: f.name } }));
  });
  const table = el("table", { class: "small", id: "telemetry-preview" },
    el("thead", null, el("tr", null, preview.header.map((h) => el("th", null, h)))),
    el("tbody", null, preview.rows.map((r) => el("tr", null, r.map((c) => el("td", null, c))))));
  picker.replaceChildren(
    el("div", { class: "help" }, "Which column holds what? Guessed from the names; check the height: above take-off, not above sea level."),
    el("div", { class: "col-picks" }, selects),
    el("div", { class: "table-scroll" }, table),
  );
  picker.hidden = false;
  savePicks();
}

async function previewTrack() {
  trackFields = [];
  picks = {};
  columnsInput.value = "";
  picker.hidden = true;
  const file = telemetryInput.files && telemetryInput.files[0];
  if (!file || !file.name.toLowerCase().endsWith(".csv")) return;
  const body = new FormData();
  body.append("telemetry", file);
  const res = await fetch("/api/scenes/telemetry-preview/", {
    method: "POST", body, credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": cookie("csrftoken") },
  });
  const data = await res.json().catch(() => null);
  if (res.ok) showPreview(data);
  else showErrors(fieldErrors(data));
}

/** @param {Record<string, string>} errors */
function showErrors(errors) {
  for (const node of form.querySelectorAll(".js-error")) node.remove();
  for (const row of form.querySelectorAll(".has-error")) row.classList.remove("has-error");
  for (const [field, text] of Object.entries(errors)) {
    const row = field ? document.getElementById("field-" + field) : null;
    if (row) {
      row.classList.add("has-error");
      row.lastElementChild?.append(el("ul", { class: "errorlist js-error" }, el("li", null, text)));
    }
  }
  const general = errors[""] || (Object.keys(errors).some((f) => !document.getElementById("field-" + f))
    ? Object.entries(errors).map(([f, t]) => (f ? f + ": " : "") + t).join(" ") : "");
  const callout = byId("form-errors-live");
  callout.textContent = Object.keys(errors).length ? "The scene was not created. " + (general || "Fix the fields marked below; your files are still chosen.") : "";
  callout.hidden = !Object.keys(errors).length;
}

/** @param {SubmitEvent} event */
function submit(event) {
  event.preventDefault();
  const button = /** @type {HTMLButtonElement} */ (byId("upload-submit"));
  button.disabled = true;
  const bar = /** @type {HTMLProgressElement} */ (progress.querySelector("progress"));
  const text = /** @type {HTMLElement} */ (progress.querySelector(".progress-text"));
  progress.hidden = false;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", form.action || window.location.href);
  xhr.setRequestHeader("Accept", "application/json");
  xhr.setRequestHeader("X-CSRFToken", cookie("csrftoken"));
  xhr.upload.onprogress = (e) => {
    bar.max = e.total || 1;
    bar.value = e.loaded;
    text.textContent = progressText(e.loaded, e.total);
  };
  xhr.upload.onload = () => { text.textContent = "Checking the files (probe, image header, georeference) …"; };
  xhr.onload = () => {
    let body = null;
    try { body = JSON.parse(xhr.responseText); } catch { body = null; }
    if (xhr.status < 300 && body && body.redirect) {
      window.location.assign(body.redirect);
      return;
    }
    button.disabled = false;
    progress.hidden = true;
    showErrors(body ? fieldErrors(body) : { "": `the server answered HTTP ${xhr.status}` });
  };
  xhr.onerror = () => {
    button.disabled = false;
    progress.hidden = true;
    showErrors({ "": "the upload broke off (network error); your files are still chosen, try again" });
  };
  xhr.send(new FormData(form));
}

telemetryInput.addEventListener("change", () => { previewTrack().catch(() => showErrors({ telemetry: "the track could not be previewed" })); });
form.addEventListener("submit", submit);
