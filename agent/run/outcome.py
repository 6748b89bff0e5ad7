"""The run's result from how it stopped, its outstanding refusals and its totals."""

from __future__ import annotations

import contextlib
import time

from kite_browser.agent.base import telemetry
from kite_browser.agent.browser.env import EnvSafety
from kite_browser.agent.config import TelemetryConfig
from kite_browser.agent.run.record import RefusedAction, RunResult
from kite_browser.agent.run.stop import Stop
from kite_browser.agent.run.totals import Totals


def judge_success(stop: Stop, declined: list[RefusedAction]) -> tuple[bool, str]:
    """A claimed success with an outstanding refusal, or one the pages contradict (``stop.verified`` False),
    is not a success; the message says what was not done or what the page shows."""
    if stop.success and declined:
        what = "; ".join(f"{d.action} ({d.outcome})" for d in declined)
        return False, f"the model reported success, but the run needed what was not done: {what}"
    if stop.success and stop.verified is False:
        return False, f"the model reported success, unverified: {stop.verification}"
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
        verified=stop.verified,
        verification=stop.verification,
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
        model_calls=t.calls,
        policies_acted=dict(t.policies_acted),
        run_dir=run_dir,
        final_url=final_url,
    )


def run_attributes(result: RunResult) -> telemetry.Attributes:
    """A run span's closing attributes: how it ended, its steps, tokens, cost and what was declined."""
    return {
        "kite.success": result.success,
        "kite.claimed_success": result.claimed_success,
        "kite.verified": result.verified,
        "kite.stop_reason": str(result.stop_reason),
        "kite.steps": result.steps,
        "gen_ai.usage.input_tokens": result.tokens_in,
        "gen_ai.usage.output_tokens": result.tokens_out,
        "kite.cost_usd": result.cost_usd,
        "kite.model_calls": result.model_calls,
        "kite.declined": [d.action for d in result.declined],
        "kite.final_url": result.final_url,
    }


def open_run_span(
    task: str, model: str, label: str | None, safety: EnvSafety, settings: TelemetryConfig
) -> tuple[contextlib.AbstractContextManager[telemetry.SpanLike], telemetry.SpanLike]:
    """The run's span, entered (``end_span`` leaves it, in the run's ``finally``: the steps' spans are its
    children), joined to the caller's ``traceparent`` when nothing else is current; the task redacted."""
    opening = {
        "kite.task": safety.secrets.redact(task.strip()),
        "gen_ai.request.model": model,
        "kite.label": label,
    }
    traced = telemetry.span("kite.run", opening, traceparent=settings.traceparent)
    return traced, traced.__enter__()


def end_span(
    traced: contextlib.AbstractContextManager[telemetry.SpanLike], span: telemetry.SpanLike, result: RunResult
) -> None:
    """The run span closed with how the run ended."""
    span.set(run_attributes(result))
    if not result.success:
        span.fail(str(result.stop_reason))
    traced.__exit__(None, None, None)
