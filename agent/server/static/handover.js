// A run hands the browser to the person at the panel (askHuman): the question, Done / Can't, and the live view
// made interactive while it is theirs — a click on the picture is a click on the page at the same place, the
// wheel scrolls it, the text box types into the focused field and Enter/Tab/Backspace press those keys
// (POST /api/runs/{id}/input). Done / Can't: POST /api/runs/{id}/handover/{hid}. Nothing typed here is kept
// by the panel or shown again.
"use strict";

const HandOver = (() => {
  const { api, el, errorText, toast } = Kite;

  function send(watch, body) {
    return api(`/api/runs/${encodeURIComponent(watch.id)}/input`, { method: "POST", body });
  }

  function show(watch, h) {
    hide(watch);
    const titleId = `handover-title-${h.id}`;
    const status = el("p", { class: "small muted", role: "status" });
    const typed = el("input", { type: "password", class: "handover-text", autocomplete: "off", "aria-label": "Text to type into the page", placeholder: "Type into the page (hidden from the model)" });
    const sendText = el("button", { type: "button", text: "Type" });
    const keys = ["Enter", "Tab", "Backspace"].map((key) => el("button", { type: "button", class: "handover-key", text: key, dataset: { key } }));
    const done = el("button", { type: "button", class: "approve", text: "Done" });
    const cannot = el("button", { type: "button", class: "deny", text: "Can't" });
    const box = el("div", { class: "handover-box", role: "alertdialog", "aria-labelledby": titleId, tabindex: "-1", dataset: { hid: h.id } }, [
      el("h3", { id: titleId, text: "Kite hands the browser to you" }),
      el("p", { class: "handover-question", text: h.question }),
      el("p", { class: "small muted", text: `Page: ${h.url || "(no page)"}. Click, scroll and type on the live view below; nothing you type is shown to the model.` }),
      el("div", { class: "row" }, [typed, sendText, ...keys]),
      el("div", { class: "row" }, [done, cannot]),
      status,
    ]);
    const act = async (body, said) => {
      const { ok, data } = await send(watch, body);
      status.textContent = ok ? said : errorText(data);
    };
    sendText.addEventListener("click", async () => {
      if (!typed.value) return;
      const text = typed.value;
      typed.value = "";
      await act({ kind: "type", text }, "Typed.");
    });
    typed.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        sendText.click();
      }
    });
    keys.forEach((b) => b.addEventListener("click", () => act({ kind: "press", key: b.dataset.key }, `Pressed ${b.dataset.key}.`)));
    const answer = async (isDone) => {
      [done, cannot].forEach((b) => (b.disabled = true));
      const path = `/api/runs/${encodeURIComponent(watch.id)}/handover/${encodeURIComponent(h.id)}`;
      const { ok, data } = await api(path, { method: "POST", body: { done: isDone } });
      if (!ok) {
        status.textContent = errorText(data);
        [done, cannot].forEach((b) => (b.disabled = false));
        return;
      }
      toast(isDone ? "Handed back" : "Handed back undone");
      hide(watch);
    };
    done.addEventListener("click", () => answer(true));
    cannot.addEventListener("click", () => answer(false));

    const img = watch.box.live.querySelector("img");
    const onClick = (e) => {
      const r = img.getBoundingClientRect();
      // the picture keeps its proportions (object-fit: contain, at the top): map the click into the frame
      const scale = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight) || 1;
      const w = img.naturalWidth * scale, hgt = img.naturalHeight * scale;
      const left = r.left + (r.width - w) / 2;
      const x = (e.clientX - left) / w, y = (e.clientY - r.top) / hgt;
      if (x < 0 || x > 1 || y < 0 || y > 1) return;
      act({ kind: "click", x, y }, "Clicked.");
    };
    const onWheel = (e) => {
      e.preventDefault();
      act({ kind: "scroll", dy: Math.max(-5000, Math.min(5000, e.deltaY)) }, "Scrolled.");
    };
    img.addEventListener("click", onClick);
    img.addEventListener("wheel", onWheel, { passive: false });
    watch.box.live.classList.add("interactive");
    watch.handing = { id: h.id, box, off: () => {
      img.removeEventListener("click", onClick);
      img.removeEventListener("wheel", onWheel);
      watch.box.live.classList.remove("interactive");
    } };
    watch.box.confirms.append(box);
    box.scrollIntoView({ block: "nearest" });
    done.focus();
  }

  function hide(watch) {
    if (!watch.handing) return;
    watch.handing.off();
    watch.handing.box.remove();
    watch.handing = null;
  }

  return { show, hide };
})();
window.HandOver = HandOver;
