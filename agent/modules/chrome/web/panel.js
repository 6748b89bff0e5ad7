// The chrome module's panel: browsers and their tabs from /api/modules/chrome/*, a live screenshot per tab
// (refreshed while the panel is visible), a large preview of the chosen tab, close buttons and refresh.
// Requests go through one queue, so a tab is never asked for a screenshot after the panel closed it.
const ChromePanel = {
  base: "/api/modules/chrome",
  intervalMs: 2500,
  root: [...document.querySelectorAll(".chrome-module-panel")].pop(),
  selected: null,
  signature: "",
  queue: Promise.resolve(),

  $(sel) { return this.root.querySelector(sel); },
  el(tag, props = {}, children = []) {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) if (child) node.append(child);
    return node;
  },
  status(text, isError = false) {
    const s = this.$(".chrome-status");
    s.textContent = text;
    s.classList.toggle("error", isError);
  },
  async json(path, options) {
    const res = await fetch(this.base + path, options);
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      const err = new Error(data.message || `HTTP ${res.status}`);
      err.status = res.status;
      throw err;
    }
    return data;
  },
  run(fn) {
    this.queue = this.queue.then(fn).catch((err) => this.status(err.message, true));
    return this.queue;
  },
  visible() {
    return this.root.isConnected && this.root.offsetParent !== null && document.visibilityState === "visible";
  },

  refresh() { return this.run(() => this.reload(true)); },
  loadBrowsers() { return this.json("/browsers"); },
  loadTabs(browserId) { return this.json(`/browsers/${encodeURIComponent(browserId)}/tabs`); },

  async reload(force) {
    const { browsers } = await this.loadBrowsers();
    const all = [];
    for (const b of browsers) {
      const { tabs } = await this.loadTabs(b.browserId).catch(() => ({ tabs: [] }));
      all.push({ ...b, tabs });
    }
    const signature = JSON.stringify(all.map((b) => [b.browserId, b.status, b.tabs.map((t) => [t.tabId, t.url, t.title])]));
    if (force || signature !== this.signature) this.render(all);
    this.signature = signature;
    const tabIds = all.flatMap((b) => b.tabs.map((t) => t.tabId));
    if (this.selected && !tabIds.includes(this.selected)) this.select(null);
    for (const id of tabIds) await this.updateShot(id);
    const n = all.length;
    this.status(`${n} browser${n === 1 ? "" : "s"}, ${tabIds.length} tab${tabIds.length === 1 ? "" : "s"} · updated ${new Date().toLocaleTimeString()}`);
  },

  render(all) {
    const list = this.$(".browser-list");
    const focused = document.activeElement && list.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    list.replaceChildren();
    if (!all.length) list.append(this.el("p", { className: "empty", textContent: "No browser is open. Start one with the chrome_launch tool." }));
    for (const b of all) {
      const tabs = this.el("ul", { className: "tabs" });
      for (const t of b.tabs) {
        const label = t.title || t.url || "(untitled)";
        tabs.append(this.el("li", { className: `tab${t.tabId === this.selected ? " selected" : ""}` }, [
          this.shotButton(t, label),
          this.el("div", { className: "title", textContent: t.title || "(untitled)", title: t.title || "" }),
          this.el("div", { className: "url", textContent: t.url, title: t.url }),
          this.el("div", { className: "tab-actions" }, [
            this.el("code", { textContent: t.tabId }),
            this.el("button", { type: "button", textContent: "Close tab", ariaLabel: `Close tab ${label}`, onclick: () => this.closeTab(t.tabId) }),
          ]),
        ]));
      }
      list.append(this.el("div", { className: "browser" }, [
        this.el("div", { className: "browser-head" }, [
          this.el("strong", { textContent: b.browserId }),
          this.el("span", { className: "meta", textContent: `${b.status} · ${b.tabs.length} tab${b.tabs.length === 1 ? "" : "s"}${b.headless ? " · headless" : ""}` }),
          this.el("button", { type: "button", textContent: "Close browser", ariaLabel: `Close browser ${b.browserId}`, onclick: () => this.closeBrowser(b.browserId) }),
        ]),
        tabs,
      ]));
    }
    for (const node of list.querySelectorAll("button")) node.dataset.key = node.getAttribute("aria-label") || node.textContent;
    if (focused) list.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  },

  shotButton(t, label) {
    const img = this.el("img", { alt: `Screenshot of ${label}` });
    img.dataset.tab = t.tabId;
    const btn = this.el("button", { type: "button", className: "shot", title: "Show a large preview", onclick: () => this.showTabScreenshot(t.tabId) }, [img]);
    btn.setAttribute("aria-label", `Preview tab ${label}`);
    return btn;
  },

  async updateShot(tabId) {
    let shot;
    try {
      shot = await this.json(`/tabs/${encodeURIComponent(tabId)}/screenshot`);
    } catch (err) {
      if (err.status === 404) return; // closed elsewhere since the list was read: gone at the next refresh
      throw err;
    }
    const src = `data:image/png;base64,${shot.data}`;
    for (const img of this.root.querySelectorAll(`img[data-tab="${CSS.escape(tabId)}"]`)) img.src = src;
  },

  select(tabId) {
    this.selected = tabId;
    for (const li of this.root.querySelectorAll(".tab")) li.classList.toggle("selected", !!tabId && !!li.querySelector(`img[data-tab="${CSS.escape(tabId)}"]`));
    const preview = this.$(".tab-preview");
    if (!tabId) return preview.replaceChildren();
    const img = this.el("img", { alt: `Live preview of tab ${tabId}` });
    img.dataset.tab = tabId;
    preview.replaceChildren(
      this.el("div", { className: "preview-head" }, [
        this.el("strong", { textContent: `Preview of ${tabId}` }),
        this.el("button", { type: "button", textContent: "Hide preview", onclick: () => this.select(null) }),
      ]),
      img,
    );
  },

  showTabScreenshot(tabId) {
    this.select(tabId);
    return this.run(() => this.updateShot(tabId));
  },
  closeBrowser(browserId) {
    return this.run(async () => {
      await this.json(`/browsers/${encodeURIComponent(browserId)}/close`, { method: "POST" });
      await this.reload(true);
    });
  },
  closeTab(tabId) {
    return this.run(async () => {
      await this.json(`/tabs/${encodeURIComponent(tabId)}/close`, { method: "POST" });
      if (this.selected === tabId) this.select(null);
      await this.reload(true);
    });
  },

  start() {
    this.$(".refresh-btn").addEventListener("click", () => this.refresh());
    const auto = this.$(".auto-refresh");
    const tick = () => {
      if (!this.root.isConnected) return clearInterval(this.timer);
      if (auto.checked && this.visible()) this.run(() => this.reload(false));
    };
    this.timer = setInterval(tick, this.intervalMs);
    this.refresh();
  },
};
window.ChromePanel = ChromePanel;
ChromePanel.start();
