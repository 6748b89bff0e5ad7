"""A workflow as a readable Playwright-for-Python script that runs without Kite (issue 32, item 7).

Each step's locator comes from its fingerprint: ``get_by_test_id``, then ``get_by_role`` with the accessible
name, ``get_by_label``, the id, the ``name`` attribute; an element in a frame is looked for in each of the
page's frames (``in_frame``: the frame that holds it, whatever its position among the page's iframes); the
variables are the function's parameters (a secret's default is read from ``KITE_SECRET_<NAME>``). Each step's
effect is an assertion: the recorded URL and field value, the option a select shows, a radio checked, and a
submit that changed the page (its URL or its text), so a step that did nothing fails the script. An action
with no Playwright equivalent here stops the export with a typed error naming the step.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.workflow.errors import WorkflowInvalidError
from kite_browser.agent.workflow.model import VAR_RE, Step, Workflow
from kite_browser.safety.secrets import PLACEHOLDER_RE

INPUT_ROLES = {
    "number": "spinbutton",
    "range": "slider",
    "checkbox": "checkbox",
    "radio": "radio",
    "search": "searchbox",
    "submit": "button",
    "button": "button",
}
TAG_ROLES = {"a": "link", "button": "button", "select": "combobox", "textarea": "textbox"}
KEYS = {"Control": "Control", "Shift": "Shift", "Alt": "Alt", "Meta": "Meta"}


def ident(name: str) -> str:
    """A variable's name as a Python parameter."""
    out = re.sub(r"\W", "_", name)
    return f"{out}_" if keyword.iskeyword(out) or not out.isidentifier() else out


def expr(text: str) -> str:
    """A string argument as a Python expression: literals, ``{variables}`` and ``<secret>``s joined."""
    parts: list[str] = []
    pos = 0
    pattern = re.compile(f"{VAR_RE.pattern}|{PLACEHOLDER_RE.pattern}")
    for m in pattern.finditer(text):
        if m.start() > pos:
            parts.append(repr(text[pos : m.start()]))
        parts.append(ident(m.group(1) or m.group(2)))
        pos = m.end()
    if pos < len(text) or not parts:
        parts.append(repr(text[pos:]))
    return " + ".join(parts)


def role_of(fp: Fingerprint) -> str | None:
    if fp.role:
        return fp.role
    if fp.tag == "input":
        return INPUT_ROLES.get(fp.attrs.get("type", "text"), "textbox")
    return TAG_ROLES.get(fp.tag)


def locator(fp: Fingerprint) -> str:
    """The Playwright locator of a fingerprint, most specific first (an expression on ``page``)."""
    if fp.frame:
        return f"in_frame(page, lambda f: {_located(fp, 'f')})"
    return _located(fp, "page")


def _located(fp: Fingerprint, base: str) -> str:
    role, name = role_of(fp), fp.name
    whole = bool(name) and not name.endswith("…")
    if fp.attrs.get("data-testid"):
        return f"{base}.get_by_test_id({fp.attrs['data-testid']!r})"
    if fp.role and whole:
        return f"{base}.get_by_role({fp.role!r}, name={name!r}, exact=True)"
    if fp.label and (fp.label == name or not (role and whole)):
        # a label that names it, before a role guessed from the tag (a <select multiple> is a listbox); a
        # label wrapping it reads the control's own text too ("Sort by Featured Price: ..."): its name then
        return f"{base}.get_by_label({fp.label!r}, exact=True)"
    if role and whole:
        return f"{base}.get_by_role({role!r}, name={name!r}, exact=True)"
    if fp.attrs.get("id"):
        return f"{base}.locator({'[id=' + repr(fp.attrs['id']) + ']'!r})"
    if fp.attrs.get("name"):
        return f"{base}.locator({'[name=' + repr(fp.attrs['name']) + ']'!r})"
    if name:
        return f"{base}.get_by_text({name.rstrip('…')!r}).first"
    raise WorkflowInvalidError(f"a target with nothing to find it by: {fp.model_dump(exclude_defaults=True)}")


def key_of(args: dict[str, Any]) -> str:
    return "+".join([*(KEYS.get(m, m) for m in args.get("modifiers") or []), str(args["key"])])


