"""A workflow as a readable Playwright-for-Python script that runs without Kite (issue 32, item 7).

Each step's locator comes from its fingerprint: ``get_by_test_id``, then ``get_by_role`` with the accessible
name, ``get_by_label``, the id, the ``name`` attribute; the variables are the function's parameters (a secret's
default is read from ``KITE_SECRET_<NAME>``); the expected effects are ``expect`` assertions. An action with
no Playwright equivalent here stops the export with a typed error naming the step.
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
    base = "page"
    for part in (fp.frame or "").split(".") if fp.frame else []:
        base += f'.frame_locator("iframe").nth({int(part)})'
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


def lines_of(step: Step, i: int) -> list[str]:
    out = [f"    # {i}. {step.intent or step.action}"]
    exp = step.expect
    if exp is not None and exp.refused is not None:  # Kite's gate refused it: the script does not do it
        return [*out, f"    # not done: Kite's safety gate {exp.refused} this step in the recorded run"]
    action = call(step, i)
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
    return out


HEAD = '''"""Exported from a Kite workflow (kite workflow export): {task}

    python {{script}} [--start-url URL] [--chromium PATH] [--headed]{flags}

Plain Playwright for Python: no Kite needed, and none of Kite's safety either: no gate asks before a step
that pays, deletes or submits. Read it before you run it.
"""

import argparse
import os
import re
from urllib.parse import urlsplit, urlunsplit

from playwright.sync_api import Page, expect, sync_playwright

START_URL = {start!r}


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


def playwright_script(wf: Workflow) -> str:
    """The Python source of a Playwright script doing what ``wf`` does."""
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
        task=wf.task.replace('"""', "'''") or "(no task)", flags=flags, start=wf.start_url, params=params
    )
    return head + "\n".join(body) + "\n" + TAIL.format(options=options, passed=passed)
