// A finished run's record (what `kite show` prints): the result, then each step's page, actions and outcome,
// from GET /api/runs/{id}. Shown in a modal <dialog> (Escape closes it); the JSON can be downloaded.
"use strict";

const RecordView = (() => {
  const { api, el, errorText, fmtTime } = Kite;
  let dialog = null;

  function ensureDialog() {
    if (dialog) return dialog;
    dialog = el("dialog", { class: "record", "aria-labelledby": "record-title" });
    dialog.addEventListener("close", () => dialog.replaceChildren());
    document.body.append(dialog);
    return dialog;
  }

  function describe(action) {
    if (!action || typeof action !== "object") return String(action ?? "");
    const { action: name, ...rest } = action;
    const args = Object.entries(rest)
      .filter(([, v]) => v !== null && v !== undefined && v !== false && !(Array.isArray(v) && !v.length))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    return [name, ...args].join(" ");
  }

  function stepRow(s) {
    const acts = (s.actions || []).map((a) =>
      el("li", { class: a.result && a.result.success === false ? "bad" : "ok" }, [
        el("code", { text: describe(a.action) }),
        a.decision ? el("span", { class: `badge level-${a.decision.level}`, text: a.decision.level }) : null,
        a.result && (a.result.message || a.result.error) ? el("span", { class: "small muted", text: ` ${a.result.message || a.result.error}` }) : null,
      ]),
    );
    for (const t of s.tools || []) acts.push(el("li", {}, el("code", { text: `${t.tool}(${JSON.stringify(t.arguments || {})})` })));
    if (s.error) acts.push(el("li", { class: "bad", text: errorText(s.error) }));
    if (s.parse_error) acts.push(el("li", { class: "bad", text: errorText(s.parse_error) }));
    return el("tr", {}, [
      el("th", { scope: "row", text: String(s.step) }),
      el("td", { class: "small" }, [s.t ? el("div", { class: "muted", text: fmtTime(s.t) }) : null, el("div", { class: "url", text: s.url || (s.observation && s.observation.url) || "" })]),
      el("td", {}, [s.thought ? el("p", { class: "thought small", text: s.thought }) : null, el("ul", { class: "actions" }, acts)]),
    ]);
  }

  async function open(id) {
    const d = ensureDialog();
    const { ok, data } = await api(`/api/runs/${encodeURIComponent(id)}`);
    const close = el("button", { type: "button", text: "Close", onclick: () => d.close() });
    if (!ok) {
      d.replaceChildren(el("h2", { id: "record-title", text: "Run record" }), el("p", { class: "error-text", text: errorText(data) }), close);
      d.showModal();
      return;
    }
    const r = data.result || {};
    const json = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const facts = [
      ["Status", data.status],
      ["Success", r.success === undefined ? "" : r.success ? "yes" : "no"],
      ["Stop reason", r.stop_reason],
      ["Answer", r.answer],
      ["Message", r.message],
      ["Steps", r.steps],
      ["Tokens", r.tokens_in != null ? `${r.tokens_in} in / ${r.tokens_out} out` : ""],
      ["Duration", r.duration_s != null ? `${Number(r.duration_s).toFixed(1)} s` : ""],
      ["Final page", r.final_url],
      ["Record folder", r.run_dir || data.run_dir],
    ].filter(([, v]) => v !== undefined && v !== null && v !== "");
    const steps = Array.isArray(data.steps) ? data.steps : [];
    d.replaceChildren(
      el("div", { class: "pane-head" }, [
        el("h2", { id: "record-title", text: `Record of run ${id}` }),
        el("span", { class: "grow" }),
        el("a", { class: "button", href: URL.createObjectURL(json), download: `kite-run-${id}.json`, text: "Download JSON" }),
        close,
      ]),
      el("p", { text: data.task || "" }),
      el("dl", { class: "facts" }, facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })])),
      el("h3", { text: `Steps (${steps.length})` }),
      steps.length
        ? el("div", { class: "table-wrap" }, el("table", { class: "record-steps" }, [
            el("thead", {}, el("tr", {}, [el("th", { text: "#" }), el("th", { text: "Page" }), el("th", { text: "Actions" })])),
            el("tbody", {}, steps.map(stepRow)),
          ]))
        : el("p", { class: "empty", text: "No step was recorded." }),
    );
    d.showModal();
    close.focus();
  }

  return { open };
})();
window.RecordView = RecordView;
