"""The oracle's MiniWoB++ solvers: one small function per task type, from the utterance and the rendered page.

Each solver is stateless: it reads what it needs from the prompt (element values, checked flags, the page
text, and the history of actions shown in the prompt) and returns the next action, or None when it cannot
tell (the oracle then fails the task). The task type comes from the page URL (``/miniwob/<type>.html``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from agent.llm.oracle_prompt import El, PromptView

# Written by the eval adapter (evals/miniwob.py) when the episode has ended.
EPISODE_OVER = "This episode has ended"
Solver = Callable[[PromptView], Any]
SOLVERS: dict[str, Solver] = {}
_ORDINALS = {
    "1st": 0,
    "2nd": 1,
    "3rd": 2,
    "4th": 3,
    "5th": 4,
    "6th": 5,
    "7th": 6,
    "8th": 7,
    "9th": 8,
    "10th": 9,
}


def solver(*names: str) -> Callable[[Solver], Solver]:
    def deco(fn: Solver) -> Solver:
        for n in names:
            SOLVERS[n] = fn
        return fn

    return deco


def task_type(view: PromptView) -> str | None:
    m = re.search(r"/miniwob/([a-z0-9-]+)\.html", view.url)
    return m.group(1) if m else None


def solve_miniwob(view: PromptView) -> dict[str, Any] | None:
    kind = task_type(view)
    if kind is None or kind not in SOLVERS:
        return None
    if EPISODE_OVER in view.page:
        return {"action": "done", "success": True, "answer": "episode finished"}
    action = SOLVERS[kind](view)
    if action is None:
        return {"action": "done", "success": False, "answer": f"oracle: cannot solve this {kind} page"}
    return action


# --- helpers ------------------------------------------------------------------------------------------


def click(el: El | None) -> dict[str, Any] | None:
    return None if el is None else {"action": "click", "index": el.index}


def typed(el: El, text: str) -> dict[str, Any]:
    return {"action": "type", "index": el.index, "text": text, "clear": True}


def quoted(text: str, n: int = 0) -> str:
    found = re.findall(r'"\s*([^"]*?)\s*"', text)
    return found[n] if len(found) > n else ""


def named(view: PromptView, name: str, roles: tuple[str, ...] | None = None) -> El | None:
    """The first element whose name is exactly ``name`` (case-sensitive)."""
    return next((e for e in view.elements if e.name == name and (roles is None or e.role in roles)), None)


def button(view: PromptView, name: str) -> El | None:
    want = name.casefold()
    return next((e for e in view.elements if e.role == "button" and e.name.casefold() == want), None)


def submit(view: PromptView) -> dict[str, Any] | None:
    for name in ("Submit", "submit", "Login", "Search"):
        el = button(view, name) or named(view, name)
        if el is not None:
            return click(el)
    return None


def inputs(view: PromptView) -> list[El]:
    return [
        e
        for e in view.elements
        if e.role in ("input", "textbox", "textarea", "searchbox", "spinbutton", "combobox")
        and e.attrs.get("type") not in ("checkbox", "radio")
    ]


def clicked(view: PromptView, el: El) -> bool:
    return any(h.ok and h.action == "click" and f"[{el.index}]" in h.text for h in view.history)


def typed_into(view: PromptView, el: El) -> bool:
    return any(h.ok and h.action == "type" and f"[{el.index}]" in h.text for h in view.history)


def fill_then_submit(view: PromptView, pairs: list[tuple[El, str]]) -> dict[str, Any] | None:
    """Type each value whose field does not show it yet (passwords: not typed yet), then Submit."""
    for el, value in pairs:
        masked = el.attrs.get("type") == "password"
        if (masked and not typed_into(view, el)) or (not masked and el.value != value):
            return typed(el, value)
    return submit(view)


def page_words(view: PromptView, after: str) -> str:
    """The page text after the utterance (the task's own content)."""
    text = " ".join(view.text.split())
    i = text.find(after)
    return text[i + len(after) :] if i >= 0 else text


# --- clicking ------------------------------------------------------------------------------------------


@solver("click-button", "unicode-test")
def _click_button(v: PromptView) -> dict[str, Any] | None:
    return click(named(v, quoted(v.task), ("button",)))


@solver("click-link")
def _click_link(v: PromptView) -> dict[str, Any] | None:
    return click(named(v, quoted(v.task)))


@solver("click-button-sequence")
def _sequence(v: PromptView) -> dict[str, Any] | None:
    one, two = named(v, "ONE"), named(v, "TWO")
    if one is None or two is None:
        return None
    return click(two if clicked(v, one) else one)


@solver("click-test", "click-test-transfer")
def _click_test(v: PromptView) -> dict[str, Any] | None:
    return click(next((e for e in v.elements if e.role == "button"), None))


@solver("click-test-2")
def _click_test_2(v: PromptView) -> dict[str, Any] | None:
    return click(named(v, "ONE"))


@solver("click-option")
def _click_option(v: PromptView) -> dict[str, Any] | None:
    m = re.match(r"Select (.+) and click Submit", v.task)
    el = named(v, m.group(1), ("radio",)) if m else None
    if el is None:
        return None
    return submit(v) if el.checked else click(el)


@solver("click-checkboxes", "click-checkboxes-large", "click-checkboxes-transfer")
def _checkboxes(v: PromptView) -> dict[str, Any] | None:
    m = re.match(r"Select (.+) and click Submit", v.task)
    if not m:
        return None
    wanted = set() if m.group(1) == "nothing" else {w.strip() for w in m.group(1).split(",")}
    todo = [click(e) for e in v.elements if e.role == "checkbox" and (e.name in wanted) != e.checked]
    return todo[:10] if todo else submit(v)


@solver("click-dialog")
def _dialog(v: PromptView) -> dict[str, Any] | None:
    return click(named(v, "Close", ("button",)))


@solver("click-dialog-2")
def _dialog_2(v: PromptView) -> dict[str, Any] | None:
    want = quoted(v.task)
    return click(named(v, "Close" if want == "x" else want, ("button",)))


@solver("click-tab")
def _tab(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"Tab #(\d)", v.task)
    if not m:
        return None
    return click(
        next((e for e in v.elements if e.attrs.get("href", "").endswith(f"#tabs-{m.group(1)}")), None)
    )


def _reveal(v: PromptView, target: str, openers: list[El]) -> dict[str, Any] | None:
    """Click the target if shown; else open the next tab/section not opened yet."""
    el = named(v, target)
    if el is not None:
        return click(el)
    for opener in openers:
        if "selected" in opener.flags or "expanded" in opener.flags or clicked(v, opener):
            continue
        return click(opener)
    return None


@solver("click-tab-2", "click-tab-2-easy", "click-tab-2-medium", "click-tab-2-hard")
def _tab_2(v: PromptView) -> dict[str, Any] | None:
    tabs = [e for e in v.elements if "#tabs-" in e.attrs.get("href", "")]
    return _reveal(v, quoted(v.task), tabs)


@solver("click-collapsible")
def _collapsible(v: PromptView) -> dict[str, Any] | None:
    section = next((e for e in v.elements if e.role == "tab" and e.name.startswith("Section")), None)
    if section is not None and "collapsed" in section.flags and not clicked(v, section):
        return click(section)
    return submit(v)


@solver("click-collapsible-2")
def _collapsible_2(v: PromptView) -> dict[str, Any] | None:
    sections = [e for e in v.elements if e.role == "tab" and e.name.startswith("Section")]
    return _reveal(v, quoted(v.task), sections)


@solver("click-widget")
def _widget(v: PromptView) -> dict[str, Any] | None:
    kind = quoted(v.task)
    for el in v.elements:
        role = "text" if el.role == "input" else el.role
        if role == kind:
            return click(el)
    return None


@solver("focus-text")
def _focus(v: PromptView) -> dict[str, Any] | None:
    fields = inputs(v)
    return click(fields[0]) if fields else None


@solver("focus-text-2")
def _focus_2(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"(\d+(?:st|nd|rd|th))", v.task)
    fields = inputs(v)
    n = _ORDINALS.get(m.group(1), -1) if m else -1
    return click(fields[n]) if 0 <= n < len(fields) else None


@solver("click-menu", "click-menu-2")
def _menu(v: PromptView) -> dict[str, Any] | None:
    m = re.match(r"Select (.+)$", v.task.strip())
    if not m:
        return None
    path = [p.strip() for p in m.group(1).split(">")]
    items = [named(v, p, ("menuitem",)) for p in path]
    for i, el in enumerate(items):
        if el is None:  # open the submenu of the previous item
            return {"action": "hover", "index": items[i - 1].index} if i and items[i - 1] else None
    return click(items[-1])


@solver("navigate-tree")
def _tree(v: PromptView) -> dict[str, Any] | None:
    target = quoted(v.task)
    items = [e for e in v.elements if e.role in ("li", "treeitem", "link", "span", "a")]
    exact = [e for e in items if e.name == target] or [e for e in items if e.name.split()[:1] == [target]]
    if exact:
        return click(exact[-1])
    # Closed folders are the hit areas the page marks as expandable (their names no longer include the
    # hidden children's text); older snapshots named a folder after its children, hence the fallback.
    closed = [e for e in v.elements if "expandable-hitarea" in e.attrs.get("class", "") and not clicked(v, e)]
    if closed:
        return click(closed[0])
    folders = [e for e in items if " " in e.name and not clicked(v, e)]
    folders.sort(key=lambda e: target not in e.name.split())  # folders that contain the target first
    return click(folders[0]) if folders else None


# --- forms and typing --------------------------------------------------------------------------------


@solver("enter-text", "enter-text-dynamic")
def _enter_text(v: PromptView) -> dict[str, Any] | None:
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], quoted(v.task))]) if fields else None


