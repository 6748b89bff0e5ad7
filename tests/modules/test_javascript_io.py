"""The javascript module with bad input, a huge return, concurrency and the Node.js fallback."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.modules.conftest import ToolboxHarness

# one javascript module and its browser (a module fixture) for the file, on one xdist worker
pytestmark = pytest.mark.xdist_group("javascript_io")


@pytest.fixture(scope="module")
def js(harness_factory: Any) -> ToolboxHarness:
    return harness_factory(["javascript"])  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        ({}, "invalid_arguments"),
        ({"code": 12}, "invalid_arguments"),
        ({"code": ""}, "invalid_arguments"),
        ({"code": "return 1", "timeout_ms": "soon"}, "invalid_arguments"),
        ({"code": "return 1", "timeout_ms": -5}, "invalid_arguments"),
        ({"code": "return 1", "extra": True}, "invalid_arguments"),
        ("return 1", "invalid_arguments"),
    ],
)
def test_bad_arguments_are_typed(js: ToolboxHarness, args: Any, kind: str) -> None:
    result = js.call("run_javascript", args)
    assert result["error"] == kind and result["message"]


def test_unknown_tool_and_huge_return(js: ToolboxHarness) -> None:
    assert js.call("run_javascrip", {"code": "return 1"})["error"] == "unknown_tool"
    # (a limit no loaded machine reaches: this is about the size, not the time)
    big = js.call("run_javascript", {"code": "return 'x'.repeat(10 * 1024 * 1024)", "timeout_ms": 60_000})
    assert big["error"] == "result_too_large" and big["size"] > 10 * 1024 * 1024
    assert js.ok("run_javascript", {"code": "return input * 2", "input": 21})["result"] == 42


def test_undefined_is_null_and_canvas_free_run_has_no_images(js: ToolboxHarness) -> None:
    assert js.ok("run_javascript", {"code": "let x = 1;"}) == {"result": None}


def test_the_code_sees_a_clean_global_and_cannot_break_the_runner(js: ToolboxHarness) -> None:
    """run.js is installed in each page before its call: it adds no enumerable global, and code that tries to
    replace or delete it changes neither its own result nor the next call's."""
    keys = js.ok("run_javascript", {"code": "return Object.keys(globalThis).filter(k => /kite/i.test(k))"})
    assert keys == {"result": []}
    tamper = (
        "try { globalThis.__kiteRunJs = () => ({kind: 'ok', json: '666'}); } catch (e) {}\n"
        "try { delete globalThis.__kiteRunJs; } catch (e) {}\n"
        "return 'mine'"
    )
    assert js.ok("run_javascript", {"code": tamper}) == {"result": "mine"}
    assert js.ok("run_javascript", {"code": "return input", "input": 7}) == {"result": 7}


def test_concurrent_calls_are_independent(js: ToolboxHarness) -> None:
    code = "await new Promise(r => setTimeout(r, 30)); return input"

    async def many() -> list[dict[str, Any]]:
        return await asyncio.gather(
            *(js.toolbox.call("run_javascript", {"code": code, "input": i}) for i in range(8))
        )

    assert [r["result"] for r in js.run(many())] == list(range(8))


def test_node_fallback_when_no_chromium(harness_factory: Any) -> None:
    """No Chromium: the same contract in Node.js, said in the result; getCanvas and timeouts still typed."""
    h: ToolboxHarness = harness_factory(
        ["javascript"],
        **{
            "browser.chromium_path": "/nonexistent/chromium",
            "module_settings.javascript.node_fallback": True,  # off by default
            "safety.approve": ["executeJS"],  # judged as code execution
        },
    )
    out = h.ok("run_javascript", {"code": "return await Promise.resolve(input.n + 1)", "input": {"n": 1}})
    assert out["result"] == 2 and out["engine"] == "node" and "Node.js" in out["note"]
    err = h.call("run_javascript", {"code": "getCanvas(10, 10)"})
    assert err["error"] == "js_execution_failed" and "Node.js" in err["message"]
    assert (
        h.call("run_javascript", {"code": "while (true) {}", "timeout_ms": 300})["error"]
        == "execution_timeout"
    )
    assert h.call("run_javascript", {"code": "return () => 1"})["error"] == "non_json_serializable_return"


def test_browser_not_available_without_fallback(harness_factory: Any) -> None:
    h: ToolboxHarness = harness_factory(
        ["javascript"],
        **{
            "browser.chromium_path": "/nonexistent/chromium",
            "module_settings.javascript.node_fallback": False,
        },
    )
    assert h.call("run_javascript", {"code": "return 1"})["error"] == "browser_not_available"


def test_canvas_export_failure_is_typed_and_keeps_the_result(harness_factory: Any, tmp_path: Any) -> None:
    """The artifacts folder cannot be created (a plain file sits where its parent should be: this fails even
    for root): the code's result comes back inside canvas_export_failed, and the module keeps working."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file, not a folder")
    h: ToolboxHarness = harness_factory(
        ["javascript"], **{"module_settings.artifacts_dir": str(blocker / "art")}
    )
    code = "const c = getCanvas(20, 10); c.getContext('2d').fillRect(0, 0, 5, 5); return {drawn: true}"
    err = h.call("run_javascript", {"code": code, "timeout_ms": 60_000})  # about the export, not the time
    assert err["error"] == "canvas_export_failed", err
    assert err["result"] == {"drawn": True} and "could not be saved" in err["message"]
    assert blocker.read_text() == "a file, not a folder"  # nothing was written over it
    assert h.ok("run_javascript", {"code": "return input + 1", "input": 41})["result"] == 42


def test_the_pool_closes_used_pages_and_keeps_the_burst_size_ready(js: ToolboxHarness) -> None:
    """Every call gets a page no other call had (property 9), used pages are closed once the calls are over,
    and after a burst of 8 the sandbox keeps 8 fresh pages ready (so the next burst waits for none)."""
    code = "const seen = globalThis.__kiteSeen ?? null; globalThis.__kiteSeen = input; return seen"

    async def burst(n: int) -> list[Any]:
        out = await asyncio.gather(
            *(js.toolbox.call("run_javascript", {"code": code, "input": i}) for i in range(n))
        )
        return [r["result"] for r in out]

    sandbox = js.toolbox.registry.module("javascript").sandbox  # type: ignore[attr-defined]

    def open_pages() -> int:
        return sum(len(c.pages) for c in sandbox._browser.contexts)

    assert js.run(burst(1)) == [None]
    js.run(sandbox.settled())
    assert open_pages() == sandbox._pool.target  # 1, or the peak of an earlier test's burst
    assert js.run(burst(8)) == [None] * 8
    js.run(sandbox.settled())
    assert open_pages() == 8
    assert js.run(burst(8)) == [None] * 8
    js.run(sandbox.settled())
    assert open_pages() == 8
    assert sandbox.launches == 1
