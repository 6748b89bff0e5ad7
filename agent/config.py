"""Kite's configuration: pydantic models (a docstring on every field) and the one loader.

Precedence, lowest first: ``config/default.yaml`` (bundled) → a user file (``--config``, ``KITE_CONFIG`` or
``~/.config/kite/config.yaml``) → environment variables (``KITE_*``) → CLI overrides (dotted keys).
This is the only module that reads ``os.environ`` for settings.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from agent.config_modules import DEFAULT_MODULES, ModuleSettings
from agent.config_modules import Section as _Section
from agent.config_server import ServerConfig
from agent.errors import ConfigError
from agent.resources import resource_path


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
    """After an action starts a navigation: wait for domcontentloaded, then for load up to this cap."""
    network_quiet_ms: int = 500
    """Network is quiet when no document/fetch/xhr/script request has been in flight for this long."""
    network_stall_ms: int = 2000
    """Requests older than this are ignored by the network-quiet wait."""
    dom_quiet_ms: int = 40
    """DOM is quiet when no mutation happened for this long (stretched up to 4x for pages that update in steps)."""
    settle_cap_ms: int = 3000
    """Upper bound on the whole settle after one action."""
    per_action: dict[str, int] = Field(default_factory=dict)
    """Per-action override of settle_cap_ms, e.g. {navigate: 8000}."""


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
    extra: dict[str, Any] = Field(default_factory=dict)
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

    @model_validator(mode="after")
    def _coherent_timeouts(self) -> LLMConfig:
        if self.max_attempts > 1 and self.timeout_s >= self.retry_max_s:
            raise ValueError(
                f"llm.timeout_s ({self.timeout_s:g}) must be smaller than llm.retry_max_s "
                f"({self.retry_max_s:g}), or a stalled call is never retried; lower timeout_s or raise "
                "retry_max_s (or set llm.max_attempts: 1)"
            )
        return self


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


class RayConfig(_Section):
    shared_runs_dir: str | None = None
    """A folder every Ray worker and the driver see (e.g. a network mount): workers write run records there
    directly. None: each worker sends its records back with the result, into the driver's ``run.runs_dir``."""


class BatchConfig(_Section):
    ray: RayConfig = Field(default_factory=RayConfig)
    """The Ray backend (``kite batch/eval --backend ray``)."""


class KiteConfig(_Section):
    browser: BrowserConfig = Field(default_factory=BrowserConfig)
    waits: WaitConfig = Field(default_factory=WaitConfig)
    snapshot: SnapshotConfig = Field(default_factory=SnapshotConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    batch: BatchConfig = Field(default_factory=BatchConfig)
    modules: list[str] = Field(default_factory=lambda: list(DEFAULT_MODULES))
    """Tool modules to enable (built-ins in agent/modules/, others through the kite.modules entry points)."""
    module_settings: ModuleSettings = Field(default_factory=ModuleSettings)
    server: ServerConfig = Field(default_factory=ServerConfig)
    """``kite serve``: the HTTP API and the web panel."""

    def data_dir(self) -> Path:
        return Path(self.browser.data_dir).expanduser() if self.browser.data_dir else default_data_dir()

    def for_record(self) -> dict[str, Any]:
        """The settings as JSON for run records and reports: credentials (``llm.api_key``, e.g. the local
        server's per-start key, the values of ``safety.secrets`` and ``server.token``) are replaced by ``"***"``."""
        data = self.model_dump(mode="json")
        if data["llm"].get("api_key"):
            data["llm"]["api_key"] = "***"
        data["safety"]["secrets"] = {name: "***" for name in data["safety"]["secrets"]}
        if data["server"].get("token"):
            data["server"]["token"] = "***"
        return data


# Environment variables understood by the loader: name -> dotted key.
ENV_KEYS: dict[str, str] = {
    "KITE_MODEL": "llm.model",
    "KITE_API_BASE": "llm.api_base",
    "KITE_API_KEY": "llm.api_key",
    "KITE_CHROMIUM": "browser.chromium_path",
    "KITE_HEADLESS": "browser.headless",
    "KITE_HOME": "browser.data_dir",
    "KITE_RUNS_DIR": "run.runs_dir",
    "KITE_LANGUAGE": "agent.language",
    "KITE_SERVER_TOKEN": "server.token",
}


def env_with_prefix(prefix: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables whose names start with ``prefix`` (e.g. the secrets' ``KITE_SECRET_*``)."""
    env = os.environ if env is None else env
    return {name: value for name, value in env.items() if name.startswith(prefix)}


def playwright_browsers_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where Playwright keeps its downloaded browsers (``PLAYWRIGHT_BROWSERS_PATH`` or its default)."""
    env = os.environ if env is None else env
    return Path(env.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")


def has_display(env: Mapping[str, str] | None = None) -> bool:
    """Whether a headed browser can open a window: always off Linux; on Linux, DISPLAY or WAYLAND_DISPLAY."""
    import sys

    env = os.environ if env is None else env
    return not sys.platform.startswith("linux") or bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


NO_DISPLAY_HELP = (
    "a headed browser needs a display, and there is none (DISPLAY is not set): run the command under "
    "a virtual display, e.g. 'xvfb-run -a kite ...' (apt install xvfb), or leave out --headed"
)


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("KITE_HOME"):
        return Path(env["KITE_HOME"]).expanduser()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kite"


def _deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _set_dotted(tree: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    node = tree
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}", path=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"cannot read config file {path}: it is not UTF-8 text (byte {exc.start}); save it as UTF-8 YAML",
            path=str(path),
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(
            f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})", path=str(path)
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping", path=str(path))
    return data


def user_config_path(env: Mapping[str, str]) -> Path | None:
    if env.get("KITE_CONFIG"):
        return Path(env["KITE_CONFIG"]).expanduser()
    xdg = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    path = Path(xdg) / "kite" / "config.yaml"
    return path if path.is_file() else None


def with_overrides(config: KiteConfig, overrides: Mapping[str, Any]) -> KiteConfig:
    """A copy of ``config`` with dotted keys replaced, validated again (a ConfigError names a bad key)."""
    tree = config.model_dump()
    for dotted, value in overrides.items():
        _set_dotted(tree, dotted, value)
    return _validate(tree)


def _validate(tree: dict[str, Any]) -> KiteConfig:
    try:
        return KiteConfig.model_validate(tree)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"config key '{key}': {err['msg']}", key=key) from exc


def load_config(
    user_file: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> KiteConfig:
    """Merge default.yaml, the user file, KITE_* environment variables and dotted CLI overrides."""
    env = os.environ if env is None else env
    tree = _read_yaml(resource_path("config", "default.yaml"))
    path = Path(user_file).expanduser() if user_file else user_config_path(env)
    if path is not None:
        tree = _deep_merge(tree, _read_yaml(path))
    for name, dotted in ENV_KEYS.items():
        if env.get(name):
            _set_dotted(tree, dotted, env[name])
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(tree, dotted, value)
    return _validate(tree)


PROVIDER_ENV_SUFFIXES = ("_API_KEY", "_API_BASE", "_API_VERSION")


def provider_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a remote worker needs to reach the configured model: provider keys and bases
    (``OPENAI_API_KEY``, ...) and Kite's own ``KITE_*`` settings (handed to Ray's runtime environment)."""
    env = os.environ if env is None else env
    return {k: v for k, v in env.items() if k.endswith(PROVIDER_ENV_SUFFIXES) or k.startswith("KITE_")}