@solver("enter-text-2")
def _enter_text_2(v: PromptView) -> dict[str, Any] | None:
    word = quoted(v.task)
    word = word.upper() if "upper case" in v.task else word.lower()
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], word)]) if fields else None


@solver("enter-password")
def _password(v: PromptView) -> dict[str, Any] | None:
    pw = quoted(v.task)
    return fill_then_submit(v, [(f, pw) for f in inputs(v)[:2]])


@solver("login-user", "login-user-popup")
def _login(v: PromptView) -> dict[str, Any] | None:
    if "Exit to home page?" in v.text:
        return click(named(v, "Cancel", ("button",)))
    user, pw = quoted(v.task, 0), quoted(v.task, 1)
    fields = inputs(v)
    if len(fields) < 2:
        return None
    name_f, pass_f = fields[0], fields[1]
    if name_f.value != user:
        return typed(name_f, user)
    cancelled = [i for i, h in enumerate(v.history) if h.action == "click" and '"Cancel"' in h.text]
    typed_at = [
        i for i, h in enumerate(v.history) if h.ok and h.action == "type" and f"[{pass_f.index}]" in h.text
    ]
    if not typed_at or (cancelled and cancelled[-1] > typed_at[-1]):
        return typed(pass_f, pw)
    return click(named(v, "Login", ("button",)) or named(v, "OK", ("button",)))


