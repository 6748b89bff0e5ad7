"""Healing a replay with a model (agent/workflow/heal.py): a step whose target is gone is done by the model for
that step only and the replay goes on; when the model cannot do it the agent takes over the rest of the task;
without a model the replay stops with ``replay_diverged``. A real headless Chromium on local pages whose
button changes its id and label between the recorded run and the replay; the models are fakes (one through
litellm's provider, the real call path)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from kite_browser.agent.base.result import StopReason
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.workflow.errors import ReplayTargetNotFoundError
from kite_browser.agent.workflow.heal import Healer, intent_of
from kite_browser.agent.workflow.model import Expect, Step, Workflow, dump_workflow, parse_workflow
from kite_browser.agent.workflow.replay import Replayer
from tests.fixtures.browser import PagesServer

pytestmark = [pytest.mark.timeout(180)]

PRODUCT = """<!doctype html><title>Mug</title><main>
<h2>Sky Blue Espresso Mug</h2><p>blue · $7.25</p>
<button id="{id}" onclick="location.href='/heal/cart?added=1'">{label}</button></main>"""
CART = """<!doctype html><title>Cart</title><main><h1>Cart</h1><p>1 item</p>
<a href="/heal/done">Checkout</a></main>"""
DONE = "<!doctype html><title>Done</title><main><h1>Thank you</h1></main>"

ADD = Step(
    action="click",
    target=Fingerprint(
        tag="button",
        name="Add to cart",
        attrs={"id": "add-mug"},
        heading="Sky Blue Espresso Mug",
        neighbours=["Sky Blue Espresso Mug", "blue · $7.25"],
    ),
    expect=Expect(url="/heal/cart?added=1"),
    intent='click button "Add to cart"',
)
CHECKOUT = Step(
    action="click",
    target=Fingerprint(tag="a", role="link", name="Checkout", attrs={"href": "/heal/done"}),
    expect=Expect(url="/heal/done"),
    intent='click link "Checkout"',
)


@pytest.fixture
def shop(pages_server: PagesServer) -> Callable[[str, str], str]:
    """``shop(id, label)``: the product page with its button so named; its URL."""
    pages_server.add("/heal/cart", CART)
    pages_server.add("/heal/done", DONE)

    def serve(id_: str, label: str) -> str:
        return pages_server.add("/heal/product", PRODUCT.format(id=id_, label=label))

    return serve


@pytest.fixture
def config(kite_config: Callable[..., KiteConfig]) -> KiteConfig:
    return kite_config()


@pytest.fixture
async def env(config: KiteConfig, ctx_session: ContextSession, tmp_path: Path) -> AsyncIterator[BrowserEnv]:
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config))
    await env.start(tmp_path)
    yield env
    await env.stop()


def clicks(label: str, seen: list[ModelView]) -> Callable[[list[dict[str, Any]], ModelView], Any]:
    """A model that clicks the element named ``label`` (and says done when it is gone)."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        seen.append(view)
        el = next((e for e in view.observation.elements if e.name == label), None)
        if el is None:
            return {"action": "done", "success": False, "answer": f"no {label}"}
        return {"action": "click", "index": el.index}

    return fn


def is_run(folder: str) -> bool:
    return Path(folder, "run.json").is_file()


def lines(run_dir: str | None) -> list[dict[str, Any]]:
    assert run_dir
    return [json.loads(x) for x in Path(run_dir, "steps.jsonl").read_text().splitlines()]


async def test_without_a_model_a_changed_button_stops_the_replay_with_replay_diverged(
    shop: Callable[[str, str], str], env: BrowserEnv, tmp_path: Path
) -> None:
    url = shop("basket-mug", "Add to basket")
    replayer = Replayer(
        Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT]),
        recorder=RunRecorder(tmp_path / "replay"),
    )
    out = await replayer.run(env)
    assert isinstance(out.error, ReplayTargetNotFoundError) and out.done == 0 and out.model_calls == 0
    result = replayer.result
    assert result.stop_reason == StopReason.REPLAY_DIVERGED and not result.success
    assert 'step 1 (click button "Add to cart"): no element matches button "Add to cart" (id=add-mug)' in (
        result.message
    )
    run = json.loads((tmp_path / "replay" / "run.json").read_text())
    assert run["result"]["stop_reason"] == "replay_diverged"


