"""What a model can do: function calling, vision, input budget — litellm's tables + ``config/providers.yaml``.

The order of precedence is documented at the top of ``config/providers.yaml``. Unknown models get no function
calling, no vision and a conservative context, and a log line says so: a warning the first time a machine
sees the model (remembered in the Kite data folder), an info line after that.
"""

from __future__ import annotations

import fnmatch
import json
import logging
from functools import cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

import yaml
from pydantic import BaseModel, ConfigDict, Field

from kite_browser.agent.base.errors import ConfigError
from kite_browser.agent.config import LLMConfig, default_data_dir, resource_path
from kite_browser.agent.llm.model_names import LOCAL_MODEL, is_local

log = logging.getLogger("kite.llm")
NOTICES_FILE = "notices-seen.json"
notices_dir: Path | None = None
"""Where the seen-notices file lives; None = the Kite data folder (tests point it at a temporary folder)."""


def first_notice(model: str, data_dir: Path | None = None) -> bool:
    """True the first time this machine's Kite data folder hears of ``model`` (then it is remembered), so a
    notice about the model is a warning once and a debug line after that; True when nothing can be saved."""
    path = (data_dir or notices_dir or default_data_dir()) / NOTICES_FILE
    try:
        seen = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
        if not isinstance(seen, list):
            seen = []
    except (OSError, ValueError):
        seen = []
    if model in seen:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps([*seen, model][-500:]), encoding="utf-8")
    except OSError:
        pass
    return True


Source = Literal["litellm", "providers.yaml", "unknown"]
_FIELDS = ("function_calling", "vision", "max_input_tokens", "response_schema")
_OPENAI_HOSTS = ("api.openai.com",)
_OPENAI_LIKE = {"openai", "text-completion-openai"}


class Capabilities(BaseModel):
    model_config = ConfigDict(frozen=True)

    function_calling: bool
    """The model returns structured tool calls (else Kite uses the JSON-in-Markdown fallback)."""
    vision: bool
    """The model accepts images (enables hybrid mode: element list + screenshot)."""
    max_input_tokens: int
    """The model's input window in tokens."""
    response_schema: bool = False
    """The server decodes under a JSON schema sent as ``response_format`` (constrained replies)."""
    source: Source
    """Where the answer came from: litellm's tables, config/providers.yaml, or the unknown-model fallback."""
    provider: str | None = None
    """The providers.yaml entry that applied (google, openai, ..., custom, local, kite), if any."""


class _Caps(BaseModel):
    model_config = ConfigDict(extra="forbid")
    function_calling: bool | None = None
    vision: bool | None = None
    max_input_tokens: int | None = Field(None, ge=1)
    response_schema: bool | None = None


class _Provider(BaseModel):
    model_config = ConfigDict(extra="forbid")
    litellm: list[str] = Field(default_factory=list)
    defaults: _Caps = Field(default_factory=_Caps)
    override: _Caps = Field(default_factory=_Caps)
    models: dict[str, _Caps] = Field(default_factory=dict)


class _ProvidersFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    providers: dict[str, _Provider]
    unknown: _Caps


@cache
def _table() -> _ProvidersFile:
    path = resource_path("config", "providers.yaml")
    try:
        return _ProvidersFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except Exception as exc:
        raise ConfigError(f"{path}: invalid providers file ({exc})", path=str(path)) from exc


def _entry_for(provider: str | None, api_base: str | None) -> tuple[str | None, _Provider | None]:
    table = _table().providers
    if provider in _OPENAI_LIKE and api_base and urlparse(api_base).hostname not in _OPENAI_HOSTS:
        return "custom", table.get("custom")
    for name, entry in table.items():
        if provider is not None and (provider == name or provider in entry.litellm):
            return name, entry
    return None, None


def _split(model: str, api_base: str | None) -> tuple[str, str | None]:
    """(model name without provider prefix, litellm provider name) without touching the network."""
    if is_local(model):
        return LOCAL_MODEL, LOCAL_MODEL
    import litellm

    litellm.suppress_debug_info = True  # no "Provider List" banner on failed lookups

    try:
        name, provider, _, _ = litellm.get_llm_provider(model, api_base=api_base)
        return name, provider
    except Exception:
        pass
    try:
        info = litellm.get_model_info(model)
        return model.split("/", 1)[-1], info.get("litellm_provider")
    except Exception:
        head, _, tail = model.partition("/")
        return (tail, head) if tail else (model, None)


