"""Provider errors → Kite's typed ``LLMError``s, each with a message that says what to fix; and where a
provider's Retry-After hides on litellm's exceptions."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import warnings
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import Any, Literal

from kite_browser.agent.llm.errors import (
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


def _import_litellm() -> ModuleType:
    import litellm

    litellm.suppress_debug_info = True
    # A provider's odd but readable completion (token counts as numeric strings: "12") makes litellm's
    # model_dump print pydantic's "serializer warnings" on the user's terminal; Kite reads such counts
    # itself (``Usage``). Set on every call: pytest and other hosts reset the filters between uses.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
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


def _malformed_completion(exc: BaseException) -> bool:
    """JSON shaped like a completion whose fields litellm could not read (e.g. ``usage`` counts as text)."""
    return "Invalid response object" in str(exc)


def _unreadable_reply(exc: BaseException) -> bool:
    return any(isinstance(c, UnicodeDecodeError | json.JSONDecodeError) for c in _causes(exc))


_TRACEBACK = "Traceback (most recent call last):"
_LAST_ERROR = re.compile(
    r"^\s*([\w.]+(?:Error|Exception)): (.+?)(?=\n\s*For further information|\n\n|\Z)", re.M | re.S
)


def _without_traceback(text: str) -> str:
    """litellm puts a whole Python traceback in some messages (an unreadable response object): keep what
    came before it and the error it ended with, never the traceback."""
    head, found, tail = text.partition(_TRACEBACK)
    if not found:
        return text
    last = _LAST_ERROR.search(tail)
    what = f"{last.group(1).rsplit('.', 1)[-1]}: {last.group(2)}" if last else ""
    return f"{head.strip()}: {what}" if what else head.strip()


_CLASS_PREFIX = re.compile(r"^\s*(?:litellm\.)?(?:[A-Z]\w*(?:Error|Exception)(?::| -) ?)+")


def _detail(exc: BaseException) -> str:
    """The provider's own words: litellm's repeated class-name prefixes ("litellm.InternalServerError:
    InternalServerError: OpenAIException - ") left out, and never a traceback."""
    text = _without_traceback(str(getattr(exc, "message", None) or exc))
    text = _CLASS_PREFIX.sub("", text.replace("litellm.", ""), count=1)
    return " ".join(text.split())[:400]


def _words(exc: BaseException, status: object) -> str:
    """``HTTP 500: the provider's words`` (the status when there is one)."""
    detail = _detail(exc)
    if isinstance(status, int):
        return f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
    return detail or "it gave no details"


OPENAI_COMPATIBLE = ("openai", "hosted_vllm", "openai_like", "lm_studio", "llamafile", "custom_openai")
"""Providers that speak to any OpenAI-compatible ``api_base``."""
KeyFrom = Literal["config", "placeholder", "environment"]
"""Where the key Kite sent came from: ``llm.api_key`` (or KITE_API_KEY), a placeholder Kite sends to a
local server that needs none, or none (the provider SDK reads its environment variable)."""


def _key_hint(litellm: ModuleType, model: str, api_base: str | None, key_from: KeyFrom) -> str:
    provider = model.split("/", 1)[0]
    if api_base and provider in OPENAI_COMPATIBLE:
        server = f"the server at {api_base} rejected the credentials"
        fix = "set llm.api_key or KITE_API_KEY to the key that server expects"
        if key_from == "config":
            return f"{server}: it refused the key from llm.api_key (or KITE_API_KEY); {fix}"
        if key_from == "placeholder":
            return f"{server}: it refused the placeholder key Kite sends when none is configured; {fix}"
        if provider == "openai" and os.environ.get("OPENAI_API_KEY"):
            return f"{server}: it refused OPENAI_API_KEY from the environment (llm.api_key is not set); {fix}"
        return f"{server}: no key is configured (llm.api_key / KITE_API_KEY); {fix}"
    if key_from == "config":
        return "the provider rejected the credentials: check the key in llm.api_key (or KITE_API_KEY)"
    try:
        missing = litellm.validate_environment(model=model, api_base=api_base).get("missing_keys") or []
    except Exception:
        missing = []
    if missing:
        return f"the provider rejected the credentials: set {' or '.join(missing)} (or llm.api_key / KITE_API_KEY)"
    return (
        "the provider rejected the credentials: check the API key (llm.api_key / KITE_API_KEY, or the "
        "provider's environment variable)"
    )


def map_exception(
    exc: BaseException, model: str, api_base: str | None = None, key_from: KeyFrom = "environment"
) -> LLMError:
    """A litellm (or asyncio) exception → the matching typed ``LLMError`` whose message says what to fix:
    the provider's own words once, and what to do. Whether it was retried is the client's to say."""
    if isinstance(exc, LLMError):
        return exc
    litellm = _import_litellm()
    ctx: dict[str, object] = {"model": model, "status": getattr(exc, "status_code", None)}
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
    auth_status = ctx["status"] in (401, 403)  # litellm raises a bare APIError for an OpenAI-compatible 403
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError) or auth_status:
        return LLMAuthError(
            f"{model}: {_key_hint(litellm, model, api_base, key_from)}. ({_words(exc, ctx['status'])})",
            **ctx,
        )
    if isinstance(exc, litellm.RateLimitError):
        return LLMRateLimitedError(
            f"{model} is rate limited ({_words(exc, ctx['status'])}); wait, lower the concurrency, or raise llm.retry_max_s.",
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
    if _malformed_completion(exc):
        return LLMUnavailableError(
            f"{where} answered {model} with a malformed chat completion ({detail}).",
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
            f"{model} is rate limited ({_words(exc, status)}).", retry_after_s=_retry_after(exc), **ctx
        )
    if status >= 500 or isinstance(exc, litellm.InternalServerError | litellm.ServiceUnavailableError):
        return LLMUnavailableError(f"{model}: the provider failed ({_words(exc, status)}).", **ctx)
    if 400 <= status < 500:
        return LLMBadRequestError(f"{model} refused the request: {detail}", **ctx)
    return LLMError(f"{model}: unexpected error from the model call ({type(exc).__name__}: {detail})", **ctx)
