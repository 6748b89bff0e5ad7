// Pending confirmations of a run: the same details as the TUI's modal (agent/tui/confirm.py) — the action,
// its target as the page shows it, the page URL and the policy's reasons — answered with
// POST /api/runs/{id}/confirmations/{cid} {"decision": "approve" | "deny"}. Keys: y approve, n / Escape deny.
"use strict";

const Confirmations = (() => {
  const { api, el, errorText, toast } = Kite;

  const cidOf = (c) => c.cid || c.id || c.confirmation_id;
  const requestOf = (c) => c.request || c;

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

  function actionText(r) {
    if (typeof r.describe === "string" && r.describe) return r.describe;
    if (typeof r.action_text === "string") return r.action_text;
    const a = { ...(r.action || {}) };
    const name = a.action || "?";
    delete a.action;
    const rest = Object.entries(a)
      .filter(([, v]) => v !== null && v !== undefined && v !== false)
      .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v)}`);
    return [name, ...rest].join(" ");
  }

  function show(watch, c) {
    const cid = cidOf(c);
    if (!cid || watch.confirms.has(cid) || c.answered || (c.status && c.status !== "pending")) return;
    const r = requestOf(c);
    const reasons = (r.decision && r.decision.reasons) || r.reasons || [];
    const titleId = `confirm-title-${cid}`;
    const approve = el("button", { type: "button", class: "approve", text: "Approve (y)" });
    const deny = el("button", { type: "button", class: "deny", text: "Deny (n)" });
    const status = el("p", { class: "small muted", role: "status" });
    const box = el("div", { class: "confirm-box", role: "alertdialog", "aria-labelledby": titleId, "aria-describedby": `${titleId}-d`, tabindex: "-1", dataset: { cid } }, [
      el("h3", { id: titleId, text: "Kite asks before this action" }),
      el("dl", { id: `${titleId}-d`, class: "confirm-details" }, [
        el("dt", { text: "Action" }), el("dd", {}, el("code", { class: "confirm-action", text: actionText(r) })),
        el("dt", { text: "Target" }), el("dd", { class: "confirm-target", text: r.target || targetLine(r) }),
        el("dt", { text: "Page" }), el("dd", { class: "confirm-url", text: r.url || "(no page)" }),
        el("dt", { text: "Why" }), el("dd", {}, el("ul", { class: "confirm-reasons" }, (reasons.length ? reasons : ["(no reason given)"]).map((x) => el("li", { text: x })))),
      ]),
      c.timeout_s ? el("p", { class: "small muted", text: `Denied automatically if nobody answers within ${c.timeout_s} s.` }) : null,
      el("div", { class: "row" }, [approve, deny]),
      status,
    ]);
    const answer = async (decision) => {
      approve.disabled = deny.disabled = true;
      status.textContent = decision === "approve" ? "Approving…" : "Denying…";
      const { ok, data } = await api(`/api/runs/${encodeURIComponent(watch.id)}/confirmations/${encodeURIComponent(cid)}`, {
        method: "POST",
        body: { decision },
      });
      if (!ok) {
        status.textContent = errorText(data);
        approve.disabled = deny.disabled = false;
        return;
      }
      toast(decision === "approve" ? "Approved" : "Denied");
      remove(watch, cid);
    };
    approve.addEventListener("click", () => answer("approve"));
    deny.addEventListener("click", () => answer("deny"));
    box.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
      if (e.key === "y") answer("approve");
      else if (e.key === "n" || e.key === "Escape") answer("deny");
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
