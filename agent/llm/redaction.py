"""Every byte sent to a model is redacted, in one place: ``redact_request``, just before the request leaves.

The run that makes a model call says how to redact it (``redacting(secrets.redact)`` around the call: the
agent's steps, a workflow's healing, an output retry, all one ``Agent``); the client applies it to the whole
request as litellm gets it (``LiteLLMModel._attempt``): the messages, the tool definitions, the
``response_format`` with the reply schema built from the page (its ``target`` names are the page's elements'
names: a secret a page echoes into a label would otherwise leave inside the schema) and any extra parameter
of the configuration. Only what is not text of the page or the task is left as it is: the model's name, the
server's address and key, the timeout and sampling numbers, and images sent as ``data:`` URLs (pixels, which
text redaction cannot read).

A context variable carries the redactor, so concurrent runs in one process each redact with their own
secrets, whichever ``Model`` object they share. Models that answer in this process (``FunctionModel``,
``ScriptedModel``, the eval oracle) send nothing anywhere: they get the loop's messages, whose page text the
loop has already redacted, and the step as structure (``ModelView``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

Redactor = Callable[[str], str]
"""A text in, the same text with every secret's value replaced by its placeholder out (``SecretStore.redact``)."""

_redactor: ContextVar[Redactor | None] = ContextVar("kite_model_redactor", default=None)

TRANSPORT_KEYS = frozenset(
    {"model", "api_base", "api_key", "timeout", "max_retries", "temperature", "max_tokens", "tool_choice"}
)
"""Request parameters that carry nothing of the page or the task: left as they are (a key is not text to
redact, and redacting it would only break the call)."""
_IMAGE_DATA = "data:image/"


@contextlib.contextmanager
def redacting(redactor: Redactor | None) -> Iterator[None]:
    """Redact every model request made inside this block with ``redactor`` (None: leave them as they are)."""
    token = _redactor.set(redactor)
    try:
        yield
    finally:
        _redactor.reset(token)


def redact_request(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The request's parameters with every text in them redacted by the current redactor (a copy; the
    parameters as they are when no redactor is set)."""
    redactor = _redactor.get()
    if redactor is None:
        return kwargs
    return {k: v if k in TRANSPORT_KEYS else _redact(v, redactor) for k, v in kwargs.items()}


def _redact(value: object, redactor: Redactor) -> object:
    """Every string inside ``value`` (dict keys too) redacted; dicts, lists and tuples rebuilt."""
    if isinstance(value, str):
        return value if value.startswith(_IMAGE_DATA) else redactor(value)
    if isinstance(value, dict):
        return {_redact(k, redactor): _redact(v, redactor) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redact(v, redactor) for v in value)
    return value
