// Kite's listener tracking: remembers the elements given a pointer-ish event listener through addEventListener,
// so the extractor can list elements whose click handlers exist only in JavaScript. It runs in the page's own
// world (the only place that sees the page's listeners) as a context init script, before any page script; what
// it knows it hands to Kite's world (where the extractor runs) through the DOM: when Kite's world dispatches
// the FLUSH event on the window, each element listened to since the last flush and in the document now gets one
// MARK event (bubbling, composed), which Kite's world hears and remembers. What the page could do to this only
// changes which of its own elements are listed as clickable; nothing Kite judges is read here.
// Installed once per document (by the context's init script, or when the extractor is first installed in a
// document that predates it); leaves nothing on the window; never throws into the page.
(FLUSH, MARK) => {
  const proto = EventTarget.prototype;
  if (String(proto.addEventListener).includes("kite-listeners")) return;  // installed in this document already
  let pending = [];
  const TYPES = new Set(["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "drop"]);
  const original = proto.addEventListener;
  const dispatch = proto.dispatchEvent;
  const has = Set.prototype.has;
  const push = Array.prototype.push;
  const Ref = WeakRef, Ev = Event;
  const wrapped = {
    addEventListener(type, listener, options) {
      /* kite-listeners */
      try {
        if (listener && this && this.nodeType === 1 && has.call(TYPES, type)) push.call(pending, new Ref(this));
      } catch (e) { /* an exotic receiver: just register */ }
      return original.call(this, type, listener, options);
    },
  }.addEventListener;
  const flush = () => {
    const keep = [];
    const now = pending;
    pending = keep;
    for (const ref of now) {
      try {
        const el = ref.deref();
        if (!el) continue;
        if (!el.isConnected) { push.call(keep, ref); continue; }
        dispatch.call(el, new Ev(MARK, { bubbles: true, composed: true }));
      } catch (e) { /* keep going */ }
    }
  };
  try {
    original.call(window, FLUSH, flush, true);
    proto.addEventListener = wrapped;
    // An onclick property set by script: Kite's world does not see the page's handler properties.
    const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "onclick");
    if (d && d.set) {
      const set = d.set;
      Object.defineProperty(HTMLElement.prototype, "onclick", { ...d, set(v) {
        try { if (v) push.call(pending, new Ref(this)); } catch (e) { /* just set */ }
        return set.call(this, v);
      } });
    }
  } catch (e) { /* a frozen window or prototype: no tracking */ }
}
