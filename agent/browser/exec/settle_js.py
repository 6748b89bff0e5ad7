"""The in-page half of the settle (``agent/browser/waits.py``): one observer per document (every frame).

``INSTALL_JS`` installs (once per document) and marks: a MutationObserver counting mutations and interactive
elements added/removed, the largest gap between mutation bursts, short timers the action schedules (a
``setTimeout`` proxy, so ``setTimeout(() => location = ..., 100)`` is followed), a short interval it starts
(an animation on a timer, while it runs, at most ``FOLLOW_INTERVAL_MS``), the page's own fetch/XHR
requests until their answer has been handed to the page's code (``fetch`` until it resolved, a body read with
``json()``/``text()``/... until it resolved, an XHR until ``loadend``; each a task later, so the reactions
chained on them have run) and cross-document navigations the page starts (Navigation API ``navigate`` /
``beforeunload``). ``QUIET_JS`` waits in the page until the DOM is quiet (by the clock and for two animation
frames drawn without a mutation), no followed timer is pending, no request of the page's younger than the stall
limit awaits its answer and no navigation started, then reports what changed since the mark (including state a
user sees change without a mutation: focus, scroll, field values) and why it stopped waiting (``reason``).

It also counts the page's own ``requestAnimationFrame`` calls (a settle that saw one waits for a second drawn
frame) and the windows it opens (``window.open``, a link or form aimed at another window: the settle waits for
that window's first document).

``init_js()`` is the same observer as an init script of each page Kite acts on: installed at document start,
before any page script, it watches a new document from its first line (``fromStart``), following the short
timers the page sets while it loads (and, unchained, its timers up to the network-quiet window, and a worker's
messages that long). A navigation's settle relies on that instead of a network-idle window
(``agent/browser/waits.py``). It leaves the page nothing to see: the wrapped functions are Proxies (still
"[native code]", same name and length) and ``window.__kiteSettle`` is not enumerable.
"""

from __future__ import annotations

FOLLOW_TIMER_MS = 250
"""Timers the action schedules with at most this delay are waited for (longer ones, e.g. a toast's, are not);
so are timers those timers schedule, up to 8 deep (a polling loop cannot hold the settle forever)."""
FOLLOW_ACTION_TIMER_MS = {"hover": 500}
"""Per action, a longer limit: a hover's reaction is often delayed on purpose (jQuery UI's menu opens a submenu
300 ms after the pointer came; hover-intent menus wait 100-500 ms)."""
FOLLOW_INTERVAL_MS = 1000
"""An interval the action starts (delay at most ``FOLLOW_TIMER_MS``) is waited for while it runs, this long at
most (jQuery's slowest named animation speed is 600 ms)."""
FRAMES_UNSEEN_MS = 100
"""A frame (not the top document) that got no animation frame this long into the wait is taken as not drawn
(display:none, an off-screen cross-origin frame the browser throttles): its quiet is counted by the clock."""

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

