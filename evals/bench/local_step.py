"""A step of the bundled local model on the demo task: what it reads, what its server's cache spares it.

    python -m evals.bench.local_step [--json]              the prompts only: no model runs (any machine)
    python -m evals.bench.local_step --runs 3 [--json]     the demo task with the bundled model (a quiet machine)

Without ``--runs``: the demo task on the bundled shop with the local model's settings (``config_for_server``:
JSON replies under a schema, its page budget), through a scripted model that types the search and then stops,
so nothing is run but Kite and the browser. It prints the first prompt's tokens (system, user, total: Kite's own
counter, ``estimate_tokens`` with the model's name, as the step record's ``prompt_tokens_est``), the second's, and
the stable prefix the two share (what llama.cpp's prompt cache keeps from one step to the next).

With ``--runs N``: N runs of ``kite demo``'s task with the bundled local model (started if need be), then per
step, from each step's record: the prompt tokens the server counted, the tokens it took from its cache
(``usage.cached_tokens``, llama.cpp's ``timings.cache_n``), its seconds reading the rest (``read_s``) and writing
the reply (``write_s``), and the step's wall time; medians (and p95) over the steps of all runs, and how many
runs the shop's own state says were done.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import tempfile
from collections.abc import Mapping
from pathlib import Path

from kite_browser.agent.browser.render import role_word
from kite_browser.agent.browser.tokens import estimate_tokens
from kite_browser.agent.commands.demo import DEMO_TASK, demo_check
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.llm.local import LocalServer, config_for_server
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.loop import Agent
from kite_browser.evals.sites.server import SitesServer

NOWHERE = LocalServer(
    api_base="http://127.0.0.1:9/v1",
    model="openai/qwen2.5-coder-1.5b-instruct",
    pid=0,
    port=9,
    api_key="unused",
    owned=False,
)
"""The local server's settings without a server: the scripted model answers, nothing is sent."""


def _config(runs_dir: str) -> KiteConfig:
    return load_config(env={}, overrides={"run.runs_dir": runs_dir, "browser.block_external_hosts": True})


def _search_then_stop(messages: list[ChatMessage], view: ModelView) -> str:
    if view.step == 1:
        box = next(e for e in view.observation.elements if e.tag == "input" and e.name == "Search")
        act = {"action": "type", "target": f"{role_word(box)}: {box.name} [{box.index}]", "text": "espresso"}
        return json.dumps({"thought": "I search the shop.", "actions": [act]})
    return json.dumps({"thought": "Stop.", "actions": [{"action": "done", "success": False, "answer": "-"}]})


async def prompts() -> dict[str, int]:
    """The demo's first two prompts with the local model's settings, counted."""
    with tempfile.TemporaryDirectory() as tmp, SitesServer() as sites:
        config = config_for_server(_config(tmp), NOWHERE)
        name = config.llm.model or NOWHERE.model
        model = FunctionModel(_search_then_stop, name=name)
        await Agent(config, model=model).run(DEMO_TASK, start_url=sites.url("/shop/"))
    out: dict[str, int] = {}
    for step, messages in enumerate(model.messages[:2], 1):
        system, user = (str(m["content"]) for m in messages[:2])
        out[f"step{step}_system_tokens"] = estimate_tokens(name, system)
        out[f"step{step}_user_tokens"] = estimate_tokens(name, user)
        out[f"step{step}_prompt_tokens"] = out[f"step{step}_system_tokens"] + out[f"step{step}_user_tokens"]
    a, b = ("\x00".join(str(m["content"]) for m in messages) for messages in model.messages[:2])
    same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    out["stable_prefix_tokens"] = estimate_tokens(name, a[:same])
    return out


def _p95(values: list[float]) -> float:
    vals = sorted(values)
    return vals[max(0, int(len(vals) * 0.95) - 1)]


async def live(runs: int) -> dict[str, object]:
    """``runs`` demo runs with the bundled local model: per-step figures from the step records."""
    from kite_browser.agent.llm.resolve import prepare_config
    from kite_browser.safety.confirm import BatchConfirmer

    rows: list[dict[str, float]] = []
    done = 0
    with tempfile.TemporaryDirectory() as tmp:
        config = await prepare_config(_config(tmp).model_copy())
        for _ in range(runs):
            with SitesServer() as sites:
                confirmer = BatchConfirmer(config.safety.approve, nobody="nobody is asked in a bench")
                result = await Agent(config, confirmer=confirmer).run(
                    DEMO_TASK, start_url=sites.url("/shop/")
                )
                done += not demo_check(result.answer or "", sites.states())
            lines = [
                json.loads(x) for x in (Path(result.run_dir or "") / "steps.jsonl").read_text().splitlines()
            ]
            for prev, cur in itertools.pairwise(lines):
                usage = cur.get("usage")
                if not usage:
                    continue
                rows.append(
                    {
                        "prompt_tokens": usage.get("prompt_tokens", 0),
                        "cached_tokens": usage.get("cached_tokens", 0),
                        "read_s": usage.get("read_s", 0.0),
                        "write_s": usage.get("write_s", 0.0),
                        "step_s": cur["t"] - prev["t"],
                    }
                )
    out: dict[str, object] = {"runs": runs, "runs_done": done, "steps": len(rows)}
    for key in ("prompt_tokens", "cached_tokens", "read_s", "write_s", "step_s"):
        vals = [r[key] for r in rows] or [0.0]
        out[f"{key}_median"] = round(statistics.median(vals), 3)
        out[f"{key}_p95"] = round(_p95(vals), 3)
    out["first_step_prompt_tokens"] = [r["prompt_tokens"] for r in rows[:1]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.bench.local_step", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--runs", type=int, default=0, help="demo runs with the bundled local model (default 0)"
    )
    args = parser.parse_args(argv)
    result: Mapping[str, object] = asyncio.run(live(args.runs)) if args.runs else asyncio.run(prompts())
    if args.json:
        print(json.dumps(result))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
