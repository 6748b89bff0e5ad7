"""Replaying a workflow with no model (agent/workflow/replay.py), against the bundled sites in a real Chromium.

The oracle solves two sites tasks once (module fixture); each run is saved as a workflow and replayed in a
fresh context of the session's browser, on the test's own sites server (another origin: ``start_url``), and
the task's own check scores the replay. Hand-written workflows cover the gate, ambiguity and divergence.
"""

from __future__ import annotations

import asyncio
import json
import sys
from asyncio.subprocess import PIPE
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import litellm
import pytest

from kite_browser.agent.batch.checks import evaluate
from kite_browser.agent.browser.actions import Navigate
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.workflow.errors import (
    ReplayAmbiguousTargetError,
    ReplayDivergedError,
    ReplayRefusedError,
    ReplayTargetNotFoundError,
)
from kite_browser.agent.workflow.model import Expect, Step, Workflow, dump_workflow, parse_workflow
from kite_browser.agent.workflow.replay import Replayer, ReplayResult
from kite_browser.agent.workflow.save import workflow_from_run
from kite_browser.evals.harness import EvalReport, run_eval
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.tasks import find_suite, load_suite
from tests.evals.conftest import make_config
from tests.fixtures.browser import PagesServer

pytestmark = [pytest.mark.xdist_group("workflow_replay"), pytest.mark.timeout(300)]

TASKS = [
    "shop-search",
    "shop-add-cheapest-blue-mug",
    "account-login",
    "shop-checkout-declined",
    "dynamic-drag-drop",
]


@pytest.fixture
async def env(
    kite_config: Callable[..., KiteConfig], ctx_session: ContextSession, tmp_path: Path
) -> AsyncIterator[BrowserEnv]:
    config = kite_config()
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config))
    await env.start(tmp_path)
    yield env
    await env.stop()


