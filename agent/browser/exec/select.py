"""select: native <select> by value or visible label; custom listbox/combobox widgets best effort."""

from __future__ import annotations

from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from agent.browser.exec.base import ExecContext, OptionNotFoundError, Outcome
from agent.browser.exec.hit import probe, raise_covered
from agent.browser.exec.spec import ElementTarget, define_action
from agent.browser.exec.targets import Target, resolve_element


class Select(ElementTarget):
    """Choose an option in a dropdown (native <select> by value or visible label; custom dropdowns by text)."""

    action: Literal["select"] = "select"
    value: str | list[str] = Field(description="Option value or visible label; a list for multi-selects.")


# Native select: option indexes matching each wanted value (by value, then label, then case-insensitively).
_MATCH_JS = """(el, wanted) => {
  if (el.tagName !== 'SELECT') return null;
  const opts = Array.from(el.options);
  const norm = (s) => s.trim().replace(/\\s+/g, ' ').toLowerCase();
  const found = [], missing = [];
  for (const w of wanted) {
    let i = opts.findIndex((o) => o.value === w);
    if (i < 0) i = opts.findIndex((o) => o.label.trim() === w.trim());
    if (i < 0) i = opts.findIndex((o) => norm(o.label) === norm(w) || norm(o.value) === norm(w));
    if (i < 0) missing.push(w); else found.push(i);
  }
  return {found, missing, multiple: el.multiple, options: opts.slice(0, 30).map((o) => o.label.trim() || o.value)};
}"""
_READ_JS = "el => Array.from(el.selectedOptions).map(o => o.label.trim() || o.value).join(', ')"

# Custom widgets: after opening, find a visible option whose text matches (role=option first).
_FIND_OPTION_JS = """(wanted) => {
  const norm = (s) => (s || '').trim().replace(/\\s+/g, ' ').toLowerCase();
  const vis = (e) => { const r = e.getBoundingClientRect(); const st = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none'; };
  const all = (root, sel, out = []) => { root.querySelectorAll(sel).forEach((e) => out.push(e));
    root.querySelectorAll('*').forEach((e) => e.shadowRoot && all(e.shadowRoot, sel, out)); return out; };
  const sels = ['[role=option]', '[role=menuitem]', '[role=treeitem]', 'li', '[data-value]', 'div,span,a,button'];
  const seen = [];
  for (const sel of sels) {
    const cands = all(document, sel).filter(vis);
    for (const c of cands) {
      const t = norm(c.innerText || c.getAttribute('aria-label'));
      const shown = (c.innerText || c.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ');
      if (sel !== sels[5] && t && seen.length < 30 && !seen.includes(shown)) seen.push(shown);
      if (t === norm(wanted) || norm(c.getAttribute('data-value')) === norm(wanted)) {
        return c;
      }
    }
  }
  return seen;
}"""


async def select(ec: ExecContext, action: Select) -> Outcome:
    page = ec.page
    target = await resolve_element(ec, page, action.index, action.selector)
    wanted = action.value if isinstance(action.value, list) else [action.value]
    match: dict[str, Any] | None = await target.handle.evaluate(_MATCH_JS, wanted)
    if match is None:
        return await _custom_select(ec, target, wanted)
    if match["missing"]:
        raise OptionNotFoundError(
            f"{target.label} has no option {', '.join(map(repr, match['missing']))}; options: {', '.join(match['options'])}",
            options=match["options"],
        )
    if len(match["found"]) > 1 and not match["multiple"]:
        raise OptionNotFoundError(f"{target.label} is a single-choice select; give one value")
    await target.handle.select_option(index=match["found"], timeout=2000)
    value = await target.handle.evaluate(_READ_JS)
    return Outcome("select_option", f"selected {value!r} in {target.label}", value=value)


async def _custom_select(ec: ExecContext, target: Target, wanted: list[str]) -> Outcome:
    page = ec.page
    if len(wanted) != 1:
        raise OptionNotFoundError(f"{target.label} is not a native <select>; pick one value at a time")
    pr = await probe(target)
    if pr.visible and pr.hit == "other":
        raise_covered(ec, page, target, pr, "open")
    if not pr.visible:
        raise OptionNotFoundError(
            f"{target.label} is not a <select> and is not visible, so it cannot be opened"
        )
    await page.mouse.click(pr.x, pr.y)
    frame = target.frame
    found = await frame.evaluate_handle(_FIND_OPTION_JS, wanted[0])
    handle = found.as_element()
    if handle is None:
        options: list[str] = await found.json_value()
        await page.keyboard.press("Escape")
        raise OptionNotFoundError(
            f"opened {target.label} (not a native <select>) but found no visible option {wanted[0]!r}; "
            f"visible options: {', '.join(options[:15]) or 'none'}",
            options=options,
        )
    opt_target = Target(frame, handle, None, f"option {wanted[0]!r}")
    opr = await probe(opt_target)
    if opr.visible and opr.hit in ("self", "ancestor"):
        await page.mouse.click(opr.x, opr.y)
        method = "custom_mouse"
    else:
        try:
            await handle.click(timeout=1000)
            method = "custom_locator"
        except PlaywrightError:
            await handle.evaluate("el => el.click()")
            method = "custom_js"
    value = await target.handle.evaluate(
        "el => (el.value !== undefined && el.tagName === 'INPUT' ? el.value : el.innerText || '').trim().slice(0, 80)"
    )
    return Outcome(
        method, f"opened {target.label} and picked {wanted[0]!r}; it now shows {value!r}", value=value
    )


define_action(Select, select, rank=80)
