"""type and pressKey: real keyboard input at the caret, the value read back."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal, TypedDict

from playwright.async_api import Error as PlaywrightError
from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from kite_browser.agent.base.errors import ActionError, StaleElementError
from kite_browser.agent.browser.exec.base import NO_EFFECT, ExecContext, NotInteractableError, Outcome
from kite_browser.agent.browser.exec.cdp import type_keys
from kite_browser.agent.browser.exec.dates import input_format, input_value
from kite_browser.agent.browser.exec.hit import probe, raise_covered
from kite_browser.agent.browser.exec.recheck import guarded, look_again, look_again_at
from kite_browser.agent.browser.exec.spec import (
    ActionModel,
    ActKind,
    FaceParam,
    IndexField,
    SelectorField,
    ToolFace,
    define_action,
    target_kinds,
)
from kite_browser.agent.browser.exec.targets import (
    Target,
    resolve_element,
    resolve_index,
    resolve_reading,
)

Modifier = Literal["ctrl", "alt", "shift", "meta"]


class Type(ActionModel):
    """Type text into a text field, replacing its value (append=true adds to it); without index, into the
    focused element."""

    action: Literal["type"] = "type"
    index: IndexField = None
    selector: SelectorField = None
    text: str = Field(description="Text to type. Use <secret>name</secret> for secrets you were given.")
    append: bool = Field(False, description="Add the text at the caret instead of replacing the value.")
    repeat: SkipJsonSchema[bool] = Field(False, exclude=True)
    """Append even when the value already ends with the text. Not offered to models (a small model's habit
    is to append what it already typed); a tool caller's explicit append (``chrome_type``) sets it."""
    delay: SkipJsonSchema[int] = Field(0, ge=0, le=1000, exclude=True)
    """Milliseconds between key presses (0: at once). Not offered to models; a tool caller's typing delay
    (``chrome_type``'s ``delay``) sets it."""

    @model_validator(mode="before")
    @classmethod
    def _clear_is_not_append(cls, data: object) -> object:
        """``clear`` (Kite's earlier name, kept by the MCP and module tools): clear=false is append=true. The
        model's schema names the unusual case, so a model that writes every optional flag as false (clear=false
        on every type would double each value) does the usual thing."""
        if isinstance(data, dict) and "clear" in data:
            data = dict(data)
            clear = data.pop("clear")
            data.setdefault("append", not clear)
        return data

    @property
    def clear(self) -> bool:
        return not self.append

    @model_validator(mode="after")
    def _at_most_one_target(self) -> Type:
        kinds = target_kinds(self, allow_point=False)
        if len(kinds) > 1:
            raise ValueError("give at most one target: 'index' or 'selector' (got 'index' and 'selector')")
        return self


class PressKey(ActionModel):
    """Press a key (Enter, Tab, Escape, ArrowDown, a ...) on the focused element, or on the element given by
    index (focused first)."""

    action: Literal["pressKey"] = "pressKey"
    key: str = Field(
        min_length=1, description="Key name as in KeyboardEvent.key: Enter, Tab, Escape, ArrowDown, a ..."
    )
    index: IndexField = None
    modifiers: list[Modifier] = Field(default_factory=list, description="Modifier keys held while pressing.")


# Focus the field without moving an existing caret; put the caret at the end (or select all) otherwise.
_PREPARE_JS = """(el, clear) => {
  const tag = el.tagName;
  const textual = (tag === 'INPUT' && !/^(checkbox|radio|file|submit|button|reset|image|range|color|hidden)$/i.test(el.type)) || tag === 'TEXTAREA';
  if (!textual && !el.isContentEditable) return {ok: false, tag: tag.toLowerCase(), type: el.type || null};
  if (el.disabled || el.readOnly) return {ok: false, tag: tag.toLowerCase(), readonly: true};
  const root = el.getRootNode();
  const wasFocused = root.activeElement === el || (el.isContentEditable && el.contains(root.activeElement));
  if (!wasFocused) el.focus();
  if (textual) {
    try {
      if (clear) el.select();
      else if (!wasFocused) el.setSelectionRange(el.value.length, el.value.length);
    } catch (e) { if (clear) el.select(); }  // email/number inputs have no selection API
  } else if (clear || !wasFocused) {
    const r = document.createRange(); r.selectNodeContents(el);
    if (!clear) r.collapse(false);
    const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  const focused = root.activeElement === el || el.contains(root.activeElement);
  return {ok: true, textual, password: el.type === 'password', focused, before: textual ? el.value : el.innerText};
}"""
_READ_JS = "el => (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') ? el.value : el.innerText"
# Inputs that take no typing (date, time ...): the value is set directly with its input and change events;
# a value the input does not accept leaves it as it was (null: not such an input, or disabled/read-only).
_TYPELESS_JS = """(el, value) => {
  const type = (el.type || '').toLowerCase();
  if (el.tagName !== 'INPUT' || !/^(date|time|datetime-local|month|week)$/.test(type) || el.disabled || el.readOnly) return null;
  const before = el.value;
  el.value = value;
  if (el.value !== value) { el.value = before; return {ok: false, type}; }
  el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true}));
  return {ok: true, type};
}"""

