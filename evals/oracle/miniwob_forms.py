"""MiniWoB++ solvers for forms and typing (text, passwords, logins, dates, arithmetic, tables, lists)."""

from __future__ import annotations

import itertools
import re

from kite_browser.agent.browser.actions import ActionModel, PressKey, Scroll, Select
from kite_browser.evals.oracle.decision import Decision
from kite_browser.evals.oracle.miniwob_base import (
    ORDINALS,
    OracleView,
    click,
    clicked,
    fill_then_submit,
    inputs,
    named,
    page_words,
    quoted,
    solver,
    submit,
    typed,
)

# --- forms and typing --------------------------------------------------------------------------------


@solver("enter-text", "enter-text-dynamic")
def _enter_text(v: OracleView) -> ActionModel | None:
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], quoted(v.task))]) if fields else None


@solver("enter-text-2")
def _enter_text_2(v: OracleView) -> ActionModel | None:
    word = quoted(v.task)
    word = word.upper() if "upper case" in v.task else word.lower()
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], word)]) if fields else None


@solver("enter-password")
def _password(v: OracleView) -> ActionModel | None:
    pw = quoted(v.task)
    return fill_then_submit(v, [(f, pw) for f in inputs(v)[:2]])


@solver("login-user", "login-user-popup")
def _login(v: OracleView) -> ActionModel | None:
    if "Exit to home page?" in v.text:
        return click(named(v, "Cancel", ("button",)))
    user, pw = quoted(v.task, 0), quoted(v.task, 1)
    fields = inputs(v)
    if len(fields) < 2:
        return None
    name_f, pass_f = fields[0], fields[1]
    if name_f.value != user:
        return typed(name_f, user)
    cancelled = [
        i
        for i, h in enumerate(v.history)
        if h.name == "click" and h.element is not None and h.element.name.strip() == "Cancel"
    ]
    typed_at = [i for i, h in enumerate(v.history) if h.ok and h.name == "type" and h.index == pass_f.index]
    if not typed_at or (cancelled and cancelled[-1] > typed_at[-1]):
        return typed(pass_f, pw)
    return click(named(v, "Login", ("button",)) or named(v, "OK", ("button",)))


@solver("enter-date")
def _enter_date(v: OracleView) -> ActionModel | None:
    m = re.search(r"(\d\d)/(\d\d)/(\d{4})", v.task)
    fields = inputs(v)
    if not m or not fields:
        return None
    iso = f"{m.group(3)}-{m.group(1)}-{m.group(2)}"
    return fill_then_submit(v, [(fields[0], iso)])


@solver("enter-time")
def _enter_time(v: OracleView) -> ActionModel | None:
    m = re.search(r"(\d{1,2}):(\d\d) ?([AP]M)", v.task)
    fields = inputs(v)
    if not m or not fields:
        return None
    h = int(m.group(1)) % 12 + (12 if m.group(3) == "PM" else 0)
    return fill_then_submit(v, [(fields[0], f"{h:02d}:{m.group(2)}")])


@solver("find-word")
def _find_word(v: OracleView) -> ActionModel | None:
    m = re.search(r"(\d+(?:st|nd|rd|th)) word", v.task)
    words = page_words(v, v.task).replace("Submit", " ").split()
    n = int(re.sub(r"\D", "", m.group(1))) - 1 if m else -1
    fields = inputs(v)
    if not fields or not 0 <= n < len(words):
        return None
    return fill_then_submit(v, [(fields[0], re.sub(r"[^A-Za-z0-9]", "", words[n]))])


@solver("simple-arithmetic")
def _arith(v: OracleView) -> ActionModel | None:
    m = re.search(r"(-?\d+)\s*([-+x*×])\s*(-?\d+)\s*=", page_words(v, v.task))
    fields = inputs(v)
    if not m or not fields:
        return None
    a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
    result = a + b if op == "+" else a - b if op == "-" else a * b
    return fill_then_submit(v, [(fields[0], str(result))])


@solver("simple-algebra")
def _algebra(v: OracleView) -> ActionModel | None:
    text = page_words(v, v.task)
    fields = inputs(v)
    m = re.search(r"(-?\d+)?\s*([-+])?\s*x\s*([-+])?\s*(-?\d+)?\s*=\s*(-?\d+)", text)
    if not m or not fields:
        return None
    total = int(m.group(5))
    if m.group(1) is not None:  # a ± x = c
        a, sign = int(m.group(1)), m.group(2)
        x = total - a if sign == "+" else a - total
    else:  # x ± b = c
        b, sign = int(m.group(4) or 0), m.group(3)
        x = total - b if sign == "+" else total + b
    return fill_then_submit(v, [(fields[0], str(x))])


_TABLE_KEYS = (
    "Color",
    "First name",
    "Last name",
    "Country",
    "Gender",
    "Language",
    "Year of Birth",
    "Religion",
)


def _table(text: str) -> dict[str, str]:
    spots = sorted((m.start(), m.end(), k) for k in _TABLE_KEYS for m in re.finditer(re.escape(k), text))
    out: dict[str, str] = {}
    for i, (_, end, key) in enumerate(spots):
        nxt = spots[i + 1][0] if i + 1 < len(spots) else len(text)
        out.setdefault(key, text[end:nxt].strip())
    return out


@solver("read-table")
def _read_table(v: OracleView) -> ActionModel | None:
    m = re.search(r"value of (.+?) into", v.task)
    body = page_words(v, v.task).split(" Submit")[0]
    value = _table(body).get(m.group(1)) if m else None
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], value)]) if value and fields else None


