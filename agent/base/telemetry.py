"""OpenTelemetry traces of what Kite does, opt-in (the ``otel`` extra: ``kite-browser-agent[otel]``).

Off by default: then this module imports nothing of OpenTelemetry and every ``span()`` is a no-op that costs a
function call. ``configure()`` (called from the config by ``configure_from``: ``telemetry.otel: true`` or
``OTEL_EXPORTER_OTLP_ENDPOINT`` set) installs a tracer provider that sends spans by OTLP/HTTP (or to the exporter
a test gives), and from then on ``span()`` makes real spans, nested by the current context: a run, its steps,
each model call and each action (any face: the agent, a replay, an MCP or module tool call).

A span's parent is the current span when there is one; otherwise the caller's W3C ``traceparent`` when one is
given (the CLI's ``TRACEPARENT``, an HTTP API request's header, an MCP request's ``_meta``: the SDK's own server
span already carries it), so Kite's spans join the caller's trace. Attribute values pass ``clean``: only
strings, numbers, booleans and lists of strings reach the exporter. Text a page or a model wrote is put on a
span only through the caller, who redacts it first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from kite_browser.agent.base.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer

    from kite_browser.agent.config.sections import TelemetryConfig

AttrValue = str | bool | int | float | Sequence[str]
Attributes = Mapping[str, AttrValue | None]

TRACER_NAME = "kite"
OTLP_TRACES_PATH = "/v1/traces"
MISSING_EXTRA = (
    "OpenTelemetry is on (telemetry.otel or OTEL_EXPORTER_OTLP_ENDPOINT) but its packages are not installed: "
    "pip install 'kite-browser-agent[otel]'"
)


class SpanLike(Protocol):
    """What a caller does with the span it is in: add attributes, say it failed."""

    def set(self, attributes: Attributes) -> None: ...

    def fail(self, message: str) -> None: ...


class _NoSpan:
    """The span of a run with telemetry off: takes everything, keeps nothing."""

    def set(self, attributes: Attributes) -> None:
        return None

    def fail(self, message: str) -> None:
        return None


class _Span:
    def __init__(self, span: Span) -> None:
        self._span = span

    def set(self, attributes: Attributes) -> None:
        self._span.set_attributes(clean(attributes))

    def fail(self, message: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        self._span.set_status(Status(StatusCode.ERROR, message))


NO_SPAN: SpanLike = _NoSpan()


class _Tracing:
    """The configured state: the tracer, the processor its spans go to, whether prompt text may be sent."""

    def __init__(self, tracer: Tracer, processor: SpanProcessor, prompts: bool) -> None:
        self.tracer, self.processor, self.prompts = tracer, processor, prompts


_state: _Tracing | None = None
_provider: TracerProvider | None = None
"""The process's tracer provider, made at the first ``configure`` and kept: OpenTelemetry lets the global one be
set once, and libraries' spans (FastAPI's request span, the MCP SDK's server span, which carry a caller's trace
context) must nest with Kite's. A later ``configure`` (after ``shutdown``) gives it a new processor."""


def enabled() -> bool:
    return _state is not None


def prompts_wanted() -> bool:
    """Whether model spans may carry the prompt's text (``telemetry.prompts``; redacted by the caller)."""
    return _state is not None and _state.prompts


