// A finished run's record (run.json and steps.jsonl, from GET /api/runs/{id}/record): the result, then each
// step's page, actions and outcome, and the record's files to download. A modal <dialog> (Escape closes it).
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

  // the server words each recorded action (action_text) as the TUI does
  const describe = (a) => a.action_text || (typeof a.action === "string" ? a.action : JSON.stringify(a.action ?? ""));

  function stepRow(s) {
    const acts = (s.actions || []).map((a) =>
      el("li", { class: a.result && a.result.ok === false ? "bad" : "ok" }, [
        el("code", { text: describe(a) }),
        a.decision ? el("span", { class: `badge level-${a.decision.level}`, text: a.decision.level }) : null,
        a.result && (a.result.message || a.result.error) ? el("span", { class: "small muted", text: ` ${a.result.message || errorText(a.result.error)}` }) : null,
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

  // A file of the record, fetched with the token, saved under its own name.
  async function download(id, path) {
    const url = await Kite.blobUrl(`/api/runs/${encodeURIComponent(id)}/record/${path.split("/").map(encodeURIComponent).join("/")}`);
    if (!url) return Kite.toast(`could not fetch ${path}`, "error");
    const a = el("a", { href: url, download: path.split("/").pop() });
    document.body.append(a);
    a.click();
    a.remove();
  }

  async function open(id) {
    const d = ensureDialog();
    const { ok, data } = await api(`/api/runs/${encodeURIComponent(id)}/record`);
    const close = el("button", { type: "button", text: "Close", onclick: () => d.close() });
    if (!ok) {
      d.replaceChildren(el("h2", { id: "record-title", text: "Run record" }), el("p", { class: "error-text", text: errorText(data) }), close);
      d.showModal();
      return;
    }
    const run = data.run || {};
    const r = run.result || {};
    const facts = [
      ["Task", run.task],
      ["Model", run.model],
      ["Success", r.success === undefined ? "" : r.success ? "yes" : "no"],
      ["Stop reason", r.stop_reason],
      ["Answer", r.answer],
      ["Message", r.message],
      ["Steps", r.steps],
      ["Tokens", r.tokens_in != null ? `${r.tokens_in} in / ${r.tokens_out} out` : ""],
      ["Duration", r.duration_s != null ? `${Number(r.duration_s).toFixed(1)} s` : ""],
      ["Started", run.started_at ? new Date(run.started_at).toLocaleString() : ""],
      ["Final page", r.final_url],
      ["Folder", r.run_dir],
    ].filter(([, v]) => v !== undefined && v !== null && v !== "");
    const steps = data.steps || [];
    const files = data.files || [];
    d.replaceChildren(
      el("div", { class: "pane-head" }, [el("h2", { id: "record-title", text: `Record of run ${id}` }), close]),
      el("dl", { class: "facts" }, facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })])),
      el("h3", { text: `Steps (${steps.length})` }),
      steps.length
        ? el("div", { class: "table-wrap" }, el("table", { class: "record-steps" }, [
            el("thead", {}, el("tr", {}, [el("th", { text: "#" }), el("th", { text: "Page" }), el("th", { text: "Actions" })])),
            el("tbody", {}, steps.map(stepRow)),
          ]))
        : el("p", { class: "empty", text: "No step was recorded." }),
      el("details", { class: "record-files" }, [
        el("summary", { text: `Files (${files.length})` }),
        el("ul", {}, files.map((f) => el("li", {}, el("button", { type: "button", class: "linkish", text: f, onclick: () => download(id, f) })))),
      ]),
    );
    d.showModal();
    close.focus();
  }

  return { open };
})();
window.RecordView = RecordView;
