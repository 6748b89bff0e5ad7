"""The sections of Kite's configuration (browser, waits, snapshot, llm, agent, safety, run, batch): pydantic
models with a docstring on every field. Part of the config loader (agent/config/, which assembles them into
``KiteConfig`` and re-exports them), kept apart to keep it small."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from kite_browser.agent.config.modules import Section as _Section


class BrowserConfig(_Section):
    headless: bool = True
    """Run Chromium without a window."""
    chromium_path: str | None = None
    """Chromium executable; None = KITE_CHROMIUM, then /usr/bin/chromium, then Playwright's own."""
    args: list[str] = Field(default_factory=list)
    """Extra Chromium command-line flags."""
    viewport_width: int = Field(1280, ge=200, le=7680)
    """Viewport width in CSS pixels."""
    viewport_height: int = Field(800, ge=200, le=4320)
    """Viewport height in CSS pixels."""
    profile: str | None = None
    """Name of a persistent profile (cookies and storage survive restarts); None = a fresh sandbox."""
    attach: str | None = None
    """CDP endpoint of a running Chrome to attach to (e.g. http://127.0.0.1:9222); closing only disconnects."""
    data_dir: str | None = None
    """Kite's data folder (profiles, local model); None = KITE_HOME or ~/.local/share/kite."""
    launch_timeout_ms: int = 30000
    """How long to wait for Chromium to start or an attach endpoint to answer."""
    navigation_timeout_ms: int = 20000
    """Default cap for a navigation."""
    step_timeout_ms: int = Field(default=60000, ge=1000)
    """Deadline of any one browser call on the step path (an observation, one action with its settle)."""
    hang_timeout_ms: int = Field(default=5000, ge=100)
    """A tab whose renderer does not answer for this long is stuck: it is closed and the model told."""
    block_external_hosts: bool = False
    """Resolve every host except 127.0.0.1 to NOTFOUND (offline machines; tests and evals turn it on)."""
    allow_file_urls: bool = False
    """Allow navigate to file:// URLs."""
    allow_javascript_urls: bool = False
    """Allow navigate to javascript: URLs."""
    upload_dirs: list[str] = Field(default_factory=list)
    """Folders uploadFile may read from, besides the run folder."""
    js_timeout_ms: int = 5000
    """Cap for executeJS."""
    max_download_mb: float = Field(100, gt=0)
    """A download larger than this (MB) is stopped, nothing of it kept, and the model told."""
    max_download_total_mb: float = Field(500, gt=0)
    """All of a run's (a context's) downloads together may not pass this (MB): the download that would is
    stopped, nothing of it kept, and the model told; the files already saved stay."""

    @model_validator(mode="after")
    def _deadlines(self) -> BrowserConfig:
        if self.step_timeout_ms <= self.navigation_timeout_ms:
            raise ValueError(
                f"browser.step_timeout_ms ({self.step_timeout_ms}) must be larger than "
                f"browser.navigation_timeout_ms ({self.navigation_timeout_ms})"
            )
        return self


class WaitConfig(_Section):
    navigation_load_cap_ms: int = 5000
    """After an action starts a navigation: wait for domcontentloaded, then for load up to this cap (or until
    everything still loading has been for network_stall_ms)."""
    network_quiet_ms: int = 500
    """Network is quiet when no document/fetch/xhr/script request has been in flight for this long (after a
    navigation to a document watched from its start: as soon as none is, the page itself says when it is done)."""
    network_stall_ms: int = 2000
    """Requests older than this are ignored by the network-quiet wait (and no longer hold up the load event's)."""
    dom_quiet_ms: int = 40
    """DOM is quiet when no mutation happened for this long (stretched up to 4x for pages that update in steps)."""
    settle_cap_ms: int = 3000
    """Upper bound on the whole settle after one action."""
    per_action: dict[str, int] = Field(default_factory=dict)
    """Per-action override of settle_cap_ms, e.g. {navigate: 8000}."""
    navigation_settle: Literal["observer", "window"] = "observer"
    """How a navigation settles: ``observer`` (an init script watches each new document from its first line; the
    settle ends when its requests are answered, its short timers run and its DOM is quiet) or ``window`` (no
    init script: the load event, then network_quiet_ms with no request in flight; the behaviour before)."""


