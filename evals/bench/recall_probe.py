"""The independent "what a person can see and hit" probe, shared by the recall benchmark and the recall test.

It is written apart from extractor.js on purpose: a plain interactive selector, ``checkVisibility``, and a
hit test at the element's centre that looks through transparent, non-interactive boxes (no background,
border, shadow or text of their own at that point, no pointer cursor, not an interactive element, not
invisible by ``opacity: 0`` — an invisible overlay still takes the click, so it blocks). ``aria-hidden`` is
not a reason to leave a control out (sites misuse it); ``inert`` is (the browser ignores input there). A label whose checkbox, radio or file input is not hit itself
(a custom checkbox) is a target; an ``<area>`` is hit when a point of a grid over its image lands on it.
"""

from __future__ import annotations

# Shared by both probes: is the hit at (x, y) a box a person looks through?
_THROUGH = r"""
  const SEL = 'a[href],a[*|href],area[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],' +
    '[contenteditable=true],[tabindex]:not([tabindex^="-"]),[onclick],[role=button],[role=link],[role=checkbox],' +
    '[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[role=slider]';
  const REPLACED = new Set(['IMG', 'VIDEO', 'CANVAS', 'IFRAME', 'EMBED', 'OBJECT', 'svg', 'INPUT', 'SELECT',
    'TEXTAREA', 'BUTTON', 'HTML', 'BODY']);
  const clear = (c) => c === 'transparent' || /rgba\(.*,\s*0\)$/.test(c);
  const through = (n, x, y) => {
    if (REPLACED.has(n.tagName) || n.matches(SEL) || n.onclick) return false;
    // a click listener: it takes the click (as the page's listener tracking told Kite's world, or an older
    // extractor's tracking in the page's world)
    const heard = window.__kiteListened || window.__kiteListeners;
    if (heard && heard.has(n)) return false;
    for (let a = n; a; a = a.parentElement) {
      if (a !== n && a.matches(SEL)) return false;
      if (parseFloat(getComputedStyle(a).opacity) === 0) return false;
    }
    const cs = getComputedStyle(n);
    if (cs.cursor === 'pointer' || !clear(cs.backgroundColor) || cs.backgroundImage !== 'none') return false;
    if (cs.boxShadow !== 'none' || (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0)) return false;
    for (const s of ['Top', 'Right', 'Bottom', 'Left']) {
      if (parseFloat(cs['border' + s + 'Width']) > 0 && cs['border' + s + 'Style'] !== 'none' && !clear(cs['border' + s + 'Color'])) return false;
    }
    const range = document.createRange();
    for (const t of n.childNodes) {
      if (t.nodeType !== 3 || !t.data.trim()) continue;
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return false;
    }
    return true;
  };
  // An image map's <area> has no box: it is hit when some point of a grid over its (shown) image lands on it.
  const areaHit = (el) => {
    const map = el.closest('map');
    const img = map && map.name && el.getRootNode().querySelector('img[usemap="#' + CSS.escape(map.name) + '"]');
    if (!img || !img.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    const r = img.getBoundingClientRect();
    for (let i = 1; i < 10; i++) for (let j = 1; j < 10; j++) {
      const x = r.left + r.width * i / 10, y = r.top + r.height * j / 10;
      if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight && el.getRootNode().elementFromPoint(x, y) === el) return true;
    }
    return false;
  };
  const lands = (el, x, y) => {
    for (const h of el.getRootNode().elementsFromPoint(x, y)) {
      if (h === el || el.contains(h) || (h.tagName === 'LABEL' && h.control === el)) return true;
      if (!through(h, x, y)) return false;
    }
    return false;
  };
"""

TRUTH_JS = (
    """(strict) => {"""
    + _THROUGH
    + """
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.matches(SEL)) all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  const hiddenBy = (el) => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode() && n.getRootNode().host) || null) {
      if (n.getAttribute && (n.hasAttribute('inert') || (strict && n.getAttribute('aria-hidden') === 'true'))) return true;
    }
    return false;
  };
  const vw = innerWidth, vh = innerHeight, out = [];
  // A label is a target of its own when its checkbox, radio or file input is not (a custom checkbox); a control
  // is found when it or one of its labels is listed.
  const labels = [];
  const walkLabels = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'LABEL' && el.control && ['checkbox', 'radio', 'file'].includes(el.control.type)) labels.push(el);
      if (el.shadowRoot) walkLabels(el.shadowRoot);
    }
  };
  walkLabels(document);
  const ok = (el) => {
    if (el.tagName === 'AREA') return !hiddenBy(el) && areaHit(el);
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true}) || hiddenBy(el)) return false;
    const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
    if (x1 - x0 < 1 || y1 - y0 < 1) return false;
    const x = (x0 + x1) / 2, y = (y0 + y1) / 2;
    if (strict) {
      const hit = el.getRootNode().elementFromPoint(x, y);
      return !!hit && (hit === el || el.contains(hit));
    }
    return lands(el, x, y);
  };
  const X = window.__kiteExtractor;
  for (const el of [...all, ...labels.filter((l) => !ok(l.control))]) {
    if (!ok(el)) continue;
    const alt = el.labels ? [...el.labels].map((l) => X.idOf(l)) : [];
    out.push([X.idOf(el), el.outerHTML.slice(0, 100), alt]);
  }
  return {token: X.token, found: out};
}"""
)
"""Called with ``strict``: true gives the old ground truth (aria-hidden left out, no looking through)."""

CHECK_JS = (
    """(ids) => {"""
    + _THROUGH
    + """
  return ids.map((id) => {
    const el = window.__kiteExtractor.get(id);
    if (el && el.tagName === 'AREA') return areaHit(el);
    if (!el || !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    // elementFromPoint answers null from innerWidth - 0.5 / innerHeight - 0.5 on (it rounds)
    const r = el.getBoundingClientRect(), vw = innerWidth - 0.5, vh = innerHeight - 0.5;
    const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
    for (const [fx, fy] of [[.5, .5], [.25, .25], [.75, .75], [.25, .75], [.75, .25]]) {
      if (lands(el, x0 + (x1 - x0) * fx, y0 + (y1 - y0) * fy)) return true;
    }
    return false;
  });
}"""
)
"""Called with local ids: for each, is it rendered and does a hit at one of five points land on it?"""
