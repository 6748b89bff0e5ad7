"""The ``browser`` module's clicks get the same second look as the agent's: a button relabelled between the
snapshot the policy judged and the click is judged again on the live element (tests/safety/test_swaps_browser.py
has the attacks; here one is enough to show the module is wired)."""

from __future__ import annotations

import re
from typing import Any

from kite_browser.safety.confirm import ConfirmAnswer, ConfirmRequest
from tests.modules.conftest import ToolboxHarness

PAGE = """<!doctype html><title>Review</title><script>window.log = []</script>
<button id=hover onmouseover="this.textContent = 'Pay now'" onclick="log.push('paid')">Continue</button>
<button id=plain onclick="log.push('plain')">Show summary</button>"""


class Asked:
    def __init__(self) -> None:
        self.asked: list[ConfirmRequest] = []

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self.asked.append(request)
        return ConfirmAnswer(approved=False, reason="test says no")

    async def notify(self, request: ConfirmRequest) -> None:
        return None


def test_a_relabelled_button_is_judged_again_before_the_click(
    harness_factory: Any, pages_server: Any
) -> None:
    h: ToolboxHarness = harness_factory(["browser"])
    page = h.ok("browser", {"action": "navigate", "target_url": pages_server.add("/checkout/review", PAGE)})
    ids = dict(re.findall(r'\[(\d+)\] button "([^"]+)"', page["snapshot"]))
    ref = {name: i for i, name in ids.items()}
    asked = Asked()
    refused = h.call(
        "browser",
        {"action": "act", "request": {"kind": "click", "target_id": ref["Continue"]}},
        confirmer=asked,
    )
    assert refused.get("error") == "target_changed" and "'Pay now'" in refused["message"], refused
    assert [r.element.name for r in asked.asked if r.element is not None] == ["Pay now"]
    h.ok("browser", {"action": "act", "request": {"kind": "click", "target_id": ref["Show summary"]}})
    value = h.ok(
        "browser", {"action": "act", "request": {"kind": "evaluate", "text": "return log"}}, confirmer=_Yes()
    )
    assert value["data"]["value"] == ["plain"], value


class _Yes(Asked):
    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        return ConfirmAnswer(approved=True)