@pytest.fixture
def model_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every litellm call made during the test (a replay makes none)."""
    calls: list[Any] = []

    async def acompletion(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs.get("model"))
        raise AssertionError("a replay called a model")

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    monkeypatch.setattr(litellm, "completion", lambda *a, **k: calls.append(k.get("model")))
    return calls


def on(sites: SitesServer, url: str) -> str:
    """``url``'s path on the test's sites server (the recorded run had its own)."""
    parts = urlsplit(url)
    return sites.url(parts.path + (f"?{parts.query}" if parts.query else ""))


def run_dir(report: EvalReport, task_id: str) -> str:
    task = next(t for t in report.tasks if t.id == task_id)
    assert task.run_dir
    return task.run_dir


async def replay(
    wf: Workflow, env: BrowserEnv, sites: SitesServer, tmp_path: Path, **kw: Any
) -> ReplayResult:
    recorder = RunRecorder(tmp_path / "replay")
    return await Replayer(wf, start_url=on(sites, wf.start_url), recorder=recorder, **kw).run(env)


@pytest.mark.parametrize("task_id", TASKS[:2])
async def test_a_saved_run_replays_with_no_model_and_passes_its_check(
    task_id: str,
    recorded: EvalReport,
    env: BrowserEnv,
    sites: SitesServer,
    tmp_path: Path,
    model_calls: list[Any],
) -> None:
    wf = workflow_from_run(run_dir(recorded, task_id))
    assert parse_workflow(dump_workflow(wf)) == wf
    assert all(
        s.target is not None and (s.target.attrs or s.target.name) for s in wf.steps if s.action == "click"
    )
    out = await replay(wf, env, sites, tmp_path)
    assert out.success and out.done == len(wf.steps) and out.error is None, out.error
    assert out.model_calls == 0 and model_calls == []
    task = next(t for t in load_suite(find_suite("sites")).tasks if t.id == task_id)
    assert task.check is not None
    verdict = await evaluate(task.check, env.ctx, base_url=sites.url("/"))
    assert verdict.passed, verdict.failures
    lines = [json.loads(x) for x in (tmp_path / "replay" / "steps.jsonl").read_text().splitlines()]
    assert [x["step"] for x in lines] == list(range(len(wf.steps) + 1))
    run = json.loads((tmp_path / "replay" / "run.json").read_text())
    assert run["replay"] is True and run["result"]["success"] and run["result"]["tokens_in"] == 0


async def test_a_typed_value_is_a_variable_to_override(
    recorded: EvalReport, env: BrowserEnv, sites: SitesServer, tmp_path: Path
) -> None:
    wf = workflow_from_run(run_dir(recorded, "shop-search"))
    assert {n: v.default for n, v in wf.variables.items()} == {"search": "mug"}
    assert (
        wf.steps[0].args["text"] == "{search}"
        and "mug" not in dump_workflow(wf).split("variables:")[1].split("steps:")[1]
    )
    out = await replay(wf, env, sites, tmp_path, values={"search": "bag"})
    assert out.success, out.error
    assert "q=bag" in env.ctx.page.url
    verdict = await evaluate(
        load_suite(find_suite("sites"))
        .tasks[0]
        .check.model_copy(update={"url": "q=bag", "text": "Bag", "not_text": "Classic Blue Mug"}),  # type: ignore[union-attr]
        env.ctx,
    )
    assert verdict.passed, verdict.failures


async def test_an_effect_that_diverges_stops_the_replay(
    recorded: EvalReport, env: BrowserEnv, sites: SitesServer, tmp_path: Path
) -> None:
    wf = workflow_from_run(run_dir(recorded, "shop-add-cheapest-blue-mug"))
    first = wf.steps[0]
    assert first.expect is not None and first.expect.url == "/shop/product/sky-blue-espresso-mug"
    wf.steps[0] = first.model_copy(update={"expect": Expect(url="/shop/product/red-*")})
    out = await replay(wf, env, sites, tmp_path)
    assert isinstance(out.error, ReplayDivergedError) and out.done == 0
    assert "step 1" in out.error.message and "/shop/product/sky-blue-espresso-mug" in out.error.message


CHECKOUT = [
    Step(action="click", target=Fingerprint(tag="button", name="Add to cart"), intent="add it"),
    Step(action="click", target=Fingerprint(tag="a", name="View cart"), intent="open the cart"),
    Step(action="click", target=Fingerprint(tag="a", name="Proceed to checkout"), intent="go to checkout"),
    Step(action="click", target=Fingerprint(tag="button", name="Place order"), intent="place the order"),
]


async def test_a_confirm_level_step_is_declined_without_approval(
    env: BrowserEnv, sites: SitesServer, tmp_path: Path
) -> None:
    wf = Workflow(start_url=sites.url("/shop/product/desk-lamp-white"), steps=CHECKOUT)
    out = await replay(wf, env, sites, tmp_path)
    assert isinstance(out.error, ReplayRefusedError) and out.done == 3
    assert "step 4 (place the order) was declined" in out.error.message
    assert urlsplit(env.ctx.page.url).path == "/shop/checkout"  # not submitted
    last = json.loads((tmp_path / "replay" / "steps.jsonl").read_text().splitlines()[-1])
    decision = last["actions"][0]["decision"]
    assert decision["level"] == "confirm" and decision["allowed"] is False


TWINS = """<!doctype html><title>none</title><main>
<p>Order 1</p><button onclick="document.title='one'">Delete</button>
<p>Order 1</p><button onclick="document.title='two'">Delete</button></main>"""


async def test_two_alike_candidates_are_never_guessed(
    env: BrowserEnv, pages_server: PagesServer, tmp_path: Path
) -> None:
    url = pages_server.add("/workflow/twins", TWINS)
    wf = Workflow(
        start_url=url,
        steps=[Step(action="click", target=Fingerprint(tag="button", name="Delete"), intent="delete it")],
    )
    out = await Replayer(wf).run(env)
    assert isinstance(out.error, ReplayAmbiguousTargetError), out.error
    assert 'step 1 (delete it): 2 elements match button "Delete" equally well' in out.error.message
    assert await env.ctx.page.title() == "none"  # nothing clicked


async def test_a_target_not_found_names_the_step_and_what_was_looked_for(
    env: BrowserEnv, pages_server: PagesServer, tmp_path: Path
) -> None:
    url = pages_server.add("/workflow/twins", TWINS)
    ghost = Fingerprint(tag="button", name="Archive", attrs={"id": "archive"})
    out = await Replayer(
        Workflow(start_url=url, steps=[Step(action="click", target=ghost, intent="archive")])
    ).run(env)
    assert isinstance(out.error, ReplayTargetNotFoundError)
    assert 'step 1 (archive): no element matches button "Archive" (id=archive)' in out.error.message
    assert out.error.to_dict()["looked_for"]["attrs"] == {"id": "archive"}


async def test_an_interrupted_replay_records_what_ran(
    env: BrowserEnv, sites: SitesServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    acts = 0
    real = env.act

    async def act(*args: Any, **kwargs: Any) -> Any:  # Ctrl-C arrives while the second step runs
        nonlocal acts
        acts += 1
        if acts == 2:
            raise asyncio.CancelledError
        return await real(*args, **kwargs)

    monkeypatch.setattr(env, "act", act)
    wf = Workflow(start_url=sites.url("/shop/product/desk-lamp-white"), steps=CHECKOUT[:3])
    with pytest.raises(asyncio.CancelledError):
        await replay(wf, env, sites, tmp_path)
    run = json.loads((tmp_path / "replay" / "run.json").read_text())
    assert run["result"]["stop_reason"] == "interrupted" and run["result"]["steps"] == 1
    steps = [json.loads(x)["step"] for x in (tmp_path / "replay" / "steps.jsonl").read_text().splitlines()]
    assert steps == [0, 1]


def sites_task(task_id: str) -> Any:
    return next(t for t in load_suite(find_suite("sites")).tasks if t.id == task_id)


async def checkout_env(
    config: KiteConfig, ctx_session: ContextSession, confirmer: Any, tmp_path: Path
) -> BrowserEnv:
    """An env asking ``confirmer``, with the card secrets of shop-checkout-declined."""
    from kite_browser.safety.secrets import SecretStore

    cli = [f"{k}={v}" for k, v in sites_task("shop-checkout-declined").secrets.items()]
    secrets = SecretStore.from_sources(config.safety, cli=cli, env={})
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config, confirmer, secrets))
    await env.start(tmp_path)
    return env


async def test_a_declined_step_is_saved_and_asked_again_on_replay(
    recorded: EvalReport,
    kite_config: Callable[..., KiteConfig],
    ctx_session: ContextSession,
    sites: SitesServer,
    tmp_path: Path,
    model_calls: list[Any],
) -> None:
    from kite_browser.agent.workflow.export import playwright_script
    from kite_browser.safety.confirm import BatchConfirmer

    wf = workflow_from_run(run_dir(recorded, "shop-checkout-declined"), require_success=False)
    last = wf.steps[-1]
    assert last.action == "click" and last.target is not None and last.target.name == "Place order"
    assert last.expect is not None and last.expect.refused == "declined"
    assert parse_workflow(dump_workflow(wf)) == wf
    script = playwright_script(wf)  # the script does not do what the gate refused
    assert "safety gate declined this step" in script and "name='Place order'" not in script
    task = sites_task("shop-checkout-declined")
    confirmer = BatchConfirmer(task.approve)  # the task's own approvals: none
    env = await checkout_env(kite_config(), ctx_session, confirmer, tmp_path)
    try:
        out = await replay(wf, env, sites, tmp_path)
        assert out.success and out.error is None and out.done == len(wf.steps), out.error
        assert out.model_calls == 0 and model_calls == []
        asked = [str(req.action.get("action")) for req, answer in confirmer.asked if not answer.approved]
        assert asked == ["click"]  # the gate asked again, as for the agent, and nobody approved
        run = json.loads((tmp_path / "replay" / "run.json").read_text())
        declined = run["result"]["declined"]
        assert [(d["step"], d["outcome"]) for d in declined] == [(len(wf.steps), "declined")]
        assert task.check is not None
        verdict = await evaluate(
            task.check, env.ctx, run_dir=str(tmp_path / "replay"), base_url=sites.url("/")
        )
        assert verdict.passed, verdict.failures  # at checkout, no order, a click asked for confirmation
    finally:
        await env.stop()


async def test_an_approved_recorded_refusal_runs_when_the_gate_allows_it(
    recorded: EvalReport,
    kite_config: Callable[..., KiteConfig],
    ctx_session: ContextSession,
    sites: SitesServer,
    tmp_path: Path,
) -> None:
    from kite_browser.safety.confirm import BatchConfirmer

    wf = workflow_from_run(run_dir(recorded, "shop-checkout-declined"), require_success=False)
    confirmer = BatchConfirmer(["click"])  # --approve click: the question is answered yes
    env = await checkout_env(kite_config(), ctx_session, confirmer, tmp_path)
    try:
        out = await replay(wf, env, sites, tmp_path)
        assert [req.action.get("action") for req, answer in confirmer.asked if answer.approved] == ["click"]
        assert out.success and out.results[-1].ok, out.error  # approved now: the click ran
        assert out.healed is not None and out.healed.steps[-1].expect is None  # no longer refused
        assert json.loads((tmp_path / "replay" / "run.json").read_text())["result"]["declined"] == []
    finally:
        await env.stop()


async def test_a_drag_between_elements_is_saved_and_replayed(
    recorded: EvalReport, env: BrowserEnv, sites: SitesServer, tmp_path: Path, model_calls: list[Any]
) -> None:
    from kite_browser.agent.workflow.export import playwright_script

    wf = workflow_from_run(run_dir(recorded, "dynamic-drag-drop"))
    drag = next(s for s in wf.steps if s.action == "dragDrop")
    assert drag.target is not None and "Task A" in drag.target.name
    assert drag.drop is not None and "Done" in (drag.drop.name + " ".join(drag.drop.neighbours))
    assert "from" not in drag.args and "to" not in drag.args  # both ends found by their fingerprints
    assert drag.intent.startswith("drag ") and " onto " in drag.intent
    assert parse_workflow(dump_workflow(wf)) == wf
    assert ".drag_to(page." in playwright_script(wf)
    out = await replay(wf, env, sites, tmp_path)
    assert out.success and out.model_calls == 0 and model_calls == [], out.error
    task = sites_task("dynamic-drag-drop")
    verdict = await evaluate(task.check, env.ctx, base_url=sites.url("/"))
    assert verdict.passed, verdict.failures


async def test_the_playwright_export_runs_without_kite(
    recorded: EvalReport, sites: SitesServer, tmp_path: Path, chromium_path: str | None
) -> None:
    from kite_browser.agent.workflow.export import playwright_script

    for task_id, url_part in [("shop-search", "q=bag"), ("shop-add-cheapest-blue-mug", "added=1")]:
        wf = workflow_from_run(run_dir(recorded, task_id))
        script = tmp_path / f"{task_id}.py"
        script.write_text(playwright_script(wf))
        args = [sys.executable, str(script), "--start-url", on(sites, wf.start_url)]
        args += ["--chromium", chromium_path] if chromium_path else []
        args += ["--search", "bag"] if "search" in wf.variables else []
        proc = await asyncio.create_subprocess_exec(*args, stdout=PIPE, stderr=PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 240)
        assert proc.returncode == 0, err.decode()[-2000:]
        assert (
            "kite_browser" not in script.read_text()
            and "from playwright.sync_api import" in script.read_text()
        )
        assert url_part in out.decode().strip().splitlines()[-1]


async def test_a_task_file_task_replays_its_workflow(
    recorded: EvalReport, tmp_path: Path, chromium_path: str | None, kite_home: Path
) -> None:
    from kite_browser.agent.workflow.model import save_file

    save_file(workflow_from_run(run_dir(recorded, "shop-search")), tmp_path / "search.yaml")
    checkout = Workflow(start_url="http://127.0.0.1:1/shop/product/desk-lamp-white", steps=CHECKOUT)
    save_file(checkout, tmp_path / "checkout.yaml")
    suite = {
        "name": "replays",
        "tasks": [
            {
                "id": "search",
                "task": "Search the shop for mug.",
                "start_url": "{sites}/shop/",
                "workflow": "search.yaml",  # relative to the suite file
                "secrets": {"word": "search"},  # a secret that reads like a word of the id
                "check": {"url": "q=mug", "text": "Classic Blue Mug"},
            },
            {
                "id": "agent-run",
                "task": "Search the shop for mug.",
                "start_url": "{sites}/shop/",
                "secrets": {"word": "agent"},  # the agent's run folder keeps its path too
                "check": {"url": "q=mug"},
                "solution": [{"type": {"name": "Search", "text": "mug"}}, {"pressKey": {"key": "Enter"}}],
            },
            {
                "id": "order",
                "task": "Order the desk lamp.",
                "start_url": "{sites}/shop/product/desk-lamp-white",
                "workflow": str(tmp_path / "checkout.yaml"),
                "check": {"url": "/shop/order/"},
            },
        ],
    }
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    config = make_config(chromium_path, tmp_path / "runs", kite_home)
    report = await run_eval(load_suite(tmp_path / "suite.yaml"), config)
    search, agent_run, order = report.tasks
    assert agent_run.success and agent_run.run_dir and (Path(agent_run.run_dir) / "run.json").is_file()
    assert search.success and search.model_calls == 0 and search.tokens_in == 0 and search.steps == 2
    assert "replayed 2 of 2 steps with no model call" in search.message
    assert search.run_dir and (Path(search.run_dir) / "run.json").is_file()  # the path is not redacted
    assert not order.success and order.model_calls == 0 and order.steps == 3  # Place order declined
    assert "replay_refused" in order.message and "declined" in order.message


async def test_a_secret_is_named_never_written_and_filled_from_the_run_sources(
    recorded: EvalReport,
    kite_config: Callable[..., KiteConfig],
    ctx_session: ContextSession,
    sites: SitesServer,
    tmp_path: Path,
) -> None:
    from kite_browser.safety.secrets import SecretStore

    wf = workflow_from_run(run_dir(recorded, "account-login"))
    text = dump_workflow(wf)
    assert "kite123" not in text and "<secret>demo_password</secret>" in text
    assert wf.variables["demo_password"].secret and wf.variables["demo_password"].default is None
    assert wf.variables["email"].default == "demo@kite.test"
    config = kite_config()
    secrets = SecretStore.from_sources(config.safety, cli=["demo_password=kite123"], env={})
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config, secrets=secrets))
    await env.start(tmp_path)
    try:
        out = await replay(wf, env, sites, tmp_path)
        assert out.success, out.error
        task = next(t for t in load_suite(find_suite("sites")).tasks if t.id == "account-login")
        assert task.check is not None
        verdict = await evaluate(task.check, env.ctx, base_url=sites.url("/"))
        assert verdict.passed, verdict.failures
        assert "kite123" not in (tmp_path / "replay" / "steps.jsonl").read_text()
    finally:
        await env.stop()


async def test_a_target_replaced_between_the_look_and_the_act_is_looked_up_again(
    env: BrowserEnv, sites: SitesServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page renders the button anew after the replay looked (a custom dropdown closing): the act finds
    the element gone (stale_element), and the replay looks again once instead of stopping."""
    real, acts = env.act, []

    async def act(*args: Any, **kwargs: Any) -> Any:
        acts.append(1)
        if len(acts) == 1:
            await env.ctx.page.evaluate(
                "() => { const b = document.getElementById('add-to-cart'); b.replaceWith(b.cloneNode(true)); }"
            )
        return await real(*args, **kwargs)

    monkeypatch.setattr(env, "act", act)
    wf = Workflow(start_url=sites.url("/shop/product/desk-lamp-white"), steps=CHECKOUT[:1])
    out = await replay(wf, env, sites, tmp_path)
    assert out.success and out.error is None, out.error
    assert len(acts) == 2 and [r.ok for r in out.results] == [False, True]
    assert out.results[0].error is not None and out.results[0].error.error == "stale_element"
    assert "added=1" in env.ctx.page.url


