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

  // The list: the runs live and on disk, newest first, a page at a time; search over the task text and
  // filters by outcome, model and day (GET /api/runs?q=&outcome=&model=&date=&offset=&limit=).
  const PAGE = 20;
  let shown = PAGE;

  function listQuery() {
    const params = new URLSearchParams({ limit: String(shown) });
    const q = $("runs-search").value.trim();
    if (q) params.set("q", q);
    for (const [id, key] of [["runs-outcome", "outcome"], ["runs-model", "model"], ["runs-date", "date"]]) {
      if ($(id).value) params.set(key, $(id).value);
    }
    // the day is the person's own (the date input's), the start times are UTC: the server is told our clock
    if (params.has("date")) params.set("tz", String(-new Date(`${params.get("date")}T12:00`).getTimezoneOffset()));
    return params;
  }

  const stepsText = (n) => `${n} step${n === 1 ? "" : "s"}`;

  // The steps the watched run's page shows (its step list, built from its events; step 0 is the start URL).
  const shownSteps = () => Math.max(0, ...[...watch.steps.keys()]);

  // A card's step count: for the run on screen, the same count as its page (the list's own refresh lags
  // behind the events); for the others, the list's.
  const cardSteps = (r) => (watch && watch.id === runId(r) ? Math.max(r.step_count, shownSteps()) : r.step_count);

  // A step of the watched run appeared: its card counts it now.
  function syncCard() {
    const count = $("run-list").querySelector(`[data-run="${CSS.escape(watch.id)}"] .run-steps`);
    if (count) count.textContent = stepsText(Math.max(Number(count.textContent.split(" ")[0]) || 0, shownSteps()));
  }

  const outcomeBadge = (outcome) => el("span", { class: `badge outcome outcome-${outcome}`, text: outcome });

  async function refreshList() {
    const { ok, data } = await api(`/api/runs?${listQuery()}`);
    if (!ok) {
      $("run-list").replaceChildren(el("li", { class: "error-text", text: errorText(data) }));
      return;
    }
    const models = $("runs-model");
    const keep = models.value;
    models.replaceChildren(el("option", { value: "", text: "any model" }), ...(data.models || []).map((m) => el("option", { value: m, text: m })));
    models.value = keep;
    const runs = data.runs || [];
    $("runs-count").textContent = `${runs.length} of ${data.total}`;
    $("runs-more").hidden = runs.length >= data.total;
    if (!runs.length) {
      $("run-list").replaceChildren(el("li", { class: "empty", text: data.total === 0 && !listQuery().has("q") ? "No run yet." : "No run matches." }));
      return;
    }
    // the list is drawn anew: the card that had the keyboard's focus keeps it (else it would fall to <body>)
    const focused = document.activeElement && document.activeElement.closest("#run-list [data-run]");
    $("run-list").replaceChildren(
      ...runs.map((r) =>
        el("li", { class: `card run-card${watch && watch.id === runId(r) ? " selected" : ""}`, dataset: { run: runId(r), outcome: r.outcome } }, [
          el("a", { class: "card-main", href: `#runs/${encodeURIComponent(runId(r))}` }, [
            el("span", { class: "card-title", text: r.task || runId(r) }),
            outcomeBadge(r.outcome),
            r.caveat ? el("span", { class: "card-caveat small warn-text", text: `⚠ ${r.caveat}` }) : null,
            r.answer ? el("span", { class: "card-answer small", text: r.answer }) : null,
            el("span", { class: "muted small" }, [
              el("span", { class: "run-steps", text: stepsText(cardSteps(r)) }),
              ` · ${r.model} · ${Kite.fmtWhen(r.created_at)}`,
            ]),
          ]),
        ]),
      ),
    );
    if (focused) $("run-list").querySelector(`[data-run="${CSS.escape(focused.dataset.run)}"] a`)?.focus();
  }

  let searchTimer = 0;
  function refilter() {
    shown = PAGE;
    clearTimeout(searchTimer);
    searchTimer = setTimeout(refreshList, 250);
  }

  function formBody() {
    const list = (v) => v.split(",").map((s) => s.trim()).filter(Boolean);
    const body = { task: $("run-task").value.trim() };
    if ($("run-url").value.trim()) body.start_url = $("run-url").value.trim();
    if ($("run-model").value.trim()) body.model = $("run-model").value.trim();
    if ($("run-steps").value) body.max_steps = Number($("run-steps").value);
    if (list($("run-domains").value).length) body.allowed_domains = list($("run-domains").value);
    if (list($("run-secrets").value).length) body.secrets = list($("run-secrets").value);
    if (list($("run-approve").value).length) body.approve = list($("run-approve").value);
    if ($("run-vision").value) body.vision = $("run-vision").value === "true";
    if ($("run-profile").value.trim()) body.profile = $("run-profile").value.trim();
    if ($("run-cache").value) body.cache = true;
    if ($("run-schema").value.trim()) body.output_schema = JSON.parse($("run-schema").value); // checked in start()
    return body;
  }

  let bringIntoView = null; // the id of the run Start run just started, until its pane is shown

  async function start(event) {
    event.preventDefault();
    $("run-form-error").textContent = "";
    let body;
    try {
      body = formBody();
    } catch (err) {
      $("run-form-error").textContent = `invalid_output_schema: the output schema is not valid JSON: ${err.message}`;
      $("run-options").open = true;
      $("run-schema").focus();
      return;
    }
    const button = $("run-start");
    button.disabled = true;
    try {
      const { ok, data } = await api("/api/runs", { method: "POST", body });
      if (!ok) {
        $("run-form-error").textContent = errorText(data);
        if (data && /profile/.test(data.error || "")) { $("run-options").open = true; $("run-profile").focus(); } // in use, or not a name of ours
        return;
      }
      toast(`Run ${runId(data)} started`);
      bringIntoView = runId(data);
      location.hash = `#runs/${encodeURIComponent(runId(data))}`;
    } finally {
      button.disabled = false;
    }
  }

  // ------------------------------------------------------------------ one run, live
  function unwatch() {
    if (watch) {
      watch.stream?.stop();
      clearInterval(watch.ticker);
      if (watch.liveUrl) URL.revokeObjectURL(watch.liveUrl);
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
      status: outcomeBadge(data.outcome),
      stop: el("button", { type: "button", class: "danger", text: "Stop run", onclick: () => stop(id) }),
      replayBtn: el("button", { type: "button", text: "Replay", hidden: true, onclick: () => Replay.open(id, watch ? [...watch.steps.keys()] : []) }),
      recordBtn: el("button", { type: "button", text: "Open record", hidden: true, onclick: () => RecordView.open(id) }),
      conn: el("span", { class: "muted small" }),
      result: el("div", { class: "run-result", "aria-live": "polite" }),
      live: el("figure", { class: "live", hidden: true }, [
        el("img", { alt: "The page the run is on, live" }),
        el("figcaption", { class: "small muted", text: "Live view of the run's page" }),
      ]),
      thinking: el("p", { class: "thinking", role: "status", hidden: true }),
      confirms: el("div", { class: "confirms" }),
      steps: el("ol", { class: "steps", "aria-label": "Steps" }),
    };
    pane.replaceChildren(
      el("div", { class: "pane-head run-head" }, [
        el("h2", { text: data.task || id }),
        box.status,
        el("span", { class: "grow" }),
        box.conn,
        box.stop,
        box.replayBtn,
        box.recordBtn,
      ]),
      box.result,
      el("p", { class: "muted small run-meta", text: [id, data.model, data.start_url, data.profile && `profile ${data.profile}`].filter(Boolean).join(" · ") }),
      box.confirms,
      box.thinking,
      box.live,
      box.steps,
    );
    watch = { id, box, steps: new Map(), confirms: new Map(), lastObserve: null, thinkingSince: null, ticker: 0, liveUrl: null, liveBackoff: 0, liveWait: 0, liveStopped: false };
    $("view-runs").querySelector(".split").classList.add("watching");
    if (bringIntoView === id) {
      // the form is taller than a laptop's window, and on a phone the run pane comes first once watching:
      // the run just started is brought into view, not left above (or below) where the button was
      bringIntoView = null;
      $("run-pane").scrollIntoView({ block: "start" });
    }
    setStatus(data.status, data.result, data.error, data.outcome, data.caveat);
    refreshList();
    if (data.on_disk) {
      // a run of an earlier server (or of kite run): its record is all there is
      for (const step of data.steps || []) fromRecord(id, step);
      markIdle(data.status);
      return;
    }
    watch.ticker = setInterval(() => tick(id), 1000);
    // the stream replays every event from the first, then follows the run live until it ends
    watch.stream = new EventStream(`/api/runs/${encodeURIComponent(id)}/events`, (kind, ev) => onEvent(id, kind, ev), {
      onState: (state, status) => {
        if (!watch || watch.id !== id) return;
        box.conn.textContent = state === "open" ? "live" : state === "failed" ? `events: HTTP ${status}` : state;
      },
    }).start();
  }

  // A step of a recorded run: the same one-line rows as a live one.
  function fromRecord(id, step) {
    const s = stepBox(step.step);
    s.where.textContent = [step.title, step.url].filter(Boolean).join(" — ");
    if (step.thought) setThought(s, step.thought);
    if (step.screenshot_url) thumbnail(id, step.step, s, step.screenshot_url);
    else noThumbnail(s); // e.g. step 0, the start URL: nothing to show, so no empty box
    for (const a of step.actions || []) {
      const row = { li: el("li", { class: "action" }), done: true };
      s.actions.append(row.li);
      if (a.allowed === false) refusedRow(row, { action: a.action, level: a.level, reasons: a.message ? [a.message] : [] });
      else resultRow(row, { action: a.action, level: a.level, ok: a.ok, message: a.message });
    }
  }

  // Every second while the run is on: how long the model has been thinking, and the live view's next frame.
  async function tick(id) {
    if (!watch || watch.id !== id || watch.box.stop.hidden) return;
    const box = watch.box;
    if (watch.thinkingSince) {
      const secs = Math.max(0, Math.round(Date.now() / 1000 - watch.thinkingSince));
      box.thinking.hidden = false;
      box.thinking.textContent = `Model is thinking (${secs} s)`;
    } else box.thinking.hidden = true;
    if (watch.fetching || watch.liveStopped) return;
    if (watch.liveWait > 0) {
      watch.liveWait -= 1;
      return;
    }
    watch.fetching = true;
    try {
      await liveFrame(id);
    } catch (e) {
      // a missed frame (network): the next tick asks again
    } finally {
      if (watch) watch.fetching = false;
    }
  }

  // GET /live answers a frame; 409 no_frame (the run is starting, or its page is busy): asked again later,
  // backing off to LIVE_MAX_WAIT s, the last frame kept and the reason shown; 409 not_running (or any other
  // refusal): no more asking, and the run's state is read and shown if the finish event has not said it within
  // FINISH_GRACE_MS (it normally follows at once; it may never come, e.g. a proxy holding the event stream).
  const LIVE_MAX_WAIT = 4;
  const FINISH_GRACE_MS = 3000;
  async function liveFrame(id) {
    const res = await fetch(`/api/runs/${encodeURIComponent(id)}/live`, { cache: "no-store" });
    // the run may have ended while the frame was on its way (setStatus hid the view): it stays hidden
    const over = () => !watch || watch.id !== id || watch.box.stop.hidden;
    if (over()) return;
    const live = watch.box.live;
    if (res.ok) {
      const url = URL.createObjectURL(await res.blob());
      if (over()) return URL.revokeObjectURL(url);
      if (watch.liveUrl) URL.revokeObjectURL(watch.liveUrl);
      watch.liveUrl = url;
      watch.liveBackoff = 0;
      live.querySelector("img").src = url;
      live.hidden = false;
      live.dataset.frames = String(Number(live.dataset.frames || 0) + 1);
      liveState("live", "Live view of the run's page");
      return;
    }
    const data = await res.json().catch(() => ({ error: `http_${res.status}`, message: "" }));
    if (!watch || watch.id !== id) return;
    if (res.status === 409 && data.error === "no_frame") {
      watch.liveBackoff = Math.min(LIVE_MAX_WAIT, Math.max(1, (watch.liveBackoff || 0) * 2));
      watch.liveWait = watch.liveBackoff - 1;
      liveState("waiting", `${data.message} (asking again in ${watch.liveBackoff} s)`);
      return;
    }
    watch.liveStopped = true;
    liveState("stopped", errorText(data));
    setTimeout(() => {
      if (watch && watch.id === id && !watch.box.stop.hidden) showState(id); // no finish event came
    }, FINISH_GRACE_MS);
  }

  function liveState(state, text) {
    const live = watch.box.live;
    live.dataset.state = state;
    live.querySelector("figcaption").textContent = text;
  }

  // The run's state as GET shows it (when the event stream did not say it).
  async function showState(id) {
    const { ok, data } = await api(`/api/runs/${encodeURIComponent(id)}`);
    if (!watch || watch.id !== id) return;
    if (!ok) {
      watch.box.conn.textContent = errorText(data);
      return;
    }
    setStatus(data.status, data.result, data.error, data.outcome, data.caveat);
    refreshList();
  }

  function setStatus(status, result, error, outcome, caveat) {
    const box = watch.box;
    const word = outcome || (status === "running" ? "running" : status);
    box.status.textContent = word;
    box.status.className = `badge outcome outcome-${word}`;
    const done = isFinal(status) || !!result;
    box.stop.hidden = done;
    box.recordBtn.hidden = !done;
    box.replayBtn.hidden = !done;
    if (done) {
      box.conn.textContent = "";
      box.thinking.hidden = true;
      box.live.hidden = true;
      clearInterval(watch.ticker);
      Confirmations.clear(watch);
    }
    if (result) box.result.replaceChildren(resultCard(result, error, word, caveat));
  }

  // The run ended: the finish event says how (status, outcome; error: why it failed).
  function ended(id, ev) {
    if (!watch || watch.id !== id) return;
    setStatus(ev.status, ev.result, ev.error, ev.outcome, ev.caveat);
    markIdle(ev.status);
    refreshList();
  }

  // A step the run ended in before it acted (stopped, out of time, the model's error) says so, not nothing.
  function markIdle(status) {
    for (const s of watch.steps.values()) {
      if (s.actions.children.length) continue;
      const why = status === "stopped" ? "the run was stopped" : "the run ended";
      s.actions.append(el("li", { class: "action note muted idle", text: `No action: ${why} before this step acted.` }));
    }
  }

  // The outcome first: how it ended, the answer and its data; the caveat (the server's RunResult.caveat, the
  // one rule of honest tables) and what was not done.
  function resultCard(r, error, outcome, caveat) {
    const title = { success: "Succeeded", denied: "Denied", stopped: "Stopped", failed: "Failed" }[outcome] || "Did not succeed";
    const declined = r.declined || [];
    return el("div", { class: `result-card outcome-${outcome}` }, [
      // an answer under another outcome is what the model said, not what happened ("Denied. Ordered." read as
      // both): it is quoted as the model's
      el("p", { class: "result-answer" }, [
        el("strong", { text: `${title}. ` }),
        r.answer && outcome !== "success" ? `The model said: “${r.answer}”` : r.answer || r.message || "",
      ]),
      r.data != null ? el("pre", { class: "result-data", text: JSON.stringify(r.data, null, 2) }) : null,
      r.steps_by ? el("p", { class: "small replayed", text: replayLine(r) }) : null,
      caveat ? el("p", { class: "small warn-text caveat", text: `⚠ ${caveat}` }) : null,
      declined.length ? el("p", { class: "small", text: `Not done: ${declined.map((d) => `${d.action} (${d.outcome})`).join("; ")}` }) : null,
      el("p", { class: "muted small", text: `${r.stop_reason}${r.steps != null ? ` · ${r.steps} ${r.steps === 1 ? "step" : "steps"}` : ""}${r.duration_s != null ? ` · ${Number(r.duration_s).toFixed(1)} s` : ""}` }),
      error ? el("p", { class: "error-text", text: errorText(error) }) : null,
    ]);
  }

  // A replayed run says so, and what it saved (the terminal's line, agent/commands/_progress.py).
  function replayLine(r) {
    const by = r.steps_by || {};
    const n = (k, word) => `${k} ${k === 1 ? word : `${word}s`}`;
    let line = `Replayed from a workflow: ${by.replayed || 0} of ${n(r.steps || 0, "step")} with no model call`;
    if (by.healed) line += `, ${by.healed} healed`;
    if (by.agent) line += `, ${by.agent} by the agent`;
    line += `; ${n(r.model_calls || 0, "model call")}`;
    if (r.model_calls_saved != null) line += `, ${n(r.model_calls_saved, "model call")} saved`;
    return line;
  }

  function stepBox(n) {
    let s = watch.steps.get(n);
    if (s) return s;
    const thumb = el("div", { class: "thumb" });
    const where = el("div", { class: "step-where muted small" });
    const actions = el("ul", { class: "actions" });
    const thought = el("details", { class: "thought small", hidden: true }, [el("summary", { text: "Thought" }), el("p")]);
    const li = el("li", { class: "step", dataset: { step: n } }, [
      thumb,
      el("div", { class: "step-body" }, [el("div", { class: "step-title", text: `Step ${n}` }), where, actions, thought]),
    ]);
    s = { li, thumb, where, actions, thought, rows: new Map() };
    watch.steps.set(n, s);
    const after = [...watch.box.steps.children].find((c) => Number(c.dataset.step) > n);
    watch.box.steps.insertBefore(li, after || null);
    syncCard();
    return s;
  }

  async function thumbnail(id, n, s, path) {
    const url = await Kite.blobUrl(path || `/api/runs/${encodeURIComponent(id)}/screenshots/${n}`);
    if (!url || !watch || watch.id !== id) return;
    const img = el("img", { src: url, alt: `Screenshot of step ${n}`, loading: "lazy" });
    s.thumb.replaceChildren(el("a", { href: url, target: "_blank", rel: "noopener", "aria-label": `Open the screenshot of step ${n}` }, img));
  }

  function noThumbnail(s) {
    s.thumb.remove();
    s.li.classList.add("no-thumb");
  }

  function setThought(s, text) {
    s.thought.hidden = false;
    s.thought.querySelector("p").textContent = text;
  }

  // One line per action: its mark, the action, and what it verifiably did (or why it did not run).
  function resultRow(row, ev) {
    row.li.classList.remove("ok", "bad");
    // a done with success false ran, but it is the model saying the task failed: no tick for it
    const ok = ev.ok && String(ev.action || "").startsWith("done success=False") ? false : ev.ok;
    if (ok != null) row.li.classList.add(ok ? "ok" : "bad");
    row.li.replaceChildren(
      ...[
        el("span", { class: "mark", "aria-label": ok ? "ok" : "failed", text: ok ? "✓" : ok === false ? "✗" : "…" }),
        el("code", { text: ev.action }),
        ev.level && ev.level !== "auto" ? el("span", { class: `badge level-${ev.level}`, text: ev.level }) : null,
        ev.message ? el("span", { class: "small result-msg", text: ev.message }) : null,
      ].filter(Boolean),
    );
  }

  function refusedRow(row, ev) {
    row.li.classList.add("bad", "refused");
    row.li.replaceChildren(
      ...[
        el("span", { class: "mark", "aria-label": "not run", text: "⊘" }),
        el("code", { text: ev.action }),
        el("span", { class: "badge status-error", text: ev.denial ? "denied" : ev.level === "block" ? "blocked" : "refused" }),
        el("span", { class: "small result-msg", text: ev.denial || (ev.reasons || []).join("; ") }),
      ].filter(Boolean),
    );
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
        watch.thinkingSince = ev.t || Date.now() / 1000; // the model is asked next
        break;
      }
      case "model":
        watch.thinkingSince = null;
        if (ev.content) setThought(stepBox(n), ev.content);
        break;
      case "decision": {
        watch.thinkingSince = null;
        const s = stepBox(n);
        const row = actionRow(s, ev);
        if (ev.allowed) {
          resultRow(row, { action: ev.action, level: ev.level, ok: null });
          break;
        }
        // refused: said once, on the action's own line (with the person's answer, if one was given)
        row.done = true;
        row.refused = true;
        row.action = ev.action;
        refusedRow(row, { ...ev, denial: s.denial });
        if (s.denial) row.li.dataset.denied = "true";
        s.denial = null;
        break;
      }
      case "result": {
        const s = stepBox(n);
        // a refused action's own result (declined / blocked): its line already says so, once
        const refused = [...s.rows.values()].find((r) => r.refused && !r.told && r.action === ev.action);
        if (refused && !ev.ok) {
          refused.told = true;
          break;
        }
        const row = actionRow(s, ev);
        row.done = true;
        resultRow(row, ev);
        break;
      }
      case "error":
        stepBox(n).actions.append(el("li", { class: "action bad" }, [el("strong", { text: ev.error }), ` ${ev.message}`]));
        break;
      case "handover": {
        HandOver.show(watch, ev);
        stepBox(n).actions.append(el("li", { class: "action note waiting", dataset: { hid: ev.id }, text: `Handed to you: ${ev.question}` }));
        break;
      }
      case "handed_back": {
        HandOver.hide(watch);
        const note = watch.box.steps.querySelector(`.action.note[data-hid="${CSS.escape(ev.id)}"]`);
        const line = el("li", { class: `action note ${ev.done ? "ok" : "bad"}`, text: `${ev.done ? "Handed back" : "Handed back undone"} after ${ev.seconds} s${ev.reason ? `: ${ev.reason}` : ""}` });
        if (note) note.replaceWith(line);
        else stepBox(n).actions.append(line);
        break;
      }
      case "confirm": {
        // the question belongs to its step (ev.step); the server words the action as the TUI does
        Confirmations.show(watch, ev);
        const note = el("li", { class: "action note waiting", dataset: { cid: ev.id }, text: `Waiting for an answer: ${ev.action_text}` });
        stepBox(n).actions.append(note);
        break;
      }
      case "confirmed": {
        Confirmations.answered(watch, ev);
        const s = stepBox(n);
        const note = watch.box.steps.querySelector(`.action.note[data-cid="${CSS.escape(ev.id)}"]`);
        if (ev.approved) {
          const line = el("li", { class: "action note ok", text: `Approved: ${ev.reason || ""}` });
          if (note) note.replaceWith(line);
          else s.actions.append(line);
        } else {
          // the denial is told once, on the refused action's own line (before or after it is listed)
          if (note) note.remove();
          const denial = `Denied: ${ev.reason || "no reason given"}`;
          const listed = [...s.actions.querySelectorAll(".action.refused:not([data-denied])")].pop();
          if (listed) {
            listed.dataset.denied = "true";
            listed.querySelector(".badge").textContent = "denied";
            listed.querySelector(".result-msg").textContent = denial;
          } else s.denial = denial;
        }
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
    $("runs-search").addEventListener("input", refilter);
    for (const id of ["runs-outcome", "runs-model", "runs-date"]) $(id).addEventListener("change", refilter);
    $("runs-filters").addEventListener("submit", (e) => (e.preventDefault(), refilter()));
    $("runs-more").addEventListener("click", () => ((shown += PAGE), refreshList()));
  }

  return { init, refreshList, open, unwatch, get watch() { return watch; } };
})();
window.RunsView = RunsView;
