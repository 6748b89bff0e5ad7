// The fingerprint of one element: what finds it again on a later visit of the page (a workflow's replay).
// A function expression called with the element: stable attributes, label text, nearest heading, the text
// around it and a structural path. Plain DOM reads, nothing changed.
(el) => {
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
  const text = (node) => clip(node && (node.innerText || node.textContent), 200);
  const attrs = {};
  const GENERATED = /\d{4,}|^:r|[0-9a-f]{10,}|^(ember|react|mui|radix)/i;
  for (const key of ["id", "name", "data-testid", "data-test", "data-qa", "href", "type", "placeholder", "for"]) {
    const v = el.getAttribute(key);
    if (v && !(key === "id" && GENERATED.test(v))) attrs[key] = clip(v, 200);
  }
  let label = "";
  if (el.labels && el.labels.length) label = text(el.labels[0]);
  else if (el.closest("label")) label = text(el.closest("label"));
  const doc = el.ownerDocument;
  let heading = "";
  for (const h of doc.querySelectorAll("h1,h2,h3,h4,h5,h6,[role=heading]")) {
    if (h.contains(el)) continue;
    if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) heading = clip(text(h), 80);
    else break;
  }
  const own = text(el);
  let neighbours = [];
  let box = el.parentElement;
  for (let up = 0; box && up < 4 && box !== doc.body; up++, box = box.parentElement) {
    const lines = (box.innerText || "").split("\n").map((l) => clip(l, 60)).filter((l) => l && l !== own);
    if (lines.length) {
      neighbours = [...new Set(lines)].slice(0, 4);
      break;
    }
  }
  const steps = [];
  for (let n = el; n && n.nodeType === 1 && n !== doc.documentElement; n = n.parentElement) {
    const tag = n.tagName.toLowerCase();
    let nth = 1;
    for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) nth++;
    steps.unshift(`${tag}:${nth}`);
  }
  return { attrs, label, heading, neighbours, path: steps.join(">") };
}
