// Kite's reader: the main content of one frame as compact Markdown blocks. Called as reader(opts) in a frame
// where the extractor is installed (links carry its local ids, so Python can show their indexes).
// Returns {token, title, blocks: [{t: "h"|"p"|"li"|"tr"|"frame", text, level?, id?}]}; a "frame" block stands
// for an iframe (id: its local id) whose own content Python splices in.
(opts) => {
  const api = window.__kiteExtractor;
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE", "svg",
    "CANVAS", "BUTTON", "SELECT", "TEXTAREA", "INPUT", "OPTION", "DIALOG"]);
  const CHROME = new Set(["NAV", "ASIDE"]);
  const CHROME_ROLES = new Set(["navigation", "complementary", "search", "banner", "contentinfo"]);
  const BLOCK = new Set(["P", "DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "FOOTER", "FORM", "FIELDSET",
    "BLOCKQUOTE", "PRE", "FIGURE", "FIGCAPTION", "DL", "DT", "DD", "ADDRESS", "DETAILS", "SUMMARY", "CENTER", "BODY",
    "HTML", "NAV", "ASIDE", "LEGEND", "CAPTION", "HR"]);
  const norm = (s) => s.replace(/\s+/g, " ");
  const blocks = [];
  let buf = "";
  const flush = (t, extra) => {
    const text = norm(buf).trim();
    buf = "";
    if (text) blocks.push({ t, text, ...(extra || {}) });
  };
  const shown = (el) => {
    try { return el.checkVisibility({ checkVisibilityCSS: true }); } catch (e) { return true; }
  };
  const linkRef = (a) => {
    if (!api || !a.hasAttribute("href")) return null;
    const href = a.getAttribute("href");
    if (!href || href.startsWith("javascript:")) return null;
    return api.idOf(a);
  };
  // Inline content of an element into buf (links as [text][#id], line breaks as spaces).
  const inline = (el) => {
    for (const n of el.childNodes) {
      if (n.nodeType === 3) { buf += n.data; continue; }
      if (n.nodeType !== 1 || SKIP.has(n.tagName) || !shown(n)) continue;
      if (n.tagName === "BR") { buf += " "; continue; }
      if (n.tagName === "IMG") { if (n.alt && n.alt.trim()) buf += " " + n.alt.trim() + " "; continue; }
      if (n.tagName === "A") {
        const id = linkRef(n);
        const before = buf;
        buf = "";
        inline(n);
        const text = norm(buf).trim();
        buf = before + (id !== null && text ? ` [${text}][#${id}] ` : ` ${text} `);
        continue;
      }
      inline(n);
    }
  };
  const hasBlockChild = (el) => {
    for (const c of el.children) {
      if (SKIP.has(c.tagName)) continue;
      if (BLOCK.has(c.tagName) || /^H[1-6]$/.test(c.tagName) || c.tagName === "UL" || c.tagName === "OL" ||
        c.tagName === "TABLE" || c.tagName === "LI" || c.tagName === "IFRAME" || c.tagName === "FRAME") return true;
      const d = getComputedStyle(c).display;
      if (d === "block" || d === "flex" || d === "grid" || d === "list-item" || d === "table") return true;
    }
    return false;
  };
  const walk = (el, depth, skipChrome) => {
    for (const n of el.childNodes) {
      if (n.nodeType === 3) { buf += n.data; continue; }
      if (n.nodeType !== 1 || SKIP.has(n.tagName) || !shown(n)) continue;
      const tag = n.tagName;
      const role = (n.getAttribute("role") || "").toLowerCase();
      if (skipChrome && (CHROME.has(tag) || CHROME_ROLES.has(role) ||
        ((tag === "HEADER" || tag === "FOOTER") && n.parentElement === document.body))) continue;
      if (tag === "IFRAME" || tag === "FRAME") { flush("p"); if (api) blocks.push({ t: "frame", text: "", id: api.idOf(n) }); continue; }
      if (/^H[1-6]$/.test(tag)) { flush("p"); inline(n); flush("h", { level: +tag[1] }); continue; }
      if (tag === "UL" || tag === "OL") {
        flush("p");
        let k = 0;
        for (const li of n.children) {
          if (li.tagName !== "LI" || !shown(li)) continue;
          k++;
          const marker = tag === "OL" ? `${k}.` : "-";
          if (hasBlockChild(li)) {
            const at = blocks.length;
            walk(li, depth + 1, skipChrome);
            flush("p");
            if (blocks.length > at) blocks[at] = { ...blocks[at], t: "li", marker, depth };
          } else {
            inline(li);
            flush("li", { marker, depth });
          }
        }
        continue;
      }
      if (tag === "TABLE") {
        flush("p");
        for (const row of n.rows) {
          if (!shown(row)) continue;
          const cells = [];
          for (const cell of row.cells) { inline(cell); cells.push(norm(buf).trim()); buf = ""; }
          if (cells.some((c) => c)) blocks.push({ t: "tr", text: "| " + cells.join(" | ") + " |" });
        }
        continue;
      }
      if (tag === "BR") { flush("p"); continue; }
      if (tag === "A") { inline({ childNodes: [n] }); continue; }
      if (tag === "IMG") { if (n.alt && n.alt.trim()) buf += " " + n.alt.trim() + " "; continue; }
      if (tag === "HR") { flush("p"); continue; }
      const block = BLOCK.has(tag) || /^(block|flex|grid|list-item|table)$/.test(getComputedStyle(n).display);
      if (block) flush("p");
      walk(n, depth, skipChrome);
      if (n.shadowRoot) walk(n.shadowRoot, depth, skipChrome);
      if (block) flush(tag === "BLOCKQUOTE" ? "q" : "p");
    }
  };
  const mains = [...document.querySelectorAll("main, [role=main]")].filter((m) => shown(m) && (m.innerText || "").trim().length > 200);
  const articles = [...document.querySelectorAll("article")].filter((m) => shown(m) && (m.innerText || "").trim().length > 200);
  const root = mains.length === 1 ? mains[0] : articles.length === 1 ? articles[0] : document.body;
  if (root) {
    const skipChrome = root === document.body;
    walk(root, 0, skipChrome);
    flush("p");
  }
  return { token: api ? api.token : null, title: document.title, blocks };
}