# The two above in one call: a typeless input's value set (when replacing), else the field prepared.
_SET_OR_PREPARE_JS = f"""(el, [value, clear]) => {{
  if (clear) {{ const t = ({_TYPELESS_JS})(el, value); if (t !== null) return {{typeless: t}}; }}
  return ({_PREPARE_JS})(el, clear);
}}"""

_KEYS = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "escape": "Escape", "esc": "Escape", "space": " ",
    "backspace": "Backspace", "delete": "Delete", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft",
    "right": "ArrowRight", "arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight", "home": "Home", "end": "End", "pageup": "PageUp", "pagedown": "PageDown",
}  # fmt: skip
KEY_NAMES: tuple[str, ...] = (*dict.fromkeys(v for v in _KEYS.values() if v != " "), "Space")
"""The named keys pressKey knows (beside any single character): a constrained reply's ``key`` is one of them."""
_MODS = {"ctrl": "Control", "alt": "Alt", "shift": "Shift", "meta": "Meta"}


def resolve_text(ec: ExecContext, text: str) -> str:
    """Replace <secret>name</secret> placeholders (the resolver raises a KiteError when not allowed here)."""
    if ec.secret_resolver is None or "<secret>" not in text:
        return text
    return ec.secret_resolver(text, ec.page.url)


async def type_text(ec: ExecContext, action: Type) -> Outcome:
    page = ec.page
    text = resolve_text(ec, action.text)
    if action.index is None and action.selector is None:
        await ec.ready()
        if action.clear:
            await page.keyboard.press("ControlOrMeta+a")
        await type_keys(page, text, action.delay)
        return Outcome("keyboard", f"typed {len(text)} characters into the focused element")
    if action.index is not None:  # its fingerprint asked for with its handle
        target, _ = await resolve_reading(ec, page, action.index)
    else:
        target = await resolve_element(ec, page, action.index, action.selector)
    await ec.ready()
    prep = await target.handle.evaluate(_SET_OR_PREPARE_JS, [text, action.clear])
    if (typeless := prep.get("typeless")) is not None:
        return await _set_typeless(target, text, typeless)
    if not prep["ok"]:
        why = (
            "it is read-only or disabled"
            if prep.get("readonly")
            else f"it is not a text field (<{prep['tag']}{' type=' + prep['type'] if prep.get('type') else ''}>); "
            "type into an input, textarea or editable element"
        )
        raise NotInteractableError(f"cannot type into {target.label}: {why}", tag=prep["tag"])
    if not prep["focused"]:  # something (a frame, an overlay) kept the focus: click into it like a user would
        pr = await probe(target)
        if pr.visible and pr.hit == "self":
            await page.mouse.click(pr.x, pr.y)
    before = prep["before"]
    if not action.clear and not action.repeat and text and prep["textual"] and (before or "").endswith(text):
        shown = "•" * len(before) if prep.get("password") else before
        msg = f"{target.label} already ends with this text: not typed again (append would repeat it)"
        return Outcome("none", msg, value=shown, data={NO_EFFECT: True})
    if text:
        await type_keys(page, text, action.delay)  # replaces the selection when clearing
    elif action.clear:
        await page.keyboard.press("Delete")
    reading = asyncio.ensure_future(target.handle.evaluate(_READ_JS))
    await asyncio.sleep(0)  # the task's first step sends the read: the settle's calls follow it
    ec.input_over()
    value = await reading
    method = "keyboard"
    expected = text if action.clear else (before or "") + text
    if value != expected and prep["textual"] and action.clear:
        await ec.input_again()  # the settle begun is over; the executor settles again after the fill
        await _fill(ec, target, text)  # masked or reformatting inputs: set it directly
        value, method = await target.handle.evaluate(_READ_JS), "fill"
    shown = "•" * len(value) if prep.get("password") else value
    verb = "replaced the value of" if action.clear else "typed into"
    msg = f"{verb} {target.label}"  # the value is in the effects (the model and MCP clients are shown it)
    unchanged = action.clear and before == value
    if unchanged:
        msg = f"{target.label} already held {shown!r}: nothing changed"
    if value != expected and method == "keyboard":
        msg += " (the page changed or limited the input)"
    return Outcome(method, msg, value=shown, data={NO_EFFECT: True} if unchanged else {})