@solver("enter-date")
def _enter_date(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"(\d\d)/(\d\d)/(\d{4})", v.task)
    fields = inputs(v)
    if not m or not fields:
        return None
    iso = f"{m.group(3)}-{m.group(1)}-{m.group(2)}"
    return fill_then_submit(v, [(fields[0], iso)])


@solver("enter-time")
def _enter_time(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"(\d{1,2}):(\d\d) ?([AP]M)", v.task)
    fields = inputs(v)
    if not m or not fields:
        return None
    h = int(m.group(1)) % 12 + (12 if m.group(3) == "PM" else 0)
    return fill_then_submit(v, [(fields[0], f"{h:02d}:{m.group(2)}")])


@solver("find-word")
def _find_word(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"(\d+(?:st|nd|rd|th)) word", v.task)
    words = page_words(v, v.task).replace("Submit", " ").split()
    n = int(re.sub(r"\D", "", m.group(1))) - 1 if m else -1
    fields = inputs(v)
    if not fields or not 0 <= n < len(words):
        return None
    return fill_then_submit(v, [(fields[0], re.sub(r"[^A-Za-z0-9]", "", words[n]))])


@solver("simple-arithmetic")
def _arith(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"(-?\d+)\s*([-+x*×])\s*(-?\d+)\s*=", page_words(v, v.task))
    fields = inputs(v)
    if not m or not fields:
        return None
    a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
    result = a + b if op == "+" else a - b if op == "-" else a * b
    return fill_then_submit(v, [(fields[0], str(result))])


@solver("simple-algebra")
def _algebra(v: PromptView) -> dict[str, Any] | None:
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
def _read_table(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"value of (.+?) into", v.task)
    body = page_words(v, v.task).split(" Submit")[0]
    value = _table(body).get(m.group(1)) if m else None
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], value)]) if value and fields else None


