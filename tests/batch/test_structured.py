"""Batch tasks with an output schema: the schema (a file or inline) reaches the agent, and checks score fields
of the structured answer (``check: {data: {...}}``). Real Chromium; the model is a FunctionModel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch.local import LocalBackend
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model, unregister_model
from kite_browser.agent.llm.testing import FunctionModel

MUGS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "price": {"type": "number"}},
        "required": ["name", "price"],
    },
}
CHEAPEST = {"length": 2, "0.name": "White Porcelain Mug", "0.price": 6.49, "1.name": "Sky Blue Espresso Mug"}


def answer(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
    """The task names the data to give: JSON after 'give ' (the schema must have reached the model)."""
    assert view.output_schema == MUGS, view.output_schema
    data = json.loads(view.task.split("give ", 1)[1])
    return {"action": "done", "success": True, "answer": "here", "data": data}


@pytest.fixture
def data_model() -> Any:
    register_model("kite/data", FunctionModel(answer, name="kite/data"))
    yield
    unregister_model("kite/data")


async def test_checks_score_fields_of_the_structured_answer(
    make_jobs: Any, browser_session: Any, tmp_path: Path, data_model: Any
) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "mugs.json").write_text(json.dumps(MUGS))
    right = [{"name": "White Porcelain Mug", "price": 6.49}, {"name": "Sky Blue Espresso Mug", "price": 7.25}]
    wrong = [{"name": "Red Enamel Mug", "price": 9.99}]
    check = {"data": CHEAPEST}
    jobs = await make_jobs(
        [
            {
                "id": "right",
                "task": f"give {json.dumps(right)}",
                "output_schema": "schemas/mugs.json",
                "check": check,
            },
            {"id": "wrong", "task": f"give {json.dumps(wrong)}", "output_schema": MUGS, "check": check},
        ],
        **{"llm.model": "kite/data"},
    )
    out = tmp_path / "results.jsonl"
    backend = LocalBackend(jobs[0].config.browser, concurrency=2, browser=browser_session)
    results = {r.id: r for r in await BatchRunner(jobs, backend, out=out).run()}

    assert results["right"].success and results["right"].data == right, results["right"]
    bad = results["wrong"]
    assert not bad.success and bad.claimed_success and bad.data == wrong
    assert bad.failures == [
        "data: length = 1, expected 2",
        'data: 0.name = "Red Enamel Mug", expected "White Porcelain Mug"',
        "data: 0.price = 9.99, expected 6.49",
        f"data: 1.name missing in {json.dumps(wrong)}",
    ]
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["right"]["data"] == right, "the results file carries the structured answer"


async def test_a_bad_output_schema_names_the_task(make_jobs: Any) -> None:
    with pytest.raises(UsageError, match=r"task #2 \(b\): output_schema: not a valid JSON schema at type"):
        await make_jobs(
            [{"id": "a", "task": "x"}, {"id": "b", "task": "y", "output_schema": {"type": "mug"}}]
        )
    with pytest.raises(UsageError, match=r"task #1 \(a\): output_schema: cannot read .*nope.json"):
        await make_jobs([{"id": "a", "task": "x", "output_schema": "nope.json"}])
