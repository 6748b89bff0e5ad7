"""Properties of the module system (seed 000, properties 1-5 and 12), on in-process modules: ≥100 examples each."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules.base import CallContext, ToolError, interface_problems
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.safety.confirm import Gate
from tests.modules.fakes import FakeModule, Incomplete

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
names = st.text("abcdefgh", min_size=1, max_size=4).map(lambda s: "m_" + s)
tool_names = st.sampled_from([f"tool_{c}" for c in "abcdefghij"])


def run(coro: Any) -> Any:
    return asyncio.run(coro)


GATE: list[Gate] = []


async def loaded(config: KiteConfig, given_: dict[str, Any], names_: list[str]) -> ModuleRegistry:
    if not GATE:  # loading the safety rules takes ~60 ms: once for all examples
        GATE.append(Gate.from_config(config.safety))
    reg = ModuleRegistry(config, given=given_, names=names_, gate=GATE[0])
    await reg.load()
    return reg


@pytest.fixture(scope="module")
def config() -> KiteConfig:
    return KiteConfig(modules=[])


MEMBERS = ["init", "execute", "shutdown", "tool_definitions"]


@SETTINGS
@given(
    name=st.one_of(names, st.just(""), st.just(None), st.integers()),
    drop=st.lists(st.sampled_from(MEMBERS), unique=True, max_size=4),
    sync=st.lists(st.sampled_from(["init", "execute", "shutdown"]), unique=True, max_size=3),
)
def test_interface_validation(config: KiteConfig, name: Any, drop: list[str], sync: list[str]) -> None:
    """Property 1: a module loads iff it has a string name and every member (async where required)."""
    obj = Incomplete(name, drop, sync)
    valid = isinstance(name, str) and bool(name) and not drop and not sync
    assert (interface_problems(obj) == []) == valid
    enabled = name if isinstance(name, str) and name else "m_x"
    reg = run(loaded(config, {enabled: obj}, [enabled]))
    state = reg.state(enabled)
    assert state is not None
    if valid:
        assert state.status == "initialized"
    else:
        assert state.status == "error"
        assert state.error is not None and state.error["error"] == "invalid_module_interface"


@SETTINGS
@given(available=st.lists(names, unique=True, max_size=6), data=st.data())
def test_config_driven_loading(config: KiteConfig, available: list[str], data: st.DataObject) -> None:
    """Property 2: exactly and only the listed modules are loaded (built-ins that are not listed neither)."""
    made = {n: FakeModule(n, [f"{n}_t"]) for n in available}
    listed = data.draw(st.lists(st.sampled_from(available), unique=True) if available else st.just([]))
    reg = run(loaded(config, made, listed))
    assert [s.name for s in reg.states()] == listed
    assert set(reg.modules) == set(listed)
    assert sorted(reg.tool_names()) == sorted(f"{n}_t" for n in listed)
    assert not ({"chrome", "browser"} & set(reg.modules))


@SETTINGS
@given(spec=st.lists(st.tuples(names, st.lists(tool_names, unique=True, max_size=4)), max_size=5))
def test_tool_collection_and_routing(config: KiteConfig, spec: list[tuple[str, list[str]]]) -> None:
    """Properties 3 and 4: one definition per tool name, none missing; a duplicate goes to the later module;
    each call reaches its owner and returns its result."""
    spec = list({n: tools for n, tools in spec}.items())
    made = {n: FakeModule(n, tools) for n, tools in spec}
    reg = run(loaded(config, made, [n for n, _ in spec]))
    expected_owner: dict[str, str] = {}
    for n, tools in spec:
        for t in tools:
            expected_owner[t] = n
    defs = reg.tool_definitions()
    got = [d["function"]["name"] for d in defs]
    assert len(got) == len(set(got))
    assert set(got) == set(expected_owner)
    dupes = sum(len(tools) for _, tools in spec) - len(expected_owner)
    assert len(reg.warnings) == dupes
    for tool, owner in expected_owner.items():
        assert reg.owner(tool) == owner
        result = run(reg.call(tool, {"value": 7}))
        assert result == {"module": owner, "value": 7}


KINDS = st.sampled_from(["good", "missing", "bad_interface", "init_fails"])


@SETTINGS
@given(kinds=st.lists(KINDS, max_size=6))
def test_failure_isolation(config: KiteConfig, kinds: list[str]) -> None:
    """Property 5: failing modules are recorded with their typed error; all the others load and work."""
    given_: dict[str, Any] = {}
    listed = []
    for i, kind in enumerate(kinds):
        name = f"m_{i}"
        listed.append(name)
        if kind == "good":
            given_[name] = FakeModule(name, [f"t_{i}"])
        elif kind == "bad_interface":
            given_[name] = Incomplete(name, drop=["execute"])
        elif kind == "init_fails":
            given_[name] = FakeModule(name, [f"t_{i}"], fail_init=True)
    reg = run(loaded(config, given_, listed))
    want = {
        "missing": "module_not_found",
        "bad_interface": "invalid_module_interface",
        "init_fails": "module_init_failed",
    }
    for i, kind in enumerate(kinds):
        state = reg.state(f"m_{i}")
        assert state is not None
        if kind == "good":
            assert state.status == "initialized" and state.tool_count == 1
            assert run(reg.call(f"t_{i}", {"value": i})) == {"module": f"m_{i}", "value": i}
        else:
            assert state.status == "error" and state.error is not None
            assert state.error["error"] == want[kind]
            assert isinstance(state.error["message"], str) and state.error["message"]
    assert {d["function"]["name"] for d in reg.tool_definitions()} == {
        f"t_{i}" for i, k in enumerate(kinds) if k == "good"
    }


bad_args = st.one_of(
    st.builds(
        lambda v: ("tool_a", {"value": v}),
        st.one_of(st.text("abc", max_size=3), st.lists(st.integers(), max_size=2)),
    ),
    st.builds(lambda k: ("tool_a", {k: 1}), st.text("xyz", min_size=1, max_size=3)),
    st.builds(
        lambda v: ("tool_a", v),
        st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2)),
    ),
    st.builds(lambda v: ("tool_a", {"value": v}), st.integers(max_value=-1)),
    st.just(("tool_a", {"value": 13})),
    st.builds(lambda n: (n, {}), st.text("qrstuvw", min_size=1, max_size=6)),
)


@SETTINGS
@given(case=bad_args)
def test_error_structure(config: KiteConfig, case: tuple[str, Any]) -> None:
    """Property 12: every failing call answers {error: snake_case, message: str, ...context}, never raises."""
    tool, args = case
    reg = run(loaded(config, {"m_a": FakeModule("m_a", ["tool_a"])}, ["m_a"]))
    result = run(reg.call(tool, args))
    assert isinstance(result, dict) and "error" in result, result
    assert SNAKE.match(result["error"]), result
    assert isinstance(result["message"], str) and result["message"]
    assert "Traceback" not in result["message"]


async def test_shutdown_and_states(config: KiteConfig) -> None:
    mod = FakeModule("m_a", ["tool_a"])
    reg = ModuleRegistry(config, given={"m_a": mod}, names=["m_a"])
    await reg.load()
    state = reg.state("m_a")
    assert state is not None and state.loaded_at and state.tool_count == 1 and state.tools == ["tool_a"]
    await reg.shutdown()
    await reg.shutdown()
    assert mod.shutdowns == 1
    assert reg.states()[0].status == "shutdown"
    result = await reg.call("tool_a", {})
    assert result["error"] == "module_unavailable"


async def test_call_timeout_is_typed(config: KiteConfig) -> None:
    class Slow(FakeModule):
        async def execute(self, ctx: CallContext, tool_name: str, args: dict[str, Any]) -> dict[str, Any]:
            await asyncio.sleep(30)
            raise ToolError("never", "never")

    reg = ModuleRegistry(config, given={"m_s": Slow("m_s", ["slow"])}, names=["m_s"])
    await reg.load()
    result = await reg.call("slow", {}, timeout_s=0.2)
    assert result["error"] == "tool_timeout" and result["timeout_s"] == 0.2


async def test_entry_point_modules_are_found(config: KiteConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party module is found through the kite.modules entry-point group."""
    from importlib.metadata import EntryPoint

    import kite_browser.agent.modules.loader as loader_mod

    ep = EntryPoint(name="m_ep", value="tests.modules.fakes:EntryPointModule", group="kite.modules")

    def fake_eps(group: str) -> list[EntryPoint]:
        return [ep] if group == "kite.modules" else []

    monkeypatch.setattr(loader_mod, "entry_points", fake_eps)
    reg = ModuleRegistry(config, names=["m_ep", "nowhere"])
    await reg.load()
    assert reg.state("m_ep").status == "initialized"  # type: ignore[union-attr]
    assert reg.state("m_ep").source == "entry_point"  # type: ignore[union-attr]
    assert (await reg.call("ep_tool", {"value": 2})) == {"module": "m_ep", "value": 2}
    assert reg.state("nowhere").error["error"] == "module_not_found"  # type: ignore[union-attr,index]