async def _fill(ec: ExecContext, target: Target, text: str) -> None:
    """Set the field's value directly; when that cannot be done, say why in the model's terms (a popup opened
    over the field, the field hidden or disabled), never as Playwright's timeout text."""
    try:
        await target.handle.fill(text, timeout=1000)
    except PlaywrightError as exc:
        pr = await probe(target)
        if pr.visible and pr.hit == "other":  # something opened over it as it was typed into
            raise_covered(ec, ec.page, target, pr, "type into")
        why = (
            "it is no longer visible"
            if not pr.visible
            else "it became disabled or read-only as it was typed into"
        )
        raise NotInteractableError(
            f"cannot type into {target.label}: {why}; see the page", tag="input"
        ) from exc


class _Typeless(TypedDict):
    """``_TYPELESS_JS``'s answer: the input's type and whether the value was taken as written."""

    type: str
    ok: bool


async def _set_typeless(target: Target, text: str, typeless: _Typeless) -> Outcome:
    """A date/time input: its value set as written, or else as the same date or time in the input's format
    (the input refuses "05/20/2010"); typed key by key it would have emptied the field and looked fine."""
    kind = typeless["type"]
    if typeless["ok"]:
        return Outcome("fill", f"set the value of {target.label}", value=text)
    value = input_value(kind, text)
    if value is not None and value != text:
        again = await target.handle.evaluate(_TYPELESS_JS, value)
        if again is not None and again["ok"]:
            msg = f"set the value of {target.label} to {value!r} ({text!r} in the {kind} input's format)"
            return Outcome("fill", msg, value=value)
    msg = f"cannot type into {target.label}: {text!r} is not a {kind}; this input takes {input_format(kind)}"
    raise NotInteractableError(msg, tag="input")


async def press_key(ec: ExecContext, action: PressKey) -> Outcome:
    key = _KEYS.get(action.key.lower(), action.key) if len(action.key) > 1 else action.key
    combo = "+".join([*(_MODS[m] for m in action.modifiers), key])
    on = ""
    target: Target | None = None
    if action.index is not None:  # small models name the field they mean: focus it as a click would
        target = await resolve_element(ec, ec.page, action.index, None)
        await target.handle.focus()
        on = f" on {target.label}"
        await look_again(ec, ec.page, target, "when it was focused")  # the page may relabel it on focus
    elif ec.recheck is not None and ec.snapshotter is not None:  # the key goes to the focused element
        last = ec.snapshotter.last(ec.page)
        focused = last.summary.focused if last is not None else None
        if focused is not None:
            with contextlib.suppress(StaleElementError):  # gone: the key goes where focus is, as before
                await look_again_at(ec, ec.page, focused, f"[{focused}]", "since the snapshot")
                target = await resolve_index(ec, ec.page, focused)
    await ec.ready()
    press = _press(ec, combo, action.key)
    if target is None:
        await press
    else:  # keydown, keypress, keyup: the input guard holds the look for the whole key press
        await guarded(ec, target, press, "key press")
    return Outcome("keyboard", f"pressed {combo}{on}")


async def _press(ec: ExecContext, combo: str, key: str) -> None:
    try:
        await ec.page.keyboard.press(combo)
    except PlaywrightError as exc:
        raise ActionError(f"unknown key {key!r}: {str(exc).splitlines()[0]}", key=key) from exc


TYPE_FACE = ToolFace(
    "type",
    "Type text into field [ref] (replaces its value unless clear=false).",
    "loads",
    (
        FaceParam("ref", "index", "Field to type into; omit for the focused element."),
        FaceParam("text", "text", "Text to type; <secret>name</secret> for a secret you were given."),
        FaceParam("clear", "append", "Replace the field's value (false: append at the caret).", invert=True),
    ),
    (  # "type" appends, "fill" replaces
        ActKind("type", target="needed", text="text", says="the text", fixed=(("append", True),)),
        ActKind("fill", target="needed", text="text", says="the text"),
    ),
)
PRESS_FACE = ToolFace(
    "press_key",
    "Press a key (Enter, Escape, ArrowDown ...) on the focused element; Enter may submit a form.",
    "acts",
    (
        FaceParam("key", "key", "KeyboardEvent.key: Enter, Tab, Escape, ArrowDown, a ..."),
        FaceParam("modifiers", "modifiers", ""),
    ),
    (ActKind("press", text="key", says="the key (Enter, Tab ...)"),),
)
define_action(Type, type_text, settle="early", rank=20, face=TYPE_FACE)
define_action(PressKey, press_key, settle="early", rank=90, says_no_effect=True, face=PRESS_FACE)
