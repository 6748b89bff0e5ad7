// Pending confirmations of a run: the same details as the TUI's modal (agent/tui/confirm.py) — the action,
// its target as the page shows it, the page URL and the policy's reasons — answered with
// POST /api/runs/{id}/confirmations/{cid} {"decision": "approve" | "deny", "similar"}. Keys like the TUI's:
// y approve, n / Escape deny, a approve similar actions for the rest of the run.
"use strict";

const Confirmations = (() => {
  const { api, el, errorText, toast } = Kite;

  const cidOf = (c) => c.id;

  function roleWord(e) {
    if (e.role) return e.role;
    if (e.tag === "a") return "link";
    if (e.tag === "button" || e.tag === "summary") return "button";
    if (e.tag === "input") {
      const t = e.type || "text";
      if (t === "checkbox" || t === "radio") return t;
      return ["button", "submit", "reset", "image"].includes(t) ? "button" : "input";
    }
    if (e.tag === "select" || e.tag === "textarea") return e.tag;
    if (e.tag === "img") return "image";
    return e.editable ? "textbox" : e.tag;
  }

  // The TUI's target_line, for servers that send the element but not the line.
  function targetLine(r) {
    const a = r.action || {};
    if (a.action === "dialog") return `the page's ${a.type} dialog "${a.message}"`;
    const e = r.element;
    if (!e) return `(no element: ${a.selector || a.url || "-"})`;
    return `[${e.index}] ${roleWord(e)} "${e.name || ""}"${e.type ? ` type=${e.type}` : ""}`;
  }

  const clip = (text, limit) => {
    const t = String(text).split(/\s+/).filter(Boolean).join(" ");
    return t.length <= limit ? t : `${t.slice(0, limit - 1)}…`;
  };
  const py = (v) => (v === true ? "True" : v === false ? "False" : v === null || v === undefined ? "None" : Array.isArray(v) ? `[${v.map((x) => (typeof x === "string" ? `'${x}'` : py(x))).join(", ")}]` : String(v));
  const short = (v) => {
    if (typeof v === "string") return `"${clip(v, 60)}"`;
    if (v && typeof v === "object" && !Array.isArray(v)) return `{${Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => `${k}:${py(x)}`).join(",")}}`;
    return py(v);
  };

  // The TUI's "Action" line (agent.memory.describe_action of the action's JSON form).
  function actionText(r) {
    const data = { ...(r.action || {}) };
    const parts = [data.action ?? "?"];
    delete data.action;
    if (data.index !== undefined && data.index !== null) parts.push(`[${data.index}]`);
    delete data.index;
    for (const key of ["button", "double", "full_page", "visible"]) {
      if ([false, "left", null, undefined].includes(data[key])) delete data[key];
    }
    if (data.clear === true) delete data.clear;
    if (Array.isArray(data.modifiers) && !data.modifiers.length) delete data.modifiers;
    const rest = Object.entries(data).map(([k, v]) => `${k}=${short(v)}`);
    if (rest.length) parts.push(rest.join(" "));
    return parts.join(" ");
  }

  function show(watch, c) {
    const cid = cidOf(c);
    if (!cid || watch.confirms.has(cid)) return;
    const r = c;
    const reasons = r.reasons || [];
    const titleId = `confirm-title-${cid}`;
    const approve = el("button", { type: "button", class: "approve", text: "Approve (y)" });
    const deny = el("button", { type: "button", class: "deny", text: "Deny (n)" });
    const similar = el("button", { type: "button", text: "Approve similar (a)", title: "Also approve similar actions for the rest of this run" });
    const buttons = [approve, deny, similar];
    const status = el("p", { class: "small muted", role: "status" });
    const box = el("div", { class: "confirm-box", role: "alertdialog", "aria-labelledby": titleId, "aria-describedby": `${titleId}-d`, tabindex: "-1", dataset: { cid } }, [
      el("h3", { id: titleId, text: "Kite asks before this action" }),
      el("dl", { id: `${titleId}-d`, class: "confirm-details" }, [
        el("dt", { text: "Action" }), el("dd", {}, el("code", { class: "confirm-action", text: actionText(r) })),
        el("dt", { text: "Target" }), el("dd", { class: "confirm-target", text: targetLine(r) }),
        el("dt", { text: "Page" }), el("dd", { class: "confirm-url", text: r.url || "(no page)" }),
        el("dt", { text: "Why" }), el("dd", {}, el("ul", { class: "confirm-reasons" }, (reasons.length ? reasons : ["(no reason given)"]).map((x) => el("li", { text: x })))),
      ]),
      el("p", { class: "small muted", text: `Level: ${r.level}. Denied automatically if nobody answers by ${Kite.fmtTime(r.expires_at)}.` }),
      el("div", { class: "row" }, buttons),
      status,
    ]);
    const answer = async (decision, alike = false) => {
      buttons.forEach((b) => (b.disabled = true));
      status.textContent = decision === "approve" ? "Approving…" : "Denying…";
      const { ok, data } = await api(`/api/runs/${encodeURIComponent(watch.id)}/confirmations/${encodeURIComponent(cid)}`, {
        method: "POST",
        body: { decision, similar: alike },
      });
      if (!ok) {
        status.textContent = errorText(data);
        buttons.forEach((b) => (b.disabled = false));
        return;
      }
      toast(decision === "approve" ? "Approved" : "Denied");
      remove(watch, cid);
    };
    approve.addEventListener("click", () => answer("approve"));
    deny.addEventListener("click", () => answer("deny"));
    similar.addEventListener("click", () => answer("approve", true));
    box.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
      if (e.key === "y") answer("approve");
      else if (e.key === "n" || e.key === "Escape") answer("deny");
      else if (e.key === "a") answer("approve", true);
    });
    watch.confirms.set(cid, box);
    watch.box.confirms.append(box);
    deny.focus(); // like the TUI: the safe answer has the focus
  }

  function remove(watch, cid) {
    const box = watch.confirms.get(cid);
    if (box) box.remove();
    watch.confirms.delete(cid);
  }

  function answered(watch, c) {
    remove(watch, cidOf(c));
  }

  function clear(watch) {
    for (const cid of [...watch.confirms.keys()]) remove(watch, cid);
  }

  return { show, answered, clear, targetLine, actionText };
})();
window.Confirmations = Confirmations;