def configure(
    *,
    endpoint: str | None = None,
    service: str = "kite",
    prompts: bool = False,
    exporter: SpanExporter | None = None,
    install: bool = True,
) -> None:
    """Start making spans: sent to ``exporter`` (a test's in-memory one) or by OTLP/HTTP to ``endpoint`` (the
    collector's base URL, ``/v1/traces`` added as the OTLP spec says). A second call changes nothing until
    ``shutdown()``. ``install``: also make Kite's provider the process's global one (a command's process: the
    MCP SDK's and FastAPI's request spans then nest with Kite's); a test that shares its process with other
    tests leaves the global alone (an SDK client would otherwise put its own trace into every request's
    ``_meta``). Raises ``ConfigError`` with the install command when the extra is missing."""
    global _state, _provider
    if _state is not None:
        return
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    except ImportError as exc:  # the extra is not installed
        raise ConfigError(MISSING_EXTRA) from exc
    from kite_browser.agent import __version__

    if exporter is not None:
        processor: SpanProcessor = SimpleSpanProcessor(exporter)
    else:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise ConfigError(MISSING_EXTRA) from exc
        url = endpoint.rstrip("/") + OTLP_TRACES_PATH if endpoint else None
        processor = BatchSpanProcessor(OTLPSpanExporter(endpoint=url))
    if _provider is None:
        existing = trace.get_tracer_provider()
        if isinstance(existing, TracerProvider):  # the application's own: Kite's spans join its exporters
            _provider = existing
        else:
            resource = Resource.create({"service.name": service, "service.version": __version__})
            _provider = TracerProvider(resource=resource)
            if install:
                trace.set_tracer_provider(_provider)
        _provider.add_span_processor(_Switch())  # type: ignore[arg-type]
    _Switch.current = processor
    _state = _Tracing(_provider.get_tracer(TRACER_NAME, __version__), processor, prompts)


class _Switch:
    """The provider's one span processor: hands each span to the processor of the current ``configure``."""

    current: SpanProcessor | None = None

    def on_start(self, span: object, parent_context: object = None) -> None:
        if (inner := _Switch.current) is not None:
            inner.on_start(span, parent_context)  # type: ignore[arg-type]

    def on_end(self, span: object) -> None:
        if (inner := _Switch.current) is not None:
            inner.on_end(span)  # type: ignore[arg-type]

    def _on_ending(self, span: object) -> None:
        return None

    def shutdown(self) -> None:
        if (inner := _Switch.current) is not None:
            inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        inner = _Switch.current
        return inner.force_flush(timeout_millis) if inner is not None else True


def configure_from(settings: TelemetryConfig) -> bool:
    """``configure`` as the config says: on with ``telemetry.otel: true``, or (``otel`` left null) when an
    OTLP endpoint is set. Whether spans are made now."""
    on = settings.otel if settings.otel is not None else bool(settings.endpoint)
    if on:
        configure(endpoint=settings.endpoint, service=settings.service_name, prompts=settings.prompts)
    return enabled()


def shutdown() -> None:
    """Send what is pending and stop making spans (tests; at the process's exit the provider flushes)."""
    global _state
    state, _state = _state, None
    _Switch.current = None
    if state is not None:
        with contextlib.suppress(Exception):
            state.processor.force_flush()
            state.processor.shutdown()


@contextlib.contextmanager
def span(
    name: str, attributes: Attributes | None = None, *, traceparent: str | None = None
) -> Iterator[SpanLike]:
    """A span around the block (a no-op when telemetry is off). Its parent: the current span, else the W3C
    ``traceparent`` given, else none. An exception that leaves the block marks the span failed with its type
    (a run's stop is not an exception here: the loop says how it ended)."""
    state = _state
    if state is None:
        yield NO_SPAN
        return
    from opentelemetry import trace

    parent = None
    if traceparent and not trace.get_current_span().get_span_context().is_valid:
        from opentelemetry.propagate import extract

        parent = extract({"traceparent": traceparent})
    with state.tracer.start_as_current_span(
        name,
        context=parent,
        attributes=clean(attributes or {}),
        record_exception=False,
        set_status_on_exception=False,
    ) as real:
        handle = _Span(real)
        try:
            yield handle
        except BaseException as exc:
            handle.fail(type(exc).__name__)
            raise


def current_traceparent() -> str | None:
    """The W3C ``traceparent`` of the current span (to hand to a worker or a child process), or None."""
    if _state is None:
        return None
    from opentelemetry.propagate import inject

    carrier: dict[str, str] = {}
    inject(carrier)
    return carrier.get("traceparent")


def clean(attributes: Attributes) -> dict[str, AttrValue]:
    """The attributes OpenTelemetry takes: None dropped, tuples and lists made lists of strings."""
    out: dict[str, AttrValue] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str | bool | int | float):
            out[key] = value
        else:
            out[key] = [str(v) for v in value]
    return out
