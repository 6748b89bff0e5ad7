"""Score a finished task independently of the model's claim: URL, page text, JS, state endpoint, confirmations.

``evaluate`` runs while the task's browser context is still open (the state endpoint is fetched with the
context's own request client, so the per-visitor ``kite_sid`` cookie applies).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from pydantic import BaseModel, Field

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.batch.tasks import Check

if TYPE_CHECKING:
    from playwright.async_api import Page

    from kite_browser.agent.browser.context import ContextSession

# Visible text of a document, including open shadow roots (innerText does not pierce them).
_TEXT_JS = """() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        for (const c of el.shadowRoot.children) out.push(c.innerText || c.textContent || '');
        walk(el.shadowRoot);
      }
    }
  };
  if (document.body) { out.push(document.body.innerText || ''); walk(document); }
  return out.join('\\n');
}"""


class CheckOutcome(BaseModel):
    passed: bool
    failures: list[str] = Field(default_factory=list)
    """One line per part of the check that did not hold."""


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def dotted(data: JsonValue, key: str) -> JsonValue:
    """``dotted({"cart": {"items": [{"id": 3}]}}, "cart.items.0.id") == 3``; KeyError when missing.

    Keys that contain dots (emails) use a JSON-pointer form: ``/accounts/demo@kite.test/name``. A final
    ``length`` (or ``/length``) gives a list's length."""
    node = data
    parts = key.strip("/").split("/") if key.startswith("/") else key.split(".")
    for part in parts:
        if isinstance(node, list) and part.lstrip("-").isdigit():
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part == "length":
            node = len(node)
        else:
            raise KeyError(key)
    return node


async def page_text(page: Page) -> str:
    """The visible text of every frame of the page (cross-origin ones included)."""
    parts: list[str] = []
    for frame in page.frames:
        try:
            parts.append(await frame.evaluate(_TEXT_JS))
        except Exception:  # a detached or navigating frame contributes nothing
            continue
    return "\n".join(parts)


def confirmations(run_dir: str | Path | None) -> list[JsonObject]:
    """Every action in the run record whose safety decision asked for confirmation."""
    if not run_dir:
        return []
    path = Path(run_dir) / "steps.jsonl"
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            step = json.loads(line)
        except json.JSONDecodeError:
            continue
        for item in step.get("actions") or []:
            decision = item.get("decision") or {}
            if decision.get("level") == "confirm":
                out.append({"step": step.get("step"), **item})
    return out


async def evaluate(
    check: Check,
    ctx: ContextSession,
    *,
    answer: str = "",
    run_dir: str | None = None,
    base_url: str | None = None,
    data: JsonValue = None,
) -> CheckOutcome:
    """Evaluate every part of ``check`` against the context's active page, the answer, the structured answer
    (``data``) and the run record."""
    failures: list[str] = []
    page = ctx.page
    url = page.url if page is not None else ""
    if check.url is not None and not re.search(check.url, url):
        failures.append(f"url: {url!r} does not match /{check.url}/")
    wanted, unwanted = _as_list(check.text), _as_list(check.not_text)
    if wanted or unwanted:
        text = await page_text(page)
        flat = " ".join(text.split())
        failures += [f"text: {t!r} not on the page" for t in wanted if " ".join(t.split()) not in flat]
        failures += [f"not_text: {t!r} is on the page" for t in unwanted if " ".join(t.split()) in flat]
    for expr in _as_list(check.js):
        try:
            ok = await page.evaluate("(src) => !!(0, eval)(src)", expr)
        except Exception as exc:
            failures.append(f"js: {expr!r} threw {str(exc).splitlines()[0][:200]}")
            continue
        if not ok:
            failures.append(f"js: {expr!r} is false")
    if check.state:
        failures += await _state_failures(check, ctx, base_url or url)
    if check.confirmed is not None:
        asked = confirmations(run_dir)
        names = [act.get("action") if isinstance(act := a.get("action", {}), dict) else None for a in asked]
        if check.confirmed is True and not asked:
            failures.append("confirmed: no action asked for confirmation")
        elif check.confirmed is False and asked:
            failures.append(f"confirmed: expected no confirmation, got {names}")
        elif isinstance(check.confirmed, str) and check.confirmed not in names:
            failures.append(f"confirmed: no {check.confirmed} asked for confirmation (asked: {names})")
    if check.answer is not None and not re.search(check.answer, answer or "", re.I):
        failures.append(f"answer: {answer[:200]!r} does not match /{check.answer}/")
    if check.data is not None:
        failures += data_failures(check.data, data)
    return CheckOutcome(passed=not failures, failures=failures)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:200]


def data_failures(expected: Mapping[str, object], data: JsonValue) -> list[str]:
    """One line per key of ``expected`` whose value in ``data`` (the structured answer) differs."""
    if data is None:
        return ["data: the run gave no structured answer (done's data)"]
    failures = []
    for key, want in expected.items():
        try:
            got = dotted(data, key)
        except (KeyError, IndexError, TypeError):
            failures.append(f"data: {key} missing in {_json(data)}")
            continue
        if got != want:
            failures.append(f"data: {key} = {_json(got)}, expected {_json(want)}")
    return failures


async def _state_failures(check: Check, ctx: ContextSession, base: str) -> list[str]:
    endpoint = urljoin(base, check.state_url)
    try:
        response = await ctx.context.request.get(endpoint, timeout=10_000)
        data = await response.json()
    except Exception as exc:
        return [f"state: could not fetch {endpoint}: {str(exc).splitlines()[0][:200]}"]
    return state_failures(check.state or {}, data, endpoint)


def state_failures(expected: Mapping[str, object], data: JsonValue, where: str) -> list[str]:
    """One line per dotted key of ``expected`` whose value in the state ``data`` (read from ``where``) differs."""
    failures = []
    for key, want in expected.items():
        try:
            actual = dotted(data, key)
        except (KeyError, IndexError):
            failures.append(f"state: {key} missing in {where}")
            continue
        if actual != want:
            failures.append(
                f"state: {key} = {_json(actual)}, expected {json.dumps(want, ensure_ascii=False)}"
            )
    return failures
