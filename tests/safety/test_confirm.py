"""The Gate and the confirmers: block never runs, batch denies confirm unless approved, 'a' remembers."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.actions import parse_action
from kite_browser.safety.confirm import (
    BatchConfirmer,
    ConfirmAnswer,
    ConfirmRequest,
    Gate,
    TerminalConfirmer,
)
from kite_browser.safety.policy import SafetyPolicy
from tests.safety.pages import page
from tests.safety.scenarios import cases


class CallbackConfirmer:
    """A Confirmer over two async callables (the test decides every answer)."""

    def __init__(
        self,
        fn: Callable[[ConfirmRequest], Awaitable[ConfirmAnswer]],
        notify_fn: Callable[[ConfirmRequest], Awaitable[None]] | None = None,
    ) -> None:
        self._fn, self._notify = fn, notify_fn

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        return await self._fn(request)

    async def notify(self, request: ConfirmRequest) -> None:
        if self._notify is not None:
            await self._notify(request)


PLACE_ORDER = parse_action({"action": "click", "index": 10})


async def test_batch_never_runs_confirm_or_block_without_approval(policy: SafetyPolicy) -> None:
    batch = BatchConfirmer()
    gate = Gate(policy, batch)
    for _, name, lang, action, expected, kw in cases():
        result = await gate.check(parse_action(action), page(name, lang, **kw))
        assert result.allowed is (expected in ("auto", "notify")), (name, action)
        if expected == "confirm":
            assert result.message.startswith("not confirmed: nobody is asked in a batch run; to allow it: ")
    await gate.flush()
    assert batch.asked and all(not a.approved for _, a in batch.asked)
    assert len(batch.notified) == sum(c[4] == "notify" for c in cases())


async def test_batch_approval_by_level_or_action_but_never_block(policy: SafetyPolicy) -> None:
    by_action = Gate(policy, BatchConfirmer(approve=["executeJS"]))
    assert (await by_action.check(parse_action({"action": "executeJS", "code": "1"}), page("home"))).allowed
    assert not (await by_action.check(PLACE_ORDER, page("checkout"))).allowed
    by_level = Gate(policy, BatchConfirmer(approve=["confirm"]))
    assert (await by_level.check(PLACE_ORDER, page("checkout"))).allowed
    blocked = await by_level.check(
        parse_action({"action": "navigate", "url": "https://evil.test/"}), page("home")
    )
    assert not blocked.allowed and "evil.test" in blocked.message
    with pytest.raises(UsageError):
        BatchConfirmer(approve=["block"])
    with pytest.raises(UsageError):
        BatchConfirmer(approve=["clickk"])


async def test_approve_similar_is_remembered_per_action_element_and_domain(policy: SafetyPolicy) -> None:
    asked: list[ConfirmRequest] = []

    async def answer(req: ConfirmRequest) -> ConfirmAnswer:
        asked.append(req)
        return ConfirmAnswer(approved=True, similar=True)

    gate = Gate(policy, CallbackConfirmer(answer))
    first = await gate.check(PLACE_ORDER, page("checkout"))
    again = await gate.check(PLACE_ORDER, page("checkout"))
    other = await gate.check(parse_action({"action": "click", "index": 4}), page("delete"))
    assert first.allowed and again.allowed and again.similar and other.allowed
    assert [r.element.name for r in asked if r.element] == ["Place order", "Permanently delete"]


@pytest.mark.parametrize(
    ("typed", "allowed", "similar"),
    [
        ("y\n", True, False),
        ("a\n", True, True),
        ("n\n", False, False),
        ("", False, False),
        ("what\nn\n", False, False),
    ],
)
async def test_terminal_confirmer(policy: SafetyPolicy, typed: str, allowed: bool, similar: bool) -> None:
    out = io.StringIO()
    term = TerminalConfirmer(read_line=io.StringIO(typed).readline, out=out)
    result = await Gate(policy, term).check(PLACE_ORDER, page("checkout"))
    assert result.allowed is allowed and (result.answer is not None and result.answer.similar is similar)
    assert "Place order" in out.getvalue()
    if not allowed:
        assert result.message.startswith("the user declined: ")


async def test_notify_does_not_block(policy: SafetyPolicy) -> None:
    import asyncio

    release = asyncio.Event()

    async def slow_notify(req: ConfirmRequest) -> None:
        await release.wait()

    async def never(req: ConfirmRequest) -> ConfirmAnswer:
        raise AssertionError("notify must not ask")

    gate = Gate(policy, CallbackConfirmer(never, slow_notify))
    result = await gate.check(parse_action({"action": "click", "index": 5}), page("cart"))
    assert result.allowed and result.decision.level == "notify"
    release.set()
    await gate.flush()