def call(step: Step, i: int) -> str:
    """The Playwright call of one step."""
    a, loc = step.args, locator(step.target) if step.target is not None else None
    simple = {"goBack": "page.go_back()", "goForward": "page.go_forward()", "refresh": "page.reload()"}
    if step.action in simple:
        return simple[step.action]
    if step.action == "navigate":
        return f"page.goto(rebase({expr(a['url'])}, start_url))"
    if step.action == "wait":
        return f"page.wait_for_timeout({int(a['ms'])})"
    if step.action == "executeJS":
        return f"page.evaluate({a['code']!r})"
    if step.action == "pressKey":
        return f"{loc}.press({key_of(a)!r})" if loc else f"page.keyboard.press({key_of(a)!r})"
    if step.action == "scroll" and loc is None:
        dx, dy = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}[a["direction"]]
        amount = int(a.get("amount") or 600)
        return f"page.mouse.wheel({dx * amount}, {dy * amount})"
    if loc is None:
        raise WorkflowInvalidError(f"step {i} ({step.action}) cannot be exported to Playwright", step=i)
    if step.action == "click":
        verb = "dblclick" if a.get("double") else "click"
        button = a.get("mouse_button", "left")
        return f"{loc}.{verb}(" + (f"button={button!r}" if button != "left" else "") + ")"
    if step.action == "type":
        text = expr(a["text"])
        return f"{loc}.press_sequentially({text})" if a.get("append") else f"{loc}.fill({text})"
    if step.action == "select":
        value = a["value"]
        return f"{loc}.select_option({expr(value) if isinstance(value, str) else repr(value)})"
    if step.action == "dragDrop" and step.drop is not None:
        return f"{loc}.drag_to({locator(step.drop)})"
    if step.action in ("hover", "scroll"):
        return f"{loc}.{'hover' if step.action == 'hover' else 'scroll_into_view_if_needed'}()"
    if step.action == "uploadFile":
        return f"{loc}.set_input_files({a['filePath']!r})"
    raise WorkflowInvalidError(f"step {i} ({step.action}) cannot be exported to Playwright", step=i)


SPECIAL = set(".^$*+?()[]{}|\\/")


def url_regex(pattern: str) -> str:
    """A step's expected path pattern (shell-style) as a regex over the whole URL, any origin. Plain
    syntax both Python and JavaScript read alike (Playwright matches it in the page)."""
    out, i = [r"^[a-z]+://[^/]+"], 0
    while i < len(pattern):
        c = pattern[i]
        end = pattern.find("]", i + 2) if c == "[" else -1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif end != -1:
            out.append("[" + "".join("\\" + ch if ch in SPECIAL else ch for ch in pattern[i + 1 : end]) + "]")
            i = end
        else:
            out.append("\\" + c if c in SPECIAL else c)
        i += 1
    return "".join(out) + "$"


def submits(step: Step) -> bool:
    """A click on a submit button, or Enter in a field: the page should change."""
    fp = step.target
    if step.action == "pressKey":
        return step.args.get("key") == "Enter" and fp is not None and fp.tag in ("input", "textarea")
    return step.action == "click" and fp is not None and fp.attrs.get("type") == "submit"


def effect_lines(step: Step, changed: bool) -> list[str]:
    """The assertions after a step beyond its recorded URL and value: the option shown, a radio checked,
    a submit that changed the page (``changed``: no recorded URL says it already)."""
    out: list[str] = []
    fp = step.target
    if fp is not None and step.action == "select" and isinstance(step.args.get("value"), str):
        out.append(f"    expect_selected({locator(fp)}, {expr(step.args['value'])})")
    if fp is not None and step.action == "click" and role_of(fp) == "radio":
        out.append(f"    expect({locator(fp)}).to_be_checked()")
    if changed:
        out.append("    expect_changed(page, before)")
    return out


def lines_of(step: Step, i: int) -> list[str]:
    out = [f"    # {i}. {step.intent or step.action}"]
    exp = step.expect
    if exp is not None and exp.refused is not None:  # Kite's gate refused it: the script does not do it
        return [*out, f"    # not done: Kite's safety gate {exp.refused} this step in the recorded run"]
    action = call(step, i)
    changed = submits(step) and (exp is None or exp.url is None)
    if changed:
        out.append("    before = page_state(page)")
    if exp is not None and exp.new_tab:
        out += [
            "    with page.context.expect_page() as opened:",
            f"        {action}",
            "    page = opened.value",
        ]
    else:
        out.append(f"    {action}")
    if exp is not None and exp.url is not None:
        out.append(f"    expect(page).to_have_url(re.compile({url_regex(exp.url)!r}))")
    if exp is not None and exp.value is not None and step.target is not None:
        out.append(f"    expect({locator(step.target)}).to_have_value({expr(exp.value)})")
    return out + effect_lines(step, changed)