# Creates the observer state of a document (window.__kiteSettle); a no-op where it exists.
_SETUP_JS = """() => {
  let s = window.__kiteSettle;
  if (!s || s.v !== 6) {
    const SEL = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],' +
      '[role=option],[role=menuitem],[role=tab],[role=combobox],[onclick],[contenteditable=""],[contenteditable=true],[tabindex]';
    const count = (n) => n.nodeType !== 1 ? 0 : (n.matches(SEL) ? 1 : 0) + n.querySelectorAll(SEL).length;
    const st = window.setTimeout, ct = window.clearTimeout;
    const raf = window.requestAnimationFrame.bind(window);
    s = {v: 6, raf, rafs: 0, opened: 0, count: 0, markCount: 0, last: 0, maxGap: 0, added: 0, removed: 0,
      timers: new Map(), follow: 0, followMax: 0, nav: false, gapCap: 0, depth: 0, reqs: new Map(), st,
      stall: 2000, fromStart: false, doc: String(Math.random()).slice(2), early: 0, workers: 0, workerLast: 0,
      reqSince: 0};
    // not enumerable: a page listing its globals (a leak check) does not meet it
    Object.defineProperty(window, '__kiteSettle', {value: s, configurable: true, writable: true, enumerable: false});
    // a request of the page's (younger than the stall limit, begun since reqSince) awaits its answer
    const awaiting = () => {
      const now = performance.now();
      for (const t of s.reqs.values()) if (now - t < s.stall && t >= (s.reqSince || 0)) return true;
      return false;
    };
    s.awaiting = awaiting;
    const MAX_CHAIN = 8;
    new MutationObserver((records) => {
      const now = performance.now();
      const gap = now - s.last;
      if (s.count > s.markCount && gap < s.gapCap && gap > s.maxGap) s.maxGap = gap;
      s.count += records.length; s.last = now;
      if (document.readyState === 'loading') return;  // the parser building the page: nobody's reaction
      for (const r of records) {
        for (const n of r.addedNodes) s.added += count(n);
        for (const n of r.removedNodes) s.removed += count(n);
      }
    }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    window.setTimeout = new Proxy(st, {apply(target, self, args) {
      const fn = args[0], delay = Number(args[1]) || 0;
      const depth = s.depth + 1;  // a timer set by a followed timer's callback is followed too (a chain)
      // ... and so is one set while a request awaits its answer (by the code handling that answer, say)
      const follow = performance.now() <= s.follow || (s.depth > 0 && depth <= MAX_CHAIN) ||
        (s.reqs.size > 0 && awaiting());
      // while a document watched from its start loads, its own timers are followed up to s.early (not chained)
      const max = s.depth === 0 && s.early ? Math.max(s.early, s.followMax) : s.followMax;
      if (typeof fn !== 'function' || delay > max || !follow) return Reflect.apply(target, window, args);
      let id = 0;
      const wrapped = function () {
        s.timers.delete(id); const outer = s.depth; s.depth = depth;
        try { return fn.apply(this, arguments); } finally { s.depth = outer; }
      };
      id = Reflect.apply(target, window, [wrapped, ...args.slice(1)]);
      s.timers.set(id, performance.now() + delay);
      return id;
    }});
    // A short interval the action starts (an animation on a timer: jQuery 1.x steps every 13 ms, and its first
    // steps may round to no change) is followed while it runs, until cleared or __IVMAX__ ms after it was set
    // (a poll that never stops holds the settle no longer). Not while a document loads (its own timers).
    const si = window.setInterval;
    window.setInterval = new Proxy(si, {apply(target, self, args) {
      const fn = args[0], delay = Math.max(Number(args[1]) || 0, 4);
      const follow = !s.early && (performance.now() <= s.follow || (s.depth > 0 && s.depth < MAX_CHAIN));
      if (typeof fn !== 'function' || delay > s.followMax || !follow) return Reflect.apply(target, window, args);
      let id = 0;
      const until = performance.now() + __IVMAX__, timers = s.timers;
      const wrapped = function () {
        try { return fn.apply(this, arguments); } finally {
          const now = performance.now();
          if (timers.has(id)) { if (now + delay <= until) timers.set(id, now + delay); else timers.delete(id); }
        }
      };
      id = Reflect.apply(target, window, [wrapped, ...args.slice(1)]);
      s.timers.set(id, performance.now() + delay);
      return id;
    }});
    window.clearInterval = new Proxy(window.clearInterval, {apply(target, self, args) {
      s.timers.delete(args[0]); return Reflect.apply(target, window, args);
    }});
    // the page's own animation-frame requests are counted (not held): a settle that saw one waits a frame more
    window.requestAnimationFrame = new Proxy(window.requestAnimationFrame, {apply(target, self, args) {
      s.rafs++; return Reflect.apply(target, self, args);
    }});
    window.clearTimeout = new Proxy(ct, {apply(target, self, args) {
      s.timers.delete(args[0]); return Reflect.apply(target, window, args);
    }});
    // The page's requests, until their answer reached the page's code (a task later: its reactions ran).
    let rid = 0;
    const begin = () => { const id = ++rid; s.reqs.set(id, performance.now()); return id; };
    const end = (id) => { st(() => s.reqs.delete(id), 0); };
    const track = (target, self, args) => {
      const id = begin();
      let p;
      try { p = Reflect.apply(target, self, args); } catch (e) { end(id); throw e; }
      if (p && typeof p.then === 'function') p.then(() => end(id), () => end(id)); else end(id);
      return p;
    };
    try {
      if (typeof window.fetch === 'function') window.fetch = new Proxy(window.fetch, {apply: track});
      const R = window.Response && window.Response.prototype;
      for (const k of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
        if (R && typeof R[k] === 'function') R[k] = new Proxy(R[k], {apply: track});
      }
      const X = window.XMLHttpRequest && window.XMLHttpRequest.prototype;
      if (X) X.send = new Proxy(X.send, {apply(target, self, args) {
        const id = begin();
        try { self.addEventListener('loadend', () => end(id), {once: true}); } catch (e) { end(id); }
        try { return Reflect.apply(target, self, args); } catch (e) { end(id); throw e; }
      }});
      // a worker's messages, while the document loads: its timers are out of sight, its answers are not
      if (typeof window.Worker === 'function') window.Worker = new Proxy(window.Worker, {construct(t, a, nt) {
        const w = Reflect.construct(t, a, nt);
        s.workers++; s.workerLast = performance.now();
        try { w.addEventListener('message', () => { s.workerLast = performance.now(); }); } catch (e) { /* */ }
        return w;
      }});
    } catch (e) { /* a frozen prototype: the network-quiet wait still sees the requests */ }
    const nav = () => { s.nav = true; };
    if (window.navigation) window.navigation.addEventListener('navigate', (e) => {
      if (!e.destination.sameDocument && !e.downloadRequest) nav();
    });
    window.addEventListener('beforeunload', nav);
    // a window the page opens (window.open, a link or a form aimed at another window): its first request is
    // the action's doing too (the settle waits for it to be answered or refused)
    const opened = () => { s.opened++; };
    if (typeof window.open === 'function') window.open = new Proxy(window.open, {apply(target, self, args) {
      opened(); return Reflect.apply(target, self, args);
    }});
    const away = (t) => !!t && !/^_(self|parent|top)$/i.test(t);
    window.addEventListener('click', (e) => {
      const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (a && away(a.target) && !e.defaultPrevented) opened();
    });
    window.addEventListener('submit', (e) => {
      const t = (e.submitter && e.submitter.getAttribute('formtarget')) || (e.target && e.target.target);
      if (away(t)) opened();
    });
  }
  return s;
}""".replace("__IVMAX__", str(FOLLOW_INTERVAL_MS))

