// Shared generator for the synthetic heavy pages: deterministic (seeded), no network.
function rng(seed) { let s = seed >>> 0; return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296); }
const WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat".split(" ");
function words(r, n) { let o = []; for (let i = 0; i < n; i++) o.push(WORDS[Math.floor(r() * WORDS.length)]); return o.join(" "); }
function nav(r) {
  let h = '<header style="position:sticky;top:0;background:#fff;z-index:5"><nav>';
  for (let i = 0; i < 12; i++) h += `<a href="/section/${i}">${words(r, 1)} ${i}</a> `;
  return h + '<input type="search" placeholder="Search the site" aria-label="Search"><button>Go</button></nav></header>';
}
function nodesPage(target) {
  const r = rng(7); let html = nav(r) + '<main><table><tbody>';
  let rows = Math.floor((target - 60) / 9);
  for (let i = 0; i < rows; i++) {
    html += `<tr><td>${i}</td><td><a href="/item/${i}">${words(r, 3)}</a></td><td><span>$${(r() * 100).toFixed(2)}</span></td><td><button type="button">Add ${i}</button></td></tr>`;
  }
  document.body.innerHTML = html + '</tbody></table></main>';
}
// `hosts` chains of open shadow roots nested `depth` deep, each level with text, a button and a link.
function shadowPage(hosts, depth) {
  const r = rng(5);
  document.body.innerHTML = nav(r) + '<main id="m"></main>';
  const main = document.getElementById("m");
  for (let h = 0; h < hosts; h++) {
    let parent = main;
    for (let d = 0; d < depth; d++) {
      const host = document.createElement("div");
      parent.appendChild(host);
      const root = host.attachShadow({ mode: "open" });
      root.innerHTML = `<p>${words(r, 8)}</p><button type="button">Act ${h}.${d}</button> <a href="/s/${h}/${d}">${words(r, 2)}</a><div class="in"></div>`;
      parent = root.querySelector(".in");
    }
  }
}
// `n` iframes of the same origin, each a small form (item.html?i=N calls framePart).
function framesPage(n) {
  const r = rng(3); let html = nav(r) + "<main>";
  for (let i = 0; i < n; i++) html += `<h3>${words(r, 3)}</h3><iframe src="item.html?i=${i}" style="width:560px;height:180px;border:1px solid #ccc"></iframe>`;
  document.body.innerHTML = html + "</main>";
}
function framePart(i) {
  const r = rng(100 + i);
  document.body.innerHTML = `<p>${words(r, 12)}</p><label>Name ${i} <input name="n${i}"></label> <select><option>one</option><option>two</option></select>` +
    `<button type="button">Save ${i}</button> <a href="/frame/${i}">${words(r, 2)}</a><ul>${[1, 2, 3, 4].map((k) => `<li><a href="/f/${i}/${k}">${words(r, 2)}</a></li>`).join("")}</ul>`;
}
