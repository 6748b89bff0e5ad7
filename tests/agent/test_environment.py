"""The ``Environment`` protocol (agent/protocols.py): the planner loop runs on any environment, here one held
in memory (pages as data, actions that change them, the real safety gate), with no browser at all; and
``BrowserEnv`` has every method of the protocol with the protocol's parameters."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent import Agent, Environment, FunctionModel, ModelView, ScriptedModel, load_config
from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.result import StopReason
from kite_browser.agent.browser.actions import Action, Click, Done, Type
from kite_browser.agent.browser.env import Acted, BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import (
    ActionResult,
    Effects,
    Element,
    ErrorInfo,
    Fingerprint,
    HeldRequest,
    Observation,
    PageSummary,
    Rect,
)
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.agent.config import KiteConfig
from kite_browser.safety.confirm import Confirmer, GateResult

SHOP = "https://shop.test/"
RESULTS = "https://shop.test/search?q="


@dataclass
class Page:
    """One page as data: its title, its text and its interactive elements (index -> (tag, role, name))."""

    title: str
    text: str
    elements: dict[int, tuple[str, str, str]]


def pages(query: str) -> dict[str, Page]:
    return {
        SHOP: Page(
            "Shop",
            "Welcome to the shop. Search the catalogue.",
            {1: ("input", "searchbox", "Search"), 2: ("button", "button", "Go"), 3: ("a", "link", "Buy now")},
        ),
        RESULTS + query: Page("Results", f"3 results for {query}: red kite, box kite, stunt kite", {}),
    }


@dataclass
class MemoryEnv:
    """An environment in memory: ``url`` is the page shown, typing fills ``values``, clicking Go opens the
    results of what the search box holds. Every action goes through the real gate of ``safety``."""

    config: KiteConfig
    safety: EnvSafety
    url: str = "about:blank"
    run_dir: Path | None = None
    values: dict[int, str] = field(default_factory=dict)
    acted: list[dict[str, Any]] = field(default_factory=list)
    """Every action that reached ``act``, as JSON, in order."""
    opened: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    """The names of the protocol's methods the loop called, in order."""

    def _page(self) -> Page | None:
        return pages(self.values.get(1, "")).get(self.url)

    async def start(self, run_dir: Path | None = None) -> None:
        self.calls.append("start")
        self.run_dir = run_dir

    async def stop(self) -> None:
        self.calls.append("stop")
        await self.safety.gate.flush()

    async def observe(
        self,
        *,
        screenshot_to: Path | None = None,
        want_b64: bool = False,
        include_all: bool = False,
        whole_flow: bool = False,
        flow_chars: int | None = None,
        wanted: Sequence[str] = (),
    ) -> Observation:
        page = self._page() or Page("", "", {})
        elements = [
            Element(
                index=i,
                tag=tag,
                kind="input" if tag == "input" else "link" if tag == "a" else "button",
                role=role,
                name=name,
                value=self.values.get(i) if tag == "input" else None,
                editable=tag == "input",
                href=SHOP + "buy" if tag == "a" else None,
                rect=Rect(x=10, y=20 * i, width=100, height=18),
            )
            for i, (tag, role, name) in page.elements.items()
        ]
        summary = PageSummary(url=self.url, title=page.title, visible_text=page.text)
        return Observation(summary=summary, elements=elements)

    async def observe_guarded(
        self, *, screenshot_to: Path | None = None, want_b64: bool = False, wanted: Sequence[str] = ()
    ) -> tuple[Observation, str | None]:
        self.calls.append("observe_guarded")
        return await self.observe(screenshot_to=screenshot_to, want_b64=want_b64, wanted=wanted), None

    async def act(
        self,
        action: Action,
        observation: Observation | None = None,
        *,
        decided: Callable[[Action, Observation | None, GateResult], Awaitable[None]] | None = None,
        veto: Callable[[Action], ActionResult | None] | None = None,
        confirmer: Confirmer | None = None,
        timer: StepTimer | None = None,
        effect_only: bool = False,
        judged: GateResult | None = None,
    ) -> Acted:
        self.calls.append("act")
        self.acted.append(action.to_json())
        gate = judged or await self.safety.gate.check(action, observation, confirmer)
        if decided is not None:
            await decided(action, observation, gate)
        if gate.refused is not None:
            error = ErrorInfo(error=gate.refused, message=gate.message)
            return Acted(ActionResult(action=action.action, ok=False, error=error), gate)
        result = (veto(action) if veto is not None else None) or self._apply(action)
        return Acted(result, gate)

    def _apply(self, action: Action) -> ActionResult:
        before = self.url
        if isinstance(action, Type) and action.index == 1:
            self.values[1] = action.text
            return ActionResult(action="type", ok=True, effects=Effects(value=action.text, changed=True))
        if isinstance(action, Click) and action.index == 2:
            self.url = RESULTS + self.values.get(1, "")
            effects = Effects(url_before=before, url_after=self.url, navigated=True, changed=True)
            return ActionResult(action="click", ok=True, effects=effects)
        if isinstance(action, Done):
            return ActionResult(action="done", ok=True, data={"success": action.success})
        error = ErrorInfo(error="stale_element", message="no such element on this page")
        return ActionResult(action=action.action, ok=False, error=error)

    async def open_url(self, url: str, *, effect_only: bool = False) -> ActionResult:
        self.calls.append("open_url")
        self.opened.append(url)
        ok = url in pages("")
        if ok:
            self.url = url
        error = None if ok else ErrorInfo(error="navigation_failed", message=f"{url} is not a page here")
        return ActionResult(action="navigate", ok=ok, error=error)

    async def read_page(self) -> ActionResult:
        page = self._page()
        return ActionResult(action="read", ok=True, data={"text": page.text if page else ""})

    async def quiet(self, fresh: bool = True) -> None:
        return None

    async def reach(self, matches: Callable[[str], bool]) -> bool:
        return matches(self.url)

    async def fingerprints(self, indexes: list[int]) -> dict[int, Fingerprint]:
        page = self._page()
        found = page.elements if page else {}
        return {
            i: Fingerprint(tag=found[i][0], role=found[i][1], name=found[i][2]) for i in indexes if i in found
        }

    def blocked_between(self) -> list[str]:
        return []

    def held_between(self) -> list[HeldRequest]:
        return []

    async def read_each(self, indexes: list[int], js: str) -> dict[int, object]:
        return {i: self.values.get(i, "") for i in indexes}

    def current_url(self) -> str | None:
        self.calls.append("current_url")
        return self.url

    async def screenshot(self, path: Path) -> bool:
        self.calls.append("screenshot")
        path.write_bytes(b"\x89PNG in memory")  # noqa: ASYNC240 - a few bytes, as a page's screenshot
        return True

    async def start_trace(self) -> None:
        self.calls.append("start_trace")

    async def stop_trace(self, path: Path) -> None:
        self.calls.append("stop_trace")
        path.write_bytes(b"a trace in memory")  # noqa: ASYNC240 - a few bytes

    async def close(self) -> None:
        self.calls.append("close")


