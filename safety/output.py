"""Where results leave the process, secrets are redacted once, the same way as the run record.

``Agent.run`` applies these at its boundary, so every consumer downstream inherits them: the event sink
(the CLI's progress lines, the TUI, the HTTP API) gets redacted events, the returned ``RunResult`` (``kite
run --json``, batch results, eval reports, the HTML report) is redacted, and log records emitted during the
run (``-v``, files) pass a redacting filter on every root handler.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Iterator
from typing import TypeVar

from pydantic import BaseModel

from kite_browser.agent.base.events import EventSink, RunEvent
from kite_browser.safety.secrets import SecretStore

M = TypeVar("M", bound=BaseModel)


def redact_model(store: SecretStore, obj: M) -> M:
    """A copy of a pydantic model with every string redacted (the same model type)."""
    if not len(store):
        return obj
    return type(obj).model_validate(store.redact_obj(obj))


def redacting_sink(store: SecretStore, sink: EventSink | None) -> EventSink | None:
    """``sink`` fed redacted events."""
    if sink is None or not len(store):
        return sink

    def redacted(event: RunEvent) -> Awaitable[None] | None:
        return sink(redact_model(store, event))

    return redacted


class RedactingFilter(logging.Filter):
    def __init__(self, store: SecretStore) -> None:
        super().__init__()
        self.store = store

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = self.store.redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.store.redact(record.exc_text)
        return True


@contextlib.contextmanager
def redacting_logs(store: SecretStore) -> Iterator[None]:
    """While inside: every record through the root logger's handlers (and the last-resort one) is redacted."""
    if not len(store):
        yield
        return
    filt = RedactingFilter(store)
    handlers = [*logging.getLogger().handlers, *([logging.lastResort] if logging.lastResort else [])]
    for h in handlers:
        h.addFilter(filt)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(filt)