class SnapshotConfig(_Section):
    token_budget: int = 1500
    """Token budget for the rendered page (the viewport in reading order, or the element list); the renderer
    degrades gracefully above it (text first)."""
    text_chars: int = 500
    """Characters of visible text in the summary."""
    flow_chars: int = 2400
    """Characters of viewport text collected for the reading-order observation (the renderer trims it to the
    token budget)."""
    read_tokens: int = 1200
    """Token budget of one page of the ``read`` action's Markdown (longer content is paginated)."""
    name_chars: int = 60
    """Longest accessible name shown per element."""
    time_cap_ms: int = 3000
    """Extraction returns what it has, with a warning, after this long (the top frame, once asked again, up to
    1 s more: without it the observation would be empty)."""


class LLMConfig(_Section):
    model: str | None = None
    """litellm model string (openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, ollama/qwen2.5, local, kite/scripted ...)."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio)."""
    api_key: str | None = None
    """API key; usually left empty so that the provider's usual environment variable is used."""
    temperature: float = 0.0
    """Sampling temperature."""
    repeat_temperature: float | None = 0.7
    """Temperature of a step after Kite warned the model that it repeats itself; None keeps ``temperature``."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Timeout of one attempt of a model call; must be below retry_max_s, so that a stalled call is retried."""
    max_attempts: int = 4
    """Attempts per call for retryable errors (rate limits, 5xx, timeouts, connection errors)."""
    retry_max_s: float = Field(default=180.0, gt=0)
    """Total time one model call may take with its retries (Retry-After waits included)."""
    extra: dict[str, object] = Field(default_factory=dict)
    """Extra keyword arguments passed to litellm.acompletion."""
    function_calling: bool | None = None
    """Force function calling on/off; None = from capabilities."""
    vision: bool | None = None
    """Force vision on/off; None = from capabilities."""
    mode: Literal["auto", "dom", "hybrid"] = "auto"
    """Observation mode: hybrid adds a screenshot for vision models; auto picks from capabilities."""
    tools: Literal["single", "compact", "full"] = "single"
    """Tools sent to a function-calling model: one browser_action tool (smallest), one per action, or one
    per action with every parameter described."""
    max_output_tokens: int = 1024
    """Cap on the model's reply."""
    constrained: Literal["auto", "on", "off"] = "auto"
    """Constrained replies: send each step's reply schema (the enabled actions, the indexes this page offers
    each of them) for the server to decode under. auto: where the server accepts one (litellm's tables and
    config/providers.yaml, ``response_schema``); on: always; off: never (JSON written as text)."""
    local_server: Literal["auto", "on", "off"] = "auto"
    """Calls to a model server on this machine are paced and shared: they wait their turn in one queue for
    every Kite (in order, the wait shown, the time limit starting when the turn comes), and their time limit
    follows the prompt's size and the server's measured speed (never below timeout_s), with progress shown.
    auto: for the bundled local model; on: for any server on a loopback address; off: never."""
    local_prompt_tps: float = Field(default=20.0, gt=0)
    """Prompt tokens per second assumed for a model server on this machine until its replies say (llama.cpp's
    timings); its time limit per call follows the prompt's size and this speed, never below timeout_s."""
    local_gen_tps: float = Field(default=3.0, gt=0)
    """Reply tokens per second assumed for a model server on this machine until its replies say."""
    local_stretch: float = Field(default=4.0, ge=1.0)
    """Past its limit, a call that a llama.cpp server on this machine is still working on (``/slots``) may run
    up to this many times the limit: a loaded machine makes the model slow, not broken. 1 turns this off."""
    local_threads: int | None = Field(default=None, ge=1)
    """CPU threads of the bundled local model's server (None: every core). On a machine busy with other work
    fewer threads are faster: beside two busy processes on 2 cores, 1 thread wrote 5.2 tokens/s and 2 threads
    2.7 (their threads wait on each other); on a quiet machine 2 threads write twice as fast. Read when Kite
    starts the server; a running one keeps its own."""
    local_page_tokens: int = Field(default=600, ge=100)
    """The page's token budget with the bundled local model (``snapshot.token_budget`` when lower): it reads
    20-50 prompt tokens a second on two cores, and acts by index, so a long page's links lose their hrefs
    first (names, prices and the page's text stay)."""

    @model_validator(mode="after")
    def _coherent_timeouts(self) -> LLMConfig:
        if self.max_attempts > 1 and self.timeout_s >= self.retry_max_s:
            raise ValueError(
                f"llm.timeout_s ({self.timeout_s:g}) must be smaller than llm.retry_max_s "
                f"({self.retry_max_s:g}), or a stalled call is never retried; lower timeout_s or raise "
                "retry_max_s (or set llm.max_attempts: 1)"
            )
        return self


