// Runs view: start a run, list runs, watch one live (steps over SSE), stop it. Confirmations: confirm.js;
// the finished run's record: record.js.
"use strict";

const RunsView = (() => {
  const { api, el, errorText, toast } = Kite;
  const $ = (id) => document.getElementById(id);
  const FINAL = new Set(["finished", "failed", "stopped"]);
  let watch = null; // {id, stream, steps: Map, box}

  const runId = (r) => r.id;
  const isFinal = (status) => FINAL.has(String(status || "").toLowerCase());

  async function refreshList() {
    const { ok, data } = await api("/api/runs");
    if (!ok) {
      $("run-list").replaceChildren(el("li", { class: "error-text", text: errorText(data) }));
      return;
    }
    const runs = Array.isArray(data) ? data : data.runs || [];
    if (!runs.length) {
      $("run-list").replaceChildren(el("li", { class: "empty", text: "No run yet." }));
      return;
    }
    $("run-list").replaceChildren(
      ...runs.map((r) =>
        el("li", { class: `card run-card${watch && watch.id === runId(r) ? " selected" : ""}`, dataset: { run: runId(r) } }, [
          el("a", { class: "card-main", href: `#runs/${encodeURIComponent(runId(r))}` }, [
            el("span", { class: "card-title", text: r.task || runId(r) }),
            el("span", { class: `badge status-${r.status}`, text: r.status }),
            el("span", { class: "muted", text: `${r.step_count} step${r.step_count === 1 ? "" : "s"} · ${r.model}${r.stop_reason ? ` · ${r.stop_reason}` : ""}` }),
          ]),
        ]),
      ),
    );
  }

  function formBody() {
    const list = (v) => v.split(",").map((s) => s.trim()).filter(Boolean);
    const body = { task: $("run-task").value.trim() };
    if ($("run-url").value.trim()) body.start_url = $("run-url").value.trim();
    if ($("run-model").value.trim()) body.model = $("run-model").value.trim();
    if ($("run-steps").value) body.max_steps = Number($("run-steps").value);
    if (list($("run-domains").value).length) body.allowed_domains = list($("run-domains").value);
    if (list($("run-secrets").value).length) body.secrets = list($("run-secrets").value);
    return body;
  }

  async function start(event) {
    event.preventDefault();
    $("run-form-error").textContent = "";
    const button = $("run-start");
    button.disabled = true;
    try {
      const { ok, data } = await api("/api/runs", { method: "POST", body: formBody() });
      if (!ok) {
        $("run-form-error").textContent = errorText(data);
        return;
      }
      toast(`Run ${runId(data)} started`);
      location.hash = `#runs/${encodeURIComponent(runId(data))}`;
    } finally {
      button.disabled = false;
    }
  }

  // ------------------------------------------------------------------ one run, live
  function unwatch() {
    if (watch) {
      watch.stream?.stop();
    }
    watch = null;
    $("view-runs").querySelector(".split").classList.remove("watching");
  }

  async function open(id) {
    if (watch && watch.id === id) return;
    unwatch();
    const pane = $("run-pane");
    const { ok, data } = await api(`/api/runs/${encodeURIComponent(id)}`);
    if (!ok) {
      pane.replaceChildren(el("p", { class: "error-text", role: "alert", text: errorText(data) }));
      return;
    }
    const box = {
      status: el("span", { class: `badge status-${data.status}`, text: data.status }),
      stop: el("button", { type: "button", class: "danger", text: "Stop run", onclick: () => stop(id) }),
      recordBtn: el("button", { type: "button", text: "Open record", hidden: true, onclick: () => RecordView.open(id) }),
      conn: el("span", { class: "muted small" }),
      confirms: el("div", { class: "confirms" }),
      steps: el("ol", { class: "steps", "aria-label": "Steps" }),
      result: el("div", { class: "run-result", "aria-live": "polite" }),
    };
    pane.replaceChildren(
      el("div", { class: "pane-head run-head" }, [
        el("h2", { text: data.task || id }),
        box.status,
        el("span", { class: "grow" }),
        box.conn,
        box.stop,
        box.recordBtn,
      ]),
      el("p", { class: "muted small", text: [id, data.model, data.start_url].filter(Boolean).join(" · ") }),
      box.confirms,
      box.steps,
      box.result,
    );
    watch = { id, box, steps: new Map(), confirms: new Map() };
    $("view-runs").querySelector(".split").classList.add("watching");
    setStatus(data.status, data.result, data.error);
    refreshList();
    // the stream replays every event from the first, then follows the run live until it ends
    watch.stream = new EventStream(`/api/runs/${encodeURIComponent(id)}/events`, (kind, ev) => onEvent(id, kind, ev), {
      onState: (state, status) => {
        if (!watch || watch.id !== id) return;
        box.conn.textContent = state === "open" ? "live" : state === "failed" ? `events: HTTP ${status}` : state;
      },
    }).start();
  }

  function setStatus(status, result, error) {
    const box = watch.box;
    box.status.textContent = status;
    box.status.className = `badge status-${status}`;
    const done = isFinal(status) || !!result;
    box.stop.hidden = done;
    box.recordBtn.hidden = !done;
    if (done) {
      box.conn.textContent = "";
      Confirmations.clear(watch);
    }
    if (result) box.result.replaceChildren(resultCard(result, error, status));
  }

  // The run ended: the finish event says how (status: finished, failed, stopped; error: why it failed).
  function ended(id, ev) {
    if (!watch || watch.id !== id) return;
    setStatus(ev.status, ev.result, ev.error);
    refreshList();
  }

  function resultCard(r, error, status) {
    const title = status === "stopped" ? "Stopped" : status === "failed" ? "Failed" : r.success ? "Succeeded" : "Did not succeed";
    return el("div", { class: `result-card ${r.success ? "ok" : "bad"}` }, [
      el("strong", { text: title }),
      el("span", { class: "muted", text: ` · ${r.stop_reason}${r.steps != null ? ` · ${r.steps} steps` : ""}${r.duration_s != null ? ` · ${Number(r.duration_s).toFixed(1)} s` : ""}` }),
      r.answer ? el("p", { text: r.answer }) : null,
      r.message ? el("p", { class: "muted", text: r.message }) : null,
      error ? el("p", { class: "error-text", text: errorText(error) }) : null,
    ]);
  }

  function stepBox(n) {
    let s = watch.steps.get(n);
    if (s) return s;
    const thumb = el("div", { class: "thumb" });
    const where = el("div", { class: "step-where muted small" });
    const actions = el("ul", { class: "actions" });
    const thought = el("p", { class: "thought small" });
    const li = el("li", { class: "step", dataset: { step: n } }, [
      thumb,
      el("div", { class: "step-body" }, [el("div", { class: "step-title", text: `Step ${n}` }), where, thought, actions]),
    ]);
    s = { li, thumb, where, actions, thought, rows: new Map() };
    watch.steps.set(n, s);
    const after = [...watch.box.steps.children].find((c) => Number(c.dataset.step) > n);
    watch.box.steps.insertBefore(li, after || null);
    return s;
  }

  async function thumbnail(id, n, s, path) {
    const url = await Kite.blobUrl(path || `/api/runs/${encodeURIComponent(id)}/screenshots/${n}`);
    if (!url || !watch || watch.id !== id) return;
    const img = el("img", { src: url, alt: `Screenshot of step ${n}`, loading: "lazy" });
    s.thumb.replaceChildren(el("a", { href: url, target: "_blank", rel: "noopener", "aria-label": `Open the screenshot of step ${n}` }, img));
  }

  function actionRow(s, ev) {
    const key = `${ev.action}#${[...s.rows.keys()].filter((k) => k.startsWith(`${ev.action}#`)).length}`;
    const open = [...s.rows.entries()].find(([k, r]) => k.startsWith(`${ev.action}#`) && !r.done);
    if (open) return open[1];
    const row = { li: el("li", { class: "action" }), done: false };
    s.rows.set(key, row);
    s.actions.append(row.li);
    return row;
  }

  // The list's step counts follow the run, refreshed at most every 2 s.
  let listTimer = 0;
  function refreshListSoon() {
    if (!listTimer) listTimer = setTimeout(() => ((listTimer = 0), refreshList()), 2000);
  }

  function onEvent(id, kind, ev) {
    if (!watch || watch.id !== id) return;
    const n = ev.step ?? 0;
    if (kind === "observe") refreshListSoon();
    switch (kind) {
      case "start":
        break;
      case "observe": {
        const s = stepBox(n);
        s.where.textContent = [ev.title, ev.url].filter(Boolean).join(" — ");
        if (ev.screenshot_url || ev.screenshot) thumbnail(id, n, s, ev.screenshot_url);
        break;
      }
      case "model":
        if (ev.content) stepBox(n).thought.textContent = ev.content;
        break;
      case "decision": {
        const row = actionRow(stepBox(n), ev);
        row.li.replaceChildren(
          ...[
            el("span", { class: "mark", "aria-label": "pending", text: "…" }),
            el("code", { text: ev.action }),
            el("span", { class: `badge level-${ev.level}`, text: ev.level }),
            ev.allowed ? null : el("span", { class: "badge status-error", text: "refused" }),
            ev.reasons && ev.reasons.length ? el("div", { class: "small result-msg", text: ev.reasons.join("; ") }) : null,
          ].filter(Boolean),
        );
        if (!ev.allowed) row.done = true;
        break;
      }
      case "result": {
        const row = actionRow(stepBox(n), ev);
        row.done = true;
        row.li.classList.add(ev.ok ? "ok" : "bad");
        row.li.replaceChildren(
          ...[
            el("span", { class: "mark", "aria-label": ev.ok ? "ok" : "failed", text: ev.ok ? "✓" : "✗" }),
            el("code", { text: ev.action }),
            ev.level && ev.level !== "auto" ? el("span", { class: `badge level-${ev.level}`, text: ev.level }) : null,
            ev.message ? el("div", { class: "small result-msg", text: ev.message }) : null,
          ].filter(Boolean),
        );
        break;
      }
      case "error":
        stepBox(n).actions.append(el("li", { class: "action bad" }, [el("strong", { text: ev.error }), ` ${ev.message}`]));
        break;
      case "confirm": {
        // the question belongs to its step (ev.step); the server words the action as the TUI does
        Confirmations.show(watch, ev);
        const note = el("li", { class: "action note waiting", dataset: { cid: ev.id }, text: `Waiting for an answer: ${ev.action_text}` });
        stepBox(n).actions.append(note);
        break;
      }
      case "confirmed": {
        Confirmations.answered(watch, ev);
        const text = `${ev.approved ? "Approved" : "Denied"}: ${ev.reason || ""}`;
        const note = watch.box.steps.querySelector(`.action.note[data-cid="${CSS.escape(ev.id)}"]`);
        const line = el("li", { class: `action note ${ev.approved ? "ok" : "bad"}`, text });
        if (note) note.replaceWith(line);
        else stepBox(n).actions.append(line);
        break;
      }
      case "notify":
        stepBox(n).actions.append(el("li", { class: "action note", text: `Note: ${ev.description || ev.action_text}` }));
        break;
      case "finish":
        ended(id, ev);
        break;
      default:
        break;
    }
  }

  async function stop(id) {
    toast(`Stopping run ${id}…`);
    const { ok, data } = await api(`/api/runs/${encodeURIComponent(id)}/stop`, { method: "POST" });
    toast(ok ? `Run ${id} ${data.status}` : errorText(data), ok ? "info" : "error");
  }

  function init() {
    $("run-form").addEventListener("submit", start);
    $("runs-refresh").addEventListener("click", refreshList);
  }

  return { init, refreshList, open, unwatch, get watch() { return watch; } };
})();
window.RunsView = RunsView;
