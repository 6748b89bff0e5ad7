"""The Python API: ``from kite_browser import ...``, ``Agent(config, model=...)`` with the testing models, and the
README's example run against the bundled shop."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kite_browser.agent
from kite_browser.agent import (
    Agent,
    FunctionModel,
    LiteLLMModel,
    Model,
    ModelView,
    ScriptedModel,
    load_config,
)
from kite_browser.agent.base.events import (
    ActionDecided,
    ActionFinished,
    ModelReplied,
    PageObserved,
    RunEvent,
    RunFinished,
    RunStarted,
)
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.config import KiteConfig

ROOT = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- python-api-example -->\n```python\n(.*?)```", text, re.S)
    assert m, "the README's Python API example is missing"
    return m.group(1)


async def test_readme_example_runs(kite_config: Callable[..., KiteConfig], sites: Any) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(readme_example(), "README.md", "exec"), namespace)
    result = await namespace["open_a_mug"](sites.url("/shop/"), kite_config())
    assert result.success and result.steps == 2 and "Mug" in result.answer, result
    run = json.loads((Path(result.run_dir) / "run.json").read_text(encoding="utf-8"))
    assert run["model"] == "kite/function"


async def test_function_model_receives_the_structured_view(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            add = next(e for e in view.observation.elements if e.name == "Sky Blue Espresso Mug")
            return {"action": "click", "index": add.index}
        return {"action": "done", "success": True, "answer": "seen"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": ""})
    events: list[RunEvent] = []
    result = await Agent(config, model=model, context=ctx_session, on_event=events.append).run(
        "Open the espresso mug", start_url=sites.url("/shop/")
    )
    kinds = [type(e) for e in events]
    assert kinds == [
        RunStarted,
        *[PageObserved, ModelReplied, ActionDecided, ActionFinished] * 2,
        RunFinished,
    ]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result == result
    click = events[4]
    assert isinstance(click, ActionFinished) and click.ok and "Sky Blue Espresso Mug" in click.action
    assert result.success and result.answer == "seen"
    first, second = model.views
    assert isinstance(first.observation, Observation) and first.observation.url.endswith("/shop/")
    assert (first.step, second.step, first.task) == (1, 2, "Open the espresso mug")
    assert first.tools and "browser_action" in {
        t["function"]["name"] for t in first.tools
    }  # llm.tools: single
    assert [h.name for h in first.history] == [] and second.observation.url.endswith(
        "/product/sky-blue-espresso-mug"
    )
    (past,) = second.history
    assert past.ok and past.name == "click" and past.element is not None
    assert past.element.name == "Sky Blue Espresso Mug" and "→ ok" in past.line
    assert "Sky Blue Espresso Mug" in model.messages[0][-1]["content"]  # the prompt shows the same page


async def test_scripted_model_replays_then_gives_up(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    model = ScriptedModel([{"name": "scroll", "arguments": {"direction": "down"}}])
    result = await Agent(kite_config(), model=model, context=ctx_session).run(
        "scroll", start_url=sites.url("/shop/")
    )
    assert model.remaining == 0 and not result.success and "no reply left" in result.answer
    assert [v.step for v in model.views] == [1, 2]


def test_the_package_exports_the_api() -> None:
    assert {"Agent", "load_config", "Model", "LiteLLMModel", "FunctionModel", "ScriptedModel"} <= set(
        kite_browser.agent.__all__
    )
    real = LiteLLMModel("openai/gpt-4o-mini")
    assert isinstance(real, Model) and isinstance(FunctionModel(lambda m, v: "x"), Model)
    config = load_config(overrides={"llm.model": "kite/scripted"}, env={})
    built = Agent(config, model=real)  # nothing is called until run()
    assert built.llm is real and built.config.llm.model == "openai/gpt-4o-mini"
    assert built.model.function_calling  # capabilities come from the model passed in


async def test_an_agent_run_twice_starts_its_second_run_from_zero(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            mug = next(e for e in view.observation.elements if e.name == "Sky Blue Espresso Mug")
            return {"action": "click", "index": mug.index}
        return {"action": "done", "success": True, "answer": "seen"}

    model = FunctionModel(fn)
    agent_ = Agent(kite_config(), model=model, context=ctx_session)
    first = await agent_.run("Open the espresso mug", start_url=sites.url("/shop/"))
    second = await agent_.run("Open the espresso mug", start_url=sites.url("/shop/"))
    assert first.success and second.success and first.run_dir != second.run_dir
    assert (second.steps, second.tokens_in, second.tokens_out) == (
        first.steps,
        first.tokens_in,
        first.tokens_out,
    )
    third_run_first_view = model.views[2]  # the second run's first step knows nothing of the first run
    assert third_run_first_view.step == 1 and third_run_first_view.history == []