HEAD = '''"""Exported from a Kite workflow (kite workflow export): {task}

    python {script} [--start-url URL] [--chromium PATH] [--headed]{flags}

It needs Playwright for Python (pip install playwright) and a Chromium: Playwright's own
(python -m playwright install chromium), or one already installed, given with --chromium
(--chromium /usr/bin/chromium on Debian and Ubuntu).

Plain Playwright for Python: no Kite needed, and none of Kite's safety either: no gate asks before a step
that pays, deletes or submits. Read it before you run it. Each step's effect is asserted: the script stops
with an AssertionError at the first step that did not do what it did in the recorded run.
"""

import argparse
import os
import re
import time
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from playwright.sync_api import Frame, Locator, Page, expect, sync_playwright

START_URL = {start!r}
WAIT_S = 10.0


def in_frame(page: Page, find: Callable[[Frame], Locator]) -> Locator:
    """The element ``find`` gives in the frame of the page that holds it (any frame, whatever its
    position among the page's iframes)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        for frame in page.frames[1:]:
            found = find(frame)
            if found.count() == 1:
                return found
        if time.monotonic() > deadline:
            raise AssertionError("no frame of the page holds the element")
        page.wait_for_timeout(100)


def page_state(page: Page) -> str:
    """The page's URL and the text of each of its frames: what a submit changes."""
    texts = [page.url]
    for frame in page.frames:
        try:
            texts.append(frame.evaluate("() => document.body ? document.body.innerText : ''"))
        except Exception:  # a frame that went away while read
            texts.append("")
    return "\\n".join(texts)


def expect_changed(page: Page, before: str) -> None:
    """The page changed (its URL or its text) after a submit."""
    deadline = time.monotonic() + WAIT_S
    while page_state(page) == before:
        if time.monotonic() > deadline:
            raise AssertionError("the submit changed nothing on the page")
        page.wait_for_timeout(100)


def expect_selected(select: Locator, value: str) -> None:
    """The select shows the option chosen (by its text or its value)."""
    shown = select.evaluate("s => [...s.selectedOptions].map(o => [o.value, o.label.trim()])")
    if not any(value in pair for pair in shown):
        raise AssertionError(f"the select shows {{shown}}, not {{value!r}}")


def rebase(url: str, start_url: str) -> str:
    """A URL of the recorded origin moved to the origin of ``start_url``."""
    old, new, here = urlsplit(START_URL), urlsplit(start_url), urlsplit(url)
    if (here.scheme, here.netloc) != (old.scheme, old.netloc):
        return url
    return urlunsplit((new.scheme, new.netloc, here.path, here.query, here.fragment))


def run(page: Page, start_url: str = START_URL{params}) -> Page:
    page.goto(start_url)
'''

TAIL = """    return page


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-url", default=START_URL)
    parser.add_argument("--chromium", help="a Chromium to run (default: Playwright's own)")
    parser.add_argument("--headed", action="store_true")
{options}    args = parser.parse_args()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, headless=not args.headed)
        page = browser.new_page()
        page = run(page, args.start_url{passed})
        print(page.url)
        browser.close()


if __name__ == "__main__":
    main()
"""


def playwright_script(wf: Workflow, script: str = "script.py") -> str:
    """The Python source of a Playwright script doing what ``wf`` does (``script``: the file it is
    written to, as its docstring's command line names it)."""
    params, options, passed, flags = "", "", "", ""
    for name, var in wf.variables.items():
        p = ident(name)
        default = (
            f"os.environ.get({'KITE_SECRET_' + name.upper()!r}, '')" if var.secret else repr(var.default)
        )
        params += f", {p}: str = {default}"
        options += (
            f"    parser.add_argument({'--' + name.replace('_', '-')!r}, dest={p!r}, default={default})\n"
        )
        passed += f", {p}=args.{p}"
        flags += f" [--{name.replace('_', '-')} VALUE]"
    body = [line for i, step in enumerate(wf.steps, 1) for line in lines_of(step, i)]
    head = HEAD.format(
        task=wf.task.replace('"""', "'''") or "(no task)",
        script=script,
        flags=flags,
        start=wf.start_url,
        params=params,
    )
    return head + "\n".join(body) + "\n" + TAIL.format(options=options, passed=passed)
