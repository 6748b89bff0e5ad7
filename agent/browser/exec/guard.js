// Kite's input guard: the look at a target holds for the whole input sequence.
// Called as guard(el, [op, key, arg]) in the target's frame (key: a per-process random name, so a page cannot
// plant a guard of its own under it). "arm" reads what the element is for as drawn now (its role,
// its label in every reading: text, CSS generated content at any depth, aria-label(ledby), title, value, alt;
// where it goes: href, formaction, a <label>'s control) and installs, once per document, capture-phase
// listeners on the window for every event of a pointer or key input (pointerdown, mousedown, pointerup,
// mouseup, click, dblclick, auxclick, keydown, keypress, keyup, submit). At each event the element is read
// again up to the click that activates it (what the page's own click handlers change afterwards is their
// answer, not a swap); if it now reads otherwise (or a pointer event lands on another element), that event and
// every later one of the input are cancelled (preventDefault + stopImmediatePropagation: the page's own handlers never
// see them, so no click, no activation, no submit). "disarm" ends the input and answers what tripped, if
// anything. "seen" counts the mouse moves and presses dispatched in the document; "after" [kind, count, x, y]
// answers (a promise) in the task after the one that dispatched a move or press at (x, y) past that count, or at
// once when "go" is called (the caller knows the input was handled: its answer came). Never throws into the page.
(el, [op, KEY, arg]) => {
  let g = window[KEY];
  if (!g) {
    const _gcs = window.getComputedStyle.bind(window);
    const add = EventTarget.prototype.addEventListener;
    const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
    const MAX_NODES = 400;
    const POINTER = new Set(["pointerdown", "mousedown", "pointerup", "mouseup"]);
    const TYPES = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "auxclick",
      "keydown", "keypress", "keyup", "submit"];
    const BUTTONS = /^(submit|button|reset|image)$/;
    const editable = (e) => e.isContentEditable || e.tagName === "TEXTAREA" || e.tagName === "SELECT" ||
      (e.tagName === "INPUT" && !BUTTONS.test(e.type) && !["checkbox", "radio", "file", "range", "color"].includes(e.type));
    const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
    const pseudo = (root) => {
      let out = "", n = 0;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (let e = root; e && n < MAX_NODES; e = walker.nextNode(), n++) {
        for (const p of ["::before", "::after", "::marker"]) {
          const c = _gcs(e, p).content;
          if (c && c !== "none" && c !== "normal") for (const m of c.matchAll(QUOTED)) out += m[1] + " ";
        }
      }
      return out;
    };
    const labelled = (e) => {
      const ids = (e.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
      return ids.map((id) => { const r = e.getRootNode().getElementById?.(id) || document.getElementById(id); return r ? r.textContent : ""; }).join(" ");
    };
    const target = (e) => {
      const form = e.form || null;
      const goes = form && (e.type === "submit" || e.type === "image") ? (e.getAttribute("formaction") ?? form.getAttribute("action") ?? "") : "";
      return [e.getAttribute("href") ?? "", goes, form ? form.getAttribute("action") ?? "" : ""].join("|");
    };
    // What the element is for, as a person and the policy read it: one string, compared as a whole.
    const read = (e) => {
      if (!e || !e.isConnected) return "(gone)";
      const role = e.getAttribute("role") || e.tagName + (e.type ? ":" + e.type : "");
      // A field's own content changes with the keys typed into it: only what it is and where it sends count.
      if (editable(e)) return [role, target(e)].join("\u0001");
      const parts = [role, norm(e.innerText || e.textContent), norm(pseudo(e)), e.getAttribute("aria-label") || "",
        norm(labelled(e)), e.getAttribute("title") || "", BUTTONS.test(e.type) ? e.value : "", e.getAttribute("alt") || "",
        target(e)];
      if (e.tagName === "LABEL" && e.control) parts.push("control:" + read(e.control));
      return parts.join("\u0001");
    };
    const short = (e) => !e || !e.isConnected ? "(the element is gone)"
      : norm((e.innerText || "") + " " + pseudo(e) + " " + (e.getAttribute("aria-label") || "") + " " + (BUTTONS.test(e.type) ? e.value : "")).slice(0, 80);
    const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement;
    const within = (n, anc) => { for (let c = n; c; c = up(c)) if (c === anc) return true; return false; };
    const onTarget = (t, e) => {
      if (!(t instanceof Element)) return true;
      if (within(t, e)) return true;
      if (e.labels && Array.from(e.labels).some((l) => within(t, l))) return true;
      return e.tagName === "LABEL" && e.control && within(t, e.control);
    };
    const state = { el: null, sig: "", tripped: null, clicked: false, events: [] };
    const cancel = (ev) => { ev.preventDefault(); ev.stopImmediatePropagation(); };
    const check = (ev) => {
      const e = state.el;
      if (!e) return;
      try {
        state.events.push(ev.type);
        if (state.tripped) { cancel(ev); return; }
        if (state.clicked) return;  // after the click that passed: what the page's own handlers do is its answer
        if (ev.type === "click") state.clicked = true;
        let why = null;
        if (read(e) !== state.sig) why = "changed";
        else if (POINTER.has(ev.type) && !onTarget(ev.composedPath()[0], e)) why = "moved";
        if (why) {
          const other = ev.composedPath()[0];
          state.tripped = { event: ev.type, why, now: why === "changed" ? short(e) : short(other instanceof Element ? other : null) };
          cancel(ev);
        }
      } catch (err) { /* never break the page's input */ }
    };
    // How many mouse moves and presses this document was dispatched: a look sent along with an input waits
    // (after) until the input's last event was dispatched, then for the task after it (its handlers all ran).
    const seen = { move: 0, down: 0 }, at = { move: [NaN, NaN], down: [NaN, NaN] };
    const waiting = new Set();
    const Channel = window.MessageChannel;
    const later = (f) => { try { const c = new Channel(); c.port1.onmessage = () => f(); c.port2.postMessage(0); } catch (err) { f(); } };
    // a look is answered in the task after its event's, or by "go" if that comes first (kept in `waiting` until then)
    const finish = (w) => { if (waiting.delete(w)) w.done(); };
    const release = (w) => { w.due = true; later(() => finish(w)); };
    const near = (w) => Math.abs(at[w.kind][0] - w.x) <= 1 && Math.abs(at[w.kind][1] - w.y) <= 1;
    const due = () => { for (const w of waiting) if (!w.due && seen[w.kind] > w.base && near(w)) release(w); };
    // pointermove and pointerdown: dispatched for every mouse move and press, in the same task as the mouse
    // events that follow them (which a page's preventDefault can suppress)
    for (const [t, k] of [["pointermove", "move"], ["pointerdown", "down"]])
      add.call(window, t, (ev) => { seen[k]++; at[k] = [ev.clientX, ev.clientY]; due(); }, { capture: true });
    for (const t of TYPES) add.call(window, t, check, { capture: true });
    g = {
      arm(e) { state.el = e; state.sig = read(e); state.tripped = null; state.clicked = false; state.events = []; return true; },
      disarm() { const out = { tripped: state.tripped, events: state.events }; state.el = null; state.tripped = null; state.events = []; return out; },
      seen() { return { ...seen }; },
      after([kind, base, x, y]) { return new Promise((done) => { waiting.add({ kind, base, x, y, done }); due(); }); },
      go() { for (const w of waiting) finish(w); return true; },  // the input was handled: answered now
    };
    try { Object.defineProperty(window, KEY, { value: g, configurable: false, enumerable: false, writable: false }); }
    catch (err) { window[KEY] = g; }
  }
  if (op === "arm") return g.arm(el);
  if (op === "seen") return g.seen();
  if (op === "after") return g.after(arg);
  if (op === "go") return g.go();
  return g.disarm();
}
