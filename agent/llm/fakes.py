"""Deterministic models for tests, demos and evals, registered with litellm under the provider ``kite/``.

They run through the real ``litellm.acompletion`` path (parameter handling, response objects, exception
mapping), so what works with ``kite/scripted`` works with a real provider. ``register_fakes()`` installs the
provider; ``register_fake(name, handler)`` adds a model ``kite/<name>`` to the one registry of Kite's own models
(``agent.llm.resolve``), beside the test models that need no litellm and read the structured view instead of
the prompt (``agent.llm.testing``).

``kite/scripted`` replays a script set with ``set_script`` / ``scripted(...)``: each reply is a tool call
``{"name": "click", "arguments": {"index": 3}}``, a list of them, a ``FakeReply``, or plain text. ``errors``
injects failures at given call numbers (1-based; an injected error does not use up a reply): ``"429"``
(``"429:0.2"`` adds Retry-After: 0.2), ``"500"``, ``"503"``, ``"timeout"``, ``"connection"``, ``"auth"``,
``"bad_request"``, ``"context_window"``, ``"unsupported"``, ``"malformed"``, or any exception instance.
``calls()`` returns what each call received.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager

import httpx
import litellm
from litellm import CustomLLM, ModelResponse
from pydantic import BaseModel, Field, field_validator

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.model_names import FAKE_PREFIX, SCRIPTED_MODEL
from kite_browser.agent.llm.own_models import handler_names, handler_of, register_handler, unregister_model

PROVIDER = "kite"


class FakeReply(BaseModel):
    content: str | None = None
    tool_calls: list[JsonObject] = Field(default_factory=list)
    """Each ``{"name": ..., "arguments": dict | str}`` (``id`` optional)."""
    prompt_tokens: int | None = None
    """Reported usage; None = a rough count (4 characters a token) of what was sent."""
    completion_tokens: int | None = None
    finish_reason: str | None = None
    """None = "tool_calls" when there are tool calls, else "stop"."""

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _none_is_empty(cls, value: object) -> object:
        return [] if value is None else value


FakeHandler = Callable[
    [list[ChatMessage], list[ChatTool] | None, dict], FakeReply | str | Awaitable[FakeReply | str]
]
ScriptItem = JsonObject | list[JsonObject] | FakeReply | str


class FakeCall(BaseModel):
    """What one call to a fake received."""

    model: str
    messages: list[ChatMessage]
    tools: list[ChatTool] | None = None
    kwargs: dict[str, object] = Field(default_factory=dict)


def _estimate(value: object) -> int:
    return max(1, len(json.dumps(value, default=str)) // 4)


def _to_response(
    model_response: ModelResponse, reply: FakeReply, model: str, messages: list
) -> ModelResponse:
    calls = [
        {
            "id": call.get("id") or f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {
                "name": call.get("name", ""),
                "arguments": call["arguments"]
                if isinstance(call.get("arguments"), str)
                else json.dumps(call.get("arguments") or {}),
            },
        }
        for call in reply.tool_calls
    ]
    finish = reply.finish_reason or ("tool_calls" if calls else "stop")
    message: dict[str, object] = {"role": "assistant", "content": reply.content}
    if calls:
        message["tool_calls"] = calls
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else _estimate(messages)
    completion = reply.completion_tokens
    if completion is None:
        completion = _estimate([reply.content, calls]) if (reply.content or calls) else 0
    return ModelResponse(
        id=f"kite-{uuid.uuid4().hex[:12]}",
        model=f"{PROVIDER}/{model}",
        choices=[{"index": 0, "message": message, "finish_reason": finish}],
        usage={"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    )


def _coerce(result: object) -> FakeReply:
    if isinstance(result, FakeReply):
        return result
    if isinstance(result, str):
        return FakeReply(content=result)
    if isinstance(result, dict) and "name" in result:
        return FakeReply(tool_calls=[result])
    if isinstance(result, list) and all(isinstance(r, dict) for r in result):
        return FakeReply(tool_calls=list(result))
    if isinstance(result, dict):
        return FakeReply.model_validate(result)
    raise TypeError(f"a fake must return a FakeReply, text, or tool-call dicts, not {type(result).__name__}")


def _timeout_s(timeout: object) -> float | None:
    if isinstance(timeout, int | float):
        return float(timeout)
    read = getattr(timeout, "read", None)
    return float(read) if isinstance(read, int | float) else None


class _KiteProvider(CustomLLM):
    """The litellm custom provider behind every ``kite/<name>`` model."""

    async def acompletion(
        self,
        model: str,
        messages: list,
        api_base: str,
        custom_prompt_dict: dict,
        model_response: ModelResponse,
        print_verbose: Callable,
        encoding: object,
        api_key: object,
        logging_obj: object,
        optional_params: dict,
        acompletion: object = None,
        litellm_params: object = None,
        logger_fn: object = None,
        headers: dict | None = None,
        timeout: float | httpx.Timeout | None = None,  # noqa: ASYNC109 (litellm's signature)
        client: object = None,
    ) -> ModelResponse:
        handler = handler_of(FAKE_PREFIX + model)
        if handler is None:
            raise litellm.NotFoundError(
                message=f"no fake model kite/{model}; registered: {', '.join(handler_names()) or 'none'}",
                model=f"{PROVIDER}/{model}",
                llm_provider=PROVIDER,
            )
        params = dict(optional_params)
        tools = params.pop("tools", None)
        params["timeout"] = _timeout_s(timeout)
        result = handler(list(messages), tools, params)
        if inspect.isawaitable(result):
            result = await result
        return _to_response(model_response, _coerce(result), model, messages)

    def completion(
        self,
        model: str,
        messages: list,
        api_base: str,
        custom_prompt_dict: dict,
        model_response: ModelResponse,
        print_verbose: Callable,
        encoding: object,
        api_key: object,
        logging_obj: object,
        optional_params: dict,
        acompletion: object = None,
        litellm_params: object = None,
        logger_fn: object = None,
        headers: dict | None = None,
        timeout: float | httpx.Timeout | None = None,
        client: object = None,
    ) -> ModelResponse:
        """The synchronous path (``litellm.completion``), for scripts and demos outside an event loop."""
        return asyncio.run(
            self.acompletion(
                model,
                messages,
                api_base,
                custom_prompt_dict,
                model_response,
                print_verbose,
                encoding,
                api_key,
                logging_obj,
                optional_params,
                acompletion,
                litellm_params,
                logger_fn,
                headers,
                timeout,
                client,
            )
        )


_PROVIDER_INSTANCE = _KiteProvider()


def register_fakes() -> None:
    """Install the ``kite`` provider in litellm (idempotent) with the built-in fakes (``kite/scripted``)."""
    litellm.suppress_debug_info = True
    if not any(item.get("provider") == PROVIDER for item in litellm.custom_provider_map):
        litellm.custom_provider_map = [
            *litellm.custom_provider_map,
            {"provider": PROVIDER, "custom_handler": _PROVIDER_INSTANCE},
        ]
    if handler_of(SCRIPTED) is None:
        register_handler(SCRIPTED, SCRIPT)


def register_fake(name: str, handler: FakeHandler) -> None:
    """Make ``kite/<name>`` answer with ``handler(messages, tools, kwargs)`` (sync or async)."""
    if not name or "/" in name:
        raise ValueError(f"a fake's name is one path segment, e.g. 'priced' (got {name!r})")
    register_fakes()
    register_handler(FAKE_PREFIX + name, handler)


def unregister_fake(name: str) -> None:
    unregister_model(FAKE_PREFIX + name)


# --- the scripted model -------------------------------------------------------------------------------


def _error(kind: str, model: str) -> BaseException:
    full = f"{PROVIDER}/{model}"
    code, _, arg = kind.partition(":")

    def response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.Response(
            status, headers=headers or {}, request=httpx.Request("POST", "http://kite.fake/v1")
        )

    factories: dict[str, Callable[[], BaseException]] = {
        "429": lambda: litellm.RateLimitError(
            "injected rate limit",
            PROVIDER,
            full,
            response=response(429, {"retry-after": arg} if arg else None),
        ),
        "500": lambda: litellm.InternalServerError("injected server error", PROVIDER, full),
        "503": lambda: litellm.ServiceUnavailableError("injected: service unavailable", PROVIDER, full),
        "timeout": lambda: litellm.Timeout("injected timeout", full, PROVIDER),
        "connection": lambda: litellm.APIConnectionError("injected: connection refused", PROVIDER, full),
        "auth": lambda: litellm.AuthenticationError("injected: invalid API key", PROVIDER, full),
        "bad_request": lambda: litellm.BadRequestError("injected bad request", full, PROVIDER),
        "context_window": lambda: litellm.ContextWindowExceededError(
            "injected: prompt too long", full, PROVIDER
        ),
        "unsupported": lambda: litellm.UnsupportedParamsError(
            "injected: temperature not supported", PROVIDER, full
        ),
    }
    if code not in factories:
        raise ValueError(f"unknown injected error {kind!r}; valid: {', '.join([*factories, 'malformed'])}")
    return factories[code]()


MALFORMED = FakeReply(content='Sure! ```json\n{"action": "clik", "params": {"index": }\n```')


class Script:
    """A replayable script of replies; callable as a fake handler. ``SCRIPT`` backs ``kite/scripted``."""

    def __init__(
        self,
        replies: Sequence[ScriptItem] = (),
        *,
        latency_s: float = 0.0,
        errors: dict[int, str | BaseException | FakeReply] | None = None,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self.set(replies, latency_s=latency_s, errors=errors)

    def set(
        self,
        replies: Sequence[ScriptItem],
        *,
        latency_s: float = 0.0,
        errors: dict[int, str | BaseException | FakeReply] | None = None,
    ) -> None:
        self.replies = [_coerce(r) for r in replies]
        self.latency_s = latency_s
        self.errors = dict(errors or {})
        self.position = 0
        self.received: list[FakeCall] = []

    @property
    def remaining(self) -> int:
        return len(self.replies) - self.position

    async def __call__(
        self, messages: list[ChatMessage], tools: list[ChatTool] | None, kwargs: dict
    ) -> FakeReply:
        self.received.append(
            FakeCall(
                model=f"{PROVIDER}/{self.name}",
                messages=messages,
                tools=tools,
                kwargs={k: v for k, v in kwargs.items() if k != "timeout"},
            )
        )
        number = len(self.received)
        timeout = kwargs.get("timeout")
        if self.latency_s:
            if timeout is not None and self.latency_s > timeout:
                await asyncio.sleep(timeout)
                raise litellm.Timeout(
                    f"kite/{self.name} took longer than {timeout}s", f"kite/{self.name}", PROVIDER
                )
            await asyncio.sleep(self.latency_s)
        injected = self.errors.get(number)
        if isinstance(injected, FakeReply):
            return injected
        if isinstance(injected, BaseException):
            raise injected
        if injected == "malformed":
            return MALFORMED
        if injected is not None:
            raise _error(injected, self.name)
        if self.position >= len(self.replies):
            raise litellm.BadRequestError(
                f"kite/{self.name} has no reply left for call #{number} (the script had {len(self.replies)}); "
                "add replies or end the script with a done action",
                f"{PROVIDER}/{self.name}",
                PROVIDER,
            )
        reply = self.replies[self.position]
        self.position += 1
        return reply


SCRIPT = Script()
SCRIPTED = SCRIPTED_MODEL


def set_script(
    replies: Sequence[ScriptItem],
    *,
    latency_s: float = 0.0,
    errors: dict[int, str | BaseException | FakeReply] | None = None,
) -> Script:
    """Load the script ``kite/scripted`` replays (resets the call log)."""
    register_fakes()
    SCRIPT.set(replies, latency_s=latency_s, errors=errors)
    register_handler(SCRIPTED, SCRIPT)
    return SCRIPT


@contextmanager
def scripted(
    replies: Sequence[ScriptItem],
    *,
    latency_s: float = 0.0,
    errors: dict[int, str | BaseException | FakeReply] | None = None,
) -> Iterator[Script]:
    """``with scripted([...]) as script:`` — the script for ``kite/scripted``, cleared afterwards."""
    script = set_script(replies, latency_s=latency_s, errors=errors)
    try:
        yield script
    finally:
        SCRIPT.set([])


def calls() -> list[FakeCall]:
    """What each call to ``kite/scripted`` received since the script was set (messages, tools, params)."""
    return list(SCRIPT.received)
