"""select: native <select> by value or visible label; custom listbox/combobox widgets best effort."""

from __future__ import annotations

import re
from typing import Literal, TypedDict

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from kite_browser.agent.browser.exec.base import (
    NO_EFFECT,
    ExecContext,
    NotInteractableError,
    OptionNotFoundError,
    Outcome,
)
from kite_browser.agent.browser.exec.hit import probe, raise_covered
from kite_browser.agent.browser.exec.spec import (
    REF,
    ActKind,
    ElementTarget,
    FaceParam,
    ToolFace,
    define_action,
)
from kite_browser.agent.browser.exec.targets import Target, resolve_element


class Select(ElementTarget):
    """Choose an option of a dropdown by its text (or value)."""

    # on a multi-select one value adds to the selection, a list replaces it (the result says which)
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
_SEVERAL = re.compile(r"\s*[|,]\s*")
"""Between values written as one text for a multi-select (tried only when the whole text is no option)."""
_READ_JS = "el => Array.from(el.selectedOptions).map(o => o.label.trim() || o.value).join(', ')"
_CHOSEN_JS = "el => Array.from(el.options).flatMap((o, i) => o.selected ? [i] : [])"
"""A multi-select's chosen options: one value given adds to them, so a model that selects several options one
at a time keeps each (the second does not replace the first)."""

# Radios, checkboxes and switches: the one to tick — the radio of the same group whose value or label is the
# wanted one, else any radio or checkbox of the same form (or page) labelled so (a model names the option it
# wants on the box it saw first), else the target itself; null when the target is not one of them.
_CHECKABLE_JS = """(el, wanted) => {
  const roles = ['radio', 'checkbox', 'switch', 'menuitemradio', 'menuitemcheckbox'];
  const native = el.tagName === 'INPUT' && /^(radio|checkbox)$/i.test(el.type);
  if (!native && !roles.includes(el.getAttribute('role'))) return null;
  const norm = (s) => (s || '').trim().replace(/\\s+/g, ' ').toLowerCase();
  const label = (e) => (e.labels && e.labels.length ? e.labels[0].innerText : '') || e.getAttribute('aria-label') || e.innerText || '';
  const want = wanted.map(norm);
  const named = (e) => want.includes(norm(e.value)) || want.includes(norm(label(e)));
  if (named(el)) return el;
  const root = (native && el.form) || el.getRootNode();
  const boxes = Array.from(root.querySelectorAll('input[type=radio], input[type=checkbox], [role=radio], [role=checkbox]'));
  const group = native && el.type.toLowerCase() === 'radio' && el.name ? boxes.filter((e) => e.name === el.name) : [];
  return group.find(named) || boxes.filter((e) => !e.disabled).find((e) => norm(label(e)) && want.includes(norm(label(e)))) || el;
}"""
# A plain text field (no combobox role, popup or datalist): select on it would click whatever text on the page
# matches the value (a "select blue" aimed at a Quantity field would click some "blue" elsewhere).
_PLAIN_FIELD_JS = """(el) => (el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' &&
  !/^(checkbox|radio|button|submit|reset|image|file|range|color|hidden)$/i.test(el.type)))
  && !el.getAttribute('role') && !el.hasAttribute('aria-haspopup') && !el.hasAttribute('list')"""
_CHECKED_JS = """(el) => el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true'"""
_LABEL_JS = """(el) => {
  const kind = el.tagName === 'INPUT' ? el.type.toLowerCase() : el.getAttribute('role');
  const name = ((el.labels && el.labels.length ? el.labels[0].innerText : '') || el.getAttribute('aria-label') || el.innerText || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
  return [kind, name ? `${kind} "${name}"` : kind];
}"""

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


class _Match(TypedDict):
    """``_MATCH_JS``'s answer: the wanted values the select lacks, its options, the indexes found."""

    missing: list[str]
    multiple: bool
    options: list[str]
    found: list[int]


