"""Benchmark of SafetyPolicy.evaluate over a realistic mix of actions and pages.

    python -m kite_browser.evals.bench.policy [--json] [--rounds N]

The mix: the scenario table of tests/safety (bundled shop and account pages, English and Chinese) plus
the same pages padded to ~150 elements and ~500 characters of text, as a busy real page would be.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.policy import SafetyPolicy


def _workload() -> list[tuple[Any, Observation]]:
    from tests.safety.pages import el, page
    from tests.safety.scenarios import cases

    items = []
    for _, name, lang, action, _, kw in cases():
        obs = page(name, lang, **kw)
        big = obs.model_copy(
            update={
                "elements": obs.elements
                + [el(100 + i, "a", f"Product link {i}", href=f"/shop/product/p{i}") for i in range(140)],
                "summary": obs.summary.model_copy(
                    update={"visible_text": (obs.summary.visible_text + " lorem ipsum") * 20}
                ),
            }
        )
        items += [(parse_action(action), obs), (parse_action(action), big)]
    return items


def run(rounds: int) -> dict[str, float]:
    policy = SafetyPolicy.from_config(
        SafetyConfig(blocked_domains=["evil.test"]), secret_names=["card", "cvc", "password"]
    )
    work = _workload()
    samples: list[float] = []
    for _ in range(rounds):
        for action, obs in work:
            obs = obs.model_copy()  # a new observation object per step, as in a real run
            t0 = time.perf_counter()
            policy.evaluate(action, obs)
            samples.append((time.perf_counter() - t0) * 1e6)
    samples.sort()
    return {
        "evaluate_median_us": round(statistics.median(samples), 1),
        "evaluate_p95_us": round(samples[int(len(samples) * 0.95) - 1], 1),
        "evaluate_max_us": round(samples[-1], 1),
        "evaluations": len(samples),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    result = run(args.rounds)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'metric':<22}{'value':>12}")
    for key, value in result.items():
        print(f"{key:<22}{value:>12}")
    print("target: p95 < 1000 us")


if __name__ == "__main__":
    main()
