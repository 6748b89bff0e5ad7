"""Kite's own time per step, excluding the model: observe, render, prompt, parse, gate, act, settle, record.

    python -m kite_browser.evals.bench.step_overhead [--json] [--steps N]
    python -m kite_browser.evals.bench.step_overhead --ab REV [--pairs N] [--steps N] [--json]

A zero-latency fake model (through the real litellm path) drives real runs on the bundled sites; each step's
wall time (from steps.jsonl) minus the model call's latency is Kite's overhead. Reports median and p95 per
site and overall, and where it goes: the median of each phase the step record carries (``phases_ms``,
agent/browser/timing.py) and ``other``, the rest of the overhead (events, memory, history: no phase of its own).
The first step of each run is left out of those and reported on its own: ``first_step_ms`` (the process's
first step, which pays what a process does once: imports, templates, tokenizers) with its phases
(``first_<phase>_ms``), and ``first_steps_median_ms`` (each site's run's first step; with ``--ab``, each run's
first step, per side).

The fake model names its targets as a model does, by the index the page's listing gives them (found by their
name in the prompt); ``--selectors`` names them by CSS selector instead (the bench before 2026-11-26 23:30).

``--ab REV``: this tree against commit ``REV`` (``git archive`` into a temporary directory), ``--pairs`` runs of
each side alternating (the order flipped every pair) in subprocesses that each import their own tree's code
(``PYTHONPATH``) and run this file's workload, so load on the machine falls on both sides alike; the steps of
all runs of a side are pooled, and the ratios are this tree's over ``REV``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict

from kite_browser.agent.browser.timing import PHASES
from kite_browser.agent.config import load_config
from kite_browser.agent.llm.fakes import FakeReply, register_fake
from kite_browser.agent.run.loop import Agent
from kite_browser.agent.run.record import RunResult
from kite_browser.evals.sites.server import SitesServer

if TYPE_CHECKING:  # a name for annotations only: the A/B runs this file against older trees without it
    from kite_browser.agent.base.jsontypes import JsonObject
    from kite_browser.agent.llm.chat import ChatMessage, ChatTool
    from kite_browser.agent.llm.fakes import FakeHandler


class Scripted(TypedDict):
    """An action the fake model repeats: a tool call, and the element it acts on as (listed name, selector)."""

    name: str
    arguments: JsonObject
    target: NotRequired[tuple[str, str]]


class Sample(TypedDict):
    """One step's overhead: its site, milliseconds and phases."""

    site: str
    ms: float
    phases: dict[str, float]


class Measured(TypedDict):
    """What ``_one_run`` reads of a run's JSON: its steps and its first step."""

    raw: list[Sample]
    first: list[Sample]


# (site path, the actions the fake model repeats: none of them navigates away). A target is named by its
# listed name ("@Increment": the index of the element listed as "Increment"; by its selector when the page the
# model was shown does not list it) or, with --selectors, its selector.
WORKLOADS: dict[str, list[Scripted]] = {
    "shop": [
        {"name": "scroll", "arguments": {"direction": "down", "amount": 300}},
        {"name": "scroll", "arguments": {"direction": "up", "amount": 300}},
    ],
    "counter": [{"name": "click", "arguments": {}, "target": ("@Increment", "#increment")}],
    "forms": [
        {"name": "type", "arguments": {"text": "Ada", "clear": True}, "target": ("@Full name", "#full-name")},
        {"name": "click", "arguments": {}, "target": ("@Subscribe to updates", "#subscribe")},
    ],
    "dynamic": [
        {"name": "hover", "arguments": {}, "target": ("@Products ▾", "#menu-trigger")},
        {"name": "scroll", "arguments": {"direction": "down", "amount": 200}},
    ],
}
PATHS = {"shop": "/shop/", "counter": "/test/counter.html", "forms": "/forms/", "dynamic": "/dynamic/"}


def _text(message: ChatMessage) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _call(action: Scripted, messages: list[ChatMessage], selectors: bool) -> JsonObject:
    """The action as the model sends it: its target by index (found in the latest page) or by selector."""
    args = dict(action["arguments"])
    if "target" not in action:
        return {"name": action["name"], "arguments": args}
    name, selector = action["target"]
    page = next(_text(m) for m in reversed(messages) if m.get("role") == "user")
    found = re.findall(rf'\[(\d+)\][^\n"]*"{re.escape(name[1:])}"', page)
    if selectors or not found:  # not listed (below the viewport): by selector, which scrolls to it
        return {"name": action["name"], "arguments": {**args, "selector": selector}}
    return {"name": action["name"], "arguments": {**args, "index": int(found[-1])}}


def _model(actions: list[Scripted], steps: int, selectors: bool) -> FakeHandler:
    state = {"n": 0}

    def handler(messages: list[ChatMessage], tools: list[ChatTool] | None, kwargs: dict) -> FakeReply:
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


async def measure(steps: int, screenshots: bool, selectors: bool = False) -> dict[str, object]:
    per_site: dict[str, list[float]] = {}
    phases: list[dict[str, float]] = []
    raw: list[Sample] = []
    first: list[Sample] = []
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
            steps_of = step_overheads(result)
            first += [{"site": site, "ms": x, "phases": p} for x, p in steps_of[:1]]
            steps_of = steps_of[1:]  # the first step is reported on its own (what it pays once)
            per_site[site] = [x for x, _ in steps_of]
            phases += [p for _, p in steps_of]
            raw += [{"site": site, "ms": x, "phases": p} for x, p in steps_of]
    return {**summarise(raw, first), "load_1m": round(os.getloadavg()[0], 2), "raw": raw, "first": first}


