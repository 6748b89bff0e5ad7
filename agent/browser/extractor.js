// Kite's page extractor: one plain-JS function, injected with Playwright into every frame.
// It is called as extractor(req) with req = {fn, ...}; on first use it installs itself on the frame's
// window (non-enumerable) so later calls go through a small stub. Identity: a WeakMap element -> local id
// per frame realm, plus a random document token; Python maps (token, local id) -> global index.
// Interactive levels: STRONG (markup: native controls, widget roles, editable roots, tabindex >= 0, inline
// handlers, draggable=true, an onclick property), LISTEN (a click-like listener added with addEventListener,
// seen by listeners.js) and POINT (the first element of a run with cursor pointer/move/grab).
(req) => {
  const KEY = "__kiteExtractor";
  const VERSION = 16;
  let api = window[KEY];
  if (!api || api.version !== VERSION) {
    const _WeakMap = WeakMap;
    const _Map = Map;
    const _WeakRef = WeakRef;
    const _now = performance.now.bind(performance);
    const _gcs = window.getComputedStyle.bind(window);
    const _stringify = JSON.stringify.bind(JSON);
    // In Kite's world: the elements the page's listener tracking reported (extractor_call.py); flushed per extract.
    const listened = window.__kiteListened || null;
    const STRONG = 3, LISTEN = 2, POINT = 1;
    const GRAB = new Set(["pointer", "move", "grab", "grabbing", "-webkit-grab", "-webkit-grabbing"]);
    const token = Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);
    const ids = new _WeakMap();
    const refs = new _Map();
    let next = 1;

    const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE"]);
    const NO_TEXT = new Set([...SKIP, "SELECT", "TEXTAREA", "OPTION"]);
    const WIDGET_ROLES = new Set([
      "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
      "menuitemradio", "option", "combobox", "listbox", "textbox", "searchbox", "slider",
      "spinbutton", "treeitem",
    ]);
    const HANDLERS = ["onclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup", "ondblclick", "ontouchstart"];
    const TEXT_TYPES = new Set(["", "text", "email", "password", "search", "tel", "url", "number", "date",
      "datetime-local", "month", "week", "time"]);
    const BUTTON_TYPES = new Set(["button", "submit", "reset", "image"]);
    const CLASS_WORD = /^[A-Za-z][A-Za-z-]{1,23}$/;

    const idOf = (el) => {
      let id = ids.get(el);
      if (id === undefined) {
        id = next++;
        ids.set(el, id);
        refs.set(id, new _WeakRef(el));
      } else if (!refs.has(id)) refs.set(id, new _WeakRef(el));  // swept while out of the document, back now
      return id;
    };
    // What the extractor keeps between calls is bounded by the document, not by how often it was asked: the
    // ids of elements no longer in the document are dropped (an element put back gets its id back: the
    // WeakMap keeps it) and reported once as `gone`, so Python drops their indexes too. A page that replaces
    // its content on every snapshot (a ticker, a re-keyed list) left one entry per element ever seen.
    let sweepAt = 512;
    const sweep = () => {
      if (refs.size < sweepAt) return [];
      const gone = [];
      for (const [id, ref] of refs) {
        const el = ref.deref();
        if (!el || !el.isConnected) { refs.delete(id); gone.push(id); }
      }
      sweepAt = Math.max(512, 2 * refs.size);
      return gone;
    };
    const get = (id) => {
      const ref = refs.get(id);
      const el = ref && ref.deref();
      return el && el.isConnected ? el : null;
    };
    const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
    const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

    // Text of a subtree, stopping once `limit` characters are collected (cheaper than textContent). With
    // `shown`, display:none parts are left out (a collapsed folder is not named after its hidden files).
    const ALL_TEXT = { acceptNode: (n) => (n.nodeType === 1 && NO_TEXT.has(n.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) };
    const SHOWN_TEXT = {
      acceptNode: (n) => (n.nodeType === 1 && (NO_TEXT.has(n.tagName) || !n.checkVisibility()) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    };
    const textOf = (root, limit, shown) => {
      let out = "";
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, shown ? SHOWN_TEXT : ALL_TEXT);
      let n = walker.nextNode();
      while (n && out.length < limit) {
        if (n.nodeType === 3) out += n.data + " ";
        else if (n.tagName === "IMG" && n.alt) out += n.alt + " ";
        n = walker.nextNode();
      }
      out = norm(out);
      if (!out && root.shadowRoot) out = textOf(root.shadowRoot, limit, shown);
      return out;
    };

    const byIds = (el, attr) => {
      const root = el.getRootNode();
      const parts = [];
      for (const ref of (el.getAttribute(attr) || "").split(/\s+/)) {
        const t = ref && root.getElementById ? root.getElementById(ref) : null;
        if (t) parts.push(textOf(t, 200));
      }
      return norm(parts.join(" "));
    };

    // A field drawn with a div (role=textbox/combobox/slider..., a contenteditable editor) is named like a
    // person reads it, by its label (a wrapping <label> outside the field, a label[for=id] or a title), never
    // by its content: that is its value.
    const FIELD_ROLES = new Set(["textbox", "searchbox", "combobox", "listbox", "slider", "spinbutton"]);
    const textBeside = (root, skip, limit) => {
      let out = "";
      const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
        acceptNode: (n) => (n === skip || (n.nodeType === 1 && (NO_TEXT.has(n.tagName) || !n.checkVisibility()))
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
      });
      for (let n = w.nextNode(); n && out.length < limit; n = w.nextNode()) if (n.nodeType === 3) out += n.data + " ";
      return norm(out);
    };
    const fieldLabel = (el, limit) => {
      const lab = el.closest("label");
      let s = lab ? textBeside(lab, el, limit) : "";
      const root = el.getRootNode();
      if (!s && el.id && root.querySelector) {
        const f = root.querySelector(`label[for="${CSS.escape(el.id)}"]`);
        if (f) s = textBeside(f, el, limit);
      }
      return s;
    };

    // A <label> right before a field, bound to nothing (no `for`, no control inside): the field's visible
    // label on pages that never bound it (`<label>Last name:</label><input>`), as a person reads it.
    const looseLabel = (el, limit) => {
      const prev = el.previousElementSibling;
      return prev && prev.tagName === "LABEL" && !prev.hasAttribute("for") && !prev.control
        ? textOf(prev, limit).replace(/\s*[:：]$/, "") : "";
    };

    const nameOf = (el, tag, type, limit, field) => {
      let s = el.hasAttribute("aria-labelledby") ? byIds(el, "aria-labelledby") : "";
      if (!s) s = norm(el.getAttribute("aria-label"));
      if (!s && (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA")) {
        if (tag === "INPUT" && BUTTON_TYPES.has(type)) s = norm(type === "image" ? el.alt : el.value) || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
        else if (el.labels && el.labels.length) s = norm([...el.labels].map((l) => textOf(l, limit)).join(" "));
        else s = looseLabel(el, limit);
      } else if (!s && (tag === "IMG" || tag === "AREA")) s = norm(el.alt);
      else if (!s && field) s = fieldLabel(el, limit);
      else if (!s) {
        s = textOf(el, limit * 2, true);
        if (!s) {
          const inner = el.querySelector("img[alt],[aria-label],svg title");
          if (inner) s = norm(inner.getAttribute("alt") || inner.getAttribute("aria-label") || inner.textContent);
        }
      }
      if (!s) s = norm(el.getAttribute("title"));
      return cut(s, limit);
    };

    const roleOf = (el) => {
      const r = el.getAttribute("role");
      return r ? r.trim().split(/\s+/)[0].toLowerCase() : null;
    };

    // A label that stands in for its checkbox, radio or file input when the input itself is not seen (opacity 0,
    // clipped, 1px, display:none: custom checkboxes, switches, button-like radios, upload buttons). A person
    // clicks the label; it is listed as the input (its type, checked state and name).
    const PROXY_TYPES = new Set(["checkbox", "radio", "file"]);
    const controlOf = (label) => {
      const c = label.control;
      return c && c.tagName === "INPUT" && PROXY_TYPES.has(c.type) ? c : null;
    };
    const concealed = (c) => {
      const r = c.getBoundingClientRect();
      if (r.width < 2 || r.height < 2 || !c.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return true;
      const cs = _gcs(c);
      return cs.clip !== "auto" || cs.clipPath !== "none" || cs.pointerEvents === "none";
    };
    const buttonOf = (label) => {
      const c = label.control;
      return c && (c.tagName === "BUTTON" || (c.tagName === "INPUT" && BUTTON_TYPES.has(c.type))) ? c : null;
    };
    const proxyOf = (label) => {
      const c = controlOf(label);
      return c && concealed(c) ? c : null;
    };
    const XLINK = "http://www.w3.org/1999/xlink";
    const hrefOf = (el) => el.getAttribute("href") ?? el.getAttributeNS(XLINK, "href");
    // An image map's <area> has no box of its own: its rect is its coords placed on the (shown) image using the map.
    const areaRect = (el) => {
      const map = el.closest("map");
      const img = map && map.name ? el.getRootNode().querySelector(`img[usemap="#${CSS.escape(map.name)}"]`) : null;
      if (!img || !img.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return null;
      const ir = img.getBoundingClientRect(), cs = _gcs(img);
      const ox = ir.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      const oy = ir.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
      const n = (el.getAttribute("coords") || "").split(/[\s,]+/).map(parseFloat).filter((v) => isFinite(v));
      const shape = (el.getAttribute("shape") || "rect").toLowerCase();
      let b;
      if (shape.startsWith("def")) b = [0, 0, img.clientWidth, img.clientHeight];
      else if (shape.startsWith("circ") && n.length >= 3) b = [n[0] - n[2], n[1] - n[2], n[0] + n[2], n[1] + n[2]];
      else if (shape.startsWith("poly") && n.length >= 6) {
        const xs = n.filter((_, i) => i % 2 === 0), ys = n.filter((_, i) => i % 2 === 1);
        b = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
      } else if (n.length >= 4) b = [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])];
      else return null;
      const x0 = Math.max(b[0], 0), y0 = Math.max(b[1], 0);
      const x1 = Math.min(b[2], img.clientWidth), y1 = Math.min(b[3], img.clientHeight);
      return x1 > x0 && y1 > y0 ? new DOMRect(ox + x0, oy + y0, x1 - x0, y1 - y0) : null;
    };
    // Inside `root` across shadow boundaries (an element behind a modal dialog is inert).
    const within = (root, el) => {
      for (let n = el; n; n = n.parentNode || n.host) if (n === root) return true;
      return false;
    };

    // One pass over an element's attributes: role, whether it is hidden from everyone (aria-hidden, inert),
    // and whether it is interactive by markup (strong = 2) or only by a tracked JS listener (listener).
    const HANDLER_SET = new Set(HANDLERS);
    // The walk asks this of every element: one object reused (no allocation per element), read before the next
    // call. An element without attributes (most of a page: cells, spans, list items) skips the attribute loop.
    const SC = { role: null, strong: 0, hidden: false, aria: false, listener: false };
    const scan = (el, tag) => {
      let role = null, strong = 0, hidden = false, aria = false;
      if (el.hasAttributes()) {
        const attrs = el.attributes;
        for (let i = 0; i < attrs.length; i++) {
          const name = attrs[i].name;
          if (name === "role") role = attrs[i].value.trim().split(/\s+/)[0].toLowerCase() || null;
          else if (name === "aria-hidden") aria = aria || attrs[i].value === "true";
          else if (name === "inert") hidden = true;
          else if (name === "tabindex") strong = strong || (parseInt(attrs[i].value, 10) >= 0 ? 2 : 0);
          else if (name === "contenteditable") strong = strong || (attrs[i].value !== "false" ? 3 : 0);
          else if (HANDLER_SET.has(name) || (name === "draggable" && attrs[i].value === "true")) strong = 2;
        }
        if (strong === 3) strong = el.parentElement && el.parentElement.isContentEditable ? 0 : 2;
        if (tag === "A" || tag === "a") strong = strong || (hrefOf(el) !== null ? 2 : 0);
      }
      if (tag === "BUTTON" || tag === "SELECT" || tag === "TEXTAREA" || tag === "SUMMARY") strong = 2;
      else if (tag === "INPUT") strong = el.type === "hidden" ? 0 : 2;
      else if ((tag === "VIDEO" || tag === "AUDIO") && el.hasAttribute("controls")) strong = 2;
      if (!strong && role && WIDGET_ROLES.has(role)) strong = 2;
      if (!strong && el.onclick) strong = 2;
      SC.role = role; SC.strong = strong; SC.hidden = hidden; SC.aria = aria;
      SC.listener = !strong && listened !== null && listened.has(el);
      return SC;
    };

    // Is the rect outside the overflow clip of its ancestors? (Only asked for elements outside the viewport.)
    let clipCache = new _WeakMap();
    const clipOf = (el) => {
      const parent = el.parentElement || (el.parentNode && el.parentNode.host) || null;
      if (!parent || parent === document.documentElement) return null;
      if (clipCache.has(parent)) return clipCache.get(parent);
      let clip = _gcs(el).position === "fixed" ? null : clipOf(parent);
      const cs = _gcs(parent);
      if (cs.overflowX !== "visible" || cs.overflowY !== "visible") {
        const r = parent.getBoundingClientRect();
        clip = clip ? { l: Math.max(clip.l, r.left), t: Math.max(clip.t, r.top), r: Math.min(clip.r, r.right), b: Math.min(clip.b, r.bottom) }
          : { l: r.left, t: r.top, r: r.right, b: r.bottom };
      }
      clipCache.set(parent, clip);
      return clip;
    };

    const kindOf = (tag, type, role, editable) => {
      if (role === "link") return "link";
      if (role === "button" || role === "menuitem" || role === "tab") return "button";
      if (role === "combobox" || role === "listbox") return "select";
      if (role && ["textbox", "searchbox", "checkbox", "radio", "switch", "slider", "spinbutton", "menuitemcheckbox", "menuitemradio"].includes(role)) return "input";
      if (tag === "A" || tag === "a" || tag === "AREA") return "link";
      if (tag === "BUTTON" || tag === "SUMMARY") return "button";
      if (tag === "INPUT") return BUTTON_TYPES.has(type) ? "button" : "input";
      if (tag === "TEXTAREA" || editable) return "input";
      if (tag === "SELECT") return "select";
      if (tag === "IMG") return "image";
      return "other";
    };

    // An <a>'s href property is already the parsed URL's serialisation: one on this page's origin is cut to its
    // path by its prefix, without parsing it again (the string new URL() gives: pathname + search + hash, where an
    // empty query or fragment is "").
    const ORIGIN = location.origin !== "null" ? location.origin + "/" : null;
    const shortHref = (el) => {
      const raw = hrefOf(el);
      if (raw === null) return null;
      const full = el.href;
      if (ORIGIN !== null && typeof full === "string" && full.startsWith(ORIGIN)) {
        const rest = full.slice(ORIGIN.length - 1), h = rest.indexOf("#");
        let path = h < 0 ? rest : rest.slice(0, h);
        if (path.endsWith("?") && path.indexOf("?") === path.length - 1) path = path.slice(0, -1);  // an empty query: search ""
        return h < 0 || h === rest.length - 1 ? path : path + rest.slice(h);  // an empty fragment: hash ""
      }
      let u;
      try { u = new URL((typeof el.href === "string" && el.href) || raw, document.baseURI); } catch (e) { return raw; }
      if (u.protocol === "javascript:") return null;
      if (u.origin === location.origin) return u.pathname + u.search + u.hash;
      return u.href;
    };

    // The first few options of a list, as ``text(o)`` reads them (disabled and empty ones left out), and how
    // many more; set only when there are at least ``least``.
    const SUGGEST = 8;
    const listOptions = (options, text, least, r) => {
      const shown = [];
      let total = 0;
      for (const o of options) {
        if (o.disabled) continue;
        const t = text(o);
        if (!t) continue;
        if (++total <= SUGGEST) shown.push(cut(t, 40));
      }
      if (total >= least) {
        r.options = shown;
        if (total > shown.length) r.moreOptions = total - shown.length;
      }
    };
    // The suggestions of an input's <datalist>: what a person sees drop down when typing. The values (with the
    // label when it differs), so a model knows the expected values.
    const suggestions = (list, r) => listOptions(list.options, (o) => {
      const v = norm(o.value), l = norm(o.label);
      return v && (l && l !== v ? `${v} (${l})` : v);
    }, 1, r);
    // A <select>'s choices by their text (what `select` takes), so a model picks one it has seen rather than
    // guessing ("Sort by": Featured | Price: low to high | ...). A single choice is no choice.
    const choices = (el, r) => listOptions(el.options, (o) => norm(o.textContent) || norm(o.value), 2, r);

    // A nameless button or link: the tooltip a person sees on hover is its name; else its icon says what it
    // does, named by the sprite symbol (<use href="#icon-cart">), the icon font class (fa-trash, bi-bell), the
    // image file (search-icon.svg) or a test id, without the icon set's prefix.
    const TOOLTIPS = ["data-tooltip", "data-tip", "data-title", "data-bs-original-title", "data-original-title", "data-bs-title"];
    const ICON_SET = /^(fa[srlbdt]?|bi|icons?|glyphicon|ico|i|ti|mdi|la[srb]?|ion|octicon|feather|lucide|material-icons|material-symbols-outlined|svg-inline--fa|fa-solid|fa-regular|fa-brands|fa-fw|fa-lg)$/;
    const ICON_PREFIX = /^(fa|bi|icons?|glyphicon|ico|i|ti|mdi|la|ion|octicon|feather|lucide)-/;
    const iconWord = (w) => {
      w = (w || "").trim().toLowerCase();
      if (!CLASS_WORD.test(w) || ICON_SET.test(w)) return "";
      return w.replace(ICON_PREFIX, "");
    };
    const iconOf = (el) => {
      for (const a of ["data-testid", "data-test", "data-qa", "data-icon"]) {
        const w = iconWord((el.getAttribute(a) || "").replace(/[_\s]+/g, "-"));
        if (w) return w;
      }
      let n = 0;
      for (const d of el.querySelectorAll("use, img, svg, i, span")) {
        if (++n > 6) break;
        let w = "";
        if (d.tagName === "use") w = iconWord((hrefOf(d) || "").split("#").pop());
        else if (d.tagName === "IMG") w = iconWord((d.getAttribute("src") || "").split(/[?#]/)[0].split("/").pop().replace(/\.[a-z0-9]+$/i, ""));
        else {
          const cls = typeof d.className === "string" ? d.className : d.getAttribute("class") || "";
          for (const c of norm(cls).split(" ")) if ((w = iconWord(c))) break;
        }
        if (w) return w;
      }
      return "";
    };

    const describe = (el, tag, role, rect, opts) => {
      const type = tag === "INPUT" ? (el.getAttribute("type") || "text").toLowerCase() : null;
      const editable = (tag === "INPUT" && TEXT_TYPES.has(type)) || tag === "TEXTAREA" || (!!el.isContentEditable && tag !== "INPUT");
      const divField = tag !== "INPUT" && tag !== "TEXTAREA" && tag !== "SELECT" && (editable || FIELD_ROLES.has(role));
      const r = {
        id: idOf(el), tag: tag.toLowerCase(), role, kind: kindOf(tag, type, role, editable && tag !== "INPUT" && tag !== "TEXTAREA"),
        name: nameOf(el, tag, type, opts.nameChars, divField), type, editable,
        x: rect.x, y: rect.y, w: rect.width, h: rect.height, shadow: el.getRootNode() !== document,
        disabled: !!(el.matches(":disabled") || el.getAttribute("aria-disabled") === "true"),
      };
      if (tag === "INPUT" || tag === "TEXTAREA") {
        const ph = el.getAttribute("placeholder");
        if (ph) r.placeholder = cut(norm(ph), opts.nameChars);
        if (type === "checkbox" || type === "radio") r.checked = !!el.checked;
        else if (type === "password") r.value = el.value ? "********" : "";
        else if (!BUTTON_TYPES.has(type) && type !== "file") r.value = cut(el.value || "", opts.valueChars);
        else if (type === "file" && el.files && el.files.length) r.value = [...el.files].map((f) => f.name).join(", ");
        if (el.list && el.list.tagName === "DATALIST") suggestions(el.list, r);
      } else if (tag === "SELECT") {
        const sel = el.selectedOptions ? [...el.selectedOptions] : [];
        r.value = cut(sel.map((o) => norm(o.textContent)).join(", "), el.multiple ? opts.valueChars * 2 : opts.nameChars);
        choices(el, r);
      } else if (divField) {
        // The value of a div field: its text (an editor's content, a custom select's choice) or aria-valuetext/now.
        const vt = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow");
        if (vt !== null) r.value = cut(norm(vt), opts.valueChars);
        else if (role !== "listbox") r.value = cut(textOf(el, opts.valueChars, !editable), opts.valueChars);
        const ph = el.getAttribute("aria-placeholder") || el.getAttribute("data-placeholder") ||
          (editable && !r.value && el.querySelector("[data-placeholder]")?.getAttribute("data-placeholder"));
        if (ph) r.placeholder = cut(norm(ph), opts.nameChars);
      }
      if (tag === "A" || tag === "a" || tag === "AREA" || role === "link") r.href = shortHref(el);
      const proxy = tag === "LABEL" ? proxyOf(el) : null;
      if (proxy) {
        r.kind = "input";
        r.type = proxy.type;
        r.name = nameOf(proxy, "INPUT", proxy.type, opts.nameChars) || r.name;
        r.disabled = r.disabled || proxy.disabled;
        if (proxy.type !== "file") r.checked = !!proxy.checked;
        else if (proxy.files && proxy.files.length) r.value = [...proxy.files].map((f) => f.name).join(", ");
      }
      // A label whose control is a button (a hidden submit button behind a styled label): clicking it clicks
      // the button, so it is listed and judged as that button (its type, and below its form's target).
      const acts = tag === "LABEL" && !proxy ? buttonOf(el) : null;
      if (acts) {
        r.kind = "button";
        r.type = acts.tagName === "BUTTON" ? acts.type : type || acts.type;
      }
      const ac = el.getAttribute("aria-checked");
      if (ac !== null && r.checked === undefined) r.checked = ac === "true";
      const as = el.getAttribute("aria-selected");
      if (as !== null) r.selected = as === "true";
      else if (tag === "OPTION") r.selected = !!el.selected;
      const ae = el.getAttribute("aria-expanded");
      if (ae !== null) r.expanded = ae === "true";
      else if (tag === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") r.expanded = el.parentElement.open;
      const attrs = {};
      for (const a of ["id", "name", "autocomplete", "inputmode"]) {
        const v = el.getAttribute(a);
        if (v) attrs[a] = cut(v, 80);
      }
      if (r.href === null) {  // a javascript: link is shown without its href, but the safety policy reads its code
        // as the browser's URL parser reads it (tabs and newlines removed, leading controls and spaces trimmed:
        // "java&#9;script:pay()" runs pay()).
        const raw = hrefOf(el);
        let u = null;
        try { u = raw === null ? null : new URL(raw, document.baseURI); } catch (e) { /* unparsable: no link */ }
        if (u && u.protocol === "javascript:") attrs.script = cut(norm(u.href), 200);
      }
      if (!r.name && (r.kind === "button" || r.kind === "link")) {
        for (const a of TOOLTIPS) {
          const t = norm(el.getAttribute(a));
          if (t) { r.name = cut(t, opts.nameChars); break; }
        }
        const icon = r.name ? "" : iconOf(el);
        if (icon) attrs.icon = cut(icon, 30);
      }
      if (!r.name && !r.href && !attrs.icon && typeof el.className === "string" && el.className) {
        // A nameless target (an icon drawn by CSS): its class words are the only hint of what it does
        // (the first two plain words; generated ones like "css-1x2y" or "Menu_0" say nothing).
        const words = norm(el.className).split(" ").filter((w) => CLASS_WORD.test(w)).slice(0, 2);
        if (words.length) attrs.class = words.join(" ");
      }
      // Every reading of what a person clicks: buttons and links, and any other element that takes a click
      // (a div with onclick or a click listener, a label): each is judged as what it is for, not by its tag.
      if (r.kind === "button" || r.kind === "link" || r.kind === "other") {
        const t = _now();
        labelReadings(el, tag, type, r.name, attrs, opts.nameChars);
        ph.readings += _now() - t;
      }
      // Where a submit button sends its form: the safety policy judges that too, whatever the label says.
      const sub = acts || el, subTag = sub.tagName;
      const submits = subTag === "BUTTON" ? sub.type === "submit" : subTag === "INPUT" && (sub.type === "submit" || sub.type === "image");
      if (submits && sub.form) {
        // formAction falls back to the document's URL, not the form's action (which a field named "action"
        // would shadow on the form object): read the attributes.
        const raw = sub.getAttribute("formaction") ?? sub.form.getAttribute("action") ?? "";
        try { attrs.formaction = cut(new URL(raw, document.baseURI).href, 300); } catch (e) { /* unparsable: no target */ }
      }
      // How a form is sent (safety: structure as well as words): a submit button's method (``formmethod``, only
      // when not GET), and for a field of a form where Enter sends it (``form``) and how; the policy judges a
      // POST to a paying or deleting target whatever the labels say.
      if (sub.form && (submits || subTag === "INPUT" || subTag === "TEXTAREA" || subTag === "SELECT")) {
        const method = String((submits && sub.getAttribute("formmethod")) || sub.form.getAttribute("method") || "get").toLowerCase();
        if (method !== "get") attrs.formmethod = cut(method, 10);
        if (!submits) {
          try { attrs.form = cut(new URL(sub.form.getAttribute("action") ?? "", document.baseURI).href, 300); } catch (e) { /* unparsable: no target */ }
        }
      }
      if (acts) keepReading(attrs, "control", BUTTON_TYPES.has(acts.type) && acts.tagName === "INPUT" ? acts.value : acts.innerText || acts.textContent, r.name, opts.nameChars);
      r.attrs = attrs;
      return r;
    };

    // What a person sees on a button or link besides its accessible name (the safety policy judges every
    // reading): the rendered text with CSS ::before/::after content, the title, an input's value or alt.
    const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
    // CSS generated content at any depth of the control (its first PSEUDO_NODES elements, a bound no
    // ordinary control reaches).
    const PSEUDO_NODES = 200;
    const pseudoText = (el) => {
      let out = "", count = 0;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
      for (let n = el; n && count < PSEUDO_NODES; n = walker.nextNode(), count++) {
        for (const p of n === el && _gcs(el).display.includes("list-item") ? ["::before", "::after", "::marker"] : ["::before", "::after"]) {
          const c = getComputedStyle(n, p).content;
          if (c && c !== "none" && c !== "normal") for (const m of c.matchAll(QUOTED)) out += m[1] + " ";
        }
      }
      return out;
    };
    // The words a person actually sees on a control with child elements (or a bidi override): text nodes that
    // paint nothing (font-size 0, transparent, opacity 0, clipped away, outside the control's box) are left
    // out ("P<span style=font-size:0>xx</span>ay" reads "Pay"), and text under `direction: rtl;
    // unicode-bidi: bidi-override` is reversed as it is drawn ("won yaP" shows "Pay now").
    const shownText = (el, limit) => {
      if (!el.firstElementChild && !_gcs(el).unicodeBidi.includes("override")) return null;
      const box = el.getBoundingClientRect(), range = document.createRange();
      const styles = new _Map();
      const style = (n) => { let cs = styles.get(n); if (!cs) styles.set(n, (cs = _gcs(n))); return cs; };
      let out = "";
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t && out.length < limit; t = walker.nextNode()) {
        const parent = t.parentElement;
        if (!parent || NO_TEXT.has(parent.tagName)) continue;
        if (!t.data.trim()) { out += " "; continue; }
        range.selectNodeContents(t);
        const r = range.getBoundingClientRect();
        if (r.width < 1 || r.height < 1 || r.right <= box.left || r.left >= box.right || r.bottom <= box.top || r.top >= box.bottom) continue;
        let seen = !clearColor(style(parent).color) && !clearColor(style(parent).webkitTextFillColor) && style(parent).visibility === "visible";
        let flip = false, decided = false;
        for (let n = parent; seen && n; n = n === el ? null : n.parentElement) {
          const cs = style(n);
          if (parseFloat(cs.opacity) === 0) seen = false;
          else if (n !== el && (cs.overflowX !== "visible" || cs.overflowY !== "visible")) {
            const c = n.getBoundingClientRect();
            if (r.right <= c.left || r.left >= c.right || r.bottom <= c.top || r.top >= c.bottom || c.width < 1 || c.height < 1) seen = false;
          }
          if (!decided && cs.unicodeBidi.includes("override")) { flip = cs.direction === "rtl"; decided = true; }
        }
        if (seen) out += flip ? [...t.data].reverse().join("") : t.data;
      }
      return out;
    };
    const keepReading = (attrs, key, s, name, limit) => {
      s = norm(s);
      if (s && s !== name) attrs[key] = cut(s, limit);
    };
    const labelReadings = (el, tag, type, name, attrs, limit) => {
      const keep = (key, s) => keepReading(attrs, key, s, name, limit);
      if (tag === "INPUT") {
        keep("value", el.value);
        if (type === "image") keep("alt", el.getAttribute("alt"));
      } else {
        const inner = el.innerText || "", pseudo = pseudoText(el), shown = shownText(el, limit * 2);
        keep("text", inner + " " + pseudo);
        const bare = (x) => x.replace(/\s+/g, "");
        if (shown !== null && bare(shown) !== bare(inner)) keep("shown", shown + " " + pseudo);
      }
      keep("title", el.getAttribute("title"));
    };

    // A box a person looks through at (x, y): rendered but painting nothing there (no background, border,
    // shadow or text of its own at that point) and not interactive itself or inside a candidate. An invisible
    // box (opacity 0 on it or an ancestor) is not looked through: it still takes the click (a real overlay).
    let candEls = null, proxied = new Set();
    const REPLACED = new Set(["IMG", "VIDEO", "CANVAS", "IFRAME", "FRAME", "EMBED", "OBJECT", "svg", "INPUT",
      "SELECT", "TEXTAREA", "BUTTON", "HTML", "BODY"]);
    const clearColor = (c) => c === "transparent" || /rgba\(.*,\s*0\)$/.test(c);
    let paintless = new _WeakMap();
    const boxPaintless = (n) => {
      let v = paintless.get(n);
      if (v !== undefined) return v;
      v = false;
      if (!REPLACED.has(n.tagName) && !(candEls && candEls.has(n)) && !(listened && listened.has(n)) && !n.onclick) {
        const cs = _gcs(n);
        v = !GRAB.has(cs.cursor) && parseFloat(cs.opacity) > 0 && clearColor(cs.backgroundColor) &&
          cs.backgroundImage === "none" && cs.boxShadow === "none" &&
          !(cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0);
        for (const side of ["Top", "Right", "Bottom", "Left"]) {
          if (v && parseFloat(cs["border" + side + "Width"]) > 0 && cs["border" + side + "Style"] !== "none" &&
            !clearColor(cs["border" + side + "Color"])) v = false;
        }
        if (v) {
          for (let a = n.parentElement; a && a !== document.body; a = a.parentElement) {
            if ((candEls && candEls.has(a)) || parseFloat(_gcs(a).opacity) === 0) { v = false; break; }
          }
        }
      }
      paintless.set(n, v);
      return v;
    };
    const seeThrough = (n, x, y) => {
      if (!boxPaintless(n)) return false;
      const range = document.createRange();
      for (const t of n.childNodes) {
        if (t.nodeType !== 3 || !t.data.trim()) continue;
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return false;
      }
      return true;
    };
    const landsThrough = (el, root, x, y) => {
      for (const h of root.elementsFromPoint(x, y)) {
        if (h === el || el.contains(h) || (h.tagName === "LABEL" && h.control === el)) return true;
        if (!seeThrough(h, x, y)) return false;
      }
      return false;
    };

    // Does a hit-test at one of a few points inside the visible part of the rect land on el (looking through
    // transparent, non-interactive boxes)?
    // The part of the rect that can be hit-tested: elementFromPoint answers null from vw - 0.5 / vh - 0.5 on
    // (it rounds), so an element showing a sliver at the bottom edge is sampled inside that sliver.
    const showing = (rect, vw, vh) => Math.min(rect.right, vw - 0.5) > Math.max(rect.left, 0) && Math.min(rect.bottom, vh - 0.5) > Math.max(rect.top, 0);
    const PTS = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.75], [0.25, 0.75], [0.75, 0.25]];
    const hits = (el, rect, vw, vh) => {
      const x0 = Math.max(rect.left, 0), x1 = Math.min(rect.right, vw - 0.5);
      const y0 = Math.max(rect.top, 0), y1 = Math.min(rect.bottom, vh - 0.5);
      if (x1 <= x0 || y1 <= y0) return false;
      const root = el.getRootNode();
      for (const [fx, fy] of PTS) {
        const x = x0 + (x1 - x0) * fx, y = y0 + (y1 - y0) * fy;
        const hit = root.elementFromPoint(x, y);
        if (!hit) continue;
        if (hit === el || el.contains(hit)) return true;
        if (hit.tagName === "LABEL" && hit.control === el) return true;
        if (seeThrough(hit, x, y) && landsThrough(el, root, x, y)) return true;
      }
      return false;
    };

    // A control wholly in view but covered by a fixed or sticky bar along the top or bottom edge (a site
    // header, a cookie bar) that it does not sit in itself: a scroll shows it, so it is "above" or "below",
    // not dropped. A full-page mask (taller than 40% of the viewport) still covers.
    const FIXED = new Set(["fixed", "sticky"]);
    const pinned = (el) => {
      for (let n = el; n && n !== document.documentElement; n = n.parentElement || (n.parentNode && n.parentNode.host)) {
        if (FIXED.has(_gcs(n).position)) return n;
      }
      return null;
    };
    const underBar = (el, rect, vw, vh) => {
      const x = Math.min(Math.max((rect.left + rect.right) / 2, 0), vw - 1), y = (rect.top + rect.bottom) / 2;
      const hit = document.elementFromPoint(x, y);
      const bar = hit && pinned(hit);
      if (!bar || bar.contains(el) || pinned(el)) return null;
      const b = bar.getBoundingClientRect();
      if (b.height > 0.4 * vh) return null;
      if (b.top <= 1 && y < b.bottom) return "above";
      if (b.bottom >= vh - 1 && y > b.top) return "below";
      return null;
    };

    // A control scrolled out of sight inside a scrollable box (overflow auto/scroll): a scroll of that box shows
    // it, so it is "above"/"below", not dropped. Clipped by overflow hidden (a collapsed menu) or sideways (a
    // carousel's next slide), it stays out.
    const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
    // Positioned boxes (absolute, fixed, sticky, or relative with an offset) are drawn away from where the flow
    // puts them: their ancestors (`escapes`, found in the walk) may show them elsewhere. Any other box lays its
    // content out at or below its own top, so the reading-order walk skips a subtree whose box starts below
    // the viewport unless something in it is positioned: on a long page it no longer measures every line.
    // (Only `position` is read for every element: transforms and margins need layout and cost ~4x as much;
    // text moved up into view from below by a transform or a negative margin is left out of the reading order,
    // and from the summary's text; its controls are listed as before.)
    let escapes = null;
    const escaped = (el) => { for (let a = up(el); a && !escapes.has(a); a = up(a)) escapes.add(a); };
    const STILL = new Set(["auto", "0px"]);
    const movedOut = (cs, pos) => pos !== "relative" || !STILL.has(cs.top) || !STILL.has(cs.bottom);
    const SCROLLS = new Set(["auto", "scroll"]);
    const scrolledOut = (el, rect) => {
      for (let n = up(el); n && n !== document.body && n !== document.documentElement; n = up(n)) {
        const cs = _gcs(n);
        if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
        const b = n.getBoundingClientRect();
        const outV = rect.top >= b.bottom - 1 || rect.bottom <= b.top + 1;
        const outH = rect.left >= b.right - 1 || rect.right <= b.left + 1;
        if (!outV && !outH) continue;
        if (outV && !outH && SCROLLS.has(cs.overflowY) && n.scrollHeight > n.clientHeight) return rect.top >= b.bottom - 1 ? "below" : "above";
        return null;
      }
      return null;
    };

    // Which candidates stay. A POINT wrapper mostly filled by a STRONG or LISTEN descendant gives way to it.
    // A LISTEN element with candidates inside is kept only if it shows text of its own outside them (a tree
    // folder's label) and is not big: else it is event delegation or a framework root, not a target. A LISTEN
    // list with no candidate inside (delegation to plain rows: a sortable <ul>) gives way to its rows.
    const LISTY = new Set(["UL", "OL", "TBODY", "DL"]);
    const LISTY_ROLES = new Set(["list", "listbox", "menu", "tree", "grid", "rowgroup", "tablist"]);
    const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
      Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
    const rowsOf = (c, cands) => {
      const kids = c.el.children;
      if (kids.length < 2 || kids.length > 500 || !(LISTY.has(c.tag) || LISTY_ROLES.has(c.role))) return false;
      const tag = kids[0].tagName;
      if (SKIP.has(tag)) return false;
      for (let i = 1; i < kids.length; i++) if (kids[i].tagName !== tag) return false;
      for (const k of kids) {
        if (k.getAttribute("aria-hidden") === "true") continue;
        const rect = k.getBoundingClientRect();
        cands.push({ el: k, tag, role: roleOf(k), s: LISTEN, anc: c.anc, rect, area: rect.width * rect.height, nsub: 0, ah: c.ah });
      }
      return true;
    };
    const ownText = (c, candSet) => {
      const walker = document.createTreeWalker(c.el, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
        acceptNode: (n) => (n.nodeType === 1 && n !== c.el && (candSet.has(n) || NO_TEXT.has(n.tagName) || !n.checkVisibility())
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
      });
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.nodeType === 3 && n.data.trim()) return true;
      return false;
    };
    const settle = (cands, vw, vh) => {
      const n = cands.length;
      for (let i = 0; i < n; i++) {
        const c = cands[i];
        c.rect = c.boxless || c.el.getBoundingClientRect();
        c.area = c.rect.width * c.rect.height;
      }
      let listeners = false;
      for (let i = 0; i < n; i++) {
        const c = cands[i];
        if (c.s === LISTEN) listeners = true;
        if (c.rect.width < 2 || c.rect.height < 2) continue;
        for (let a = c.anc; a; a = a.anc) {
          if (a.s === POINT) {
            if (c.s !== POINT && c.area >= 0.5 * a.area) a.dropped = true;
          } else if (a.s === LISTEN) {
            if (overlap(c.rect, a.rect) > 0) a.nsub++;
          }
        }
      }
      if (!listeners) return;
      const big = 0.25 * vw * vh;
      let candSet = null;
      for (let i = 0; i < n; i++) {
        const c = cands[i];
        if (c.s !== LISTEN) continue;
        if (c.nsub) {
          if (c.area >= big) c.dropped = true;
          else {
            candSet = candSet || new Set(cands.map((x) => x.el));
            c.dropped = !ownText(c, candSet);
          }
        } else if (rowsOf(c, cands)) c.dropped = true;
      }
    };

    // One target, one line: a candidate inside a listed one under the same name is the same control when it
    // has no role of its own (role=presentation/none: a jQuery UI tab's link) or fills its ancestor.
    const twinOf = (c, r) => {
      for (let a = c.anc; a; a = a.anc) {
        if (!a.rec) continue;
        if (a.rec.name !== r.name) return false;
        return c.role === "presentation" || c.role === "none" || c.area >= 0.9 * a.area;
      }
      return false;
    };

    // Where an extract's time goes (ms per phase), returned with it: walk (the DOM walk, styles, attributes),
    // geometry (candidate rects, wrappers settled), visible (visibility, hit tests, bars, scroll boxes),
    // describe (names, values, attributes; readings: the drawn-text readings within it), counts, flow (the
    // reading-order text), summary (the visible text, focus). evals/bench/snapshot.py prints them.
    const newPhases = () => ({ walk: 0, geometry: 0, visible: 0, describe: 0, readings: 0, counts: 0, flow: 0, summary: 0 });
    let ph = newPhases();
    // An element outside the viewport whose text or label holds one of the task's words (``opts.wanted``,
    // lowercased): listed although the viewport is what is asked for, up to ``opts.wantedCap`` of them.
    const wantedIn = (el, wanted) => {
      const a = (n) => el.getAttribute(n) || "";
      const v = typeof el.value === "string" ? el.value : "";
      const t = `${(el.textContent || "").slice(0, 300)} ${a("aria-label")} ${a("placeholder")} ${a("title")} ${v}`;
      const low = t.toLowerCase();
      return wanted.some((w) => low.includes(w));
    };

    const extract = (opts, withText) => {
      if (listened) listened.flush();
      const t0 = _now();
      const wanted = opts.includeOffscreen ? [] : opts.wanted || [];
      let wantedLeft = wanted.length ? opts.wantedCap || 0 : 0;
      readText = null;
      ph = newPhases();
      clipCache = new _WeakMap();  // rects of this moment: a scroll since the last call moved them
      const deadline = t0 + (opts.timeBudgetMs || 2000);
      const vw = window.innerWidth, vh = window.innerHeight;
      const out = { token, elements: [], frames: [], warnings: [], images: 0, forms: 0, above: 0, below: 0, truncated: false };
      if (!document.documentElement) return out;
      // Parallel stacks (no allocation per element): element, its parent's cursor, nearest candidate ancestor.
      const stEl = [document.documentElement], stCur = [""], stAnc = [null], stAh = [false];
      candEls = null;
      proxied = new Set();
      paintless = new _WeakMap();
      // The modal dialog (showModal(), or role=dialog aria-modal=true shown), found in the walk so one inside a
      // shadow root counts: everything outside it is inert. A native modal wins over an aria one outside it.
      let nativeModal = null, ariaModal = null, modal = null;
      const frameEls = [];
      const cands = [];
      const overlays = [];
      let visited = 0;
      escapes = new Set();
      while (stEl.length) {
        if ((++visited & 255) === 0 && _now() > deadline) {
          out.truncated = true;
          escapes = null;
          out.warnings.push(`time cap reached after ${visited} elements; the element list is partial`);
          break;
        }
        const el = stEl.pop(), parentCursor = stCur.pop(), anc = stAnc.pop();
        let ah = stAh.pop();
        const tag = el.tagName;
        if (SKIP.has(tag)) continue;
        if (tag === "AREA") {
          const boxless = hrefOf(el) !== null ? areaRect(el) : null;
          if (boxless) cands.push({ el, tag, role: roleOf(el), s: STRONG, anc, inStrong: true, inPoint: true, nsub: 0, ah, boxless });
          continue;
        }
        let cs;
        try { cs = _gcs(el); } catch (e) { continue; }
        if (cs.display === "none") continue;
        const pos = cs.position;
        if (pos !== "static" && movedOut(cs, pos)) escaped(el);
        const info = scan(el, tag);
        if (info.hidden) { escaped(el); escapes.add(el); continue; }
        // A positioned box that lets the pointer through may draw words over a control ("Pay now" over a
        // "Continue" button): the control gets that reading too (overDraw, below).
        if ((pos === "absolute" || pos === "fixed") && overlays.length < MAX_OVERLAYS && cs.pointerEvents === "none") overlays.push(el);
        ah = ah || info.aria;  // aria-hidden is a hint shown on the line, not a reason to leave a control out
        if (tag === "DIALOG") {
          if (el.open && el.matches(":modal")) nativeModal = el;
        } else if ((info.role === "dialog" || info.role === "alertdialog") && el.getAttribute("aria-modal") === "true" &&
          el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) {
          const r = el.getBoundingClientRect();
          if (r.width >= 2 && r.height >= 2) ariaModal = el;
        }
        // The cursor makes a POINT candidate only outside STRONG and POINT ones (inPoint), and below a STRONG element
        // everything is inside one: there it is not read.
        const cursor = (anc !== null && anc.inPoint) || info.strong ? parentCursor : cs.cursor;
        if (tag === "IFRAME" || tag === "FRAME") {
          const rect = el.getBoundingClientRect();
          const bl = parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
          const bt = parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
          const visible = rect.width > 1 && rect.height > 1 && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
          frameEls.push(el);
          out.frames.push({ id: idOf(el), x: rect.x + bl, y: rect.y + bt, visible, covered: visible && rect.bottom > 0 && rect.top < vh && rect.right > 0 && rect.left < vw && !hits(el, rect, vw, vh) });
          continue;
        }
        if (tag === "IMG") out.images++;
        else if (tag === "FORM") out.forms++;
        // A listener inside a STRONG candidate, or a cursor run inside a STRONG or POINT one, is part of it.
        let s = info.strong ? STRONG : 0;
        if (!s && info.listener && !(anc && anc.inStrong) && tag !== "BODY" && tag !== "HTML") s = LISTEN;
        if (!s && cursor !== parentCursor && GRAB.has(cursor) && !(anc && anc.inPoint)) s = POINT;
        let proxy = false;
        if (tag === "LABEL") {
          // A label for a hidden input is that input; a label for a shown one is not a second target.
          const ctl = controlOf(el);
          if (ctl && concealed(ctl)) {
            s = STRONG;
            proxy = true;
            proxied.add(ctl);
          } else if (ctl && !info.strong) s = 0;
        }
        let me = anc;
        if (s) {
          const inStrong = s === STRONG || (anc !== null && anc.inStrong);
          me = { el, tag, role: info.role, s, anc, inStrong, inPoint: s !== LISTEN || (anc !== null && anc.inPoint), nsub: 0, ah, proxy };
          cands.push(me);
        }
        if (tag === "SELECT" || (tag === "svg" && !el.querySelector("a"))) continue;
        for (let k = el.lastElementChild; k; k = k.previousElementSibling) { stEl.push(k); stCur.push(cursor); stAnc.push(me); stAh.push(ah); }
        const sr = el.shadowRoot;
        if (sr) {
          for (let k = sr.lastElementChild; k; k = k.previousElementSibling) { stEl.push(k); stCur.push(cursor); stAnc.push(me); stAh.push(ah); }
        }
      }
      modal = nativeModal && !(ariaModal && within(nativeModal, ariaModal)) ? nativeModal : ariaModal;
      if (modal) {
        for (let i = 0; i < frameEls.length; i++) {
          if (!within(modal, frameEls[i])) { out.frames[i].visible = false; out.frames[i].covered = false; }
        }
      }
      let t = _now();
      ph.walk = t - t0;
      settle(cands, vw, vh);
      ph.geometry = _now() - t;
      t = _now();
      candEls = new Set();
      for (const c of cands) if (!c.dropped) candEls.add(c.el);
      const n = cands.length;
      for (let i = 0; i < n; i++) {
        const c = cands[i];
        if (c.dropped) continue;
        if (i % 64 === 0 && _now() > deadline) {
          out.truncated = true;
          out.warnings.push(`time cap reached while measuring ${n} elements; the element list is partial`);
          break;
        }
        const rect = c.rect;
        if (rect.width < 2 || rect.height < 2 || proxied.has(c.el) || (modal && !within(modal, c.el))) continue;
        if (!c.boxless && !c.el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
        // Listed as in the viewport when a piece of it shows and hit-tests to it. Otherwise an element wholly
        // inside the viewport is covered (left out); one reaching past an edge is counted above/below (a scroll
        // may show it) and listed with includeOffscreen: nothing vanishes from every view.
        const shows = showing(rect, vw, vh);
        let where;
        let picked = false;
        try {
          if (shows && hits(c.el, rect, vw, vh)) where = "in";
          else if (shows && rect.left >= 0 && rect.top >= 0 && rect.right <= vw && rect.bottom <= vh) {
            where = underBar(c.el, rect, vw, vh) || scrolledOut(c.el, rect);
            if (!where) continue;
          } else {
            const k = opts.includeOffscreen ? clipOf(c.el) : null;
            if (k && (rect.right <= k.l || rect.left >= k.r || rect.bottom <= k.t || rect.top >= k.b) && !scrolledOut(c.el, rect)) continue;
            where = rect.bottom <= 0 || (rect.top < 0 && rect.bottom <= vh) ? "above" : "below";
            if (wantedLeft > 0 && wantedIn(c.el, wanted)) {
              const q = clipOf(c.el);
              picked = !(q && (rect.right <= q.l || rect.left >= q.r || rect.bottom <= q.t || rect.top >= q.b) && !scrolledOut(c.el, rect));
              if (picked) wantedLeft--;
            }
          }
          if (where === "above") out.above++;
          else if (where === "below") out.below++;
          if (where !== "in" && !opts.includeOffscreen && !picked) continue;
          const td = _now();
          const r = describe(c.el, c.tag, c.role, rect, opts);
          ph.describe += _now() - td;
          if (r.name && twinOf(c, r)) continue;
          c.rec = r;
          r.where = where;
          if (c.ah) r.ariaHidden = true;
          out.elements.push(r);
        } catch (e) {
          if (out.warnings.length < 5) out.warnings.push(`element skipped: ${String(e).slice(0, 100)}`);
        }
      }
      ph.visible = _now() - t - ph.describe;
      t = _now();
      if (overlays.length) overDraw(overlays, out.elements, opts.nameChars);
      const drawn = _now() - t;  // readings of words drawn over controls: part of describing them
      ph.describe += drawn;
      ph.readings += drawn;
      t = _now();
      out.counts = countKinds(cands, modal);
      ph.counts = _now() - t;
      if (opts.flowChars) {
        t = _now();
        try { out.flow = flowOf(cands, opts.flowChars, deadline, withText ? opts.textChars : null, !!opts.flowWhole); } catch (e) { out.flow = null; }
        ph.flow = _now() - t;
      }
      out.gone = sweep();
      out.ms = _now() - t0;
      out.phases = ph;
      return out;
    };

    // Text drawn over a listed control by a pointer-events:none box whose box holds the control's centre and is
    // not much larger than the control (a full-page layer is not a label): the control's "over" reading.
    const MAX_OVERLAYS = 50;
    const overDraw = (overlays, recs, limit) => {
      const boxes = [];
      for (const o of overlays) {
        if (!o.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
        const text = norm(o.innerText + " " + pseudoText(o));
        const b = o.getBoundingClientRect();
        if (text && b.width >= 2 && b.height >= 2) boxes.push({ b, text });
      }
      if (!boxes.length) return;
      for (const r of recs) {
        if (r.kind !== "button" && r.kind !== "link" && r.kind !== "other") continue;
        const cx = r.x + r.w / 2, cy = r.y + r.h / 2, area = Math.max(r.w * r.h, 1);
        for (const { b, text } of boxes) {
          if (cx < b.left || cx > b.right || cy < b.top || cy > b.bottom || b.width * b.height > 4 * area) continue;
          keepReading(r.attrs, "over", text, r.name, limit);
          break;
        }
      }
    };

    const countKinds = (cands, modal) => {
      const counts = { button: 0, input: 0, link: 0, select: 0 };
      for (const c of cands) {
        if (c.dropped || c.rect.width < 2 || c.rect.height < 2 || proxied.has(c.el) || (modal && !within(modal, c.el))) continue;
        const type = c.tag === "INPUT" ? (c.el.getAttribute("type") || "text").toLowerCase() : null;
        const k = kindOf(c.tag, type, c.role, false);
        if (k in counts) counts[k]++;
        else if (c.el.isContentEditable || c.proxy) counts.input++;
      }
      return counts;
    };

    // The viewport in reading (document) order: text lines (strings), the local ids of listed in-view elements
    // (numbers) in their places, and [id] for an iframe (its own flow is spliced in by Python). Text inside a
    // listed element is its name, not repeated; at most `limit` characters of text. `whole`: the whole page, not
    // only the viewport (every listed element, the text of every shown node).
    const INLINE = new Set(["inline", "inline-block", "inline-flex", "inline-grid", "contents", "ruby", "inline-table"]);
    // A list item or a table row: the text after an element inside the same one continues the element's line
    // ({t: text} in the flow), so a result keeps its name with its price and a row reads as one line.
    const ITEM_TAGS = new Set(["LI", "TR", "ARTICLE", "DT", "DD"]);
    const ITEM_ROLES = new Set(["listitem", "row", "article", "option", "treeitem", "gridcell"]);
    const itemOf = (el) => {
      let e = el.parentElement;
      for (let k = 0; e && k < 8 && e !== document.body; k++, e = e.parentElement) {
        if (ITEM_TAGS.has(e.tagName)) return e;
        const role = e.getAttribute("role");
        if (role && ITEM_ROLES.has(role)) return e;
      }
      return null;
    };
    const flowOf = (cands, limit, deadline, text, whole) => {
      const vw = window.innerWidth, vh = window.innerHeight;
      const listed = new _Map();
      for (const c of cands) if (c.rec && (whole || c.rec.where === "in")) listed.set(c.el, c.rec.id);
      const items = [];
      let line = "", chars = 0, steps = 0, lastBlock = null, item = null;
      const shownCache = new _Map(), blockCache = new _Map(), inListed = new _Map();
      const flush = () => {
        const t = line.replace(/\s+/g, " ").trim();
        line = "";
        if (!t) return;
        chars += t.length;
        if (item !== null && lastBlock !== null && item.contains(lastBlock)) items.push({ t });
        else { items.push(t); item = null; }
      };
      const listedAt = (n, id) => { flush(); items.push(id); lastBlock = null; item = itemOf(n); };
      const blockOf = (p) => {
        const chain = [];
        let b = p;
        for (; b && b.nodeType === 1; b = b.parentElement) {
          const hit = blockCache.get(b);
          if (hit !== undefined) { b = hit; break; }
          chain.push(b);
          if (!INLINE.has(_gcs(b).display)) break;
        }
        for (const e of chain) blockCache.set(e, b);
        return b;
      };
      const underListed = (p) => {
        let v = inListed.get(p);
        if (v !== undefined) return v;
        v = listed.has(p) || (p.parentElement ? underListed(p.parentElement) : false);
        inListed.set(p, v);
        return v;
      };
      // Rects read by the walk's pruning test, reused when the element turns out to hold text (one read each).
      const rects = new _Map();
      const inView = (p) => {
        let ok = shownCache.get(p);
        if (ok === undefined) {
          const r = rects.get(p) || p.getBoundingClientRect();
          ok = (whole || (r.bottom > 0 && r.top < vh && r.right > 0 && r.left < vw)) && r.width > 0 &&
            p.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
          shownCache.set(p, ok);
        }
        return ok;
      };
      // The summary's visible text is read in the same walk (`text`: the light DOM of the top document, as
      // visibleText reads it), so the page's text is walked and measured once, not twice.
      let vis = "", visSteps = 0, flowOn = true;
      const visOn = () => text !== null && vis.length < text && visSteps < VISIBLE_STEPS;
      const skip = escapes;  // null when the walk stopped early: nothing is skipped
      const below = (n) => {
        if (whole || skip === null || skip.has(n)) return false;
        const r = n.getBoundingClientRect();
        rects.set(n, r);
        return r.top >= vh;
      };
      // Elements and text nodes of `root` in document order, a skipped element's subtree left out (as a TreeWalker
      // showing text and elements with a rejecting filter walks them, without a call into script per node).
      const walk = (root, light) => {
        let n = root.firstChild;
        while (n) {
          const type = n.nodeType;
          let into = false;
          if (type === 1 && !SKIP.has(n.tagName) && !below(n)) {
            flowOn = flowOn && chars < limit;
            const reading = light && visOn();
            if (!flowOn && !reading) return;
            if (reading) visSteps++;
            if (flowOn && (++steps & 1023) === 0 && _now() > deadline) flowOn = false;
            into = true;
            if (flowOn) {
              const id = listed.get(n);
              if (id !== undefined) listedAt(n, id);
              else if ((n.tagName === "IFRAME" || n.tagName === "FRAME") && ids.has(n)) { flush(); items.push([ids.get(n)]); lastBlock = null; item = null; }
              if (n.shadowRoot) walk(n.shadowRoot, false);
            }
          } else if (type === 3) {
            flowOn = flowOn && chars < limit;
            const reading = light && visOn();
            if (!flowOn && !reading) return;
            if (reading) visSteps++;
            if (flowOn && (++steps & 1023) === 0 && _now() > deadline) flowOn = false;
            text3(n, reading);
          }
          if (into && n.firstChild) { n = n.firstChild; continue; }
          while (n !== root && !n.nextSibling) n = n.parentNode;
          if (n === root) return;
          n = n.nextSibling;
        }
      };
      const text3 = (n, reading) => {
        const t = n.data;
        const tt = t.trim();
        if (!tt) return;
        const p = n.parentElement;
        if (reading && p && inView(p)) vis += tt.replace(/\s+/g, " ") + " ";
        if (!flowOn || !p || NO_TEXT.has(p.tagName) || p.tagName === "OPTGROUP" || !inView(p) || underListed(p)) return;
        const b = blockOf(p);
        if (b !== lastBlock) { flush(); lastBlock = b; }
        line += t + " ";
      };
      if (document.body) walk(document.body, true);
      flush();
      if (text !== null) readText = cut(vis.trim(), text);
      return items;
    };

    // First `limit` characters of text visible in the viewport (top frame only). Read by the flow's walk when
    // the extract made one (readText), else here.
    const VISIBLE_STEPS = 200000;
    let readText = null;
    const visibleText = (limit) => {
      const vh = window.innerHeight, vw = window.innerWidth;
      if (!document.body) return "";
      const seen = new _Map();
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
        acceptNode: (n) => (n.nodeType === 1 && SKIP.has(n.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
      });
      let out = "";
      let steps = 0;
      for (let n = walker.nextNode(); n && out.length < limit && steps < VISIBLE_STEPS; n = walker.nextNode()) {
        steps++;
        if (n.nodeType !== 3) continue;
        const t = n.data.trim();
        if (!t) continue;
        const p = n.parentElement;
        let ok = seen.get(p);
        if (ok === undefined) {
          const r = p.getBoundingClientRect();
          ok = r.bottom > 0 && r.top < vh && r.right > 0 && r.left < vw && r.width > 0 &&
            p.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
          seen.set(p, ok);
        }
        if (ok) out += t.replace(/\s+/g, " ") + " ";
      }
      return cut(out.trim(), limit);
    };

    const deepActive = () => {
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      return a;
    };

    const summary = (opts) => {
      const a = deepActive();
      const se = document.scrollingElement || document.documentElement;
      return {
        url: location.href, title: document.title, vw: window.innerWidth, vh: window.innerHeight,
        sx: window.scrollX, sy: window.scrollY, pw: se ? se.scrollWidth : 0, ph: se ? se.scrollHeight : 0,
        text: readText !== null ? readText : visibleText(opts.textChars), focused: a && a !== document.body && ids.has(a) && document.hasFocus() ? ids.get(a) : null,
      };
    };

    const cssPath = (el) => {
      const root = el.getRootNode();
      const parts = [];
      let cur = el;
      while (cur && cur.nodeType === 1) {
        if (cur.id) {
          const sel = "#" + CSS.escape(cur.id);
          try {
            if (root.querySelectorAll(sel).length === 1) { parts.unshift(sel); break; }
          } catch (e) { /* ignore */ }
        }
        let part = cur.tagName.toLowerCase();
        const parent = cur.parentElement;
        if (parent) {
          const same = [...parent.children].filter((c) => c.tagName === cur.tagName);
          if (same.length > 1) part += `:nth-of-type(${same.indexOf(cur) + 1})`;
        }
        parts.unshift(part);
        cur = parent;
      }
      const local = parts.join(" > ");
      return root instanceof ShadowRoot ? cssPath(root.host) + " >> " + local : local;
    };

    const xpath = (el) => {
      const parts = [];
      for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentElement) {
        const parent = cur.parentElement;
        let idx = "";
        if (parent) {
          const same = [...parent.children].filter((c) => c.tagName === cur.tagName);
          if (same.length > 1) idx = `[${same.indexOf(cur) + 1}]`;
        }
        parts.unshift(cur.tagName.toLowerCase() + idx);
      }
      return "/" + parts.join("/");
    };

    const details = (idList, opts) => idList.map((id) => {
      const el = get(id);
      if (!el) return null;
      const rect = (el.tagName === "AREA" && areaRect(el)) || el.getBoundingClientRect();
      const r = describe(el, el.tagName, roleOf(el), rect, opts);
      const attributes = {};
      for (const a of el.attributes) attributes[a.name] = cut(a.value, 500);
      if (el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "password" && "value" in attributes) attributes.value = "********";
      r.attributes = attributes;
      r.selector = cssPath(el);
      r.xpath = xpath(el);
      r.parentText = el.parentElement ? cut(textOf(el.parentElement, 300), 300) : "";
      r.childCount = el.children.length;
      const vw = window.innerWidth, vh = window.innerHeight;
      r.where = rect.bottom <= 0 ? "above" : rect.top >= vh || rect.left >= vw || rect.right <= 0 ? "below" : "in";
      return r;
    });

    api = {
      version: VERSION,
      token,
      extract,
      summary,
      details,
      get,
      idOf: (el) => idOf(el),
      // The transparent boxes over el at (x, y) that a person looks through, or null when something blocks.
      throughAt: (el, x, y) => {
        const covers = [];
        for (const h of el.getRootNode().elementsFromPoint(x, y)) {
          if (h === el || el.contains(h) || (h.tagName === "LABEL" && h.control === el)) return covers;
          if (!seeThrough(h, x, y)) return null;
          covers.push(h);
        }
        return null;
      },
      known: (idList) => idList.filter((id) => get(id) !== null),
      // "above"/"below" when el is covered by a fixed or sticky bar at that edge of the viewport (else null).
      underBar: (el) => underBar(el, el.getBoundingClientRect(), window.innerWidth, window.innerHeight),
      scrolledOut: (el) => scrolledOut(el, el.getBoundingClientRect()),
      // The sizes of what the extractor keeps between calls (tests check they stay bounded).
      stats: () => ({ refs: refs.size, next }),
    };
    api.call = (req) => {
      const fn = req.fn;
      if (fn === "extract") {
        const res = api.extract(req.opts, !!req.withSummary);
        if (req.withSummary) {
          const t = _now();
          res.summary = api.summary(req.opts);
          readText = null;
          res.phases.summary = _now() - t;
          res.ms += res.phases.summary;
        }
        return res;
      }
      if (fn === "details") return req.token === api.token ? api.details(req.ids, req.opts) : req.ids.map(() => null);
      if (fn === "get") return req.token === api.token ? api.get(req.id) : null;
      if (fn === "known") return { token: api.token, ids: api.known(req.ids) };
      if (fn === "token") return api.token;
      if (fn === "stats") return api.stats();
      if (fn === "idOf") return { token: api.token, id: api.idOf(req.el) };
      throw new Error("unknown extractor call " + fn);
    };
    api.json = (req) => {
      const v = api.call(req);
      try { return _stringify(v); } catch (e) { return v; }  // a page replaced JSON.stringify
    };
    try {
      Object.defineProperty(window, KEY, { value: api, configurable: true, enumerable: false, writable: true });
    } catch (e) {
      window[KEY] = api;
    }
  }
  return req.json ? api.json(req) : api.call(req);
}
