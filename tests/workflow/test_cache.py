"""The task cache (agent/workflow/cache.py, ``kite run --cache``, ``kite cache``): the second run of a task
replays with no model call; after the page changes the run heals and the entry is refreshed; a confirm-level
step replayed without approval is declined. A real headless Chromium on local pages and the bundled shop; the
models are fakes (in-process ones that read the view, and ``kite/scripted`` through litellm in a ``kite``
subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from kite_browser.agent.base.result import StopReason
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.workflow.cache import CachedRun, TaskCache, cache_key
from kite_browser.evals.sites import SitesServer
from kite_browser.safety.confirm import BatchConfirmer
from tests.fixtures.browser import PagesServer
from tests.workflow.test_heal import CART, DONE, PRODUCT, lines

pytestmark = [pytest.mark.timeout(300)]


class Clicker:
    """A model that clicks the first element named like one of ``labels`` still on the page (one per step),
    then says done; it counts its calls."""

    def __init__(self, *labels: str) -> None:
        self.labels, self.calls = labels, 0
        self.model = FunctionModel(self.answer)

    def answer(self, messages: list[dict[str, Any]], view: ModelView) -> Any:
        self.calls += 1
        done = {a.element.name for a in view.history if a.ok and a.element is not None}
        for label in self.labels:
            el = next((e for e in view.observation.elements if e.name == label), None)
            if el is not None and label not in done:
                return {"action": "click", "index": el.index}
        return {"action": "done", "success": True, "answer": "done"}


@pytest.fixture
def config(kite_config: Callable[..., KiteConfig], tmp_path: Path) -> KiteConfig:
    return kite_config(**{"run.cache_dir": str(tmp_path / "cache")})


@pytest.fixture
def shop(pages_server: PagesServer) -> Callable[[str, str], str]:
    pages_server.add("/heal/cart", CART)
    pages_server.add("/heal/done", DONE)

    def serve(id_: str, label: str) -> str:
        return pages_server.add("/heal/product", PRODUCT.format(id=id_, label=label))

    return serve


TASK = "Buy the Sky Blue Espresso Mug."


def run_json(run_dir: str | None) -> dict[str, Any]:
    assert run_dir
    return json.loads(Path(run_dir, "run.json").read_text())


def test_the_key_is_the_normalised_task_the_host_and_path_and_the_variables() -> None:
    key = cache_key(TASK, "http://127.0.0.1:8765/shop/?x=1")
    assert key == cache_key("  buy the sky blue   espresso mug", "https://127.0.0.1:9999/shop/#top")
    assert key != cache_key(TASK, "http://127.0.0.1:8765/shop/cart")
    assert key != cache_key(TASK, "http://127.0.0.1:8765/shop/", {"q": "mug"})
    assert key != cache_key("Buy the Sky Blue Espresso Mugs", "http://127.0.0.1:8765/shop/")


async def test_the_second_run_replays_with_no_model_call_and_a_changed_page_heals_and_refreshes_the_entry(
    shop: Callable[[str, str], str], config: KiteConfig
) -> None:
    url = shop("add-mug", "Add to cart")
    first = Clicker("Add to cart", "Checkout")
    r1 = await CachedRun(config, model=first.model).run(TASK, url)
    assert r1.success and r1.model_calls == first.calls == 3 and r1.steps_by is None
    cache = TaskCache.of(config)
    [entry] = cache.entries()
    assert entry.key == cache_key(TASK, url) and entry.model_calls == 3 and entry.steps == 2

    second = Clicker()  # any call to it would count
    r2 = await CachedRun(config, model=second.model).run(TASK, url)
    assert r2.success and r2.stop_reason == StopReason.DONE, r2.message
    assert second.calls == 0 and r2.model_calls == 0 and r2.model_calls_saved == 3
    assert r2.steps_by == {"replayed": 2, "healed": 0, "agent": 0}
    assert r2.final_url and urlsplit(r2.final_url).path == "/heal/done"
    run = run_json(r2.run_dir)
    assert run["replay"] and run["workflow"] == f"cache entry {entry.key}"
    assert run["result"]["model_calls_saved"] == 3

    shop("basket-mug", "Add to basket")  # the page changed: another id, another label
    third = Clicker("Add to basket")
    r3 = await CachedRun(config, model=third.model).run(TASK, url)
    assert r3.success and r3.steps_by == {"replayed": 1, "healed": 1, "agent": 0}, r3.message
    assert third.calls == r3.model_calls == 1 and r3.model_calls_saved == 2
    refreshed = cache.get(entry.key)
    assert refreshed is not None
    meta, wf = refreshed
    assert meta.replays == 2 and meta.model_calls == 3  # still what the recorded run cost
    assert wf.steps[0].target is not None and wf.steps[0].target.attrs.get("id") == "basket-mug"

    fourth = Clicker()
    r4 = await CachedRun(config, model=fourth.model).run(TASK, url)
    assert r4.success and fourth.calls == 0 and r4.steps_by == {"replayed": 2, "healed": 0, "agent": 0}


async def test_a_confirm_level_step_replayed_without_approval_is_declined_and_no_model_does_it(
    sites: SitesServer, config: KiteConfig
) -> None:
    url = sites.url("/shop/product/desk-lamp-white")
    task = "Order the desk lamp."
    first = Clicker("Add to cart", "View cart", "Proceed to checkout", "Place order")
    r1 = await CachedRun(config, model=first.model, confirmer=BatchConfirmer(["confirm"])).run(task, url)
    assert r1.success, r1.message
    [entry] = TaskCache.of(config).entries()
    assert entry.steps == 4

    second = Clicker("Place order")
    r2 = await CachedRun(config, model=second.model, confirmer=BatchConfirmer()).run(task, url)
    assert not r2.success and r2.stop_reason == StopReason.REPLAY_DIVERGED
    assert second.calls == 0 and r2.model_calls == 0  # a declined step is never handed to a model
    assert [d.outcome for d in r2.declined] == ["declined"] and r2.declined[0].step == 4
    assert "replay_refused" in r2.message and "was declined" in r2.message
    assert r2.steps_by == {"replayed": 3, "healed": 0, "agent": 0}
    assert urlsplit(r2.final_url or "").path == "/shop/checkout"
    last = lines(r2.run_dir)[-1]
    decision = last["actions"][0]["decision"]
    assert last["step"] == 4 and decision["level"] == "confirm" and decision["allowed"] is False
    meta, _ = TaskCache.of(config).get(entry.key) or (None, None)
    assert meta is not None and meta.replays == 0  # the entry stays as it was


def kite(*args: str, home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    from tests.agent.test_cli import ROOT

    return subprocess.run(
        [sys.executable, "-m", "kite_browser.agent", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, "KITE_HOME": str(home)},
    )


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_kite_run_cache_then_kite_cache_list_show_clear(tmp_path: Path, sites: SitesServer) -> None:
    from tests.agent.test_cli import _entry

    script = [
        {"name": "type", "arguments": {"index": 5, "text": "mug"}},
        {"name": "pressKey", "arguments": {"key": "Enter"}},
        {"name": "done", "arguments": {"success": True, "answer": "searched"}},
    ]
    args = ["run", "Search the shop for mug", "--model", "kite/scripted", "--start-url", sites.url("/shop/")]
    proc = _entry(tmp_path, script, *args, "--cache", "--json")
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    first = json.loads(out.strip().splitlines()[-1])
    assert first["model_calls"] == 3 and first["steps_by"] is None and first["replayed"] is False

    again = _entry(tmp_path, [], *args, "--cache", "--json")  # an empty script: a model call would fail
    out, err = again.communicate(timeout=240)
    assert again.returncode == 0, err
    second = json.loads(out.strip().splitlines()[-1])
    assert second["model_calls"] == 0 and second["model_calls_saved"] == 3 and second["success"]
    assert second["steps_by"] == {"replayed": 2, "healed": 0, "agent": 0} and second["replayed"] is True
    assert "q=mug" in second["final_url"]
    assert (
        "replayed from a workflow: 2 of 2 steps with no model call; 0 model calls, 3 model calls saved" in err
    )

    home = tmp_path / "home"
    listed = kite("cache", "list", home=home)
    assert (
        listed.returncode == 0
        and "1 entries in" in listed.stdout
        and "Search the shop for mug" in listed.stdout
    )
    key = listed.stdout.splitlines()[1].split()[0]
    shown = kite("cache", "show", key[:6], home=home)
    assert (
        shown.returncode == 0
        and f"key: {key}" in shown.stdout
        and "recorded with 3 model calls" in shown.stdout
    )
    assert "steps:" in shown.stdout and "{search}" in shown.stdout
    for bad in (
        ["cache", "show", "nosuchkey"],
        ["cache", "show", "abcdef"],
        ["cache", "clear", "zz"],
        ["cache"],
    ):
        res = kite(*bad, home=home)
        assert res.returncode == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, (
            bad,
            res.stderr,
        )
    cleared = kite("cache", "clear", home=home)
    assert cleared.returncode == 0 and "removed 1 entries" in cleared.stdout
    assert "no entries" in kite("cache", "list", home=home).stdout


async def test_a_task_file_task_with_cache_true_replays_its_second_run(
    tmp_path: Path, chromium_path: str | None, kite_home: Path
) -> None:
    from kite_browser.evals.harness import run_eval
    from kite_browser.evals.tasks import load_suite
    from tests.evals.conftest import make_config

    suite = {
        "name": "cached",
        "tasks": [
            {
                "id": "search",
                "task": "Search the shop for mug.",
                "start_url": "{sites}/shop/",
                "cache": True,
                "check": {"url": "q=mug", "text": "Classic Blue Mug"},
                "solution": [{"type": {"name": "Search", "text": "mug"}}, {"pressKey": {"key": "Enter"}}],
            }
        ],
    }
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    config = make_config(chromium_path, tmp_path / "runs", kite_home)
    config.run.cache_dir = str(tmp_path / "cache")
    first = (await run_eval(load_suite(tmp_path / "suite.yaml"), config)).tasks[0]
    assert first.success and first.model_calls == 3 and first.steps_by is None, first.message
    second = (await run_eval(load_suite(tmp_path / "suite.yaml"), config)).tasks[0]
    assert second.success and second.model_calls == 0 and second.model_calls_saved == 3, second.message
    assert second.steps_by == {"replayed": 2, "healed": 0, "agent": 0}