# fresh: the mark of a document a navigation just opened. Its observer may date from the document's start
# (the init script): the timers it followed while the page loaded and a navigation it announced are kept; an
# action's mark starts those afresh.
INSTALL_JS = """([followMax, gapCap, fresh, stall]) => {
  const s = (__SETUP__)();
  s.maxGap = 0;
  if (!fresh) { s.markCount = s.count; s.nav = false; s.timers.clear(); s.early = 0; }  // an action: loading is over
  s.follow = Infinity; s.followMax = followMax; s.gapCap = gapCap; s.stall = stall; s.state = __STATE__;
  return {count: s.count, added: s.added, removed: s.removed, fromStart: s.fromStart, doc: s.doc, rafs: s.rafs,
          opened: s.opened, at: performance.now()};
}""".replace("__SETUP__", _SETUP_JS).replace("__STATE__", _STATE_JS)


def follow_ms(action: str) -> int:
    """The longest timer the action's reaction is followed through (``FOLLOW_TIMER_MS`` unless the action has
    its own)."""
    return FOLLOW_ACTION_TIMER_MS.get(action, FOLLOW_TIMER_MS)


def init_js(follow_max: int, gap_cap: int, stall_ms: int, early_ms: int) -> str:
    """The observer as an init script: every new document is watched from its start, and the short
    timers it sets while loading are followed (until the settle's in-page wait ends); so are, unchained, the
    timers up to ``early_ms`` it sets then, and it is watched ``early_ms`` past a worker's last message (the
    reply a worker's message sets off comes within that window)."""
    return (
        f"(() => {{ try {{ const s = ({_SETUP_JS})(); s.fromStart = true; s.follow = Infinity;"
        f" s.early = {int(early_ms)};"
        f" s.followMax = {int(follow_max)}; s.gapCap = {int(gap_cap)}; s.stall = {int(stall_ms)};"
        " } catch (e) {} })();"
    )


