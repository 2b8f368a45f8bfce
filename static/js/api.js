/* Small helpers shared by the pages: JSON fetch with the CSRF header, error text, DOM building. */
(function () {
  "use strict";

  function cookie(name) {
    const hit = document.cookie.split(";").map((c) => c.trim()).find((c) => c.startsWith(name + "="));
    return hit ? decodeURIComponent(hit.slice(name.length + 1)) : "";
  }

  /** Turn a DRF error body into one line a person can read: "label: This field may not be blank." */
  function errorText(body, status) {
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

  class ApiError extends Error {
    constructor(status, body) {
      super(errorText(body, status));
      this.status = status;
      this.body = body;
    }
  }

  /** fetch() JSON with the session cookie and CSRF token; resolves to the parsed body or throws ApiError. */
  async function request(method, url, data) {
    const opts = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (method !== "GET" && method !== "HEAD") opts.headers["X-CSRFToken"] = cookie("csrftoken");
    if (data !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(data);
    }
    let res;
    try {
      res = await fetch(url, opts);
    } catch (err) {
      throw new ApiError(0, { detail: "network error: the server could not be reached" });
    }
    if (res.status === 204) return null;
    const type = res.headers.get("Content-Type") || "";
    const body = type.includes("json") ? await res.json().catch(() => null) : await res.text();
    if (!res.ok) throw new ApiError(res.status, typeof body === "string" ? { detail: "HTTP " + res.status } : body);
    return body;
  }

  /** el("li", {class: "x", dataset: {id: 3}}, "text", child) */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "dataset") Object.assign(node.dataset, v);
      else if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const STATE_LABELS = { draft: "Draft", in_review: "In Review", approved: "Approved", rejected: "Rejected" };
  function badge(state, label) {
    return el("span", { class: "badge state-" + state }, label || STATE_LABELS[state] || state);
  }

  window.Skymark = {
    api: {
      get: (url) => request("GET", url),
      post: (url, data) => request("POST", url, data === undefined ? {} : data),
      patch: (url, data) => request("PATCH", url, data),
      del: (url, data) => request("DELETE", url, data),
    },
    ApiError, errorText, el, badge, cookie,
  };
})();