async def select(ec: ExecContext, action: Select) -> Outcome:
    page = ec.page
    target = await resolve_element(ec, page, action.index, action.selector)
    wanted = action.value if isinstance(action.value, list) else [action.value]
    match: _Match | None = await target.handle.evaluate(_MATCH_JS, wanted)
    if match is None:
        box = (await target.handle.evaluate_handle(_CHECKABLE_JS, wanted)).as_element()
        if box is not None:
            return await _check(ec, target, box)
        if await target.handle.evaluate(_PLAIN_FIELD_JS):
            raise NotInteractableError(
                f"{target.label} is a text field, not a dropdown: use type to put text in it", tag="input"
            )
        return await _custom_select(ec, target, wanted)
    if (
        match["missing"]
        and match["multiple"]
        and isinstance(action.value, str)
        and _SEVERAL.search(action.value)
    ):
        # the options as the page listing writes them ("Reading|Music") or as the result says the selection
        # ("Reading, Music": a model sends back what the result of its first select said)
        action = action.model_copy(
            update={"value": [v.strip() for v in _SEVERAL.split(action.value) if v.strip()]}
        )
        match = await target.handle.evaluate(_MATCH_JS, action.value)
    if match["missing"]:
        raise OptionNotFoundError(
            f"{target.label} has no option {', '.join(map(repr, match['missing']))}; options: {', '.join(match['options'])}",
            options=match["options"],
        )
    if len(match["found"]) > 1 and not match["multiple"]:
        raise OptionNotFoundError(f"{target.label} is a single-choice select; give one value")
    before = await target.handle.evaluate(_READ_JS)
    found: list[int] = match["found"]
    if match["multiple"] and isinstance(action.value, str):  # one more option, as a ctrl-click adds it
        found = sorted({*await target.handle.evaluate(_CHOSEN_JS), *found})
    await target.handle.select_option(index=found, timeout=2000)
    value = await target.handle.evaluate(_READ_JS)
    if value == before:  # the executor adds "nothing changed": say why, so the model moves on
        return Outcome(
            "select_option",
            f"{value!r} was already selected in {target.label}",
            value=value,
            data={NO_EFFECT: True},
        )
    if match["multiple"]:
        how = "added to" if isinstance(action.value, str) else "set as the selection of"
        said = f"{how} {target.label}: now selected {value!r} (a list of values replaces the selection)"
        return Outcome("select_option", said, value=value)
    return Outcome("select_option", f"selected {value!r} in {target.label}", value=value)


async def _check(ec: ExecContext, target: Target, box: ElementHandle) -> Outcome:
    """select on a radio, checkbox or switch: a click that leaves it checked (never unticks it)."""
    same = await box.evaluate("(a, b) => a === b", target.handle)
    kind, label = await box.evaluate(_LABEL_JS)
    label = target.label if same else label
    chosen = target if same else Target(target.frame, box, None, label)
    if await box.evaluate(_CHECKED_JS):
        return Outcome("none", f"{label} is already checked", value="checked", data={NO_EFFECT: True})
    pr = await probe(chosen)
    if pr.visible and pr.hit == "other":
        raise_covered(ec, ec.page, chosen, pr, "check")
    if pr.visible and pr.hit == "self":
        await ec.page.mouse.click(pr.x, pr.y)
        method = "mouse"
    else:
        await box.click(timeout=1000)
        method = "locator"
    if not await box.evaluate(_CHECKED_JS):
        raise NotInteractableError(f"clicked {label} but it is still not checked")
    return Outcome(method, f"checked {label} (select on a {kind} clicks it)", value="checked")


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


SELECT_FACE = ToolFace(
    "select",
    "Choose an option of dropdown [ref] by value or visible label.",
    "loads",
    (REF, FaceParam("value", "value")),
    (ActKind("select", target="needed", text="value", says="the option"),),
)
define_action(Select, select, rank=80, says_no_effect=True, face=SELECT_FACE)