# mark.fresh: a document a navigation just opened: all of it is the action's doing, so the DOM must be quiet
# since its last mutation (not only since the mark).
#
# Quiet is counted in frames as well as in time: once the DOM changed (and always on a new document, whose
# first IntersectionObserver / requestAnimationFrame callbacks run at its first rendering opportunities), two
# animation frames must have been drawn with no mutation, whatever they took. On a loaded machine frames come
# late (an animation's steps 200 ms apart look like a quiet DOM to a clock); counting frames, the wait stretches
# with them and never gives up before the cap. A document that draws no frames is not waited for: a hidden
# one (visibilityState), or a frame that got no frame within FRAMES_UNSEEN_MS (display:none, or an
# off-screen cross-origin frame the browser throttles).
QUIET_JS = """async ([mark, quiet, maxQuiet, grace, cap, stall, sinceMark]) => {
  const s = window.__kiteSettle;
  if (!s || s.v !== 6 || s.doc !== mark.doc) return null;  // another document than the mark's: it navigated
  const t0 = performance.now();
  s.follow = t0 + grace; s.stall = stall; s.reqSince = sinceMark ? (mark.at || 0) : 0;
  const st = s.st;  // the page's own setTimeout: these sleeps are not timers to follow
  const sleep = (ms) => new Promise((r) => st(r, ms));
  const isTop = window === window.top;
  // frames drawn since the wait began, and how many in a row saw no mutation (at their start)
  let frames = 0, calm = 0, seen = s.count, ticking = true, wake = null;
  const tick = () => {
    if (!ticking) return;
    frames++;
    if (s.count !== seen) { seen = s.count; calm = 0; } else calm++;
    if (wake) { const w = wake; wake = null; st(w, 0); }  // look again a task after the frame
    s.raf(tick);
  };
  s.raf(tick);
  const nap = (ms) => new Promise((r) => { wake = r; st(r, ms); });  // until the next frame or ms
  const fresh = !!mark.fresh;
  const drawn = (now) => document.visibilityState === 'visible' &&
    (isTop || frames > 0 || now - t0 < (fresh ? __UNSEEN__ : grace));
  // A new document gets a clock grace first. An action's settle does not: the page acknowledged the action's
  // input (its handlers ran) before this call, and what they set off (timers, requests, a navigation, frames)
  // is what the loop below waits for.
  if (fresh) await sleep(Math.min(grace, cap));
  let reason = 'quiet';
  for (;;) {
    const now = performance.now();
    if (s.nav) { reason = 'navigation'; break; }
    if (now - t0 >= cap) { reason = 'cap'; break; }
    let wait = 0;
    for (const due of s.timers.values()) wait = Math.max(wait, due - now + 1, 1);  // until it has run
    if (s.reqs.size > 0 && s.awaiting()) wait = Math.max(wait, 10);
    if (mark.fresh && s.early && s.workers > 0 && now - t0 < s.stall) {
      wait = Math.max(wait, s.early - (now - s.workerLast));  // a worker may have more to say
    }
    const changed = fresh ? s.count > 0 : s.count !== mark.count;
    if (changed) {  // a page that updates in steps: twice its largest gap (a new document: at least `quiet`)
      const win = Math.min(maxQuiet, Math.max(fresh ? quiet : 0, 2 * s.maxGap));
      wait = Math.max(wait, win - (now - s.last));
    }
    // Frames drawn in a row without a mutation: two on a new document, or when the page asked for an animation
    // frame since the mark (a callback there may ask for the next one); else one (what the action set off for
    // the next frame ran in it: animation-frame, IntersectionObserver and ResizeObserver callbacks).
    const need = fresh || s.rafs !== mark.rafs ? 2 : 1;
    const framesQuiet = calm >= need && s.count === seen;
    const draws = drawn(now);
    if (!fresh && !draws) wait = Math.max(wait, grace - (now - t0));  // no frames to go by: the clock's grace
    if (!framesQuiet && draws) {
      await nap(Math.max(4, Math.min(25, wait)));  // the next frame says more than the clock
      continue;
    }
    if (wait <= 0) break;
    await sleep(Math.max(4, Math.min(25, wait)));
  }
  ticking = false;
  s.follow = 0; s.early = 0; s.reqSince = 0;
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
          focused, nav: s.nav, reason, gap: s.maxGap, stateChanged, opened: s.opened - (mark.opened || 0)};
}""".replace("__STATE__", _STATE_JS).replace("__UNSEEN__", str(FRAMES_UNSEEN_MS))


