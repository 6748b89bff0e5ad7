// Tool console: pick any enabled module tool, edit its JSON arguments (pre-filled from its schema), call it
// with POST /api/tools/{name}, and read the result or the typed error.
"use strict";

const ToolsView = (() => {
  const { api, el, errorText, shorten } = Kite;
  let defs = new Map(); // tool name -> {module, function: {name, description, parameters}}
  let loadedOnce = false;

  const $ = (id) => document.getElementById(id);

  // GET /api/tools: every enabled tool with its module and OpenAI-style definition.
  async function load() {
    const next = new Map();
    const { ok, data } = await api("/api/tools");
    if (ok) {
      for (const t of data.tools || []) {
        const fn = (t.definition && t.definition.function) || t.definition || t;
        if (fn && fn.name) next.set(fn.name, { module: t.module || "", fn });
      }
    } else {
      $("tool-output").replaceChildren(el("p", { class: "error-text", text: errorText(data) }));
    }
    defs = next;
    loadedOnce = true;
    const select = $("tool-select");
    const keep = select.value;
    const groups = new Map();
    for (const [name, d] of defs) {
      if (!groups.has(d.module)) groups.set(d.module, el("optgroup", { label: d.module }));
      groups.get(d.module).append(el("option", { value: name, text: name }));
    }
    select.replaceChildren(...groups.values());
    if (!defs.size) select.append(el("option", { value: "", text: "(no tools: no module is enabled)" }));
    if (keep && defs.has(keep)) select.value = keep;
    showTool();
  }

  function typeOf(schema) {
    if (!schema) return "any";
    if (schema.type) return Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
    const alts = schema.anyOf || schema.oneOf;
    if (alts) return alts.map(typeOf).join(" | ");
    if (schema.enum) return "enum";
    return "any";
  }

  function placeholder(schema) {
    if (!schema) return null;
    if ("default" in schema) return schema.default;
    if (schema.enum) return schema.enum[0];
    const alts = (schema.anyOf || schema.oneOf || []).filter((s) => s.type !== "null");
    if (alts.length) return placeholder(alts[0]);
    const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== "null") : schema.type;
    return { string: "", integer: 0, number: 0, boolean: false, array: [], object: {} }[t] ?? null;
  }

  // Required arguments with a placeholder of their type, optional ones only when they have a default.
  function skeleton(params) {
    const props = (params && params.properties) || {};
    const required = new Set((params && params.required) || []);
    const out = {};
    for (const [k, s] of Object.entries(props)) {
      if (required.has(k)) out[k] = placeholder(s);
    }
    for (const [k, s] of Object.entries(props)) {
      if (!required.has(k) && s && "default" in s && s.default !== null) out[k] = s.default;
    }
    return out;
  }

  function showTool() {
    const d = defs.get($("tool-select").value);
    $("tool-desc").textContent = d ? d.fn.description || "" : "";
    const params = (d && d.fn.parameters) || {};
    const required = new Set(params.required || []);
    const rows = Object.entries(params.properties || {}).map(([k, s]) =>
      el("tr", {}, [
        el("th", { scope: "row" }, [el("code", { text: k }), required.has(k) ? el("span", { class: "req", text: " required" }) : null]),
        el("td", { text: typeOf(s) }),
        el("td", { text: (s && s.description) || "" }),
      ]),
    );
    $("tool-params").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { text: "No parameters." }))]));
    $("tool-args").value = d ? JSON.stringify(skeleton(params), null, 2) : "{}";
  }

  function renderResult(name, status, data, ms) {
    const out = $("tool-output");
    const isError = data && typeof data.error === "string";
    const badge = $("tool-status");
    badge.textContent = isError ? data.error : `ok · ${ms} ms`;
    badge.className = `badge ${isError ? "status-error" : "status-initialized"}`;
    const parts = [el("p", { class: "muted small", text: `${name} · HTTP ${status} · ${ms} ms` })];
    if (isError) parts.push(el("p", { class: "error-text", role: "alert" }, [el("strong", { text: data.error }), ` ${data.message || ""}`]));
    if (data && data.format === "png" && typeof data.data === "string") {
      parts.push(el("img", { class: "tool-image", src: `data:image/png;base64,${data.data}`, alt: `${name} result` }));
    }
    parts.push(el("pre", { class: `json ${isError ? "is-error" : ""}`, tabindex: "0", "aria-label": "Result JSON", text: shorten(data) }));
    out.replaceChildren(...parts);
  }

  async function call(event) {
    event?.preventDefault();
    const name = $("tool-select").value;
    if (!name) return;
    let args;
    try {
      args = JSON.parse($("tool-args").value || "{}");
    } catch (err) {
      renderResult(name, "-", { error: "invalid_json", message: `the arguments are not valid JSON: ${err.message}` }, 0);
      $("tool-args").focus();
      return;
    }
    const button = $("tool-call");
    button.disabled = true;
    button.textContent = "Calling…";
    const t0 = performance.now();
    // while the call is out, a confirmation it needs is asked here, with the same card as a run's
    const asking = { id: "tools", confirms: new Map(), box: { confirms: $("tool-confirms") }, answerPath: (cid) => `/api/tools-confirmations/${encodeURIComponent(cid)}` };
    let polling = true;
    const poll = async () => {
      while (polling) {
        const { ok, data } = await api("/api/tools-confirmations");
        if (ok && polling) {
          const waiting = new Set((data.confirmations || []).map((c) => c.id));
          for (const c of data.confirmations || []) Confirmations.show(asking, c);
          for (const cid of [...asking.confirms.keys()]) if (!waiting.has(cid)) Confirmations.answered(asking, { id: cid });
        }
        await new Promise((r) => setTimeout(r, 400));
      }
    };
    poll();
    try {
      const { status, data } = await api(`/api/tools/${encodeURIComponent(name)}?ask=true`, { method: "POST", body: args });
      renderResult(name, status, data ?? {}, Math.round(performance.now() - t0));
    } finally {
      polling = false;
      Confirmations.clear(asking);
      button.disabled = false;
      button.textContent = "Call";
    }
  }

  async function show(tool) {
    if (!loadedOnce) await load();
    if (tool && defs.has(tool)) {
      $("tool-select").value = tool;
      showTool();
    }
  }

  function init() {
    $("tool-select").addEventListener("change", showTool);
    $("tool-reset").addEventListener("click", showTool);
    $("tool-form").addEventListener("submit", call);
    $("tool-args").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) call(e);
    });
  }

  return { init, show, load, skeleton, errorText };
})();
window.ToolsView = ToolsView;
