"""A question's answer in a replay (agent/workflow/answer.py): the workflow records the passage the answer
was read from, the replay reads it again on the replayed page, asks a model for the answer alone when it is
not there, and fails with a typed error without one (never a success with no answer). A real headless
Chromium on local pages and the bundled shop; the models are fakes."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from rich.console import Console

from kite_browser.agent.base.result import StopReason
from kite_browser.agent.batch.checks import evaluate
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.commands._progress import ProgressPrinter
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.workflow.answer import read_again, source_of
from kite_browser.agent.workflow.cache import CachedRun
from kite_browser.agent.workflow.errors import ReplayAnswerNotFoundError
from kite_browser.agent.workflow.heal import Healer
from kite_browser.agent.workflow.model import Answer, Workflow, dump_workflow, parse_workflow
from kite_browser.agent.workflow.replay import Replayer
from kite_browser.agent.workflow.save import workflow_from_run
from kite_browser.evals.harness import EvalReport
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.tasks import find_suite, load_suite
from tests.fixtures.browser import PagesServer

pytestmark = [pytest.mark.timeout(300)]

PAGE = """<!doctype html><title>Mug</title><main><h2>Sky Blue Espresso Mug</h2>
<p>Colour: blue</p><p>Price: {price}</p><button onclick="this.textContent='Added'">Add to cart</button></main>"""
ANSWER = Answer(text="The mug costs $7.25.", passage="$7.25", before="Price: ")


@pytest.fixture
async def env(
    kite_config: Callable[..., KiteConfig], ctx_session: ContextSession, tmp_path: Path
) -> AsyncIterator[BrowserEnv]:
    config = kite_config()
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config))
    await env.start(tmp_path)
    yield env
    await env.stop()


def test_the_passage_is_the_part_of_the_answer_the_page_showed_with_the_words_around_it() -> None:
    shown = ['[3] heading "Sky Blue Espresso Mug"\nColour: blue\nPrice: $7.25\n[7] button "Add to cart"']
    found = source_of("The mug costs $7.25.", shown)
    assert (found.passage, found.before, found.after) == ("$7.25", "Price: ", "")
    assert read_again(found, ["Price: $8.10"]) == "The mug costs $8.10."
    assert read_again(found, ["Shipping: $7.25 ... Price: $9.00"]) == "The mug costs $9.00."
    assert read_again(found, ["nothing of the kind"]) is None
    assert source_of("I could not tell.", shown).passage == ""  # nothing of it on the page
    assert source_of("7", ["In stock: 7 left"]).passage == "7"  # a short answer that is all of itself


async def test_the_answer_is_read_again_on_the_replayed_page(
    env: BrowserEnv, pages_server: PagesServer, tmp_path: Path
) -> None:
    url = pages_server.add("/answer/mug", PAGE.format(price="$8.10"))
    wf = parse_workflow(dump_workflow(Workflow(task="What does the mug cost?", start_url=url, answer=ANSWER)))
    assert wf.answer == ANSWER
    replayer = Replayer(wf)
    out = await replayer.run(env)
    assert out.success and out.answered_by == "page", out.error
    assert replayer.result.answer == "The mug costs $8.10." and replayer.result.model_calls == 0
    assert "answer read again on the page" in replayer.result.message


async def test_an_answer_not_on_the_page_fails_without_a_model_and_takes_one_call_with_one(
    env: BrowserEnv, pages_server: PagesServer, kite_config: Callable[..., KiteConfig]
) -> None:
    url = pages_server.add("/answer/gone", "<!doctype html><main><h2>Sold out</h2></main>")
    wf = Workflow(task="What does the mug cost?", start_url=url, answer=ANSWER)
    replayer = Replayer(wf)
    out = await replayer.run(env)
    assert not out.success and isinstance(out.error, ReplayAnswerNotFoundError)
    assert replayer.result.stop_reason == StopReason.REPLAY_DIVERGED and replayer.result.answer == ""
    assert "'$7.25'" in out.error.message and "replay with a model" in out.error.message

    calls: list[str] = []

    def answer(messages: list[dict[str, Any]], view: ModelView) -> Any:
        calls.append(str(messages[-1]["content"]))
        return {"action": "done", "success": True, "answer": "It is sold out."}

    healer = Healer(kite_config(), FunctionModel(answer))
    replayer = Replayer(wf, healer=healer)
    out = await replayer.run(env)
    assert out.success and out.answered_by == "model" and out.model_calls == 1 == len(calls), out.error
    assert replayer.result.answer == "It is sold out."


async def test_a_cached_question_answers_again_on_its_second_run(
    pages_server: PagesServer, kite_config: Callable[..., KiteConfig], tmp_path: Path
) -> None:
    """``kite run --cache`` with a question: the second run is a replay, and it answers (issue 48, 1)."""
    config = kite_config(**{"run.cache_dir": str(tmp_path / "cache")})
    url = pages_server.add("/answer/cached", PAGE.format(price="$7.25"))
    calls: list[int] = []

    def model(messages: list[dict[str, Any]], view: ModelView) -> Any:
        calls.append(1)
        if view.step == 1:
            button = next(e for e in view.observation.elements if e.name == "Add to cart")
            return {"action": "click", "index": button.index}
        return {"action": "done", "success": True, "answer": "The mug costs $7.25."}

    task = "Add the mug to the cart and tell me its price."
    first = await CachedRun(config, model=FunctionModel(model)).run(task, url)
    assert first.success and first.answer == "The mug costs $7.25." and len(calls) == 2
    second = await CachedRun(config, model=FunctionModel(model)).run(task, url)
    assert second.success and second.steps_by == {"replayed": 1, "healed": 0, "agent": 0}, second.message
    assert second.answer == "The mug costs $7.25." and len(calls) == 2 and second.model_calls_saved == 2
    assert second.model_dump(mode="json")["replayed"] is True and first.replayed is False

    shown = io.StringIO()
    ProgressPrinter(Console(file=shown, width=200)).final(second)
    text = shown.getvalue()
    assert "success (done) in 1 step," in text
    assert (
        "replayed from a workflow: 1 of 1 step with no model call; 0 model calls, 2 model calls saved" in text
    )
    assert "answer: The mug costs $7.25." in text


TASKS = ["shop-cheapest-blue-mug"]
"""The sites question the oracle answers once for this module (``recorded``, tests/workflow/conftest.py)."""


@pytest.mark.parametrize("variant", [0, 1])
async def test_a_recorded_question_answers_its_check_on_the_page_variants(
    variant: int,
    recorded: EvalReport,
    env: BrowserEnv,
    sites_variant: Callable[[int], SitesServer],
) -> None:
    """The oracle's run of a sites question saved as a workflow: replayed with no model on the sites as
    designed and with every id renamed and the filters reordered, its answer passes the task's own check."""
    [task_run] = recorded.tasks
    assert task_run.run_dir
    wf = workflow_from_run(task_run.run_dir)
    assert wf.answer is not None and "7.25" in wf.answer.passage, wf.answer
    server = sites_variant(variant)
    parts = urlsplit(wf.start_url)
    replayer = Replayer(wf, start_url=server.url(parts.path))
    out = await replayer.run(env)
    assert out.success and out.answered_by == "page" and out.model_calls == 0, out.error
    task = next(t for t in load_suite(find_suite("sites")).tasks if t.id == TASKS[0])
    assert task.check is not None
    verdict = await evaluate(task.check, env.ctx, answer=replayer.result.answer, base_url=server.url("/"))
    assert verdict.passed, (verdict.failures, replayer.result.answer)
