"""How a run stops and what it reports: the ``Stop`` exception, the ledger of refused actions, and the
``RunResult`` built from both. Kept out of ``agent/loop.py`` so the loop reads as the order of a step."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.exec.base import NO_EFFECT
from kite_browser.agent.browser.observation import ActionResult, Element, ErrorInfo, Observation
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import AgentConfig
from kite_browser.agent.record import RefusedAction, RunResult

if TYPE_CHECKING:
    from kite_browser.agent.runtime import Totals

StopWhen = Callable[[ContextSession], Awaitable[str | None]]
"""Asked after every step: a reason when the task has ended by itself (a MiniWoB episode is over), else None."""


class Stop(Exception):
    def __init__(
        self, reason: str, message: str = "", *, success: bool = False, answer: str = "", data: Any = None
    ) -> None:
        super().__init__(message or reason)
        self.reason, self.message, self.success, self.answer = reason, message, success, answer
        self.data = data

    @classmethod
    def unreachable(cls, url: str, error: ErrorInfo | None) -> Stop:
        """The start URL could not be opened: "could not open URL" once (a navigation error already says it)."""
        message = error.message if error else "navigation failed"
        if not message.startswith("could not open "):
            message = f"could not open {url}: {message}"
        return cls("start_url_unreachable", message)


class Refusals:
    """Refused actions of a run. The same action on the same element and site, later run with the user's
    approval (or allowed), settles an earlier refusal."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str, str], RefusedAction] = {}

    def clear(self) -> None:
        self._open = {}

    def track(
        self,
        action: Action,
        element: Any,
        obs: Observation,
        step: int,
        described: str,
        refused: str | None,
        reason: str,
    ) -> None:
        key = (action.action, element.name if element is not None else repr(action.to_json()), host(obs.url))
        if refused is None:
            self._open.pop(key, None)
            return
        self._open[key] = RefusedAction(step=step, action=described, outcome=refused, reason=reason)

    @staticmethod
    def after_run(result: ActionResult) -> tuple[str, str] | None:
        """A refusal that happened while the action ran, as (outcome, reason): its target changed at the
        input and the second look or the input guard refused it (``refused``), or the page's own sensitive
        confirm()/prompt()/beforeunload was dismissed (``dismissed``)."""
        if result.error is not None and result.error.error == "target_changed":
            return "refused", result.error.message
        dialog = result.effects.dialog
        if dialog is not None and dialog.handled == "dismissed" and dialog.reason:
            return "dismissed", f'the page\'s {dialog.type} "{dialog.message[:120]}" was {dialog.reason}'
        return None

    @property
    def outstanding(self) -> list[RefusedAction]:
        return list(self._open.values())


class Guards:
    """Stops a run that keeps failing, repeats itself on an unchanged page, or overspends its budgets."""

    def __init__(self, limits: AgentConfig) -> None:
        self.limits = limits
        self.failures, self.repeats, self._last_key, self._key_before = 0, 0, "", ""

    def step_failed(self, failed: bool) -> None:
        self.failures = self.failures + 1 if failed else 0
        if self.failures >= self.limits.max_failures:
            raise Stop("max_failures", f"{self.failures} consecutive steps failed")

    def check_loop(self, actions: list[Action], obs: Observation, *, no_effect: bool = True) -> str | None:
        """Stop on the configured repeat count; a warning for the model before that, else None.
        ``no_effect``: every action of the step said it changed nothing (or failed); otherwise the page's text
        counts too, so clicking "Generate" until the right number shows, or nudging a slider whose value is
        plain text, is progress (a countdown ticking beside a no-op is not)."""
        key = loop_key(actions, obs, with_text=not no_effect)
        # A repeat of the step before, or of the one before that: clicking a checkbox on and off again (each
        # click changes its state, so no two steps in a row are alike) is a loop too.
        self.repeats = self.repeats + 1 if key in (self._last_key, self._key_before) else 1
        self._last_key, self._key_before = key, self._last_key
        if self.repeats >= self.limits.loop_stop:
            raise Stop(
                "loop_detected",
                f"the same action was repeated {self.repeats} times without getting any further",
            )
        if self.repeats >= self.limits.loop_warn:
            return (
                f"You have repeated the same action {self.repeats} times without getting any further. Do not "
                "repeat it: do the next part of the task (another element), or call done."
            )
        return None

    def check_budgets(self, t: Totals) -> None:
        a = self.limits
        if a.max_tokens is not None and t.tokens_in + t.tokens_out > a.max_tokens:
            raise Stop("max_tokens", f"used {t.tokens_in + t.tokens_out} tokens (limit {a.max_tokens})")
        if a.max_cost_usd is not None and t.cost_usd is not None and t.cost_usd > a.max_cost_usd:
            raise Stop("max_cost", f"cost ${t.cost_usd:.4f} (limit ${a.max_cost_usd})")


