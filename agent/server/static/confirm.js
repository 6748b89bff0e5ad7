// Pending confirmations of a run: the same details as the TUI's modal (agent/tui/confirm.py) — the action,
// its target as the page shows it, the page URL and the policy's reasons, as the server words them
// (ConfirmationView's action_text and target) — answered with
// POST /api/runs/{id}/confirmations/{cid} {"decision": "approve" | "deny", "similar"}. Keys like the TUI's:
// y approve, n / Escape deny, a approve similar actions for the rest of the run.
"use strict";

const Confirmations = (() => {
  const { api, el, errorText, toast } = Kite;

  const cidOf = (c) => c.id;

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
        el("dt", { text: "Action" }), el("dd", {}, el("code", { class: "confirm-action", text: r.action_text })),
        // an action that names no target (executeJS, a tool call) has no Target row
        ...(r.target ? [el("dt", { text: "Target" }), el("dd", { class: "confirm-target", text: r.target })] : []),
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
      const path = watch.answerPath ? watch.answerPath(cid) : `/api/runs/${encodeURIComponent(watch.id)}/confirmations/${encodeURIComponent(cid)}`;
      const { ok, data } = await api(path, {
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

  return { show, answered, clear };
})();
window.Confirmations = Confirmations;
