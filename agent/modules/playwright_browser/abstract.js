() => {
  const esc = (v) => (window.CSS && CSS.escape ? CSS.escape(v) : v.replace(/[^\w-]/g, "\\$&"));
  const unique = (sel) => {
    try { return document.querySelectorAll(sel).length === 1; } catch (e) { return false; }
  };
  const quote = (v) => '"' + v.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
  const selectorOf = (el) => {
    const tag = el.tagName.toLowerCase();
    if (el.id && unique("#" + esc(el.id))) return "#" + esc(el.id);
    for (const attr of ["name", "href", "data-testid", "aria-label"]) {
      const v = el.getAttribute(attr);
      if (v && v.length < 200 && unique(`${tag}[${attr}=${quote(v)}]`)) return `${tag}[${attr}=${quote(v)}]`;
    }
    const parts = [];
    let node = el;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      const t = node.tagName.toLowerCase();
      if (node.id && unique("#" + esc(node.id))) { parts.unshift("#" + esc(node.id)); break; }
      const same = Array.from(node.parentElement ? node.parentElement.children : []).filter((c) => c.tagName === node.tagName);
      parts.unshift(same.length > 1 ? `${t}:nth-of-type(${same.indexOf(node) + 1})` : t);
      node = node.parentElement;
    }
    return parts.join(" > ");
  };
  const clean = (s) => (s || "").replace(/\s+/g, " ").trim();
  const labelOf = (el) => {
    const aria = el.getAttribute("aria-label");
    if (aria) return clean(aria);
    if (el.id) {
      const l = document.querySelector(`label[for=${quote(el.id)}]`);
      if (l) return clean(l.textContent);
    }
    const wrap = el.closest("label");
    if (wrap) {
      const copy = wrap.cloneNode(true);
      copy.querySelectorAll("select, textarea, button").forEach((n) => n.remove());
      const own = clean(copy.textContent);
      if (own) return own;
    }
    return clean(el.getAttribute("placeholder") || el.getAttribute("title") || el.getAttribute("name") || "");
  };
  const visible = (el) => {
    if (el.type === "hidden") return false;
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden";
  };
  const out = [];
  const query = "a[href], button, input, textarea, select, [role=button], [role=link]";
  for (const el of document.querySelectorAll(query)) {
    if (!visible(el)) continue;
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") || "").toLowerCase();
    let kind;
    if (tag === "a" || el.getAttribute("role") === "link") kind = "link";
    else if (tag === "button" || ["button", "submit", "reset", "image"].includes(type) || el.getAttribute("role") === "button") kind = "button";
    else if (tag === "select") kind = "select";
    else if (type === "checkbox") kind = "checkbox";
    else if (type === "radio") kind = "radio";
    else kind = "input";
    const item = { kind, selector: selectorOf(el) };
    if (kind === "link") { item.name = clean(el.textContent) || labelOf(el); item.href = el.getAttribute("href"); }
    else if (kind === "button") item.name = clean(el.textContent) || clean(el.value) || labelOf(el);
    else item.name = labelOf(el);
    if (kind === "input") { item.type = tag === "textarea" ? "textarea" : type || "text"; item.value = el.value || ""; }
    if (kind === "select") item.options = Array.from(el.options).map((o) => clean(o.textContent));
    if (kind === "select") item.value = el.selectedIndex >= 0 ? clean(el.options[el.selectedIndex].textContent) : "";
    if (kind === "checkbox" || kind === "radio") item.checked = el.checked;
    if (el.disabled) item.disabled = true;
    out.push(item);
  }
  return { controls: out, text: document.body ? document.body.innerText : "" };
}
