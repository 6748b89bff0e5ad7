"""The model client: one ``litellm.acompletion`` call per step, with retries, typed errors, usage and cost.

Retried (tenacity; exponential backoff with jitter, honouring Retry-After, at most ``llm.max_attempts``
attempts and ``llm.retry_max_s`` seconds): rate limits, 5xx, timeouts, connection errors. Failing fast with a
typed error that says what to fix: auth errors, bad requests, unsupported parameters, context-window errors
(the planner compacts its history and calls again).

The model string ``local`` is resolved by ``agent.llm.local`` before a client is built: ``LLMClient`` takes a
config whose ``model``/``api_base`` are final. litellm is imported lazily (its import is slow), so this module
is cheap to import for the types alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, field_validator
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.error_map import OPENAI_COMPATIBLE, KeyFrom, _import_litellm, map_exception
from kite_browser.agent.llm.errors import (
    LLMBadRequestError,
    LLMError,
    LLMRateLimitedError,
    LLMUnavailableError,
)
from kite_browser.agent.llm.local_call import LocalCall, applies
from kite_browser.agent.llm.model_names import check_model_request, is_local
from kite_browser.agent.llm.redaction import redact_request

if TYPE_CHECKING:
    from kite_browser.agent.llm.capabilities import Capabilities
    from kite_browser.agent.llm.model import ModelView

log = logging.getLogger("kite.llm")

_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")
_HARD_TIMEOUT_MARGIN_S = 5.0
MAX_TOKENS_PER_CALL = 100_000_000
"""A token count above this (or below 0) is not a real one: it is read as not reported (0)."""


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str
    """The arguments as raw JSON text, exactly as the model sent them."""


def _unsaid(value: object) -> bool:
    return value is None


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """litellm's price for the call when it knows the model; None otherwise (never estimated)."""
    latency_ms: float = 0.0
    """Wall time of the successful attempt."""
    cached_tokens: int | None = Field(default=None, exclude_if=_unsaid)
    """Prompt tokens the server took from its prompt cache instead of reading them (llama.cpp's
    ``timings.cache_n``, else ``usage.prompt_tokens_details.cached_tokens``); None: the server did not say."""
    read_s: float | None = Field(default=None, exclude_if=_unsaid)
    """Seconds the server spent reading the prompt's uncached tokens (llama.cpp's ``timings.prompt_ms``)."""
    write_s: float | None = Field(default=None, exclude_if=_unsaid)
    """Seconds the server spent writing the reply (llama.cpp's ``timings.predicted_ms``)."""

    @field_validator("prompt_tokens", "completion_tokens", mode="before")
    @classmethod
    def _count(cls, value: Any) -> int:
        """A provider's count as sent, when it is one; negative, absurd or unreadable counts are 0 (not
        reported), so that a run's totals never go negative or explode."""
        return _token_count(value)

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _price(cls, value: Any) -> float | None:
        try:
            cost = float(value)
        except (TypeError, ValueError, OverflowError):
            return None
        return cost if math.isfinite(cost) and cost >= 0 else None