def _p95(values: list[float]) -> float:
    vals = sorted(values)
    return vals[max(0, int(len(vals) * 0.95) - 1)]


def summarise(raw: list[Sample], first: list[Sample] | None = None) -> dict[str, float]:
    """Median and p95 over steps (``{site, ms, phases}``), per site, and each phase's median and p95; with
    ``first`` (each run's first step, in run order), the process's first step (``first_step_ms``: it pays
    what the process does once, the first site's) and the median of the runs' first steps."""
    per_site: dict[str, list[float]] = {}
    for r in raw:
        per_site.setdefault(r["site"], []).append(r["ms"])
    phases = [r["phases"] for r in raw]
    everything = sorted(r["ms"] for r in raw)
    out: dict[str, float] = {
        "step_overhead_median_ms": round(statistics.median(everything), 1),
        "step_overhead_p95_ms": round(_p95(everything), 1),
        "steps": len(everything),
    }
    for site, xs in per_site.items():
        out[f"{site}_median_ms"] = round(statistics.median(xs), 1)
    for name in (*PHASES, "other"):
        vals = [p.get(name, 0.0) for p in phases]
        out[f"{name}_median_ms"] = round(statistics.median(vals), 2)
        out[f"{name}_p95_ms"] = round(_p95(vals), 2)
    if first:
        out["first_step_ms"] = round(first[0]["ms"], 1)
        out["first_steps_median_ms"] = round(statistics.median(f["ms"] for f in first), 1)
        for name, value in first[0]["phases"].items():
            out[f"first_{name}_ms"] = round(value, 1)
    return out


def _one_run(tree: Path, steps: int, selectors: bool) -> Measured:
    """One run of this file's workload in a subprocess importing ``tree``'s code."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--steps", str(steps)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [*cmd, *(["--selectors"] if selectors else [])], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed: {(done.stderr or done.stdout).strip()[-2000:]}")
    result: Measured = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_ab(rev: str, pairs: int, steps: int, selectors: bool) -> dict[str, object]:
    """This tree against ``rev``'s, ``pairs`` runs each, alternating; steps pooled per side."""
    here = Path(__file__).resolve().parents[2]
    sides: dict[str, list[Sample]] = {"this": [], rev: []}
    firsts: dict[str, list[Sample]] = {"this": [], rev: []}
    loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="kite-ab-") as tmp:
        archive = subprocess.run(["git", "-C", str(here), "archive", rev], capture_output=True, check=False)
        if archive.returncode != 0:
            raise SystemExit(f"no commit {rev!r}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        trees = {"this": here, rev: Path(tmp)}
        for i in range(pairs):
            order = ["this", rev] if i % 2 else [rev, "this"]
            for side in order:
                loads.append(os.getloadavg()[0])
                run = _one_run(trees[side], steps, selectors)
                sides[side] += run["raw"]
                firsts[side] += run["first"][:1]  # each process's first step
    summaries = {side: summarise(raw) for side, raw in sides.items()}
    for side, summary in summaries.items():
        if firsts[side]:
            summary["first_step_median_ms"] = round(statistics.median(f["ms"] for f in firsts[side]), 1)
    a, b = summaries["this"], summaries[rev]
    return {
        "rev": rev,
        "pairs": pairs,
        "load_1m": [round(min(loads), 1), round(max(loads), 1)],
        **summaries,
        "ratio_median": round(a["step_overhead_median_ms"] / b["step_overhead_median_ms"], 2),
        "ratio_p95": round(a["step_overhead_p95_ms"] / b["step_overhead_p95_ms"], 2),
    }


def _print_ab(result: dict[str, object]) -> None:
    rev = str(result["rev"])
    a, b = result["this"], result[rev]
    assert isinstance(a, dict) and isinstance(b, dict)
    print(f"this tree vs {rev}: {result['pairs']} pairs alternating, load {result['load_1m']}")
    print(f"{'':<24} {rev:>10} {'this':>10} {'ratio':>7}")
    for key in b:
        if key.endswith("_p95_ms") and key != "step_overhead_p95_ms":
            continue
        x, y = b[key], a.get(key, 0)
        ratio = f"{y / x:.2f}" if isinstance(x, float) and x else ""
        print(f"{key:<24} {x:>10} {y:>10} {ratio:>7}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.step_overhead", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--steps", type=int, default=12, help="steps per site (default 12)")
    parser.add_argument("--screenshots", action="store_true", help="also save a screenshot per step")
    parser.add_argument("--selectors", action="store_true", help="targets by CSS selector, not by index")
    parser.add_argument("--ab", metavar="REV", help="compare this tree with commit REV, alternating runs")
    parser.add_argument("--pairs", type=int, default=3, help="with --ab: runs of each side (default 3)")
    args = parser.parse_args(argv)
    if args.ab:
        ab = run_ab(args.ab, args.pairs, args.steps, args.selectors)
        if args.json:
            print(json.dumps(ab))
        else:
            _print_ab(ab)
        return 0
    result = asyncio.run(measure(args.steps, args.screenshots, args.selectors))
    if args.json:
        print(json.dumps(result))
    else:
        result.pop("raw"), result.pop("first")
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
