"""The rule model behind the safety policy: levels, decisions, and loading ``config/safety.yaml`` plus a
user rules file, with errors that name the file and line at fault."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from kite_browser.agent.base.errors import ConfigError
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.base.levels import ConfirmLevel
from kite_browser.agent.browser.actions import ACTION_NAMES


class Decision(BaseModel):
    """What the policy decided for one action, and why."""

    model_config = ConfigDict(frozen=True)
    level: ConfirmLevel
    reasons: list[str] = Field(default_factory=list)
    rule: str | None = None
    """The check or user rule that set the level (None for auto with no rule)."""


CheckName = Literal[
    "always_confirm",
    "sensitive_click",
    "sensitive_enter",
    "sensitive_field",
    "card_number",
    "unknown_target",
    "script_url",
    "file_url",
    "destructive_click",
    "new_domain",
    "download",
    "sensitive_refresh",
    "sensitive_dialog",
]
CHECK_NAMES: tuple[str, ...] = CheckName.__args__  # type: ignore[attr-defined]


def _compile(pattern: str) -> str:
    try:
        re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    return pattern


Regex = Annotated[str, AfterValidator(_compile)]
YamlPath = tuple[str | int, ...]
"""Where a node sits in a YAML document: its mapping keys and list positions."""


def _as_list(value: object) -> object:
    return [value] if isinstance(value, str) else value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Match(_Strict):
    """Conditions of a user rule; all given conditions must hold."""

    action: list[str] | None = None
    domain: list[str] | None = None
    target_domain: list[str] | None = None
    url: str | None = None
    element_text: str | None = None
    key: str | None = None
    sensitive: bool | None = None

    _lists = field_validator("action", "domain", "target_domain", mode="before")(_as_list)

    @field_validator("action")
    @classmethod
    def _known_actions(cls, value: list[str] | None) -> list[str] | None:
        for name in value or []:
            if name not in ACTION_NAMES:
                raise ValueError(f"unknown action {name!r} (known: {', '.join(ACTION_NAMES)})")
        return value

    @field_validator("url", "element_text")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return None if value is None else _compile(value)


class Rule(_Strict):
    name: str = Field(min_length=1)
    when: Match = Field(default_factory=Match)
    level: ConfirmLevel
    override: bool = False
    reason: str = ""


class FieldRules(_Strict):
    types: list[str] = Field(default_factory=list)
    autocomplete: list[str] = Field(default_factory=list)
    names: list[Regex] = Field(default_factory=list)


class PaymentRules(_Strict):
    """Signals of paying and deleting beyond a control's words (``payment`` in config/safety.yaml)."""

    pay_texts: list[Regex] = Field(default_factory=list)
    """Labels that spend money: a click on one asks first on a page that shows a price."""
    price: Regex | None = None
    """A price in the page's text."""
    card_fields: FieldRules = Field(default_factory=FieldRules)
    """A payment card field anywhere on the page (frames included) makes the page sensitive."""
    payment_fields: FieldRules = Field(default_factory=FieldRules)
    """Other payment fields (an IBAN, an amount to pay or send): one anywhere on the page makes it sensitive."""
    form_targets: list[Regex] = Field(default_factory=list)
    """A form sent by POST to a target path that matches makes the page that holds it sensitive."""
    frame_urls: list[Regex] = Field(default_factory=list)
    """A frame whose URL matches (a payment provider's iframe) makes its page sensitive."""
    pay_paths: list[Regex] = Field(default_factory=list)
    """A link's or form's target path that pays: the click is judged as paying, on any page."""
    delete_paths: list[Regex] = Field(default_factory=list)
    """A link's or form's target path that deletes: the click is judged as destructive."""


class DomainRules(_Strict):
    allow_loopback: bool = True


class SafetyRules(_Strict):
    url_patterns: list[Regex] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    always_confirm: list[str] = Field(default_factory=list)
    submit_texts: list[Regex] = Field(default_factory=list)
    destructive_texts: list[Regex] = Field(default_factory=list)
    sensitive_fields: FieldRules = Field(default_factory=FieldRules)
    download_extensions: list[str] = Field(default_factory=list)
    payment: PaymentRules = Field(default_factory=PaymentRules)
    levels: dict[CheckName, ConfirmLevel] = Field(default_factory=dict)
    domains: DomainRules = Field(default_factory=DomainRules)
    rules: list[Rule] = Field(default_factory=list)

    @field_validator("always_confirm")
    @classmethod
    def _actions(cls, value: list[str]) -> list[str]:
        return Match._known_actions(value) or []

    def level(self, check: str) -> ConfirmLevel:
        return self.levels.get(check, ConfirmLevel.CONFIRM)  # type: ignore[call-overload]


# ---------------------------------------------------------------- loading with line numbers


def _line_map(
    node: yaml.Node, path: YamlPath = (), out: dict[YamlPath, int] | None = None
) -> dict[YamlPath, int]:
    out = {} if out is None else out
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            child = (*path, key.value)
            _line_map(value, child, out)
            out[child] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _line_map(item, (*path, i), out)
    return out


def _read(path: Path) -> tuple[JsonObject, dict[YamlPath, int]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read safety rules file {path}: {exc.strerror}", path=str(path)) from exc
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        where = f" line {line}" if line else ""
        raise ConfigError(
            f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})", path=str(path), line=line
        ) from exc
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path} line 1: the top level must be a mapping", path=str(path), line=1)
    return data, _line_map(node) if node is not None else {}


def _validate(data: JsonObject, lines: dict[YamlPath, int], path: Path) -> SafetyRules:
    try:
        return SafetyRules.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        line = next((lines[loc[:n]] for n in range(len(loc), -1, -1) if loc[:n] in lines), None)
        key = ".".join(str(p) for p in loc) or "(top level)"
        where = f" line {line}" if line else ""
        raise ConfigError(
            f"{path}{where}: '{key}': {err['msg']}", path=str(path), line=line, key=key
        ) from None


def _merge(base: JsonObject, over: JsonObject) -> JsonObject:
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        if isinstance(old, list) and isinstance(value, list):
            out[key] = old + [v for v in value if v not in old]
        elif isinstance(old, dict) and isinstance(value, dict):
            out[key] = _merge(old, value)
        else:
            out[key] = value
    return out


def load_rules(paths: Iterable[str | Path]) -> SafetyRules:
    """Read each rules file (each validated on its own, so an error names its file and line) and merge them
    in order: lists extend, mappings merge, ``rules`` append."""
    merged: JsonObject = {}
    for raw in paths:
        path = Path(raw).expanduser()
        data, lines = _read(path)
        _validate(data, lines, path)
        merged = _merge(merged, data)
    return SafetyRules.model_validate(merged)
