"""Structured answers: ``done(success, answer, data)`` checked against the run's output type (agent/run/output.py).

Unit tests of the validation, then runs of the real loop (Chromium on about:blank; only the model scripted):
invalid data goes back to the model until it is fixed or the tries run out, and ``output_type`` gives the
pydantic value."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from kite_browser.agent import Agent, ScriptedModel
from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.schemas import tool_schemas
from kite_browser.agent.run.output import OutputSpec, check_schema, load_schema


class Mug(BaseModel):
    name: str
    price: float


SCHEMA = {
    "type": "array",
    "maxItems": 2,
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "price": {"type": "number"}},
        "required": ["name", "price"],
        "additionalProperties": False,
    },
}
GOOD = [{"name": "White Porcelain Mug", "price": 6.49}, {"name": "Sky Blue Espresso Mug", "price": 7.25}]
BAD = [{"name": "White Porcelain Mug", "price": "cheap"}, {"price": 7.25}]


def done(data: Any = None, success: bool = True, answer: str = "two mugs") -> dict[str, Any]:
    out = {"action": "done", "success": success, "answer": answer}
    return out if data is None else {**out, "data": data}


def test_a_pydantic_type_validates_and_normalises() -> None:
    spec = OutputSpec(list[Mug])
    assert spec.schema is not None and spec.schema["items"]["required"] == ["name", "price"]
    assert spec.validate([{"name": "A", "price": "6.49"}]) == ([{"name": "A", "price": 6.49}], [])
    value, errors = spec.validate(BAD)
    assert (
        value is None and errors[0].startswith("0.price: ") and any(e.startswith("1.name: ") for e in errors)
    )
    assert spec.instance(GOOD) == [Mug(**m) for m in GOOD]
    one = OutputSpec(Mug)
    assert one.schema is not None and one.schema["type"] == "object"
    assert one.instance(one.validate({"name": "A", "price": 1})[0]) == Mug(name="A", price=1.0)


def test_a_json_schema_validates_with_paths() -> None:
    spec = OutputSpec(SCHEMA)
    assert spec.validate(GOOD) == (GOOD, [])
    _, errors = spec.validate(BAD)
    assert errors == ["0.price: 'cheap' is not of type 'number'", "1: 'name' is a required property"]
    _, errors = spec.validate([*GOOD, *GOOD])
    assert len(errors) == 1 and errors[0].startswith("(data): ") and "too long" in errors[0]
    assert OutputSpec(None).validate({"any": "thing"}) == ({"any": "thing"}, [])


def test_bad_schemas_are_one_line_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a valid JSON schema at properties/x/type"):
        check_schema({"type": "object", "properties": {"x": {"type": "colour"}}})
    with pytest.raises(UsageError, match="a JSON schema is a JSON object, not list"):
        check_schema([1])
    with pytest.raises(UsageError, match="cannot read"):
        load_schema(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{type: object}")
    with pytest.raises(UsageError, match=r"bad.json is not JSON \(line 1"):
        load_schema(tmp_path / "bad.json")
    with pytest.raises(UsageError, match="neither a JSON schema"):
        OutputSpec(object())


def test_the_done_tool_describes_data_only_with_a_schema() -> None:
    tools = tool_schemas()
    done_params = lambda ts: next(t for t in ts if t["function"]["name"] == "done")["function"]["parameters"]  # noqa: E731
    with_schema = done_params(OutputSpec(SCHEMA).tools(tools))["properties"]["data"]
    assert with_schema["type"] == "array" and with_schema["items"] == SCHEMA["items"]
    assert "data" not in done_params(OutputSpec(None).tools(tools))["properties"]
    assert "data" in done_params(tools)["properties"], "the given list was changed in place"
    assert [t["function"]["name"] for t in OutputSpec(SCHEMA).tools(tools) or []] == [
        t["function"]["name"] for t in tools
    ]


def _steps(run_dir: str | None) -> list[dict[str, Any]]:
    assert run_dir
    return [json.loads(x) for x in (Path(run_dir) / "steps.jsonl").read_text().splitlines()]


async def test_invalid_data_goes_back_to_the_model_until_fixed(
    kite_config: Callable[..., KiteConfig], ctx_session: Any
) -> None:
    fenced = (
        f"Fixed.\n```json\n{json.dumps(done(GOOD))}\n```"  # the fixed reply as JSON text, not a tool call
    )
    model = ScriptedModel([done(BAD), done(None), fenced])
    agent = Agent(kite_config(), model=model, context=ctx_session, output_type=list[Mug])
    result = await agent.run("Give the two cheapest mugs")

    assert result.stop_reason == "done" and result.success and result.steps == 3, result
    assert result.data == GOOD and result.output == [Mug(**m) for m in GOOD]
    assert "output" not in result.model_dump(mode="json")
    system, first = (m["content"] for m in model.messages[0])
    schema_text = json.dumps(agent.output.schema)
    assert schema_text in first and schema_text not in system, "the schema belongs in the step prompt"
    assert model.views[0].output_schema == agent.output.schema
    second = model.messages[1][1]["content"]
    assert "error invalid_data: data does not match the output schema: 0.price: " in second
    assert "2 tries left" in second
    assert "data is missing" in model.messages[2][1]["content"]
    errors = [s["actions"][0]["result"].get("error", {}).get("error") for s in _steps(result.run_dir)[:2]]
    assert errors == ["invalid_data", "invalid_data"]


async def test_data_that_never_validates_ends_the_run(
    kite_config: Callable[..., KiteConfig], ctx_session: Any
) -> None:
    model = ScriptedModel([done(BAD)] * 3)
    config = kite_config(**{"agent.output_retries": 1})
    result = await Agent(config, model=model, context=ctx_session, output_type=SCHEMA).run("Two mugs")
    assert result.stop_reason == "invalid_output" and not result.success and result.steps == 2, result
    assert result.data is None and model.remaining == 1
    assert result.message.startswith("done's data did not match the output schema after 2 tries: 0.price")
    run = json.loads((Path(result.run_dir or "") / "run.json").read_text())
    assert run["result"]["stop_reason"] == "invalid_output"


async def test_a_failure_needs_no_data_and_free_data_passes_through(
    kite_config: Callable[..., KiteConfig], ctx_session: Any
) -> None:
    failed = await Agent(
        kite_config(),
        model=ScriptedModel([done(BAD, success=False)]),
        context=ctx_session,
        output_type=SCHEMA,
    ).run("Two mugs")
    assert (failed.stop_reason, failed.success, failed.steps, failed.data) == ("done", False, 1, None)
    free = await Agent(kite_config(), model=ScriptedModel([done({"n": 2})]), context=ctx_session).run("Count")
    assert free.success and free.data == {"n": 2} and free.output == {"n": 2}
