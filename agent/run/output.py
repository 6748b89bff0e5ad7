"""Structured answers: the shape ``done``'s ``data`` must have, checked before the run may end.

The user gives an output type: a JSON schema (a dict; ``kite run --output-schema FILE``, a task's
``output_schema``) or a Python type pydantic can validate (``Agent(config, output_type=Mugs)``, also
``list[Mug]``). The model is shown the schema in every step's prompt and in the ``done`` tool's ``data``
parameter. A ``done(success=true)`` whose ``data`` is missing or invalid is not run: the model gets the
validation errors back (an ``invalid_data`` action error) and tries again, at most ``agent.output_retries``
times; then the run ends with stop reason ``invalid_output``. ``RunResult.data`` is the validated JSON;
``RunResult.output`` the Python value (the model instance for a pydantic type, the JSON for a schema).

A ``done(success=false)`` needs no data; data it gives that does not validate is dropped (not retried).
Without an output type, ``data`` is free-form JSON and passed through as given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from pydantic import JsonValue, TypeAdapter, ValidationError
from typing_extensions import TypeForm

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.jsonschema import flat_schema
from kite_browser.agent.base.result import StopReason
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser.actions import Action, Done
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo
from kite_browser.agent.llm.chat import ChatTool
from kite_browser.agent.run.stop import Stop

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

INVALID_DATA = "invalid_data"
"""The action error of a ``done`` whose data does not match the output schema."""
MAX_ERRORS = 6
"""Validation errors shown to the model per rejected ``done``."""


def load_schema(path: str | Path, what: str = "--output-schema") -> JsonObject:
    """A JSON schema read from a JSON file and checked; a one-line ``UsageError`` when it is not one."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{what}: cannot read {p}: {exc.strerror or type(exc).__name__}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what}: {p} is not UTF-8 text (byte {exc.start}); save it as UTF-8 JSON") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{what}: {p} is not JSON (line {exc.lineno}: {exc.msg})") from None
    return check_schema(schema, f"{what} {p}")


def check_schema(schema: object, what: str = "output schema") -> JsonObject:
    """``schema`` when it is a valid JSON schema (any draft jsonschema knows), else a one-line UsageError."""
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    if not isinstance(schema, dict):
        raise UsageError(f"{what}: a JSON schema is a JSON object, not {type(schema).__name__}")
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path)
        raise UsageError(
            f"{what}: not a valid JSON schema{f' at {where}' if where else ''}: {exc.message}"
        ) from None
    return schema


def _where(path: Iterable[object]) -> str:
    return ".".join(str(p) for p in path) or "(data)"


OutputType: TypeAlias = TypeForm[object] | JsonObject | None
"""What ``Agent(output_type=...)`` takes: any type pydantic validates (a model, ``list[Mug]``, ``Mug | None``,
a ``Literal``: a type form, PEP 747), or a JSON schema (a dict); None: no output type."""


