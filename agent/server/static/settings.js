// Settings page: what the server runs with (GET /api/settings): the model, the providers whose API key is
// set (names only), the domain lists, approvals, modules and secret names. Read-only.
"use strict";

const SettingsView = (() => {
  const { api, el, errorText } = Kite;
  const $ = (id) => document.getElementById(id);
  const list = (items, none) => (items && items.length ? items.join(", ") : none);

  async function show() {
    const { ok, data } = await api("/api/settings");
    if (!ok) {
      $("settings-list").replaceChildren(el("p", { class: "error-text", role: "alert", text: errorText(data) }));
      return;
    }
    const rows = [
      ["Model", data.model || "(none: runs must name one)"],
      ["Providers with a key", list(data.providers, "none (no *_API_KEY is set)")],
      ["Allowed domains", list(data.allowed_domains, "any")],
      ["Blocked domains", list(data.blocked_domains, "none")],
      ["Approved without asking", list(data.approve, "nothing: every confirmation asks")],
      ["Modules", list(data.modules, "none")],
      ["Secrets (names)", list(data.secrets, "none")],
      ["Run records", data.runs_dir],
    ];
    $("settings-list").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { dataset: { key: k }, text: v })]));
  }

  function init() {
    $("settings-refresh").addEventListener("click", show);
  }

  return { init, show };
})();
window.SettingsView = SettingsView;