def _token_count(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
    return count if 0 <= count <= MAX_TOKENS_PER_CALL else 0


class LLMReply(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    model: str = ""
    attempts: int = 1
    """How many attempts the call took (1 = no retry)."""
    reasoning: str | None = None
    """The model's reasoning, when litellm split it from the content (``<think>...</think>``, or the
    provider's reasoning field): kept in the run record, and the model is told when it was all it sent."""


def _is_local(api_base: str | None) -> bool:
    from urllib.parse import urlparse

    return bool(api_base) and (urlparse(api_base).hostname or "") in _LOCAL_HOSTS


class LiteLLMModel:
    """The real ``Model``: calls one model through litellm. ``LiteLLMModel("openai/gpt-4o-mini")``, or a full
    ``LLMConfig`` (with ``local`` already resolved)."""

    def __init__(self, config: LLMConfig | str, *, backoff_s: float | None = None) -> None:
        if isinstance(config, str):
            config = LLMConfig(model=config)
        if not config.model:
            raise LLMBadRequestError(
                "no model configured: set llm.model, KITE_MODEL or --model "
                "(e.g. openai/gpt-4o-mini, or local)"
            )
        if is_local(config.model):
            raise LLMBadRequestError(
                "the model 'local' must be resolved to the local server first "
                "(agent.llm.local) before building an LLMClient"
            )
        self.config = config
        self.model = config.model
        self.name = config.model
        self._schema_refused = False
        """The server answered a reply schema with a bad request: replies are no longer constrained."""
        self.local = LocalCall(config, config.model) if applies(config, _is_local(config.api_base)) else None
        """A server on this machine: its calls are queued, paced and told (``agent.llm.local_call``)."""
        # Backoff scales with the retry budget: about 0.9 s first wait at the default 90 s, tiny in tests.
        self.backoff_s = (
            backoff_s if backoff_s is not None else min(1.0, max(0.001, config.retry_max_s / 100))
        )

    @property
    def capabilities(self) -> Capabilities:
        from kite_browser.agent.llm.capabilities import capabilities_for

        return capabilities_for(self.model, self.config.api_base, self.config)

    def _kwargs(
        self, messages: list[ChatMessage], tools: list[ChatTool] | None, tool_choice: str | None
    ) -> dict[str, Any]:
        cfg = self.config
        kwargs: dict[str, Any] = {
            "model": cfg.model,
            "messages": messages,
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_output_tokens,
            "timeout": cfg.timeout_s,
            "max_retries": 0,  # retries are ours (tenacity), not the provider SDK's
        }
        if cfg.api_base:
            kwargs["api_base"] = cfg.api_base
        if self._key_from == "config":
            kwargs["api_key"] = cfg.api_key
        elif self._key_from == "placeholder":
            kwargs["api_key"] = (
                "sk-no-key-needed"  # local OpenAI-compatible servers ignore it; the SDK wants one
            )
        if tools:
            kwargs["tools"] = tools
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
        return {**kwargs, **cfg.extra}

    @property
    def _key_from(self) -> KeyFrom:
        """Where the key sent comes from (named in the message when the server refuses it)."""
        if self.config.api_key:
            return "config"
        if _is_local(self.config.api_base) and self.model.split("/", 1)[0] in OPENAI_COMPATIBLE:
            return "placeholder"
        return "environment"

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = exc.retry_after_s if isinstance(exc, LLMError) else None
        if asked is not None:
            return asked + random.uniform(0, 0.1 * asked)
        cap = max(self.backoff_s, self.config.retry_max_s / 4)
        step = min(cap, self.backoff_s * 2 ** (state.attempt_number - 1))
        return step / 2 + random.uniform(0, step / 2)

    @staticmethod
    def _log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "model call failed (%s), retry %d in %.2fs",
            getattr(exc, "type", exc),
            state.attempt_number,
            state.upcoming_sleep,
        )

    async def _attempt(self, kwargs: dict[str, Any], attempts: int) -> LLMReply:
        check_model_request(kwargs.get("model"), kwargs.get("api_base"))
        kwargs = redact_request(kwargs)  # the one place: every byte of the request, just before it leaves
        litellm = _import_litellm()
        limit = float(kwargs["timeout"])
        async with self.local.turn(limit) if self.local else contextlib.nullcontext():
            started = time.perf_counter()  # from the call's turn: a wait in the queue is not its time
            try:
                if self.local is not None:  # past its limit it goes on while the server works on it
                    cap = self.local.cap_s(limit)
                    call = litellm.acompletion(**{**kwargs, "timeout": cap})
                    response = await self.local.supervise(
                        asyncio.wait_for(call, timeout=cap + _HARD_TIMEOUT_MARGIN_S),
                        limit,
                        kwargs.get("api_key"),
                    )
                else:
                    response = await asyncio.wait_for(
                        litellm.acompletion(**kwargs), timeout=limit + _HARD_TIMEOUT_MARGIN_S
                    )
            except Exception as exc:
                raise map_exception(exc, self.model, self.config.api_base, self._key_from) from exc
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            reply = self._reply(response, latency_ms, attempts)
            if self.local is not None:
                self.local.learn(response, reply.usage.completion_tokens)
            return reply
        except Exception as exc:  # a 200 without a usable choice: retried like a provider's failure
            where = self.config.api_base or "the provider"
            raise LLMUnavailableError(
                f"{where} answered {self.model} with a completion Kite cannot use ({_shape_problem(exc)}).",
                model=self.model,
            ) from exc

    async def complete(
        self,
        messages: list[ChatMessage],
        tools: list[ChatTool] | None = None,
        *,
        view: ModelView | None = None,
        tool_choice: str | None = None,
    ) -> LLMReply:
        """One model call (with retries). Raises only ``LLMError`` subclasses. Of ``view`` only its
        ``reply_schema`` is sent (as ``response_format``); a server that refuses it is called again without
        it, and from then on, unless ``llm.constrained`` is ``on``."""
        try:
            return await self._complete(messages, tools, view, tool_choice)
        except LLMBadRequestError as err:
            if view is None or view.reply_schema is None or tools or self._schema_refused:
                raise
            if self.config.constrained == "on":
                raise
            log.warning(
                "%s refused the reply schema (%s); replies are not constrained from now on "
                "(llm.constrained: off says so up front)",
                self.config.api_base or self.model,
                err.message[:200],
            )
            self._schema_refused = True
            return await self._complete(messages, tools, view, tool_choice)

    async def _complete(
        self,
        messages: list[ChatMessage],
        tools: list[ChatTool] | None,
        view: ModelView | None,
        tool_choice: str | None,
    ) -> LLMReply:
        kwargs = self._kwargs(messages, tools, tool_choice)
        if view is not None and view.reply_schema is not None and not tools and not self._schema_refused:
            from kite_browser.agent.llm.reply_schema import (
                response_format,
            )  # the action models: loaded when needed

            kwargs["response_format"] = response_format(view.reply_schema)
        if view is not None and view.repeating and self.config.repeat_temperature is not None:
            # At temperature 0 a model shown nearly the same page answers it the same way, warning or not.
            kwargs["temperature"] = max(self.config.temperature, self.config.repeat_temperature)
        budget = self.config.retry_max_s
        if self.local is not None:  # a slow local model gets the time its prompt needs, and retries with it
            kwargs["timeout"] = limit = self.local.plan(self.model, messages)
            budget = max(budget, 1.5 * limit)
        started, waited = time.monotonic(), self.local.waited_s if self.local else 0.0

        def used() -> float:  # a wait for a turn at a shared local server is not spent
            return time.monotonic() - started - ((self.local.waited_s if self.local else 0.0) - waited)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda e: isinstance(e, LLMError) and e.retryable),
            stop=stop_after_attempt(max(1, self.config.max_attempts)) | _OutOfTime(budget, used),
            wait=self._wait,
            before_sleep=self._log_retry,
            reraise=True,
        )
        attempts = 0
        reply: LLMReply | None = None
        try:
            async for attempt in retrying:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    reply = await self._attempt(kwargs, attempts)
        except LLMError as err:
            if not err.retryable:
                raise
            spent = time.monotonic() - started
            asked = err.context.get("retry_after_s") if isinstance(err, LLMRateLimitedError) else None
            if asked is not None and spent + asked >= self.config.retry_max_s:
                raise LLMRateLimitedError(
                    f"{self.model} is rate limited and asked to wait {asked:.0f}s before trying again, "
                    f"more than the retry budget allows (llm.retry_max_s = {self.config.retry_max_s:g}s, "
                    f"{spent:.1f}s already spent); try again later, or raise llm.retry_max_s.",
                    **{**err.context, "attempts": attempts},
                ) from err
            tries = f"{attempts} attempts" if attempts > 1 else "1 attempt"
            raise type(err)(
                f"{err.message} Gave up after {tries} in {spent:.1f}s "
                "(llm.max_attempts / llm.retry_max_s bound the retries).",
                **{**err.context, "attempts": attempts},
            ) from err
        assert reply is not None  # tenacity either returned an attempt's reply or raised
        return reply

    def _reply(self, response: Any, latency_ms: float, attempts: int) -> LLMReply:
        if not getattr(response, "choices", None):
            raise _Unusable("its 'choices' list is empty")
        choice = response.choices[0]
        message = choice.message
        calls = []
        for i, call in enumerate(getattr(message, "tool_calls", None) or []):
            fn = call.function
            args = fn.arguments if isinstance(fn.arguments, str) else json.dumps(fn.arguments)
            calls.append(ToolCall(id=call.id or f"call_{i}", name=fn.name or "", arguments=args or ""))
        usage = getattr(response, "usage", None)
        return LLMReply(
            content=message.content if isinstance(message.content, str) else None,
            tool_calls=calls,
            usage=Usage(
                prompt_tokens=getattr(usage, "prompt_tokens", 0),
                completion_tokens=getattr(usage, "completion_tokens", 0),
                cost_usd=self._cost(response) if _counts_are_real(usage) else None,
                latency_ms=round(latency_ms, 3),
                **server_timings(response),
            ),
            finish_reason=choice.finish_reason,
            model=self.model,
            attempts=attempts,
            reasoning=_text_or_none(getattr(message, "reasoning_content", None)),
        )

    def _cost(self, response: Any) -> float | None:
        return cost_of(response, self.model)


