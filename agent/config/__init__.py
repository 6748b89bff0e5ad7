"""Kite's configuration: ``KiteConfig`` (the sections live in agent/config/sections.py, re-exported here) and
the one loader.

Precedence, lowest first: ``config/default.yaml`` (bundled) → a user file (``--config``, ``KITE_CONFIG`` or
``~/.config/kite/config.yaml``) → environment variables (``KITE_*``) → CLI overrides (dotted keys).
This is the only module that reads ``os.environ`` for settings.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import yaml
from pydantic import Field, ValidationError

from kite_browser.agent.base.errors import ConfigError
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.base.resources import resource_path
from kite_browser.agent.config.modules import DEFAULT_MODULES, ModuleSettings
from kite_browser.agent.config.modules import Section as _Section
from kite_browser.agent.config.sections import (
    AgentConfig,
    BatchConfig,
    BrowserConfig,
    LLMConfig,
    RunConfig,
    SafetyConfig,
    SnapshotConfig,
    TelemetryConfig,
    WaitConfig,
)

# Re-exported: the CLI validates domains with check_domain; RayConfig is public like the other sections.
from kite_browser.agent.config.sections import RayConfig as RayConfig
from kite_browser.agent.config.sections import check_domain as check_domain
from kite_browser.agent.config.server import McpConfig, ServerConfig


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
    mcp: McpConfig = Field(default_factory=McpConfig)
    """``kite mcp``: the MCP server."""
    telemetry: TelemetryConfig = Field(default_factory=TelemetryConfig)
    """OpenTelemetry traces (opt-in)."""

    def data_dir(self) -> Path:
        return Path(self.browser.data_dir).expanduser() if self.browser.data_dir else default_data_dir()

    def cache_dir(self) -> Path:
        """Where ``--cache`` keeps its entries: ``run.cache_dir``, else the data dir's ``cache/``."""
        return Path(self.run.cache_dir).expanduser() if self.run.cache_dir else self.data_dir() / "cache"

    def for_record(self) -> JsonObject:
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
    "OTEL_EXPORTER_OTLP_ENDPOINT": "telemetry.endpoint",
    "TRACEPARENT": "telemetry.traceparent",
}


def env_with_prefix(prefix: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables whose names start with ``prefix`` (e.g. the secrets' ``KITE_SECRET_*``)."""
    env = os.environ if env is None else env
    return {name: value for name, value in env.items() if name.startswith(prefix)}


def playwright_browsers_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where Playwright keeps its downloaded browsers (``PLAYWRIGHT_BROWSERS_PATH`` or its default)."""
    env = os.environ if env is None else env
    return Path(env.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")


def node_compile_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where Node keeps the Playwright driver's compiled JavaScript between runs (``NODE_COMPILE_CACHE``): a
    ``kite`` folder in the user's cache folder (``XDG_CACHE_HOME``, else ``~/.cache``)."""
    env = os.environ if env is None else env
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kite" / "node-compile-cache"


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


def _deep_merge(base: dict[str, object], over: Mapping[str, object]) -> dict[str, object]:
    out = dict(base)
    for key, value in over.items():
        current = out.get(key)
        if isinstance(value, Mapping) and isinstance(current, dict):
            out[key] = _deep_merge(current, value)
        else:
            out[key] = value
    return out


def _set_dotted(tree: dict[str, object], dotted: str, value: object) -> None:
    *parents, leaf = dotted.split(".")
    node = tree
    for part in parents:
        node = cast("dict[str, object]", node.setdefault(part, {}))  # a parent key holds a section
    node[leaf] = value


def _read_yaml(path: Path) -> dict[str, object]:
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


def chromium_setting(
    user_file: str | Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """The Chromium path set outside the command line, and where it was set, for checking it before anything
    starts: ``KITE_CHROMIUM``, else ``browser.chromium_path`` of the user's config file (named in the second
    item). (None, "") when neither sets one, or when that file attaches to a running Chrome instead."""
    env = os.environ if env is None else env
    if env.get("KITE_CHROMIUM"):
        return env["KITE_CHROMIUM"], "KITE_CHROMIUM"
    path = Path(user_file).expanduser() if user_file else user_config_path(env)
    browser = _read_yaml(path).get("browser") if path is not None else None
    if not isinstance(browser, dict) or browser.get("attach"):
        return None, ""
    value = browser.get("chromium_path")
    return (value, f"{path}: browser.chromium_path") if isinstance(value, str) and value else (None, "")


def with_overrides(config: KiteConfig, overrides: Mapping[str, object]) -> KiteConfig:
    """A copy of ``config`` with dotted keys replaced, validated again (a ConfigError names a bad key)."""
    tree = config.model_dump()
    for dotted, value in overrides.items():
        _set_dotted(tree, dotted, value)
    return _validate(tree)


def _validate(tree: dict[str, object]) -> KiteConfig:
    try:
        return KiteConfig.model_validate(tree)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"config key '{key}': {err['msg']}", key=key) from exc


def load_config(
    user_file: str | Path | None = None,
    overrides: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> KiteConfig:
    """Merge default.yaml, the user file, KITE_* environment variables and dotted CLI overrides."""
    env = os.environ if env is None else env
    tree = _read_yaml(resource_path("config", "default.yaml"))
    path = Path(user_file).expanduser() if user_file else user_config_path(env)
    origins: dict[str, str] = {}
    """dotted key -> where the user set it (the file, an environment variable), for the error message."""
    if path is not None:
        user = _read_yaml(path)
        tree = _deep_merge(tree, user)
        origins.update(dict.fromkeys(_dotted_keys(user), f"set in {path}"))
    for name, dotted in ENV_KEYS.items():
        if env.get(name):
            _set_dotted(tree, dotted, env[name])
            origins[dotted] = f"set by {name}"
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(tree, dotted, value)
            origins.pop(dotted, None)  # a command-line flag: the message names the key, the flag is in view
    try:
        return _validate(tree)
    except ConfigError as exc:
        parts = str(exc.context.get("key", "")).split(".")
        prefixes = (".".join(parts[:n]) for n in range(len(parts), 0, -1))  # safety.allowed_domains.0 -> ...
        origin = next((origins[k] for k in prefixes if k in origins), None)
        if origin is None:
            raise
        raise ConfigError(f"{exc.message} ({origin})", **exc.context) from exc


def _dotted_keys(tree: Mapping[str, object], prefix: str = "") -> list[str]:
    """Every key of a nested mapping as a dotted path, parents included (``browser``, ``browser.headless``)."""
    out: list[str] = []
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        out.append(dotted)
        if isinstance(value, Mapping):
            out += _dotted_keys(value, dotted + ".")
    return out


PROVIDER_ENV_SUFFIXES = ("_API_KEY", "_API_BASE", "_API_VERSION")


def provider_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a remote worker needs to reach the configured model: provider keys and bases
    (``OPENAI_API_KEY``, ...) and Kite's own ``KITE_*`` settings (handed to Ray's runtime environment)."""
    env = os.environ if env is None else env
    return {k: v for k, v in env.items() if k.endswith(PROVIDER_ENV_SUFFIXES) or k.startswith("KITE_")}
