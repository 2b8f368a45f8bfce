// @ts-check
/* Releases page: while a release is building, follow its progress through the API the row names
 * (data-url) and reload the page once it is frozen or failed, so downloads and errors appear. */

const POLL_MS = 1500;

/** @param {HTMLTableRowElement} row */
async function follow(row) {
  const url = row.dataset.url;
  if (!url) return;
  const bar = row.querySelector("progress");
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) return;
    /** @type {{state: string, progress: number}} */
    const release = await response.json();
    if (bar) bar.value = release.progress;
    if (release.state !== "building") {
      window.location.reload();
      return;
    }
  }
}

for (const row of document.querySelectorAll('#releases-table tr[data-state="building"]')) {
  follow(/** @type {HTMLTableRowElement} */ (row));
}
