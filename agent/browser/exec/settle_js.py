"""The in-page half of the settle (``agent/browser/waits.py``): one observer per document (every frame).

``INSTALL_JS`` installs (once per document) and marks: a MutationObserver counting mutations and interactive
elements added/removed, the largest gap between mutation bursts, short timers the action schedules (a
``setTimeout`` proxy, so ``setTimeout(() => location = ..., 100)`` is followed) and cross-document navigations
the page starts (Navigation API ``navigate`` / ``beforeunload``). ``QUIET_JS`` waits in the page until the DOM
is quiet, no followed timer is pending and no navigation started, then reports what changed since the mark
(including state a user sees change without a mutation: focus, scroll, field values).
"""

from __future__ import annotations

FOLLOW_TIMER_MS = 250
"""Timers the action schedules with at most this delay are waited for (longer ones, e.g. a toast's, are not);
so are timers those timers schedule, up to 8 deep (a polling loop cannot hold the settle forever)."""

# What a user could see change without a DOM mutation: the URL, the focused element, scroll positions and the
# state of form fields (value, checked, selection). Compared between the mark and the end of the settle.
_STATE_JS = """(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  let h = 7;
  const add = (x) => { const t = String(x); for (let i = 0; i < t.length; i++) h = (h * 31 + t.charCodeAt(i)) | 0; };
  add(location.href); add(scrollX); add(scrollY);
  for (const e of document.querySelectorAll('input,select,textarea')) add(`${e.checked ? 1 : 0}${e.value}|${e.selectedIndex}`);
  if (a) { add(a.scrollTop); add(a.scrollLeft); }
  for (const e of document.querySelectorAll('[aria-checked],[aria-selected],[aria-expanded],[aria-pressed]'))
    add(e.getAttribute('aria-checked') + e.getAttribute('aria-selected') + e.getAttribute('aria-expanded') + e.getAttribute('aria-pressed'));
  return {hash: h, focus: a || null};
})()"""

INSTALL_JS = """([followMax, gapCap]) => {
  let s = window.__kiteSettle;
  if (!s || s.v !== 2) {
    const SEL = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],' +
      '[role=option],[role=menuitem],[role=tab],[role=combobox],[onclick],[contenteditable=""],[contenteditable=true],[tabindex]';
    const count = (n) => n.nodeType !== 1 ? 0 : (n.matches(SEL) ? 1 : 0) + n.querySelectorAll(SEL).length;
    s = window.__kiteSettle = {v: 2, count: 0, markCount: 0, last: 0, maxGap: 0, added: 0, removed: 0,
      timers: new Map(), follow: 0, nav: false, gapCap: 0, depth: 0};
    const MAX_CHAIN = 8;
    new MutationObserver((records) => {
      const now = performance.now();
      const gap = now - s.last;
      if (s.count > s.markCount && gap < s.gapCap && gap > s.maxGap) s.maxGap = gap;
      s.count += records.length; s.last = now;
      for (const r of records) {
        for (const n of r.addedNodes) s.added += count(n);
        for (const n of r.removedNodes) s.removed += count(n);
      }
    }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    const st = window.setTimeout, ct = window.clearTimeout;
    window.setTimeout = new Proxy(st, {apply(target, self, args) {
      const fn = args[0], delay = Number(args[1]) || 0;
      const depth = s.depth + 1;  // a timer set by a followed timer's callback is followed too (a chain)
      const follow = performance.now() <= s.follow || (s.depth > 0 && depth <= MAX_CHAIN);
      if (typeof fn !== 'function' || delay > s.followMax || !follow) return Reflect.apply(target, window, args);
      let id = 0;
      const wrapped = function () {
        s.timers.delete(id); const outer = s.depth; s.depth = depth;
        try { return fn.apply(this, arguments); } finally { s.depth = outer; }
      };
      id = Reflect.apply(target, window, [wrapped, ...args.slice(1)]);
      s.timers.set(id, performance.now() + delay);
      return id;
    }});
    window.clearTimeout = new Proxy(ct, {apply(target, self, args) {
      s.timers.delete(args[0]); return Reflect.apply(target, window, args);
    }});
    const nav = () => { s.nav = true; };
    if (window.navigation) window.navigation.addEventListener('navigate', (e) => {
      if (!e.destination.sameDocument && !e.downloadRequest) nav();
    });
    window.addEventListener('beforeunload', nav);
  }
  s.markCount = s.count; s.maxGap = 0; s.nav = false; s.follow = Infinity; s.followMax = followMax;
  s.gapCap = gapCap; s.timers.clear(); s.state = __STATE__;
  return {count: s.count, added: s.added, removed: s.removed};
}""".replace("__STATE__", _STATE_JS)

QUIET_JS = """async ([mark, quiet, maxQuiet, grace, cap]) => {
  const s = window.__kiteSettle;
  if (!s || s.v !== 2) return null;
  const t0 = performance.now();
  s.follow = t0 + grace;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  await sleep(Math.min(grace, cap));
  let reason = 'quiet';
  for (;;) {
    const now = performance.now();
    if (s.nav) { reason = 'navigation'; break; }
    if (now - t0 >= cap) { reason = 'cap'; break; }
    let wait = 0;
    for (const due of s.timers.values()) wait = Math.max(wait, due - now + 1, 1);  // until it has run
    if (s.count !== mark.count) {
      const win = Math.min(maxQuiet, Math.max(quiet, 2 * s.maxGap));
      wait = Math.max(wait, win - (now - s.last));
    }
    if (wait <= 0) break;
    await sleep(Math.max(4, Math.min(25, wait)));
  }
  s.follow = 0;
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  let focused = null;
  if (a && a !== document.body && a !== document.documentElement) {
    const name = (a.getAttribute('aria-label') || a.getAttribute('name') || a.getAttribute('placeholder') || a.innerText || '').trim().slice(0, 40);
    focused = a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + (name ? ` "${name}"` : '');
  }
  const now = __STATE__;
  const stateChanged = !s.state || now.hash !== s.state.hash || now.focus !== s.state.focus;
  return {changed: s.count - mark.count, added: s.added - mark.added, removed: s.removed - mark.removed,
          focused, nav: s.nav, reason, gap: s.maxGap, stateChanged};
}""".replace("__STATE__", _STATE_JS)
