// The chrome module's panel: lists browsers and tabs from /api/modules/chrome/*, previews a tab, closes.
const ChromePanel = {
  base: "/api/modules/chrome",
  async json(path, options) {
    const res = await fetch(this.base + path, options);
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
    return res.json();
  },
  el(tag, props = {}, children = []) {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) node.append(child);
    return node;
  },
  async refresh() {
    const list = document.getElementById("chrome-browser-list");
    list.replaceChildren();
    const { browsers } = await this.loadBrowsers();
    if (!browsers.length) list.append(this.el("p", { className: "empty", textContent: "No browser is open." }));
    for (const b of browsers) {
      const box = this.el("div", { className: "browser" }, [
        this.el("strong", { textContent: b.browserId }),
        this.el("span", { textContent: ` ${b.status} · ${b.tabCount} tab(s) ` }),
        this.el("button", { type: "button", textContent: "Close", onclick: () => this.closeBrowser(b.browserId) }),
      ]);
      const { tabs } = await this.loadTabs(b.browserId);
      for (const t of tabs) {
        box.append(this.el("div", { className: "tab" }, [
          this.el("span", { className: "url", textContent: `${t.title || "(untitled)"} — ${t.url}` }),
          this.el("button", { type: "button", textContent: "Preview", onclick: () => this.showTabScreenshot(t.tabId) }),
          this.el("button", { type: "button", textContent: "Close", onclick: () => this.closeTab(t.tabId) }),
        ]));
      }
      list.append(box);
    }
  },
  loadBrowsers() { return this.json("/browsers"); },
  loadTabs(browserId) { return this.json(`/browsers/${encodeURIComponent(browserId)}/tabs`); },
  async showTabScreenshot(tabId) {
    const shot = await this.json(`/tabs/${encodeURIComponent(tabId)}/screenshot`);
    const preview = document.getElementById("chrome-tab-preview");
    preview.replaceChildren(this.el("img", { src: `data:image/png;base64,${shot.data}`, alt: tabId }));
  },
  async closeBrowser(browserId) {
    await this.json(`/browsers/${encodeURIComponent(browserId)}/close`, { method: "POST" });
    await this.refresh();
  },
  async closeTab(tabId) {
    await this.json(`/tabs/${encodeURIComponent(tabId)}/close`, { method: "POST" });
    await this.refresh();
  },
};
window.ChromePanel = ChromePanel;
ChromePanel.refresh().catch((err) => console.error("chrome panel:", err));
