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
import json
import logging
import random
import time
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, stop_before_delay

from agent.config import LLMConfig
from agent.llm.errors import (
    ContextWindowError,
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitedError,
    LLMTimeoutError,
    LLMUnavailableError,
    LLMUnsupportedParamError,
)

if TYPE_CHECKING:
    from agent.llm.capabilities import Capabilities
    from agent.llm.model import ModelView

log = logging.getLogger("kite.llm")

_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")
_KEYLESS_PROVIDERS = ("openai", "hosted_vllm", "openai_like", "lm_studio", "llamafile", "custom_openai")
_HARD_TIMEOUT_MARGIN_S = 5.0


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str
    """The arguments as raw JSON text, exactly as the model sent them."""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """litellm's price for the call when it knows the model; None otherwise (never estimated)."""
    latency_ms: float = 0.0
    """Wall time of the successful attempt."""


class LLMReply(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    model: str = ""
    attempts: int = 1
    """How many attempts the call took (1 = no retry)."""


def _import_litellm() -> Any:
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _header_sources(exc: BaseException) -> list[Any]:
    """Where a provider error's response headers may be: litellm keeps them on ``litellm_response_headers``
    (its ``response`` is often a stub without headers); SDK errors carry ``headers`` / ``response.headers``."""
    return [
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ]


def _retry_after(exc: BaseException) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date) on a provider error."""
    for headers in _header_sources(exc):
        if not headers:
            continue
        try:
            lower = {str(k).lower(): str(v) for k, v in dict(headers).items()}
        except (TypeError, ValueError):
            continue
        try:
            if "retry-after-ms" in lower:
                return max(0.0, float(lower["retry-after-ms"]) / 1000)
            if "retry-after" in lower:
                raw = lower["retry-after"]
                try:
                    return max(0.0, float(raw))
                except ValueError:
                    return max(0.0, parsedate_to_datetime(raw).timestamp() - time.time())
        except (TypeError, ValueError, OverflowError):
            continue
    return None


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what caused it (litellm wraps the SDK's error, which wraps httpx's, which wraps the OS's)."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < 12 and current not in out:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _connection_failure(exc: BaseException) -> str | None:
    """What went wrong when the request never got an answer over the network (reset, refused ...)."""
    import httpx

    for cause in _causes(exc):
        if isinstance(cause, ConnectionResetError | BrokenPipeError):
            return "the server reset the connection"
        if isinstance(cause, ConnectionRefusedError):
            return "the connection was refused (is the server running?)"
        if isinstance(cause, httpx.RemoteProtocolError):
            return "the server closed the connection without an answer"
    for cause in _causes(exc):
        name = f"{type(cause).__module__}.{type(cause).__name__}"
        if name == "openai.APIConnectionError" or isinstance(cause, httpx.NetworkError | OSError):
            return "the connection failed"
    return None


def _unreadable_reply(exc: BaseException) -> bool:
    return any(isinstance(c, UnicodeDecodeError | json.JSONDecodeError) for c in _causes(exc))


def _detail(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or exc)
    for prefix in (
        "litellm.",
        "BadRequestError: ",
        "ContextWindowExceededError: ",
        "UnsupportedParamsError: ",
    ):
        text = text.replace(prefix, "")
    return " ".join(text.split())[:400]


def _key_hint(litellm: Any, model: str, api_base: str | None) -> str:
    try:
        missing = litellm.validate_environment(model=model, api_base=api_base).get("missing_keys") or []
    except Exception:
        missing = []
    if missing:
        return f"set {' or '.join(missing)} (or llm.api_key / KITE_API_KEY)"
    return "check the API key (llm.api_key / KITE_API_KEY, or the provider's environment variable)"


def map_exception(exc: BaseException, model: str, api_base: str | None = None) -> LLMError:
    """A litellm (or asyncio) exception → the matching typed ``LLMError`` whose message says what to fix."""
    if isinstance(exc, LLMError):
        return exc
    litellm = _import_litellm()
    ctx: dict[str, Any] = {"model": model, "status": getattr(exc, "status_code", None)}
    detail = _detail(exc)
    if isinstance(exc, litellm.ContextWindowExceededError):
        return ContextWindowError(
            f"The prompt is longer than {model}'s input window ({detail}). Compact the history or lower "
            "agent.max_input_tokens.",
            **ctx,
        )
    if isinstance(exc, litellm.UnsupportedParamsError):
        return LLMUnsupportedParamError(
            f"{model} does not accept a parameter Kite sent ({detail}). Remove it from llm.extra / llm settings, "
            "or set llm.extra.drop_params: true to let litellm drop it.",
            **ctx,
        )
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return LLMAuthError(
            f"{model}: the provider rejected the credentials: {_key_hint(litellm, model, api_base)}. ({detail})",
            **ctx,
        )
    if isinstance(exc, litellm.RateLimitError):
        return LLMRateLimitedError(
            f"{model} is rate limited ({detail}); wait, lower the concurrency, or raise llm.retry_max_s.",
            retry_after_s=_retry_after(exc),
            **ctx,
        )
    if isinstance(exc, litellm.Timeout | asyncio.TimeoutError):
        return LLMTimeoutError(
            f"{model} did not answer in time; raise llm.timeout_s or check the server.", **ctx
        )
    where = api_base or "the provider"
    failure = _connection_failure(exc)
    if failure is not None or isinstance(exc, litellm.APIConnectionError):
        return LLMConnectionError(
            f"cannot reach {where} for {model}: {failure or 'the connection failed'} ({detail}); check "
            "llm.api_base and that the server is running.",
            **ctx,
        )
    if _unreadable_reply(exc):
        return LLMUnavailableError(
            f"{where} answered {model} with something that is not a chat completion ({detail}); check that "
            "llm.api_base points at an OpenAI-compatible endpoint (usually ending in /v1).",
            **ctx,
        )
    if isinstance(exc, litellm.NotFoundError):
        return LLMBadRequestError(
            f"model {model!r} was not found ({detail}); check llm.model and llm.api_base.", **ctx
        )
    if isinstance(exc, litellm.BadRequestError):
        hint = (
            "prefix the model with its provider, e.g. openai/gpt-4o-mini. "
            if "Provider NOT" in detail
            else ""
        )
        return LLMBadRequestError(f"{model} refused the request: {detail}. {hint}".strip(), **ctx)
    status = ctx["status"] if isinstance(ctx["status"], int) else 0
    if status == 429:
        return LLMRateLimitedError(
            f"{model} is rate limited ({detail}).", retry_after_s=_retry_after(exc), **ctx
        )
    if status >= 500 or isinstance(exc, litellm.InternalServerError | litellm.ServiceUnavailableError):
        return LLMUnavailableError(f"{model}: the provider failed ({detail}); retried, then gave up.", **ctx)
    if 400 <= status < 500:
        return LLMBadRequestError(f"{model} refused the request: {detail}", **ctx)
    return LLMError(f"{model}: unexpected error from the model call ({type(exc).__name__}: {detail})", **ctx)


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
        if config.model == "local":
            raise LLMBadRequestError(
                "the model 'local' must be resolved to the local server first "
                "(agent.llm.local) before building an LLMClient"
            )
        self.config = config
        self.model = config.model
        self.name = config.model
        # Backoff scales with the retry budget: about 0.9 s first wait at the default 90 s, tiny in tests.
        self.backoff_s = (
            backoff_s if backoff_s is not None else min(1.0, max(0.001, config.retry_max_s / 100))
        )

    @property
    def capabilities(self) -> Capabilities:
        from agent.llm.capabilities import capabilities_for

        return capabilities_for(self.model, self.config.api_base, self.config)

    def _kwargs(
        self, messages: list[dict], tools: list[dict] | None, tool_choice: str | None
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
        if cfg.api_key:
            kwargs["api_key"] = cfg.api_key
        elif _is_local(cfg.api_base) and self.model.split("/", 1)[0] in _KEYLESS_PROVIDERS:
            kwargs["api_key"] = (
                "sk-no-key-needed"  # local OpenAI-compatible servers ignore it; the SDK wants one
            )
        if tools:
            kwargs["tools"] = tools
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
        return {**kwargs, **cfg.extra}

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

    async def _attempt(self, kwargs: dict[str, Any]) -> tuple[Any, float]:
        litellm = _import_litellm()
        started = time.perf_counter()
        try:
            response = await asyncio.wait_for(
                litellm.acompletion(**kwargs), timeout=self.config.timeout_s + _HARD_TIMEOUT_MARGIN_S
            )
        except Exception as exc:
            raise map_exception(exc, self.model, self.config.api_base) from exc
        return response, (time.perf_counter() - started) * 1000

    async def complete(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        *,
        view: ModelView | None = None,
        tool_choice: str | None = None,
    ) -> LLMReply:
        """One model call (with retries). Raises only ``LLMError`` subclasses. ``view`` is not sent."""
        kwargs = self._kwargs(messages, tools, tool_choice)
        started = time.monotonic()
        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda e: isinstance(e, LLMError) and e.retryable),
            stop=stop_after_attempt(max(1, self.config.max_attempts))
            | stop_before_delay(self.config.retry_max_s),
            wait=self._wait,
            before_sleep=self._log_retry,
            reraise=True,
        )
        attempts = 0
        try:
            async for attempt in retrying:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response, latency_ms = await self._attempt(kwargs)
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
            raise type(err)(
                f"{err.message} Gave up after {attempts} attempt(s) in {spent:.1f}s "
                "(llm.max_attempts / llm.retry_max_s bound the retries).",
                **{**err.context, "attempts": attempts},
            ) from err
        return self._reply(response, latency_ms, attempts)

    def _reply(self, response: Any, latency_ms: float, attempts: int) -> LLMReply:
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
                prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                cost_usd=self._cost(response),
                latency_ms=round(latency_ms, 3),
            ),
            finish_reason=choice.finish_reason,
            model=self.model,
            attempts=attempts,
        )

    def _cost(self, response: Any) -> float | None:
        return cost_of(response, self.model)


LLMClient = LiteLLMModel
"""The former name of ``LiteLLMModel``."""


def cost_of(response: Any, model: str) -> float | None:
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
    except (TypeError, ValueError):
        return None
    return value if value >= 0 else None