def test_the_intent_names_the_target_by_its_fingerprint() -> None:
    assert intent_of(ADD, {}) == (
        'click the button "Add to cart" under the heading "Sky Blue Espresso Mug" (next to "blue · $7.25")'
    )
    typed = Step(action="type", args={"text": "{q}"}, target=Fingerprint(tag="input", label="Search"))
    assert intent_of(typed, {"q": "bag"}) == "type 'bag' into the input \"Search\""


async def test_a_model_heals_the_changed_step_only_and_the_replay_goes_on(
    shop: Callable[[str, str], str], env: BrowserEnv, config: KiteConfig, tmp_path: Path
) -> None:
    url = shop("basket-mug", "Add to basket")
    seen: list[ModelView] = []
    wf = Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT])
    healer = Healer(config, FunctionModel(clicks("Add to basket", seen)))
    replayer = Replayer(wf, recorder=RunRecorder(tmp_path / "replay"), healer=healer)
    out = await replayer.run(env)
    assert out.success, out.error
    assert urlsplit(env.ctx.page.url).path == "/heal/done"  # step 2 replayed after the healed one
    assert out.by == ["healed", "replayed"] and out.model_calls == 1 and len(seen) == 1
    assert 'Do that one step now, and only that step: click the button "Add to cart"' in seen[0].task
    assert "Sky Blue Espresso Mug" in seen[0].task
    result = replayer.result
    assert result.stop_reason == StopReason.DONE and result.model_calls == 1
    assert result.steps_by == {"replayed": 1, "healed": 1, "agent": 0}
    record = lines(out.run_dir)
    assert [(x["step"], x.get("by")) for x in record] == [(0, None), (1, "healed"), (2, "replayed")]
    healed_line = record[1]
    assert healed_line["thought"].startswith("heal (replay_target_not_found): click the button")
    assert healed_line["model_calls"] == 1 and is_run(healed_line["sub_run"])
    assert healed_line["actions"][0]["result"]["ok"]
    # the workflow as it ran: the healed step's target is the new button; reads back as written
    assert out.healed is not None
    new = out.healed.steps[0]
    assert new.target is not None and new.target.name == "Add to basket"
    assert new.target.attrs.get("id") == "basket-mug" and new.expect == Expect(url="/heal/cart[?]added=1")
    assert parse_workflow(dump_workflow(out.healed)) == out.healed
    # and it replays with no model on the changed page
    env2 = Replayer(out.healed)
    again = await env2.run(env)
    assert again.success and again.model_calls == 0, again.error


@pytest.fixture
def litellm_healer() -> Iterator[str]:
    """``kite/healer``: a fake answered inside litellm's provider; it reads the prompt (not the view)."""
    from kite_browser.agent.llm.fakes import register_fake, unregister_fake

    async def handler(messages: list[dict[str, Any]], tools: Any, kwargs: dict[str, Any]) -> Any:
        text = str(messages[-1]["content"])
        m = re.search(r'\[(\d+)\] button "Add to basket"', text)
        names = [t.get("function", {}).get("name") for t in tools or []]
        call = {"action": "click", "params": {"index": int(m.group(1))}} if m else None
        if call is None:
            return "I cannot see it."
        if "click" in names:
            return {"name": "click", "arguments": call["params"]}
        return {"name": "browser_action", "arguments": call}

    register_fake("healer", handler)
    yield "kite/healer"
    unregister_fake("healer")


async def test_healing_through_litellm_with_a_model_named_in_the_config(
    shop: Callable[[str, str], str],
    env: BrowserEnv,
    kite_config: Callable[..., KiteConfig],
    litellm_healer: str,
    tmp_path: Path,
) -> None:
    url = shop("basket-mug", "Add to basket")
    healer = Healer(kite_config(**{"llm.model": litellm_healer}))
    out = await Replayer(
        Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT]), healer=healer
    ).run(env)
    assert out.success and out.by == ["healed", "replayed"] and out.model_calls == 1, out.error
    assert out.tokens_in > 0  # counted from litellm's usage


