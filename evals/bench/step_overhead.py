"""Kite's own time per step, excluding the model: observe, render, prompt, parse, gate, act, settle, record.

    python -m evals.bench.step_overhead [--json] [--steps N]

A zero-latency fake model (through the real litellm path) drives real runs on the bundled sites; each step's
wall time (from steps.jsonl) minus the model call's latency is Kite's overhead. Reports median and p95 per
site and overall, and where it goes: the median of each phase the step record carries (``phases_ms``,
agent/browser/timing.py) and ``other``, the rest of the overhead (events, memory, history: no phase of its own).

The fake model names its targets as a model does, by the index the page's listing gives them (found by their
name in the prompt); ``--selectors`` names them by CSS selector instead (the bench before 2026-11-26 23:30).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import statistics
import tempfile
from pathlib import Path
from typing import Any

from kite_browser.agent.browser.timing import PHASES
from kite_browser.agent.config import load_config
from kite_browser.agent.llm.fakes import FakeReply, register_fake
from kite_browser.agent.loop import Agent
from kite_browser.agent.record import RunResult
from kite_browser.evals.sites.server import SitesServer

# (site path, the actions the fake model repeats: none of them navigates away). A target is named by its
# listed name ("@Increment": the index of the element listed as "Increment"; by its selector when the page the
# model was shown does not list it) or, with --selectors, its selector.
WORKLOADS: dict[str, list[dict[str, Any]]] = {
    "shop": [
        {"name": "scroll", "arguments": {"direction": "down", "amount": 300}},
        {"name": "scroll", "arguments": {"direction": "up", "amount": 300}},
    ],
    "counter": [{"name": "click", "arguments": {"target": ("@Increment", "#increment")}}],
    "forms": [
        {"name": "type", "arguments": {"target": ("@Full name", "#full-name"), "text": "Ada", "clear": True}},
        {"name": "click", "arguments": {"target": ("@Subscribe to updates", "#subscribe")}},
    ],
    "dynamic": [
        {"name": "hover", "arguments": {"target": ("@Products ▾", "#menu-trigger")}},
        {"name": "scroll", "arguments": {"direction": "down", "amount": 200}},
    ],
}
PATHS = {"shop": "/shop/", "counter": "/test/counter.html", "forms": "/forms/", "dynamic": "/dynamic/"}


def _text(message: dict) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _call(action: dict[str, Any], messages: list[dict], selectors: bool) -> dict[str, Any]:
    """The action as the model sends it: its target by index (found in the latest page) or by selector."""
    args = dict(action["arguments"])
    target = args.pop("target", None)
    if target is None:
        return {"name": action["name"], "arguments": args}
    name, selector = target
    page = next(_text(m) for m in reversed(messages) if m.get("role") == "user")
    found = re.findall(rf'\[(\d+)\][^\n"]*"{re.escape(name[1:])}"', page)
    if selectors or not found:  # not listed (below the viewport): by selector, which scrolls to it
        return {"name": action["name"], "arguments": {**args, "selector": selector}}
    return {"name": action["name"], "arguments": {**args, "index": int(found[-1])}}


def _model(actions: list[dict[str, Any]], steps: int, selectors: bool) -> Any:
    state = {"n": 0}

    def handler(messages: list[dict], tools: list[dict] | None, kwargs: dict) -> FakeReply:
        state["n"] += 1
        if state["n"] > steps:
            return FakeReply(tool_calls=[{"name": "done", "arguments": {"success": True, "answer": "ok"}}])
        return FakeReply(tool_calls=[_call(actions[(state["n"] - 1) % len(actions)], messages, selectors)])

    return handler


def step_overheads(result: RunResult) -> list[tuple[float, dict[str, float]]]:
    """Each step's overhead (its wall time minus the model's latency) and its phases (``other``: the rest)."""
    lines = [json.loads(x) for x in (Path(result.run_dir or ".") / "steps.jsonl").read_text().splitlines()]
    out = []
    for prev, cur in itertools.pairwise(lines):
        if "usage" not in cur or cur.get("actions", [{}])[-1].get("action", {}).get("action") == "done":
            continue
        wall_ms = (cur["t"] - prev["t"]) * 1000
        overhead = wall_ms - cur["usage"]["latency_ms"]
        phases = {k: v for k, v in (cur.get("phases_ms") or {}).items() if k in PHASES}
        phases["other"] = overhead - sum(phases.values())
        out.append((overhead, phases))
    return out


async def measure(steps: int, screenshots: bool, selectors: bool = False) -> dict[str, Any]:
    per_site: dict[str, list[float]] = {}
    phases: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp, SitesServer() as sites:
        for site, actions in WORKLOADS.items():
            register_fake("bench", _model(actions, steps, selectors))
            config = load_config(
                env={},
                overrides={
                    "llm.model": "kite/bench",
                    "run.runs_dir": tmp,
                    "run.screenshots": screenshots,
                    "browser.block_external_hosts": True,
                    "agent.loop_stop": 10_000,
                    "agent.max_steps": steps + 5,
                },
            )
            result = await Agent(config).run(f"benchmark {site}", start_url=sites.url(PATHS[site]))
            if not result.success:
                raise SystemExit(f"the {site} run failed: {result.stop_reason} {result.message}")
            steps_of = step_overheads(result)[1:]  # the first step pays one-time warm-ups
            per_site[site] = [x for x, _ in steps_of]
            phases += [p for _, p in steps_of]
    everything = sorted(x for xs in per_site.values() for x in xs)
    out: dict[str, Any] = {
        "step_overhead_median_ms": round(statistics.median(everything), 1),
        "step_overhead_p95_ms": round(everything[max(0, int(len(everything) * 0.95) - 1)], 1),
        "steps": len(everything),
    }
    for site, xs in per_site.items():
        out[f"{site}_median_ms"] = round(statistics.median(xs), 1)
    for name in (*PHASES, "other"):
        vals = sorted(p.get(name, 0.0) for p in phases)
        out[f"{name}_median_ms"] = round(statistics.median(vals), 2)
        out[f"{name}_p95_ms"] = round(vals[max(0, int(len(vals) * 0.95) - 1)], 2)
    out["load_1m"] = round(os.getloadavg()[0], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.bench.step_overhead", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--steps", type=int, default=12, help="steps per site (default 12)")
    parser.add_argument("--screenshots", action="store_true", help="also save a screenshot per step")
    parser.add_argument("--selectors", action="store_true", help="targets by CSS selector, not by index")
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.steps, args.screenshots, args.selectors))
    if args.json:
        print(json.dumps(result))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            if not any(key.startswith(f"{p}_") for p in (*PHASES, "other")):
                print(f"{key:<{width}}  {value}")
        print(f"\n{'phase':<10} {'median ms':>10} {'p95 ms':>10}")
        for name in (*PHASES, "other"):
            print(f"{name:<10} {result[f'{name}_median_ms']:>10} {result[f'{name}_p95_ms']:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
