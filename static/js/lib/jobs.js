// @ts-check
/* How a media job's state reads in the jobs table: a pending job that found inputs still to run says
 * what it waits for ("waiting for keyframes, telemetry") instead of a bare "pending". */

/**
 * @typedef {{state: string, detail?: string, waiting_for?: string[]}} JobState
 */

/** The badge text. @param {JobState} job @returns {string} */
export function jobStateText(job) {
  const waiting = job.state === "pending" ? job.waiting_for || [] : [];
  return waiting.length ? "waiting for " + waiting.join(", ") : job.state;
}

/** The line under the badge ("" for none): a waiting job's detail repeats the badge. @param {JobState} job */
export function jobDetailText(job) {
  return jobStateText(job) === job.state ? job.detail || "" : "";
}
