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