LLMClient = LiteLLMModel
"""The former name of ``LiteLLMModel``."""


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


class _OutOfTime(stop_base):
    """Stop retrying when the next attempt would start past ``budget`` seconds of ``spent()``."""

    def __init__(self, budget: float, spent: Callable[[], float]) -> None:
        self.budget, self.spent = budget, spent

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.spent() + (retry_state.upcoming_sleep or 0) >= self.budget


class _Unusable(ValueError):
    """A completion that arrived but holds nothing to read (its own words say what)."""


def _shape_problem(exc: BaseException) -> str:
    if isinstance(exc, _Unusable):
        return str(exc)
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def _counts_are_real(usage: object) -> bool:
    """litellm prices a reply from its counts: a negative or absurd count would give a negative or absurd
    price, so such a reply has no cost (None), like one from a model litellm does not know."""
    for name in ("prompt_tokens", "completion_tokens"):
        raw = getattr(usage, name, 0) or 0
        if _token_count(raw) != raw:
            return False
    return True


def server_timings(response: Any) -> dict[str, Any]:
    """What the server says of its prompt cache and its time, as ``Usage`` fields: llama.cpp's server sends
    ``timings`` (``cache_n``: prompt tokens taken from its cache; ``prompt_ms``, ``predicted_ms``: reading
    the rest of the prompt, writing the reply) beside ``usage``, and litellm keeps it on the response; other
    providers say only ``usage.prompt_tokens_details.cached_tokens``. What is missing or not a number is
    left out."""
    timings = getattr(response, "timings", None)
    timings = timings if isinstance(timings, dict) else {}
    details = getattr(getattr(response, "usage", None), "prompt_tokens_details", None)
    out: dict[str, Any] = {}
    cached = timings.get("cache_n", getattr(details, "cached_tokens", None))
    if cached is not None and not isinstance(cached, bool) and _token_count(cached) == cached:
        out["cached_tokens"] = cached
    for key, field in (("prompt_ms", "read_s"), ("predicted_ms", "write_s")):
        ms = timings.get(key)
        if isinstance(ms, int | float) and not isinstance(ms, bool) and math.isfinite(ms) and ms >= 0:
            out[field] = round(ms / 1000, 3)
    return out


def cost_of(response: object, model: str) -> float | None:
    """litellm's price of a response when it knows the model; None when it does not (never a guess)."""
    litellm = _import_litellm()
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response, model=model)
        except Exception:
            return None
    try:
        value = float(cost)
    except (TypeError, ValueError, OverflowError):
        return None
    return value if math.isfinite(value) and value >= 0 else None