def config_for(tmp_path: Path, **overrides: Any) -> KiteConfig:
    base = {"llm.model": "kite/scripted", "llm.max_attempts": 1, "run.runs_dir": str(tmp_path / "runs")}
    return load_config(overrides={**base, **overrides}, env={})


def memory_env(config: KiteConfig) -> MemoryEnv:
    return MemoryEnv(config, EnvSafety.from_config(config))


def test_the_memory_env_is_an_environment(tmp_path: Path) -> None:
    assert isinstance(memory_env(config_for(tmp_path)), Environment)


async def test_the_loop_runs_on_an_environment_in_memory(tmp_path: Path) -> None:
    config = config_for(tmp_path, **{"run.screenshots": True, "run.trace": True})
    env = memory_env(config)
    model = ScriptedModel(
        [
            {"action": "type", "index": 1, "text": "kite"},
            {"action": "click", "index": 2},
            {"action": "done", "success": True, "answer": "3 results"},
        ]
    )
    result = await Agent(config, model=model, env=env).run("Search the shop for kite", start_url=SHOP)

    assert result.success and result.stop_reason == StopReason.DONE and result.answer == "3 results", result
    assert result.steps == 3 and result.final_url == RESULTS + "kite"
    # the start URL went past the gate, every model action reached the environment's act, in order
    assert env.opened == [SHOP]
    assert [a["action"] for a in env.acted] == ["type", "click", "done"]
    assert env.acted[0]["text"] == "kite" and env.values == {1: "kite"}
    assert env.calls[:3] == ["start", "start_trace", "open_url"]
    assert env.calls[-4:] == ["stop", "current_url", "screenshot", "stop_trace"]
    assert "close" not in env.calls, "an environment given to Agent is left open"
    # the model saw the pages the environment built
    assert [v.observation.url for v in model.views] == [SHOP, SHOP, RESULTS + "kite"]
    assert "3 results for kite" in model.views[2].observation.summary.visible_text
    # the record is written: the header, one line per step (the start URL's as step 0), the final files
    assert result.run_dir is not None
    run_dir = Path(result.run_dir)
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert run["result"]["success"] is True and run["task"] == "Search the shop for kite"
    lines = [json.loads(x) for x in (run_dir / "steps.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [x["step"] for x in lines] == [0, 1, 2, 3]
    assert lines[0]["actions"][0]["action"] == {"action": "navigate", "url": SHOP}
    assert lines[2]["actions"][0]["result"]["effects"]["navigated"] is True
    assert (run_dir / "screenshots" / "final.png").read_bytes().startswith(b"\x89PNG")
    assert (run_dir / "trace.zip").is_file()


async def test_the_gate_of_the_environment_judges_the_models_actions(tmp_path: Path) -> None:
    """A step the safety policy asks to confirm, with nobody to ask, is declined by the environment's gate
    and never applied; the run goes on and says so."""
    config = config_for(tmp_path)
    env = memory_env(config)

    def fn(messages: list[Any], view: ModelView) -> Any:
        if view.step == 1:
            return {"action": "navigate", "url": "javascript:void(document.forms[0].submit())"}
        return {"action": "done", "success": False, "answer": "not allowed to run a script"}

    result = await Agent(config, model=FunctionModel(fn), env=env).run("Submit the form", start_url=SHOP)
    assert result.stop_reason == StopReason.DONE and not result.success
    assert [a["action"] for a in env.acted] == ["navigate", "done"]
    assert env.url == SHOP, "a declined navigation changed the page"
    assert [d.outcome for d in result.declined] == ["declined"], result.declined


async def test_an_unreachable_start_url_stops_the_run_before_the_model(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    env = memory_env(config)
    model = ScriptedModel([{"action": "done", "success": True}])
    result = await Agent(config, model=model, env=env).run("Look around", start_url="https://nowhere.test/")
    assert result.stop_reason == StopReason.START_URL_UNREACHABLE and not model.views and not env.acted, (
        result
    )


def test_an_env_and_a_context_are_not_both_given(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    with pytest.raises(UsageError):
        Agent(config, env=memory_env(config), context=object())  # type: ignore[arg-type]


def test_browser_env_has_the_protocols_methods() -> None:
    """Each method of ``Environment`` is a method of ``BrowserEnv`` taking the same parameters (mypy checks
    the types where the loop is handed a ``BrowserEnv``)."""
    members = {n for n, v in vars(Environment).items() if inspect.isfunction(v) and not n.startswith("_")}
    assert {"observe", "act", "close", "open_url", "current_url", "start_trace"} <= members
    for name in members:
        ours = inspect.signature(getattr(Environment, name)).parameters
        theirs = inspect.signature(getattr(BrowserEnv, name)).parameters
        assert list(ours) == list(theirs), name