POLICY_NAMES = (
    "repeats",
    "unfilled",
    "loop_guard",
    "no_ops",
    "recap",
    "own_plan",
    "answer_next",
    "out_of_view",
    "quoted_text",
    "named_place",
    "claims",
    "goal_reached",
    "person_needed",
)
"""The step policies (agent/policies/), by the name that switches each."""
OFF_BY_DEFAULT = frozenset({"own_plan"})
"""Policies on only where the config names them: ``own_plan`` made the bundled 1.5B model copy the task into its
notes and skip a step of it (docs/decisions/own-plan-off.md)."""


def _on_by_default() -> list[str]:
    return [name for name in POLICY_NAMES if name not in OFF_BY_DEFAULT]


class PoliciesConfig(_Section):
    constrained: list[str] = Field(default_factory=lambda: _on_by_default())
    """Step policies on for a model whose replies are decoded under the reply schema (the bundled model)."""
    function_calling: list[str] = Field(default_factory=lambda: _on_by_default())
    """Step policies on for a model that answers with function calls."""
    text: list[str] = Field(default_factory=lambda: _on_by_default())
    """Step policies on for a model that answers in text (JSON in Markdown), unconstrained."""
    disabled: list[str] = Field(default_factory=list)
    """Step policies off for every model (``kite eval --policy -NAME`` adds one: an ablation)."""

    @field_validator("constrained", "function_calling", "text", "disabled")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        for name in value:
            if name not in POLICY_NAMES:
                raise ValueError(f"unknown step policy {name!r} (known: {', '.join(POLICY_NAMES)})")
        return value

    def enabled(self, *, constrained: bool, function_calling: bool) -> list[str]:
        """The names on for a model of this kind, in ``POLICY_NAMES`` order."""
        kind = self.constrained if constrained else self.function_calling if function_calling else self.text
        return [name for name in POLICY_NAMES if name in kind and name not in self.disabled]