@solver("read-table-2")
def _read_table_2(v: OracleView) -> ActionModel | None:
    body = page_words(v, v.task).split(" Submit")[0]
    labels = re.findall(r"(" + "|".join(_TABLE_KEYS) + r"):", body)
    table = _table(body.split(labels[0] + ":")[0]) if labels else {}
    fields = inputs(v)
    if len(labels) != len(fields) or not all(lbl in table for lbl in labels):
        return None
    return fill_then_submit(v, [(f, table[lbl]) for f, lbl in zip(fields, labels, strict=True)])


@solver("form-sequence-2")
def _form_seq_2(v: OracleView) -> ActionModel | None:
    m = re.search(
        r"Check the (\d\w\w) radio button and enter the number \"(.*?)\" into the (\d\w\w) textbox", v.task
    )
    radios = [e for e in v.elements if e.role == "radio"]
    fields = inputs(v)
    if not m:
        return None
    r, t = ORDINALS[m.group(1)], ORDINALS[m.group(3)]
    if r >= len(radios) or t >= len(fields):
        return None
    if not radios[r].checked:
        return click(radios[r])
    return fill_then_submit(v, [(fields[t], m.group(2))])


@solver("use-spinner")
def _spinner(v: OracleView) -> ActionModel | None:
    m = re.search(r"Select (-?\d+)", v.task)
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], m.group(1))]) if m and fields else None


@solver("choose-list")
def _choose_list(v: OracleView) -> ActionModel | None:
    m = re.match(r"Select (.+) from the list", v.task)
    sel = next((e for e in v.elements if e.role in ("select", "combobox", "listbox")), None)
    if not m or sel is None:
        return None
    if sel.value != m.group(1):
        return Select(index=sel.index, value=m.group(1))
    return submit(v)


@solver("click-scroll-list")
def _scroll_list(v: OracleView) -> ActionModel | None:
    m = re.match(r"Select (.+) from the scroll list", v.task)
    sel = next((e for e in v.elements if e.role in ("select", "listbox")), None)
    if not m or sel is None:
        return None
    names = [n.strip() for n in m.group(1).split(",")]
    done = any(h.ok and h.name == "select" for h in v.history)
    return submit(v) if done else Select(index=sel.index, value=names)


@solver("odd-or-even")
def _odd_even(v: OracleView) -> ActionModel | None:
    numbers = [int(n) for n in re.findall(r"Odd (-?\d+) Even", page_words(v, v.task))]
    pairs = [e for e in v.elements if e.role == "button" and e.name in ("Odd", "Even")]
    if len(pairs) != 2 * len(numbers) or not numbers:
        return None
    for i, n in enumerate(numbers):
        want = pairs[2 * i] if n % 2 else pairs[2 * i + 1]
        if not clicked(v, want):
            return click(want)
    return submit(v)


@solver("guess-number")
def _guess(v: OracleView) -> ActionModel | None:
    fields = inputs(v)
    if not fields:
        return None
    field = fields[0]
    guesses = [
        int(m.group(0))
        for h in v.history
        if h.ok and h.name == "type"
        for m in [re.fullmatch(r"-?\d+", str(h.action.get("text", "")))]
        if m
    ]
    submitted = sum(1 for h in v.history if h.ok and h.name == "click")
    if guesses and submitted < len(guesses):
        return submit(v)
    lo, hi = 0, 9
    for a, b in itertools.pairwise(guesses):
        lo, hi = (a + 1, hi) if b > a else (lo, a - 1)
    if guesses:
        text = page_words(v, v.task)
        if "higher" in text:
            lo = guesses[-1] + 1
        elif "lower" in text:
            hi = guesses[-1] - 1
    return typed(field, str((lo + hi) // 2))


@solver("generate-number")
def _generate(v: OracleView) -> ActionModel | None:
    m = re.search(r"number (less|greater|more) than (-?\d+)", v.task)
    parity = re.search(r"an (odd|even) number", v.task)
    shown = re.search(r"(-?\d+) Generate", page_words(v, v.task))
    if not m and not parity:
        return None
    if shown:
        n = int(shown.group(1))
        if parity:
            ok = (n % 2 == 1) == (parity.group(1) == "odd")
        elif m is not None:
            ok = n < int(m.group(2)) if m.group(1) == "less" else n > int(m.group(2))
        if ok:
            return submit(v)
    return click(named(v, "Generate", ("button",)))


@solver("find-greatest")
def _greatest(v: OracleView) -> ActionModel | None:
    cards = [e for e in v.elements if e.role != "button" and re.fullmatch(r"-?\d+", e.name)]
    if not cards:
        return None
    best = max(cards, key=lambda e: int(e.name))
    return submit(v) if clicked(v, best) else click(best)


@solver("scroll-text-2")
def _scroll_text_2(v: OracleView) -> ActionModel | None:
    area = next((e for e in v.elements if e.role == "textarea"), None)
    if area is None:
        return None
    if not any(h.ok and h.name == "scroll" for h in v.history):
        direction = "up" if "to the top" in v.task else "down"
        return Scroll(direction=direction, amount=5000, index=area.index)
    return submit(v)


@solver("use-slider")
def _slider(v: OracleView) -> Decision | None:
    m = re.search(r"Select (-?\d+) with the slider", v.task)
    now = re.match(r"\s*(-?\d+)", page_words(v, v.task))
    handle = next((e for e in v.elements if e.role in ("span", "slider")), None)
    if not m or not now or handle is None:
        return None
    want, have = int(m.group(1)), int(now.group(1))
    if want == have:
        return submit(v)
    if v.focused != handle.index:
        return click(handle)
    key = PressKey(key="ArrowRight" if want > have else "ArrowLeft")
    return [key] * min(abs(want - have), 10)