_QUIET_THEN: dict[str, str] = {}


def quiet_then(after_js: str) -> str:
    """``QUIET_JS``, then ``after_js`` (a function expression of no arguments) in the same call: its answer is
    the result's ``after`` (when the wait answered at all)."""
    js = _QUIET_THEN.get(after_js)
    if js is None:
        js = _QUIET_THEN[after_js] = (
            f"async (args) => {{ const r = await ({QUIET_JS})(args);"
            f" if (r) {{ try {{ r.after = ({after_js})(); }} catch (e) {{ r.after = null; }} }} return r; }}"
        )
    return js


_MARK_THEN: dict[tuple[str, bool, str | None], str] = {}


def mark_then(first_js: str, settles: bool = False, after_js: str | None = None) -> str:
    """``INSTALL_JS`` (called with ``[args, arg, quietArgs]``), then ``first_js`` (a function expression of one
    argument, called with ``arg``) in the same call, after the mark: its answer is the result's ``first``,
    ``{value}`` or ``{error}`` (what it threw). ``settles``: then ``QUIET_JS`` from that mark (``quietArgs``:
    its arguments after the mark) and ``after_js``, its answer the result's ``quiet`` (with ``ms``, the
    wait's own time, and ``after``)."""
    key = (first_js, settles, after_js)
    js = _MARK_THEN.get(key)
    if js is None:
        quiet = ""
        if settles:
            after = (
                f" if (q) {{ try {{ q.after = ({after_js})(); }} catch (e) {{ q.after = null; }} }}"
                if after_js
                else ""
            )
            quiet = (
                " if (!m.first.error) { const t0 = performance.now();"
                f" const q = await ({QUIET_JS})([{{...m, first: undefined, fresh: false}}, ...quietArgs]);{after}"
                " if (q) q.ms = performance.now() - t0; m.quiet = q; }"
            )
        js = _MARK_THEN[key] = (
            f"async ([args, arg, quietArgs]) => {{ const m = ({INSTALL_JS})(args);"
            f" try {{ m.first = {{value: ({first_js})(arg)}}; }}"
            f" catch (e) {{ m.first = {{error: String((e && e.message) || e)}}; }}{quiet} return m; }}"
        )
    return js