async def test_a_target_there_as_recorded_is_acted_on_while_the_page_still_loads(
    env: BrowserEnv, sites: SitesServer, tmp_path: Path
) -> None:
    """Each replayed action settles on its own effect, not on the page's loading: the start page's fetch
    takes 2.5 s (a full settle, capped at 3 s, waits it out), and "Go", found with the very fingerprint
    recorded, is pressed before it is answered."""
    url = sites.url("/test/replay-slow-load.html?delay=2.5")
    await env.act(Navigate(url=url), effect_only=True)
    obs = await env.observe(include_all=True)
    go = next(e.index for e in obs.elements if e.name == "Go")
    recorded = await env.fingerprint(go)
    assert recorded is not None
    wf = Workflow(start_url=url, steps=[Step(action="click", target=recorded, intent="press Go")])
    out = await Replayer(wf).run(env)
    assert out.success, out.error
    assert await env.ctx.page.text_content("#said") == "Go pressed while loading"


async def test_a_target_the_page_draws_late_is_waited_for(
    env: BrowserEnv, sites: SitesServer, tmp_path: Path
) -> None:
    """A target not there as recorded at the first look: the replay waits for the page's own loading (its
    fetch answered, the button drawn) and looks again."""
    url = sites.url("/test/replay-slow-load.html?delay=1")
    late = Fingerprint(tag="button", name="Late", attrs={"id": "late-button"})
    wf = Workflow(start_url=url, steps=[Step(action="click", target=late, intent="press Late")])
    out = await Replayer(wf).run(env)
    assert out.success, out.error
    assert await env.ctx.page.text_content("#said") == "Late pressed"


