// @ts-check
/* JSON requests for the pages: the session cookie, the CSRF header, DRF errors as one line.
 * Nothing runs at import time, so node can import the modules built on this one. */

/** @param {string} name */
export function cookie(name) {
  const jar = globalThis.document ? document.cookie : "";
  const hit = jar.split(";").map((c) => c.trim()).find((c) => c.startsWith(name + "="));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : "";
}

/** Turn a DRF error body into one line a person can read: "label: This field may not be blank."
 * @param {any} body @param {number} status */
export function errorText(body, status) {
  if (!body) return "HTTP " + status;
  if (typeof body === "string") return body;
  if (body.detail && typeof body.detail === "string") return body.detail;
  const parts = [];
  for (const [field, msgs] of Object.entries(body)) {
    if (field === "current") continue;
    const list = Array.isArray(msgs) ? msgs : [msgs];
    const text = list.map((m) => (typeof m === "object" ? JSON.stringify(m) : String(m))).join(" ");
    parts.push(field === "non_field_errors" ? text : field + ": " + text);
  }
  return parts.join("; ") || "HTTP " + status;
}

/** A request that failed: status 0 when the server could not be reached; `body` is the parsed
 * error (a 409 carries {"current": object}). */
export class ApiError extends Error {
  /** @param {number} status @param {any} body */
  constructor(status, body) {
    super(errorText(body, status));
    this.status = status;
    this.body = body;
  }
}

/** Answers kept for conditional GETs: URL -> the ETag and text of its last 200. Only answers that
 * carry an ETag are kept (the scene's marks, annotator/conditional.py); each is re-parsed when the
 * server says 304, so a caller that changes the objects it got never changes what is kept.
 * @type {Map<string, {etag: string, text: string}>} */
const validated = new Map();

/** fetch() JSON with the session cookie and CSRF token; resolves to the parsed body or throws ApiError.
 * A GET the server answered with an ETag before is asked conditionally, and a 304 resolves to the
 * body kept from then.
 * @param {string} method @param {string} url @param {any} [data] @returns {Promise<any>} */
async function request(method, url, data) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  /** @type {RequestInit} */
  const opts = { method, credentials: "same-origin", headers };
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = cookie("csrftoken");
  const kept = method === "GET" ? validated.get(url) : undefined;
  if (kept) headers["If-None-Match"] = kept.etag;
  if (data !== undefined) {
    headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(data);
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (err) {
    throw new ApiError(0, { detail: "network error: the server could not be reached" });
  }
  if (res.status === 304 && kept) return JSON.parse(kept.text);
  if (res.status === 204) return null;
  const type = res.headers.get("Content-Type") || "";
  const text = await res.text();
  /** @type {any} */
  let body = text;
  if (type.includes("json")) {
    try { body = JSON.parse(text); } catch (err) { body = null; }
  }
  if (!res.ok) throw new ApiError(res.status, typeof body === "string" ? { detail: "HTTP " + res.status } : body);
  const etag = res.headers.get("ETag");
  if (method === "GET" && etag && type.includes("json")) validated.set(url, { etag, text });
  else if (method === "GET") validated.delete(url);
  return body;
}

/**
 * @typedef {object} Api
 * @property {(url: string) => Promise<any>} get
 * @property {(url: string, data?: any) => Promise<any>} post
 * @property {(url: string, data?: any) => Promise<any>} patch
 * @property {(url: string, data?: any) => Promise<any>} del
 */

/** @type {Api} */
export const api = {
  get: (url) => request("GET", url),
  post: (url, data) => request("POST", url, data === undefined ? {} : data),
  patch: (url, data) => request("PATCH", url, data),
  del: (url, data) => request("DELETE", url, data),
};

/** Every row of a list API: its pages ({count, next, previous, results}, annotator/pagination.py)
 * one after the other, following `next` until there is none. A body that is a bare list is
 * returned as it is. `limit` asks for the largest page the server gives, so a long list takes few
 * requests. @param {Api} client @param {string} url @returns {Promise<any[]>} */
export async function getAll(client, url) {
  /** @type {any[]} */
  const rows = [];
  let next = url + (url.includes("?") ? "&" : "?") + "limit=" + MAX_PAGE;
  for (let pages = 0; next && pages < MAX_PAGES; pages++) {
    const body = await client.get(next);
    if (Array.isArray(body)) return body;
    rows.push(...body.results);
    next = body.next;
  }
  return rows;
}

/** The server's largest page (annotator/pagination.py: MAX_PAGE_SIZE), and a bound on how many
 * pages one list may take (a server answering `next` forever must not hang the page). */
const MAX_PAGE = 500;
const MAX_PAGES = 1000;

/** The URL of object `id` from a URL the server rendered with 0 in its place ({% url 'api-mark' 0 %}).
 * @param {string} template @param {number} id */
export function urlFor(template, id) {
  return template.replace("/0/", "/" + id + "/");
}