async def test_when_the_model_cannot_do_the_step_the_agent_takes_over_the_task(
    shop: Callable[[str, str], str], env: BrowserEnv, config: KiteConfig, tmp_path: Path
) -> None:
    url = shop("basket-mug", "Put in bag")  # nothing named like the recorded step's button
    tasks: list[str] = []

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        tasks.append(view.task)
        if "only that step" in view.task:
            return {"action": "done", "success": False, "answer": "no Add to cart here"}
        el = next((e for e in view.observation.elements if e.name in ("Put in bag", "Checkout")), None)
        if el is not None:
            return {"action": "click", "index": el.index}
        return {"action": "done", "success": True, "answer": "bought"}

    replayer = Replayer(
        Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT]),
        recorder=RunRecorder(tmp_path / "replay"),
        healer=Healer(config, FunctionModel(fn)),
    )
    out = await replayer.run(env)
    assert out.success and out.takeover is not None and out.takeover.answer == "bought"
    assert urlsplit(env.ctx.page.url).path == "/heal/done"
    assert out.by == ["agent"] * 3 and out.model_calls == 4  # 1 heal try, 3 agent steps
    assert "Finish the task from this page" in tasks[-1] and tasks[-1].startswith("buy the mug")
    result = replayer.result
    assert result.stop_reason == StopReason.DONE and result.answer == "bought"
    assert result.steps_by == {"replayed": 0, "healed": 0, "agent": 3}
    record = lines(out.run_dir)
    assert [(x["step"], x.get("by")) for x in record] == [
        (0, None),
        (1, None),
        (1, "agent"),
        (2, "agent"),
        (3, "agent"),
    ]
    assert record[1]["model_calls"] == 1 and record[1]["thought"].startswith("heal (replay_target_not_found)")
    assert out.healed is not None and [s.target.name for s in out.healed.steps if s.target] == [
        "Put in bag",
        "Checkout",
    ]


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_kite_replay_heals_with_model_and_update_writes_the_healed_file_with_its_diff(
    shop: Callable[[str, str], str], tmp_path: Path
) -> None:
    """``kite replay FILE --model M --update`` as a user types it (a subprocess; the model is the scripted
    fake through litellm); ``--update`` without ``--model`` is a one-line usage error."""
    import subprocess
    import sys

    from kite_browser.agent.workflow.model import load_workflow, save_file
    from tests.agent.test_cli import ROOT, _entry, kite

    url = shop("basket-mug", "Add to basket")
    path = save_file(
        Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT]), tmp_path / "buy.yaml"
    )
    bad = kite("replay", str(path), "--update")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "give --model" in bad.stderr, bad.stderr
    script = [{"name": "click", "arguments": {"index": 1}}]  # the page's one button
    proc = _entry(tmp_path, script, "replay", str(path), "--model", "kite/scripted", "--update", "--json")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["success"] and result["model_calls"] == 1 and result["stop_reason"] == "done"
    assert result["steps_by"] == {"replayed": 1, "healed": 1, "agent": 0}
    assert "-    name: Add to cart" in err and "+    name: Add to basket" in err and f"updated {path}" in err
    healed = load_workflow(path)
    assert healed.steps[0].target is not None and healed.steps[0].target.attrs["id"] == "basket-mug"
    again = subprocess.run(
        [sys.executable, "-m", "kite_browser.agent", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=240,
        env={
            **__import__("os").environ,
            "KITE_RUNS_DIR": str(tmp_path / "runs"),
            "KITE_HOME": str(tmp_path / "home"),
        },
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout.strip().splitlines()[-1])["model_calls"] == 0


async def test_a_task_file_workflow_heals_with_the_tasks_model(
    shop: Callable[[str, str], str], tmp_path: Path, chromium_path: str | None, kite_home: Path
) -> None:
    """A ``workflow:`` task of an eval suite whose page changed: the oracle (the task's model, following its
    plan from the replayed history) does the changed step, the replay goes on, the check passes."""
    from kite_browser.agent.workflow.model import save_file
    from kite_browser.evals.harness import run_eval
    from kite_browser.evals.tasks import load_suite
    from tests.evals.conftest import make_config

    url = shop("basket-mug", "Add to basket")
    save_file(Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT]), tmp_path / "buy.yaml")
    suite = {
        "name": "healing",
        "tasks": [
            {
                "id": "buy",
                "task": "Buy the mug.",
                "start_url": url,
                "workflow": "buy.yaml",
                "check": {"url": "/heal/done"},
                "solution": [{"click": {"name": "Add to basket"}}, {"click": {"name": "Checkout"}}],
            }
        ],
    }
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    config = make_config(chromium_path, tmp_path / "runs", kite_home)
    [task] = (await run_eval(load_suite(tmp_path / "suite.yaml"), config)).tasks
    assert task.success and task.model_calls == 1, task.message
    assert task.steps_by == {"replayed": 1, "healed": 1, "agent": 0}