SHIFTING = """<!doctype html><main><button id="add">Add to cart</button><p id="said"></p><script>
const b = document.getElementById('add');
let first = true;
b.addEventListener('pointerdown', () => {
  if (!first) return;
  first = false;
  b.textContent = 'Saving…';
  setTimeout(() => { b.textContent = 'Add to cart'; }, 300);
});
b.addEventListener('click', () => { document.getElementById('said').textContent = 'added'; });
</script></main>"""


async def test_a_target_that_changes_as_it_is_clicked_is_looked_up_and_tried_again(
    env: BrowserEnv, pages_server: PagesServer, tmp_path: Path
) -> None:
    """Content that shifts under the pointer (the button relabels itself at the first pointerdown and back
    300 ms later): the click is cancelled (target_changed) and the replay waits and tries again within the
    step's time, instead of stopping with advice meant for a model."""
    url = pages_server.add("/replay/shifting", SHIFTING)
    await env.act(Navigate(url=url), effect_only=True)
    obs = await env.observe(include_all=True)
    add = next(e.index for e in obs.elements if e.name == "Add to cart")
    recorded = await env.fingerprint(add)
    assert recorded is not None
    wf = Workflow(start_url=url, steps=[Step(action="click", target=recorded, intent='click "Add to cart"')])
    out = await Replayer(wf).run(env)
    assert out.success and out.error is None, out.error
    first = out.results[0].error
    assert first is not None and first.error == "target_changed"
    assert out.results[-1].ok and await env.ctx.page.text_content("#said") == "added"


async def test_a_target_that_never_holds_still_fails_with_words_for_a_person(
    env: BrowserEnv, pages_server: PagesServer, kite_config: Callable[..., KiteConfig], tmp_path: Path
) -> None:
    restless = SHIFTING.replace(
        "b.textContent = 'Saving…';",
        "b.textContent = b.textContent === 'Add to cart' ? 'Saving…' : 'Add to cart';",
    ).replace("if (!first) return;", "")
    url = pages_server.add("/replay/restless", restless)
    await env.act(Navigate(url=url), effect_only=True)
    obs = await env.observe(include_all=True)
    add = next(e.index for e in obs.elements if e.name == "Add to cart")
    recorded = await env.fingerprint(add)
    assert recorded is not None
    env.config = kite_config(**{"browser.step_timeout_ms": 4000, "browser.navigation_timeout_ms": 3000})
    wf = Workflow(start_url=url, steps=[Step(action="click", target=recorded, intent='click "Add to cart"')])
    out = await Replayer(wf).run(env)
    assert not out.success and out.error is not None and out.error.context.get("cause") == "target_changed"
    assert "kept moving or changing" in out.error.message and "observe the page" not in out.error.message
    assert len(out.results) > 1 and await env.ctx.page.text_content("#said") == ""