def _from_litellm(model: str, name: str, provider: str | None) -> dict[str, object]:
    import litellm

    info: dict[str, object] | None = None
    for args in ((model, None), (name, provider)):
        try:
            info = dict(litellm.get_model_info(args[0], custom_llm_provider=args[1]))
            break
        except Exception:
            continue
    if not info:
        return {}
    if info.get("supports_function_calling") is None and not info.get("max_input_tokens"):
        return {}  # listed without any capability data: as good as unknown
    # litellm leaves a flag unset (None) when the model lacks the feature
    return {
        "function_calling": bool(info.get("supports_function_calling")),
        "vision": bool(info.get("supports_vision")),
        "max_input_tokens": info.get("max_input_tokens") or None,
        "response_schema": bool(info.get("supports_response_schema")),
    }


def _layer(caps: dict[str, object], over: _Caps | None) -> bool:
    changed = False
    for key, value in (over.model_dump() if over else {}).items():
        if value is not None and caps.get(key) != value:
            caps[key] = value
            changed = True
    return changed


@cache
def _resolve(model: str, api_base: str | None) -> Capabilities:
    name, provider = _split(model, api_base)
    entry_name, entry = _entry_for(provider, api_base)
    caps: dict[str, object] = {}
    learnt = _from_litellm(model, name, provider)
    source: Source = "litellm" if learnt else "unknown"
    overridden = False
    caps.update({k: v for k, v in learnt.items() if v is not None})
    if entry is not None:
        overridden = _layer(caps, entry.override)
        for pattern, over in entry.models.items():
            if fnmatch.fnmatch(name.lower(), pattern.lower()) or fnmatch.fnmatch(
                model.lower(), pattern.lower()
            ):
                overridden = _layer(caps, over) or overridden
        if overridden:
            source = "providers.yaml"
        for key, value in entry.defaults.model_dump().items():
            caps.setdefault(key, value)
    for key, value in _table().unknown.model_dump().items():
        if caps.get(key) is None:
            caps[key] = value
    if not learnt:
        where = f"the '{entry_name}' defaults" if entry is not None else "the unknown-model defaults"
        log.log(
            # a model providers.yaml describes (the bundled one) is known: said at INFO, not as a warning
            logging.WARNING if first_notice(model) and not overridden else logging.INFO,
            "model %r is not in litellm's tables: using %s and overrides from providers.yaml (function_calling=%s, vision=%s, "
            "max_input_tokens=%s); set llm.function_calling / llm.vision to override",
            model,
            where,
            caps["function_calling"],
            caps["vision"],
            caps["max_input_tokens"],
        )
    return Capabilities.model_validate(
        {**{k: caps[k] for k in _FIELDS}, "source": source, "provider": entry_name}
    )


def capabilities_for(
    model: str, api_base: str | None = None, config: LLMConfig | None = None
) -> Capabilities:
    """Capabilities of ``model`` (a litellm model string, or ``local``); ``config`` forces fc/vision."""
    caps = _resolve(model, api_base)
    forced = {}
    if config is not None and config.function_calling is not None:
        forced["function_calling"] = config.function_calling
    if config is not None and config.vision is not None:
        forced["vision"] = config.vision
    return caps.model_copy(update=forced) if forced else caps


def select_mode(caps: Capabilities, configured: str = "auto") -> Literal["dom", "hybrid"]:
    """``hybrid`` (element list + screenshot) for vision models, ``dom`` otherwise; ``configured`` overrides.

    Asking for ``hybrid`` with a model without vision gives ``dom`` (and a log line): force vision with
    ``llm.vision: true`` if the model really takes images.
    """
    if configured == "dom":
        return "dom"
    if configured == "hybrid" and not caps.vision:
        log.warning("mode 'hybrid' needs a vision model; using 'dom' (set llm.vision: true to force images)")
        return "dom"
    if configured not in ("auto", "hybrid"):
        raise ConfigError(f"llm.mode must be auto, dom or hybrid (got {configured!r})", key="llm.mode")
    return "hybrid" if caps.vision else "dom"
