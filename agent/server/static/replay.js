// Replay of a finished run: its screenshots as a slideshow, each with its step beside it (page, the model's
// thought, the actions and what they did). ← and → (or the buttons) move; Escape closes. A modal <dialog>.
"use strict";

const Replay = (() => {
  const { api, el, errorText } = Kite;
  let dialog = null;
  let urls = [];

  function ensure() {
    if (dialog) return dialog;
    dialog = el("dialog", { class: "replay", "aria-labelledby": "replay-title" });
    dialog.addEventListener("close", () => {
      for (const u of urls) URL.revokeObjectURL(u);
      urls = [];
      dialog.replaceChildren();
    });
    document.body.append(dialog);
    return dialog;
  }

  async function open(id) {
    const d = ensure();
    const { ok, data } = await api(`/api/runs/${encodeURIComponent(id)}`);
    if (!ok) {
      d.replaceChildren(el("p", { class: "error-text", role: "alert", text: errorText(data) }), el("form", { method: "dialog" }, el("button", { text: "Close" })));
      d.showModal();
      return;
    }
    const slides = (data.steps || []).filter((s) => s.screenshot_url);
    let at = 0;
    const img = el("img", { class: "replay-shot", alt: "" });
    const counter = el("span", { class: "replay-count", "aria-live": "polite" });
    const side = el("div", { class: "replay-step" });
    const prev = el("button", { type: "button", class: "replay-prev", text: "← Previous", "aria-keyshortcuts": "ArrowLeft" });
    const next = el("button", { type: "button", class: "replay-next", text: "Next →", "aria-keyshortcuts": "ArrowRight" });
    const close = el("button", { type: "button", text: "Close", onclick: () => d.close() });

    async function show(i) {
      if (!slides.length) return;
      at = Math.max(0, Math.min(slides.length - 1, i));
      const step = slides[at];
      counter.textContent = `Step ${step.step} · ${at + 1} of ${slides.length}`;
      const focused = document.activeElement;
      prev.disabled = at === 0;
      next.disabled = at === slides.length - 1;
      // a disabled button drops the focus (out of the dialog, where ← → no longer reach it): keep it inside
      if (focused === prev && prev.disabled) (next.disabled ? close : next).focus();
      if (focused === next && next.disabled) (prev.disabled ? close : prev).focus();
      d.dataset.step = String(step.step);
      side.replaceChildren(...[
        el("h3", { text: step.title || "(no title)" }),
        el("p", { class: "muted small", text: step.url }),
        step.thought ? el("details", { class: "thought small" }, [el("summary", { text: "Thought" }), el("p", { text: step.thought })]) : null,
        el("ul", { class: "actions" }, (step.actions || []).map((a) =>
          el("li", { class: `action ${a.allowed === false ? "bad refused" : a.ok ? "ok" : a.ok === false ? "bad" : ""}` }, [
            el("span", { class: "mark", text: a.allowed === false ? "⊘" : a.ok ? "✓" : a.ok === false ? "✗" : "·" }),
            el("code", { text: a.action }),
            a.message ? el("span", { class: "small result-msg", text: a.message }) : null,
          ]),
        )),
      ].filter(Boolean)); // a step without a thought: nothing (replaceChildren would write "null")
      const url = await Kite.blobUrl(step.screenshot_url);
      if (url && slides[at] === step) {
        urls.push(url);
        img.src = url;
        img.alt = `The page at step ${step.step}`;
      }
    }

    prev.addEventListener("click", () => show(at - 1));
    next.addEventListener("click", () => show(at + 1));
    d.onkeydown = (e) => {
      if (e.key === "ArrowLeft") (e.preventDefault(), show(at - 1));
      else if (e.key === "ArrowRight") (e.preventDefault(), show(at + 1));
    };
    d.replaceChildren(
      el("div", { class: "pane-head" }, [el("h2", { id: "replay-title", text: `Replay: ${data.task}` }), el("span", { class: "grow" }), counter, close]),
      slides.length
        ? el("div", { class: "replay-body" }, [el("div", { class: "replay-frame" }, img), side])
        : el("p", { class: "empty", text: "This run has no screenshots to replay." }),
      el("div", { class: "row replay-nav" }, [prev, next, el("span", { class: "muted small", text: "← → move between steps" })]),
    );
    d.showModal();
    next.focus();
    await show(0);
  }

  return { open };
})();
window.Replay = Replay;
