// Panel start-up: hash routing (#modules, #tools[/name], #runs[/id]), the token form, the connection line.
"use strict";

(() => {
  const { api, errorText } = Kite;
  const views = ["modules", "tools", "runs", "settings"];
  const $ = (id) => document.getElementById(id);

  function askForToken(message) {
    const form = $("token-form");
    form.hidden = false;
    $("conn").textContent = message || "not signed in";
    $("conn").dataset.state = "bad";
    $("token-input").focus();
  }

  Kite.listeners.unauthorized.push((data) => askForToken(data && data.message ? "token refused" : "token needed"));

  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    Kite.setToken($("token-input").value.trim());
    $("token-form").hidden = true;
    $("token-input").value = "";
    boot();
  });

  async function route() {
    const [view, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
    const name = views.includes(view) ? view : "modules";
    const arg = rest.length ? decodeURIComponent(rest.join("/")) : "";
    for (const v of views) {
      $(`view-${v}`).hidden = v !== name;
      const link = document.querySelector(`nav a[data-view="${v}"]`);
      if (v === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    if (name !== "runs") RunsView.unwatch();
    if (name === "modules") await (arg ? ModulesView.open(arg) : ModulesView.openDefault());
    if (name === "tools") await ToolsView.show(arg);
    if (name === "settings") await SettingsView.show();
    if (name === "runs") {
      await RunsView.refreshList();
      if (arg) await RunsView.open(arg);
    }
  }

  async function boot() {
    const { ok, data } = await api("/api/modules");
    if (!ok) {
      if (!$("token-form").hidden) return;
      $("conn").textContent = errorText(data);
      $("conn").dataset.state = "bad";
      return;
    }
    $("conn").textContent = `connected · ${location.host}`;
    $("conn").dataset.state = "ok";
    await ModulesView.refresh();
    await route();
    document.body.dataset.ready = "true";
  }

  ModulesView.init();
  ToolsView.init();
  RunsView.init();
  SettingsView.init();
  window.addEventListener("hashchange", () => {
    if (Kite.takeTokenFromHash()) {
      $("token-form").hidden = true;
      boot();
    } else route();
  });
  if (!Kite.token()) askForToken("token needed");
  else boot();
})();