class OutputSpec:
    """One run's output type: validates ``done``'s data, and counts the tries (``retries`` allowed)."""

    def __init__(self, output_type: OutputType = None, retries: int = 2) -> None:
        self.retries, self.rejected = retries, 0
        self.value: JsonValue = None
        """The validated JSON of the last accepted ``done``."""
        self.schema: JsonObject | None = None
        """The JSON schema the model is shown (None: no output type)."""
        self._adapter: TypeAdapter[object] | None = None
        self._validator: Validator | None = None
        self.errors = ""
        """The validation errors of the last rejected ``done``."""
        if output_type is None:
            return
        if isinstance(output_type, dict):
            from jsonschema.validators import validator_for

            self.schema = check_schema(output_type)
            self._validator = validator_for(self.schema)(self.schema)
            return
        try:
            self._adapter = TypeAdapter(output_type)
            raw = self._adapter.json_schema()
        except Exception as exc:  # not a type pydantic can validate or describe
            raise UsageError(
                f"output_type: {output_type!r} is neither a JSON schema (dict) nor a type pydantic can "
                f"validate ({type(exc).__name__})"
            ) from None
        try:
            self.schema = flat_schema(raw)
        except RecursionError:  # a recursive model keeps its $defs
            self.schema = raw

    @property
    def active(self) -> bool:
        return self.schema is not None

    def prompt(self) -> str | None:
        """The schema as the step prompt shows it (compact JSON), or None."""
        return None if self.schema is None else json.dumps(self.schema, ensure_ascii=False)

    def validate(self, data: JsonValue) -> tuple[JsonValue, list[str]]:
        """(the validated JSON, []) or (None, the errors as ``path: message`` lines)."""
        if self._adapter is not None:
            try:
                value = self._adapter.validate_python(data)
            except ValidationError as exc:
                return None, [f"{_where(e['loc'])}: {e['msg']}" for e in exc.errors()]
            return self._adapter.dump_python(value, mode="json"), []
        if self._validator is not None:
            found = sorted(self._validator.iter_errors(data), key=lambda e: [str(p) for p in e.path])
            if found:
                return None, [f"{_where(e.path)}: {e.message}" for e in found]
        return data, []

    def instance(self, data: object) -> object:
        """The Python value of validated JSON: the pydantic type's instance, or the JSON itself."""
        if self._adapter is None or data is None:
            return data
        try:
            return self._adapter.validate_python(data)
        except ValidationError:  # redaction changed the data (a secret in it): the JSON stays in ``data``
            return None

    def refuse(self, action: Action) -> ActionResult | None:
        """An ``invalid_data`` result for a ``done`` that may not end the run yet; None to run it."""
        if not isinstance(action, Done):
            return None
        if action.data is None:
            self.value = None
            if not (self.active and action.success):
                return None
            errors = ["data is missing"]
        else:
            value, errors = self.validate(action.data)
            self.value = None if errors else value
            if not errors or not action.success:  # a failure's invalid data is dropped, not retried
                return None
        self.rejected += 1
        more = len(errors) - MAX_ERRORS
        self.errors = "; ".join(errors[:MAX_ERRORS]) + (f"; … {more} more" if more > 0 else "")
        left = self.retries - self.rejected + 1
        again = f"Call done again with corrected data ({left} tries left)." if left > 0 else "No tries left."
        message = f"data does not match the output schema: {self.errors}. {again}"
        return ActionResult(action="done", ok=False, error=ErrorInfo(error=INVALID_DATA, message=message))

    def settle(self, action: Done, result: ActionResult) -> None:
        """End the run (``Stop``): done, or ``invalid_output`` after the last try. Returns only when the
        ``done`` did not run: the model was sent its data back to fix, or its claim back with the page's
        evidence (agent/policies/claims.py)."""
        if result.error is not None:
            if result.error.error == INVALID_DATA and self.rejected > self.retries:
                raise Stop(
                    StopReason.INVALID_OUTPUT,
                    f"done's data did not match the output schema after {self.rejected} tries: {self.errors}",
                    answer=action.answer,
                )
            return
        verified = result.data.get("verified")
        raise Stop(
            StopReason.DONE,
            success=action.success,
            answer=action.answer,
            data=self.value,
            verified=verified if isinstance(verified, bool) else None,
            verification=str(result.data.get("verification") or ""),
        )

    def tools(self, tools: list[ChatTool] | None) -> list[ChatTool] | None:
        """``tools`` with the ``done`` tool's ``data`` parameter described by the schema, or left out without
        one (fewer tokens for every call); the list is copied, never changed in place. The one-tool style
        (``browser_action``, llm.tools: single) has no ``done`` function: its catalogue lists ``data?`` and
        the schema is in the step prompt."""
        if tools is None:
            return tools
        out = []
        for tool in tools:
            fn = tool.get("function") or {}
            if fn.get("name") == "done":
                params = dict(fn.get("parameters") or {})
                given = params.get("properties")
                props = dict(given) if isinstance(given, dict) else {}
                props.pop("data", None)
                if self.schema is not None:
                    props["data"] = {**self.schema, "description": DATA_DESCRIPTION}
                tool = {**tool, "function": {**fn, "parameters": {**params, "properties": props}}}
            out.append(tool)
        return out


DATA_DESCRIPTION = "The structured answer, matching this schema (required when success is true)."