def said_no_effect(result: ActionResult | None) -> bool:
    """The action failed, changed nothing the executor could see, or did nothing because nothing was needed
    (``no_effect`` in its data). Not read from its message: that quotes the page's own labels."""
    if result is None or not result.ok or result.effects.changed is False:
        return True
    return bool(result.data.get(NO_EFFECT))


def loop_key(actions: list[Action], obs: Observation, *, with_text: bool = False) -> str:
    """What makes a step "the same again": the actions, the URL, the scroll and the state of the page's
    elements (name, value, checked, selected, expanded, disabled) — not the page's text: a countdown or a
    clock ticking on the page must not hide a loop. (So a click whose only effect is a number changing in
    plain text counts as a repeat too; one that changes an element, like "Cart (2)", does not.)
    Elements are named by what they are, not by their index: a page loaded again gets new indexes (Kite never
    reuses one), and a model that selects "Colour" and clicks "Search" on every reload is repeating itself."""
    states = hashlib.sha1(
        "|".join(
            f"{e.tag}:{e.role}:{e.name}:{e.value}:{e.checked}:{e.selected}:{e.expanded}:{e.disabled}"
            for e in obs.elements
        ).encode()
    ).hexdigest()
    s = obs.summary
    focused = obs.element(s.focused) if isinstance(s.focused, int) else None
    text = hashlib.sha1(s.visible_text.encode()).hexdigest() if with_text else ""
    key = [obs.url, [_action_key(a, obs) for a in actions], states, s.scroll, _what(focused, s.focused), text]
    return repr(key)


def _action_key(action: Action, obs: Observation) -> dict[str, Any]:
    data = action.to_json()
    if isinstance(data.get("index"), int):
        data["index"] = _what(obs.element(data["index"]), data["index"])
    return data


def _what(el: Element | None, fallback: object) -> object:
    return f"{el.role}:{el.tag}:{el.name}" if el is not None else fallback


def judge_success(stop: Stop, declined: list[RefusedAction]) -> tuple[bool, str]:
    """A claimed success with an outstanding refusal is not a success; the message says what was not done."""
    if stop.success and declined:
        what = "; ".join(f"{d.action} ({d.outcome})" for d in declined)
        return False, f"the model reported success, but the run needed what was not done: {what}"
    return stop.success, stop.message


def build_result(
    stop: Stop,
    declined: list[RefusedAction],
    t: Totals,
    steps: int,
    started: float,
    run_dir: str,
    final_url: str | None,
) -> RunResult:
    """The run's result from how it stopped, its outstanding refusals and its totals (``started``: monotonic)."""
    success, message = judge_success(stop, declined)
    return RunResult(
        success=success,
        declined=declined,
        claimed_success=stop.success,
        answer=stop.answer,
        data=stop.data,
        stop_reason=stop.reason,
        message=message,
        steps=steps,
        tokens_in=t.tokens_in,
        tokens_out=t.tokens_out,
        cost_usd=t.cost_usd,
        duration_s=round(time.monotonic() - started, 3),
        model_latency_s=round(t.model_latency_s, 3),
        replies_rejected=t.replies_rejected,
        actions_refused=t.actions_refused,
        run_dir=run_dir,
        final_url=final_url,
    )


def host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def digest(obs: Observation) -> dict[str, Any]:
    """What the step record keeps of a page: url, title, element count and a hash of what the model saw."""
    names = "|".join(f"{e.index}:{e.name}:{e.value}:{e.checked}" for e in obs.elements)
    page = f"{obs.url}|{obs.summary.scroll}|{obs.summary.visible_text}|{names}"
    h = hashlib.sha1(page.encode()).hexdigest()[:12]
    return {"url": obs.url, "title": obs.summary.title, "elements": len(obs.elements), "hash": h}


def current_url(ctx: ContextSession) -> str | None:
    try:
        return ctx.page.url
    except Exception:
        return None


__all__ = [
    "Guards",
    "Refusals",
    "RunResult",
    "Stop",
    "StopWhen",
    "build_result",
    "current_url",
    "digest",
    "host",
    "judge_success",
    "loop_key",
]
