// Kite's listener tracking: remembers, in a WeakSet on the window (non-enumerable, read-only), the elements
// given a pointer-ish event listener through addEventListener, so the extractor can list elements whose click
// handlers exist only in JavaScript. Installed as a context init script (before any page script) and, as a
// fallback, by the extractor when it first runs in a document. Idempotent; never throws into the page.
() => {
  const KEY = "__kiteListeners";
  if (window[KEY]) return;
  const seen = new WeakSet();
  const TYPES = new Set(["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "drop"]);
  const proto = EventTarget.prototype;
  const original = proto.addEventListener;
  const has = Set.prototype.has;
  const add = WeakSet.prototype.add;
  const wrapped = {
    addEventListener(type, listener, options) {
      try {
        if (listener && this && this.nodeType === 1 && has.call(TYPES, type)) add.call(seen, this);
      } catch (e) { /* an exotic receiver: just register */ }
      return original.call(this, type, listener, options);
    },
  }.addEventListener;
  try {
    Object.defineProperty(window, KEY, { value: seen, configurable: false, enumerable: false, writable: false });
    proto.addEventListener = wrapped;
  } catch (e) { /* a frozen window or prototype: no tracking */ }
}