@solver("read-table-2")
def _read_table_2(v: PromptView) -> dict[str, Any] | None:
    body = page_words(v, v.task).split(" Submit")[0]
    labels = re.findall(r"(" + "|".join(_TABLE_KEYS) + r"):", body)
    table = _table(body.split(labels[0] + ":")[0]) if labels else {}
    fields = inputs(v)
    if len(labels) != len(fields) or not all(lbl in table for lbl in labels):
        return None
    return fill_then_submit(v, [(f, table[lbl]) for f, lbl in zip(fields, labels, strict=True)])


@solver("form-sequence-2")
def _form_seq_2(v: PromptView) -> dict[str, Any] | None:
    m = re.search(
        r"Check the (\d\w\w) radio button and enter the number \"(.*?)\" into the (\d\w\w) textbox", v.task
    )
    radios = [e for e in v.elements if e.role == "radio"]
    fields = inputs(v)
    if not m:
        return None
    r, t = _ORDINALS[m.group(1)], _ORDINALS[m.group(3)]
    if r >= len(radios) or t >= len(fields):
        return None
    if not radios[r].checked:
        return click(radios[r])
    return fill_then_submit(v, [(fields[t], m.group(2))])


@solver("use-spinner")
def _spinner(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"Select (-?\d+)", v.task)
    fields = inputs(v)
    return fill_then_submit(v, [(fields[0], m.group(1))]) if m and fields else None


@solver("choose-list")
def _choose_list(v: PromptView) -> dict[str, Any] | None:
    m = re.match(r"Select (.+) from the list", v.task)
    sel = next((e for e in v.elements if e.role in ("select", "combobox", "listbox")), None)
    if not m or sel is None:
        return None
    if sel.value != m.group(1):
        return {"action": "select", "index": sel.index, "value": m.group(1)}
    return submit(v)


@solver("click-scroll-list")
def _scroll_list(v: PromptView) -> dict[str, Any] | None:
    m = re.match(r"Select (.+) from the scroll list", v.task)
    sel = next((e for e in v.elements if e.role in ("select", "listbox")), None)
    if not m or sel is None:
        return None
    names = [n.strip() for n in m.group(1).split(",")]
    done = any(h.ok and h.action == "select" for h in v.history)
    return submit(v) if done else {"action": "select", "index": sel.index, "value": names}


@solver("odd-or-even")
def _odd_even(v: PromptView) -> dict[str, Any] | None:
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
def _guess(v: PromptView) -> dict[str, Any] | None:
    fields = inputs(v)
    if not fields:
        return None
    field = fields[0]
    guesses = [
        int(m.group(1))
        for h in v.history
        if h.ok and h.action == "type"
        for m in [re.search(r'text="(-?\d+)"', h.text)]
        if m
    ]
    submitted = sum(1 for h in v.history if h.ok and h.action == "click")
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
def _generate(v: PromptView) -> dict[str, Any] | None:
    m = re.search(r"number (less|greater|more) than (-?\d+)", v.task)
    parity = re.search(r"an (odd|even) number", v.task)
    shown = re.search(r"(-?\d+) Generate", page_words(v, v.task))
    if not m and not parity:
        return None
    if shown:
        n = int(shown.group(1))
        if parity:
            ok = (n % 2 == 1) == (parity.group(1) == "odd")
        else:
            ok = n < int(m.group(2)) if m.group(1) == "less" else n > int(m.group(2))
        if ok:
            return submit(v)
    return click(named(v, "Generate", ("button",)))


@solver("find-greatest")
def _greatest(v: PromptView) -> dict[str, Any] | None:
    cards = [e for e in v.elements if e.role != "button" and re.fullmatch(r"-?\d+", e.name)]
    if not cards:
        return None
    best = max(cards, key=lambda e: int(e.name))
    return submit(v) if clicked(v, best) else click(best)


@solver("scroll-text-2")
def _scroll_text_2(v: PromptView) -> dict[str, Any] | None:
    area = next((e for e in v.elements if e.role == "textarea"), None)
    if area is None:
        return None
    if not any(h.ok and h.action == "scroll" for h in v.history):
        direction = "up" if "to the top" in v.task else "down"
        return {"action": "scroll", "direction": direction, "amount": 5000, "index": area.index}
    return submit(v)


@solver("use-slider")
def _slider(v: PromptView) -> dict[str, Any] | None:
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
    key = {"action": "pressKey", "key": "ArrowRight" if want > have else "ArrowLeft"}
    return [key] * min(abs(want - have), 10)
