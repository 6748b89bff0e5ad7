// Kite panel core: the bearer token, the API helper, small DOM helpers. Every other file uses window.Kite.
"use strict";

const Kite = (() => {
  const TOKEN_KEY = "kite-token";

  // `kite serve` prints http://host:port/#token=T: keep T for this tab's session, drop it from the address bar.
  // Read at start-up and again whenever the hash changes (a URL pasted into an open tab: a new token after a
  // restart of `kite serve`); true when a token was taken.
  function takeTokenFromHash() {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!m) return false;
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search + "#modules");
    return true;
  }
  takeTokenFromHash();

  const token = () => sessionStorage.getItem(TOKEN_KEY) || "";
  const setToken = (t) => sessionStorage.setItem(TOKEN_KEY, t);

  function authHeaders(extra) {
    const h = new Headers(extra || {});
    if (token() && !h.has("Authorization")) h.set("Authorization", `Bearer ${token()}`);
    return h;
  }

  // Module panels (agent/modules/*/web/panel.js) call fetch("/api/...") themselves: same-origin /api requests
  // get the token here, so a panel needs to know nothing about authentication.
  const plainFetch = window.fetch.bind(window);
  window.fetch = (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input.url, location.href);
    if (url.origin === location.origin && url.pathname.startsWith("/api/")) {
      init = { ...init, headers: authHeaders(init.headers || (input instanceof Request ? input.headers : undefined)) };
    }
    return plainFetch(input, init);
  };

  const listeners = { unauthorized: [] };

  // One API call: {ok, status, data}. data is the parsed JSON body (typed errors are {error, message}).
  async function api(path, { method = "GET", body, signal } = {}) {
    const init = { method, signal, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (err) {
      if (err.name === "AbortError") throw err;
      return { ok: false, status: 0, data: { error: "network_error", message: `the server did not answer (${err.message})` } };
    }
    let data = null;
    const text = await res.text();
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = { error: "bad_response", message: text.slice(0, 300) };
    }
    if (res.status === 401) listeners.unauthorized.forEach((fn) => fn(data));
    return { ok: res.ok, status: res.status, data };
  }

  // A binary resource (screenshots) as an object URL, since <img src> cannot carry the token.
  async function blobUrl(path) {
    const res = await fetch(path);
    if (!res.ok) return null;
    return URL.createObjectURL(await res.blob());
  }

  function el(tag, props = {}, children = []) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k in node && typeof v !== "string") node[k] = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of [].concat(children)) if (c !== null && c !== undefined && c !== false) node.append(c);
    return node;
  }

  function errorText(data) {
    if (!data) return "no answer";
    if (data.error) return `${data.error}: ${data.message || ""}`.trim();
    if (data.detail) return typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    return JSON.stringify(data);
  }

  let toastTimer = 0;
  function toast(text, kind = "info") {
    const box = document.getElementById("toast");
    box.textContent = text;
    box.dataset.kind = kind;
    box.classList.add("show");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => box.classList.remove("show"), 4000);
  }

  // Long strings (base64 screenshots, HTML) shortened for display; the full value stays in the data.
  function shorten(value, max = 1200) {
    return JSON.stringify(
      value,
      (k, v) => (typeof v === "string" && v.length > max ? `${v.slice(0, 80)}… (${v.length} characters)` : v),
      2,
    );
  }

  const fmtTime = (iso) => {
    if (!iso) return "";
    const d = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
    return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleTimeString();
  };
  // A run's time with its date (a list spans days): "7 Dec 2026, 14:02".
  const fmtWhen = (iso) => {
    if (!iso) return "";
    const d = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
    return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  };

  return { api, blobUrl, el, errorText, toast, shorten, fmtTime, fmtWhen, token, setToken, takeTokenFromHash, listeners };
})();
window.Kite = Kite;
