// @ts-check
/* The one line the status bar says about saving, from the store's state. Pure. */

import { errorText } from "../lib/api.js";

/** @typedef {import("./queue.js").Entry} Entry */
/** @typedef {"conflict"|"offline"|"error"|"saving"|"unsaved"|"saved"|"idle"} SaveState */

/**
 * The save state, most urgent first: conflict > offline > retrying after an error > saving >
 * unsaved > refused as invalid > error > saved > idle.
 * @param {object} s
 * @param {Entry[]} s.queue waiting entries
 * @param {Entry|null} s.inflight the entry being sent
 * @param {boolean} s.offline
 * @param {number} s.attempt failed sends in a row (retrying while > 0)
 * @param {string|null} s.lastError
 * @param {boolean} s.savedOnce
 * @returns {{state: SaveState, text: string}}
 */
export function saveStatus({ queue, inflight, offline, attempt, lastError, savedOnce }) {
  const n = queue.length + (inflight ? 1 : 0);
  const edits = `${n} edit${n === 1 ? "" : "s"}`;
  const conflict = queue.find((e) => e.blocked === "conflict");
  const invalid = queue.find((e) => e.blocked === "invalid");
  if (conflict) return { state: "conflict", text: `Conflict: mark #${conflict.key} changed elsewhere` };
  if (offline) return { state: "offline", text: n ? `Offline — ${edits} kept in this browser, will retry` : "Offline" };
  if (attempt > 0 && lastError) return { state: "error", text: `Error: ${lastError} — ${edits} kept, retrying` };
  if (inflight) return { state: "saving", text: "Saving…" };
  if (queue.some((e) => !e.blocked)) return { state: "unsaved", text: `Unsaved — ${edits}` };
  if (invalid) return { state: "error", text: "Not saved: " + errorText(invalid.errors, 400) };
  if (lastError) return { state: "error", text: "Error: " + lastError };
  if (savedOnce) return { state: "saved", text: "All changes saved" };
  return { state: "idle", text: "No unsaved changes" };
}
