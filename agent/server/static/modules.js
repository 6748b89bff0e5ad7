// Modules view: the list of modules (state, tool count) and each module's own web component.
"use strict";

const ModulesView = (() => {
  const { api, el, errorText } = Kite;
  const loaded = new Map(); // module name -> its component's host element
  let states = [];
  let current = null;

  const list = () => document.getElementById("module-list");
  const pane = () => document.getElementById("component-pane");

  async function refresh() {
    const { ok, data } = await api("/api/modules");
    if (!ok) {
      list().replaceChildren(el("li", { class: "error-text", text: errorText(data) }));
      return [];
    }
    states = Array.isArray(data) ? data : data.modules || [];
    list().replaceChildren(...states.map(card));
    if (current) mark(current);
    return states;
  }

  function card(m) {
    const count = m.tool_count ?? (m.tools || []).length;
    const failed = m.status === "error";
    return el("li", { class: "card module-card", dataset: { module: m.name } }, [
      el("button", { type: "button", class: "card-main", "aria-label": `Open the ${m.name} module`, onclick: () => open(m.name) }, [
        el("span", { class: "card-title", text: m.name }),
        el("span", { class: `badge status-${m.status}`, text: m.status }),
        el("span", { class: "muted", text: `${count} tool${count === 1 ? "" : "s"} · ${m.source || "builtin"}${m.web_component ? " · panel" : ""}` }),
      ]),
      failed && m.error ? el("p", { class: "error-text small", text: errorText(m.error) }) : null,
    ]);
  }

  function mark(name) {
    for (const li of list().querySelectorAll(".module-card")) {
      const on = li.dataset.module === name;
      li.classList.toggle("selected", on);
      li.querySelector(".card-main").setAttribute("aria-current", on ? "true" : "false");
    }
  }

  // Whether this browser has a glyph for `text` (an emoji icon); compared with a code point no font has.
  function glyphRenders(text) {
    const canvas = el("canvas", { width: 32, height: 32 });
    const g = canvas.getContext("2d", { willReadFrequently: true });
    const draw = (t) => {
      g.clearRect(0, 0, 32, 32);
      g.font = "24px sans-serif";
      g.textBaseline = "top";
      g.fillText(t, 0, 0);
      return g.getImageData(0, 0, 32, 32).data.join(",");
    };
    return draw(text) !== draw("\u{10FFFD}");
  }

  // An image URL, an emoji this browser can draw, or else the name's first letter in a badge.
  function iconOf(icon, label) {
    if (/^(https?:|\/|data:)/.test(icon || "")) return el("img", { src: icon, alt: "", class: "icon" });
    if (icon && glyphRenders(icon)) return el("span", { class: "icon", "aria-hidden": "true", text: icon });
    return el("span", { class: "icon letter", "aria-hidden": "true", text: label.slice(0, 1).toUpperCase() });
  }

  // A module's component: HTML into its own host, CSS into a <style>, JS run once in its own function scope
  // (so `const X = ...` at its top level can be loaded beside other panels). Hidden, not destroyed, when
  // another module is opened; panels pause their timers while hidden.
  async function open(name) {
    current = name;
    mark(name);
    for (const [n, host] of loaded) host.hidden = n !== name;
    document.getElementById("component-empty")?.remove();
    if (loaded.has(name)) return loaded.get(name);
    const host = el("div", { class: "component", dataset: { module: name } });
    loaded.set(name, host);
    pane().append(host);
    const state = states.find((s) => s.name === name) || { name, tools: [] };
    const none = { ok: false, status: 404, data: null };
    const { ok, status, data } = state.web_component === false ? none : await api(`/api/modules/${encodeURIComponent(name)}/web-component`);
    const head = el("div", { class: "pane-head" });
    host.append(head);
    if (!ok) {
      head.append(el("h2", { text: name }));
      host.append(el("p", { class: status === 404 ? "empty" : "error-text", text: status === 404 ? "This module has no panel." : errorText(data) }));
    } else {
      const icon = iconOf(data.icon, data.display_name || name);
      head.append(el("h2", {}, [icon, ` ${data.display_name || name}`]));
      if (data.panel_css) document.head.append(el("style", { dataset: { module: name }, text: data.panel_css }));
      const body = el("div", { class: "component-body" });
      body.innerHTML = data.panel_html || "";
      host.append(body);
      if (data.panel_js) {
        const script = el("script", { dataset: { module: name } });
        script.textContent = `(() => {\n${data.panel_js}\n})();\n//# sourceURL=kite-module-${name}.js`;
        document.body.append(script);
      }
    }
    const tools = state.tools || [];
    if (tools.length) {
      host.append(
        el("details", { class: "module-tools" }, [
          el("summary", { text: `Tools (${tools.length})` }),
          el("ul", { class: "tool-names" }, tools.map((t) => el("li", {}, el("a", { href: `#tools/${encodeURIComponent(t)}`, text: t })))),
        ]),
      );
    }
    return host;
  }

  function init() {
    document.getElementById("modules-refresh").addEventListener("click", refresh);
  }

  // #modules without a name: open the module picked last, else the first one with a panel.
  function openDefault() {
    const pick = current || (states.find((s) => s.web_component && s.status === "initialized") || {}).name;
    return pick ? open(pick) : null;
  }

  return { init, refresh, open, openDefault, get states() { return states; } };
})();
window.ModulesView = ModulesView;
