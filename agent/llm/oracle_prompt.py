"""Read Kite's prompt back into structure, for the oracle model: the task, the history of actions and their
outcomes, the page summary and the element list exactly as ``agent/browser/render.py`` renders it.

The oracle sees nothing but the prompt: if an element is missing from the rendered list, it cannot act on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.browser.actions import ACTION_NAMES
from agent.prompt import strings

_ELEMENT = re.compile(r"^(\*)?\[(\d+)\] (\S+)(.*)$")
_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_ATTR = re.compile(rf"\s+([a-z_]+)=(?:{_QUOTED}|(\S+))|\s+([a-z]+)(?=\s|$)")
_NAME = re.compile(rf"^\s+{_QUOTED}")
_STEP = re.compile(r"(\d+)\D+(\d+)")
_MORE = re.compile(r"^… (?:(\d+) more below)?(?:, )?(?:(\d+) above)?")
_ACTION_START = re.compile(r"^(" + "|".join(ACTION_NAMES) + r")(?=\s|$)")
_FLAGS = ("disabled", "checked", "selected", "expanded", "collapsed")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


@dataclass
class El:
    """One line of the element list."""

    index: int
    role: str
    name: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    new: bool = False
    line: str = ""

    @property
    def value(self) -> str:
        return self.attrs.get("value", "")

    @property
    def checked(self) -> bool:
        return "checked" in self.flags

    @property
    def frame(self) -> str | None:
        return self.attrs.get("frame")

    def label(self) -> str:
        """Name, else placeholder: what a person would call the element."""
        return self.name or self.attrs.get("placeholder", "")


def parse_element(line: str) -> El | None:
    m = _ELEMENT.match(line.strip())
    if not m:
        return None
    star, index, role, rest = m.groups()
    el = El(index=int(index), role=role, new=bool(star), line=line.strip())
    nm = _NAME.match(rest)
    if nm:
        el.name = _unescape(nm.group(1))
        rest = rest[nm.end() :]
    for key, quoted, bare, flag in _ATTR.findall(rest):
        if key:
            el.attrs[key] = _unescape(quoted) if quoted or not bare else bare
        elif flag in _FLAGS:
            el.flags.add(flag)
    return el


@dataclass
class Entry:
    """One past action as the history shows it: ``click [3] button "Go" → ok (mouse); now at …``."""

    action: str
    ok: bool
    text: str
    step: int | None = None


def _entry(text: str, step: int | None) -> Entry | None:
    m = _ACTION_START.match(text.strip())
    if not m:
        return None
    _, _, outcome = text.partition(" → ")
    return Entry(action=m.group(1), ok=outcome.strip().startswith("ok"), text=text.strip(), step=step)


@dataclass
class PromptView:
    task: str = ""
    language: str = "en"
    step: int = 0
    max_steps: int = 0
    history: list[Entry] = field(default_factory=list)
    """Every past action still visible in the prompt (older steps, then the last step's results)."""
    results_text: str = ""
    head: str = ""
    """The user message before the page: step line, earlier steps, results, warnings."""
    page: str = ""
    url: str = ""
    title: str = ""
    text: str = ""
    elements: list[El] = field(default_factory=list)
    more_below: int = 0
    more_above: int = 0
    dialog: str = ""
    tabs: str = ""
    focused: int | None = None
    omitted: bool = False
    """True when the history says earlier lines were left out (progress cannot be fully replayed)."""

    def find(self, **spec: Any) -> list[El]:
        from agent.llm.oracle_match import match_elements

        return match_elements(self.elements, spec)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _section(text: str, heading: str, headings: list[str]) -> str | None:
    marker = f"# {heading}\n"
    start = text.find(marker)
    if start < 0:
        return None
    body = text[start + len(marker) :]
    ends = [body.find(f"\n# {h}\n") for h in headings if h != heading]
    ends = [e for e in ends if e >= 0]
    return body[: min(ends)] if ends else body


def _language(text: str) -> str:
    for lang in ("zh", "en"):
        if f"# {strings(lang)['task_heading']}\n" in text:
            return lang
    return "en"


def parse_prompt(messages: list[dict[str, Any]]) -> PromptView:
    system = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
    user = _text(next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), ""))
    lang = _language(system + "\n" + user)
    t = strings(lang)
    view = PromptView(language=lang)
    fence = user.find("<untrusted_page>")
    head = user[:fence] if fence >= 0 else user
    end = user.rfind("</untrusted_page>")
    view.head = head
    view.page = user[fence + len("<untrusted_page>\n") : end if end > fence else None] if fence >= 0 else ""
    step_line = head.strip().splitlines()[0] if head.strip() else ""
    m = _STEP.search(step_line)
    if m:
        view.step, view.max_steps = int(m.group(1)), int(m.group(2))
    heads = [
        t["task_heading"],
        t["history_heading"],
        t["results_heading"],
        t["warnings_heading"],
        t["page_heading"],
    ]
    view.task = (_section(head, t["task_heading"], heads) or "").strip()
    history = _section(head, t["history_heading"], heads) or ""
    for line in history.splitlines():
        hm = re.match(r"^(\d+)\. (.*)$", line)
        if not hm:
            view.omitted = view.omitted or bool(re.match(r"^\(\d+ ", line))
            continue
        for part in hm.group(2).split(" | "):
            e = _entry(part, int(hm.group(1)))
            if e:
                view.history.append(e)
    results = _section(head, t["results_heading"], heads) or ""
    view.results_text = results
    for line in results.splitlines():
        e = _entry(line, view.step - 1)
        if e:
            view.history.append(e)
    _parse_page(view)
    return view


def _parse_page(view: PromptView) -> None:
    lines = view.page.splitlines()
    in_elements, text_lines = False, []
    for line in lines:
        if not in_elements:
            if line.startswith("URL: "):
                view.url = line[5:].strip()
            elif line.startswith("Title: "):
                view.title = line[7:].strip()
            elif line.startswith("Focused: ["):
                view.focused = int(re.sub(r"\D", "", line) or 0)
            elif line.startswith("Dialog: "):
                view.dialog = line[8:].strip()
            elif line.startswith("Tabs (* = active): "):
                view.tabs = line.split(": ", 1)[1]
            elif line.startswith("Text: "):
                text_lines.append(line[6:])
            elif line.startswith("Interactive elements:"):
                in_elements = True
            elif text_lines:
                text_lines.append(line)
            continue
        el = parse_element(line)
        if el is not None:
            view.elements.append(el)
        elif line.startswith("… "):
            mm = _MORE.match(line)
            if mm and (mm.group(1) or mm.group(2)):
                view.more_below = int(mm.group(1) or 0)
                view.more_above = int(mm.group(2) or 0)
    view.text = "\n".join(text_lines)