async def test_ctrl_c_while_the_model_heals_keeps_the_record_of_what_ran(
    shop: Callable[[str, str], str], env: BrowserEnv, config: KiteConfig, tmp_path: Path
) -> None:
    import asyncio

    url = shop("basket-mug", "Add to basket")

    def interrupted(messages: list[dict[str, Any]], view: ModelView) -> Any:
        raise asyncio.CancelledError  # Ctrl-C arrives while the model is asked

    replayer = Replayer(
        Workflow(task="buy the mug", start_url=url, steps=[ADD, CHECKOUT]),
        recorder=RunRecorder(tmp_path / "replay"),
        healer=Healer(config, FunctionModel(interrupted)),
    )
    with pytest.raises(asyncio.CancelledError):
        await replayer.run(env)
    assert replayer.out.interrupted and replayer.result.stop_reason == StopReason.INTERRUPTED
    run = json.loads((tmp_path / "replay" / "run.json").read_text())
    assert run["result"]["stop_reason"] == "interrupted" and run["result"]["success"] is False
    assert [x["step"] for x in lines(str(tmp_path / "replay"))] == [0]
    [heal_run] = [p for p in (tmp_path / "runs").iterdir() if "heal-step1" in p.name]
    assert json.loads((heal_run / "run.json").read_text())["result"]["stop_reason"] == "interrupted"


async def test_going_back_after_a_healed_step_lands_where_the_model_came_from(
    pages_server: PagesServer, env: BrowserEnv, config: KiteConfig, tmp_path: Path
) -> None:
    """The healed step went through another page (the product moved to page 2 of the list), so the tab's
    history holds that page: goBack lands there, not on the recorded URL, and the replay goes on."""
    start = pages_server.add(
        "/heal/list", '<!doctype html><title>List</title><a href="/heal/list2">Next page</a>'
    )
    pages_server.add("/heal/list2", '<!doctype html><title>List 2</title><a href="/heal/mug">Mug</a>')
    pages_server.add("/heal/mug", "<!doctype html><title>Mug</title><h1>Mug</h1>")
    mug = Fingerprint(tag="a", role="link", name="Mug", attrs={"href": "/heal/mug"})
    steps = [
        Step(action="click", target=mug, expect=Expect(url="/heal/mug"), intent='click link "Mug"'),
        Step(action="goBack", expect=Expect(url="/heal/list"), intent="goBack"),
        Step(action="goForward", expect=Expect(url="/heal/mug"), intent="goForward"),
    ]
    seen: list[ModelView] = []
    model = clicks("Mug", seen)

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if any(e.name == "Mug" for e in view.observation.elements):
            return model(messages, view)
        nxt = next(e for e in view.observation.elements if e.name == "Next page")
        return {"action": "click", "index": nxt.index}

    wf = Workflow(task="open the mug, back, forward", start_url=start, steps=steps)
    replayer = Replayer(wf, healer=Healer(config, FunctionModel(fn)))
    out = await replayer.run(env)
    assert out.success, out.error
    assert out.by == ["healed", "replayed", "replayed"] and out.model_calls == 2
    assert urlsplit(env.ctx.page.url).path == "/heal/mug"
    assert (out.results[-2].effects.url_after or "").endswith("/heal/list2")  # back to page 2