class AgentConfig(_Section):
    max_steps: int = Field(30, ge=1)
    """Stop after this many steps."""
    max_failures: int = Field(3, ge=1)
    """Stop after this many consecutive parse or execution errors."""
    observation: Literal["auto", "layered"] = "auto"
    """auto: summary + visible element list each step; layered: summary only, the model asks for elements."""
    language: Literal["en", "zh"] = "en"
    """Language of the prompts."""
    history_full_steps: int = 3
    """The last N steps are kept in full; older ones are compacted to one line."""
    loop_warn: int = 2
    """Warn the model when the same action repeats and no element of the page changed, this many times."""
    loop_stop: int = 5
    """Stop when it repeats this many times."""
    max_cost_usd: float | None = None
    """Stop when the run's cost exceeds this."""
    max_tokens: int | None = None
    """Stop when the run's total tokens exceed this."""
    max_input_tokens: int | None = None
    """Override the model's input budget (else from capabilities)."""
    module_tools: list[str] = Field(default_factory=list)
    """Tools of enabled modules offered to the model next to the browser actions (e.g. [run_javascript])."""
    output_retries: int = Field(2, ge=0)
    """With an output schema: how many times a ``done`` with invalid ``data`` is sent back to be fixed before
    the run ends (stop reason invalid_output)."""
    policies: PoliciesConfig = Field(default_factory=PoliciesConfig)
    """The step policies (agent/policies/) on for each kind of model, and those off for every model."""


def check_domain(text: str) -> str:
    """A domain entry as written (``example.com``, ``*.example.com``, ``host:port``, or a URL naming a host);
    ValueError with the reason when it names no host (``''``, ``http://``) or has a bad port."""
    raw = str(text).strip().lower()
    try:
        parts = urlsplit(raw if "://" in raw else "//" + raw)
        host = (parts.hostname or "").lstrip("*.").rstrip(".")
        _ = parts.port
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a domain ({exc}); use a host name such as example.com") from None
    if not host:
        raise ValueError(f"{text!r} is not a domain: it names no host; use a host name such as example.com")
    return str(text).strip()


class SafetyConfig(_Section):
    rules_file: str | None = None
    """Extra rules (YAML) merged over config/safety.yaml."""
    allowed_domains: list[str] = Field(default_factory=list)
    """If non-empty, only these domains (and subdomains) may be loaded; enforced at the network layer."""
    blocked_domains: list[str] = Field(default_factory=list)
    """These domains are never loaded."""
    secrets: dict[str, str] = Field(default_factory=dict)
    """name -> value (or name@domain -> value); the model sees only <secret>name</secret>."""
    approve: list[str] = Field(default_factory=list)
    """Batch mode: levels or action names approved without asking (e.g. [confirm] or [executeJS])."""

    @field_validator("allowed_domains", "blocked_domains")
    @classmethod
    def _domains(cls, value: list[str]) -> list[str]:
        return [check_domain(d) for d in value]


class RunConfig(_Section):
    runs_dir: str = "runs"
    """Where run records are written."""
    trace: bool = False
    """Record a Playwright trace (trace.zip)."""
    screenshots: bool = True
    """Save a screenshot per step in the run folder."""
    cache_dir: str | None = None
    """Where ``kite run --cache`` keeps its entries (``kite cache list``); None = the data dir's ``cache/``."""


class RayConfig(_Section):
    shared_runs_dir: str | None = None
    """A folder every Ray worker and the driver see (e.g. a network mount): workers write run records there
    directly. None: each worker sends its records back with the result, into the driver's ``run.runs_dir``."""


class BatchConfig(_Section):
    ray: RayConfig = Field(default_factory=RayConfig)
    """The Ray backend (``kite batch/eval --backend ray``)."""


class TelemetryConfig(_Section):
    otel: bool | None = None
    """Send OpenTelemetry traces (a run, its steps, model calls, actions) by OTLP/HTTP; null: on when an OTLP
    endpoint is set (``OTEL_EXPORTER_OTLP_ENDPOINT``). Needs the ``otel`` extra."""
    endpoint: str | None = None
    """The OTLP/HTTP collector's base URL (``/v1/traces`` is added); null: the exporter's default
    (localhost:4318). Set by ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    service_name: str = "kite"
    """The ``service.name`` of Kite's spans."""
    prompts: bool = False
    """Put the text sent to the model on its spans (redacted like everything sent); off: counts only."""
    traceparent: str | None = None
    """A W3C trace context to join when nothing else gives one (``TRACEPARENT``, as a calling process sets it)."""
