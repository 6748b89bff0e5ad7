"""Eval reports: JSON (the plain file to keep in git and compare) and Markdown; ``compare`` shows what changed
between two JSON reports. The HTML page is ``evals/report_html.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

from kite_browser.agent.batch.results import TaskResult
from kite_browser.evals.harness import EvalReport, summarize, wilson
from kite_browser.evals.tasks import PHRASINGS, base_id


def fmt_cost(cost: float | None) -> str:
    return "—" if cost is None else f"${cost:.4f}"


def write_json(report: EvalReport, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(
        json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return p


def load_json(path: str | Path) -> EvalReport:
    return EvalReport.model_validate_json(Path(path).read_text(encoding="utf-8"))


def _interrupted(r: EvalReport) -> str:
    return f" [interrupted: {r.n} of {r.planned} tasks finished]" if r.interrupted else ""


def _unverified(r: EvalReport) -> str:
    return f" [{r.unverified} claimed success unverified: the page contradicted it]" if r.unverified else ""


def policies_line(r: EvalReport) -> list[str]:
    """The step policies' line: in how many steps and tasks each acted (one that never did changed nothing)."""
    if not r.policies_acted:
        return []
    each = ", ".join(f"{name} {steps}/{tasks}" for name, (steps, tasks) in r.policies_acted.items())
    return [f"- step policies, acted in steps/tasks: {each}"]


def headline(r: EvalReport) -> str:
    lo, hi = r.ci95
    return (
        f"{r.suite} · {r.model}: {r.successes}/{r.n} = {r.success_rate:.1%}{_interrupted(r)}{_unverified(r)} "
        f"(95% CI {lo:.1%}–{hi:.1%}), {r.steps_mean} steps/task, {r.tokens_in}+{r.tokens_out} tokens, "
        f"cost {fmt_cost(r.cost)}, wall {r.wall_s:.1f}s, model {r.model_latency_s:.1f}s vs Kite "
        f"{r.overhead_s:.1f}s ({r.overhead_per_step_ms:.0f} ms/step)"
    )


def markdown(r: EvalReport) -> str:
    lo, hi = r.ci95
    lines = [
        f"# Eval: {r.suite}",
        "",
        f"- model: `{r.model}`",
        f"- started: {r.started_at}, repeat {r.repeat}, concurrency {r.concurrency}",
        f"- success: **{r.successes}/{r.n} = {r.success_rate:.1%}** (95% Wilson interval {lo:.1%}–{hi:.1%})"
        + _interrupted(r)
        + _unverified(r),
        f"- mean score {r.mean_score}, {r.steps_mean} steps per task, tokens {r.tokens_in} in / {r.tokens_out} out, "
        f"cost {fmt_cost(r.cost)}",
        f"- time: {r.wall_s:.1f}s elapsed; model latency {r.model_latency_s:.1f}s vs Kite's own overhead "
        f"{r.overhead_s:.1f}s ({r.overhead_per_step_ms:.0f} ms per step)",
        *policies_line(r),
        "",
        "| task | ok | score | steps | tokens in/out | cost | wall s | model s | stop | why |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in r.tasks:
        why = "; ".join(t.failures)[:160] if not t.success else ""
        if not t.success and not why:
            why = t.message[:160]
        why = claimed(t) + why
        name = t.id if r.repeat == 1 else f"{t.id} (r{t.repeat})"
        lines.append(
            f"| {name} | {mark(t)} | {t.score:g} | {t.steps} | {t.tokens_in}/{t.tokens_out} | "
            f"{fmt_cost(t.cost_usd)} | {t.wall_s:.1f} | {t.model_latency_s:.1f} | {t.stop_reason} | "
            f"{why.replace('|', '/')} |"
        )
    table = phrasing_markdown(r)
    return "\n".join(lines) + "\n" + (f"\n{table}" if table else "")


class Cell(TypedDict):
    """One phrasing of a task: successes, runs and mean steps."""

    ok: int
    n: int
    steps: float


class PhrasingRow(TypedDict):
    task: str
    phrasings: dict[str, Cell]
    worst: str | None
    worst_ok: bool


class Side(TypedDict):
    suite: str
    model: str
    success_rate: float
    ci95: list[float]
    n: int


class Changed(TypedDict):
    id: str
    success_a: float
    success_b: float
    steps_a: float
    steps_b: float


class Comparison(TypedDict):
    """What ``compare`` finds between two reports (printed as JSON by ``kite eval compare``)."""

    a: Side
    b: Side
    shared: int
    success_rate_delta: float
    intervals_overlap: bool
    steps_mean_delta: float
    tokens_delta: int
    cost_delta: float | None
    wall_s_delta: float
    changed: list[Changed]
    only_in_a: list[str]
    only_in_b: list[str]


def phrasing_rows(r: EvalReport) -> list[PhrasingRow]:
    """Per task said in several phrasings (ids ``ID:terse`` …): each phrasing's successes/runs and mean steps,
    and the worst phrasing (fewest successes, then most steps; None when every phrasing did alike)."""
    groups: dict[str, dict[str, list[TaskResult]]] = {}
    for t in r.tasks:
        base, kind = base_id(t.id)
        if kind is not None:
            groups.setdefault(base, {}).setdefault(kind, []).append(t)
    rows: list[PhrasingRow] = []
    for base, kinds in groups.items():
        cells: dict[str, Cell] = {
            k: {
                "ok": sum(x.success for x in runs),
                "n": len(runs),
                "steps": sum(x.steps for x in runs) / len(runs),
            }
            for k, runs in sorted(kinds.items(), key=lambda kv: PHRASINGS.index(kv[0]))
        }

        ranks = {k: (c["ok"] / c["n"], -c["steps"]) for k, c in cells.items()}
        worst = min(ranks, key=lambda k: ranks[k])
        rows.append(
            {
                "task": base,
                "phrasings": cells,
                "worst": worst if len(set(ranks.values())) > 1 else None,
                "worst_ok": cells[worst]["ok"] == cells[worst]["n"],
            }
        )
    return rows


def phrasing_summary(r: EvalReport) -> str:
    """One line: tasks that pass in their worst phrasing, and each phrasing's count; empty without phrasings."""
    rows = phrasing_rows(r)
    if not rows:
        return ""
    each = ", ".join(
        f"{k} {sum(row['phrasings'][k]['ok'] == row['phrasings'][k]['n'] for row in rows if k in row['phrasings'])}"
        f"/{sum(k in row['phrasings'] for row in rows)}"
        for k in PHRASINGS
    )
    return f"worst of the phrasings: {sum(row['worst_ok'] for row in rows)}/{len(rows)} tasks pass ({each})"


def phrasing_markdown(r: EvalReport) -> str:
    """The worst-phrasing table (Markdown), empty when no task ran in several phrasings."""
    rows = phrasing_rows(r)
    if not rows:
        return ""
    lines = [
        "## Phrasings",
        "",
        f"- {phrasing_summary(r)}",
        "",
        "| task | " + " | ".join(PHRASINGS) + " | worst |",
        "|---|" + "---|" * (len(PHRASINGS) + 1),
    ]
    for row in rows:
        cells = [
            f"{c['ok']}/{c['n']} ({c['steps']:.1f} steps)" if (c := row["phrasings"].get(k)) else "—"
            for k in PHRASINGS
        ]
        lines.append(f"| {row['task']} | " + " | ".join(cells) + f" | {row['worst'] or 'all alike'} |")
    return "\n".join(lines) + "\n"


def write_markdown(report: EvalReport, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(markdown(report), encoding="utf-8")
    return p


def _by_id(r: EvalReport) -> dict[str, list[TaskResult]]:
    out: dict[str, list[TaskResult]] = {}
    for t in r.tasks:
        out.setdefault(t.id, []).append(t)
    return out


def _subset(r: EvalReport, ids: set[str]) -> EvalReport:
    return summarize(r.model_copy(update={"tasks": [t for t in r.tasks if t.id in ids]}))


def _side(r: EvalReport) -> Side:
    return {
        "suite": r.suite,
        "model": r.model,
        "success_rate": r.success_rate,
        "ci95": list(r.ci95),
        "n": r.n,
    }


def compare(a: EvalReport, b: EvalReport) -> Comparison:
    """What changed from A to B, over the tasks both reports ran (the others are listed, not compared)."""
    ta, tb = _by_id(a), _by_id(b)
    shared = [tid for tid in ta if tid in tb]
    only_a, only_b = sorted(set(ta) - set(tb)), sorted(set(tb) - set(ta))
    changed: list[Changed] = []
    for tid in sorted(shared):
        ra = sum(x.success for x in ta[tid]) / len(ta[tid])
        rb = sum(x.success for x in tb[tid]) / len(tb[tid])
        sa = sum(x.steps for x in ta[tid]) / len(ta[tid])
        sb = sum(x.steps for x in tb[tid]) / len(tb[tid])
        if ra != rb or sa != sb:
            changed.append(
                {
                    "id": tid,
                    "success_a": round(ra, 3),
                    "success_b": round(rb, 3),
                    "steps_a": round(sa, 2),
                    "steps_b": round(sb, 2),
                }
            )
    sa_, sb_ = _subset(a, set(shared)), _subset(b, set(shared))
    return {
        "a": _side(sa_),
        "b": _side(sb_),
        "shared": len(shared),
        "success_rate_delta": round(sb_.success_rate - sa_.success_rate, 4),
        "intervals_overlap": not (sa_.ci95[1] < sb_.ci95[0] or sb_.ci95[1] < sa_.ci95[0]),
        "steps_mean_delta": round(sb_.steps_mean - sa_.steps_mean, 2),
        "tokens_delta": (sb_.tokens_in + sb_.tokens_out) - (sa_.tokens_in + sa_.tokens_out),
        "cost_delta": None if sa_.cost is None or sb_.cost is None else round(sb_.cost - sa_.cost, 6),
        "wall_s_delta": round(sb_.task_wall_s - sa_.task_wall_s, 3),
        "changed": changed,
        "only_in_a": only_a,
        "only_in_b": only_b,
    }


def compare_text(diff: Comparison) -> str:
    a, b = diff["a"], diff["b"]
    lines = [
        f"compared on the {diff['shared']} task(s) both reports ran",
        f"A: {a['suite']} · {a['model']}: {a['success_rate']:.1%} (95% CI {a['ci95'][0]:.1%}–{a['ci95'][1]:.1%}, n={a['n']})",
        f"B: {b['suite']} · {b['model']}: {b['success_rate']:.1%} (95% CI {b['ci95'][0]:.1%}–{b['ci95'][1]:.1%}, n={b['n']})",
        f"success rate {diff['success_rate_delta']:+.1%}"
        + (
            " (intervals overlap: not a significant difference)"
            if diff["intervals_overlap"]
            else " (intervals do not overlap)"
        ),
        f"steps/task {diff['steps_mean_delta']:+}, tokens {diff['tokens_delta']:+}, wall {diff['wall_s_delta']:+.1f}s"
        + (f", cost {diff['cost_delta']:+.4f}" if diff["cost_delta"] is not None else ""),
    ]
    if diff["changed"]:
        lines.append("changed tasks:")
        for c in diff["changed"]:
            mark = (
                "fixed"
                if c["success_b"] > c["success_a"]
                else "broke"
                if c["success_b"] < c["success_a"]
                else "steps"
            )
            lines.append(
                f"  {mark:6} {c['id']}: success {c['success_a']:.0%} → {c['success_b']:.0%}, "
                f"steps {c['steps_a']} → {c['steps_b']}"
            )
    else:
        lines.append("no task changed outcome or step count")
    for ids, label in (
        (diff["only_in_a"], "only in A, not compared"),
        (diff["only_in_b"], "only in B, not compared"),
    ):
        if ids:
            lines.append(f"{label}: {', '.join(ids)}")
    return "\n".join(lines)


__all__ = [
    "claimed",
    "compare",
    "compare_text",
    "fmt_cost",
    "headline",
    "load_json",
    "mark",
    "markdown",
    "wilson",
    "write_json",
    "write_markdown",
]


def mark(t: TaskResult) -> str:
    """The ok column: ✅ / ❌, with the result's caveat when it has one (never a plain ✅ for a pass the model
    called a failure, or one with declined actions)."""
    sign = "✅" if t.success else "❌"
    return f"{sign} ⚠ {t.caveat}" if t.caveat else sign


def claimed(t: TaskResult) -> str:
    """'claimed success; declined: …; unverified: …; ' when the model's word and the run disagree (else '')."""
    if not t.declined and t.verified is not False and (t.success or not t.claimed_success):
        return ""
    said = "claimed success" if t.claimed_success else "claimed failure"
    refused = ", ".join(f"{d.action} ({d.outcome})" for d in t.declined)
    unverified = f"unverified: {t.verification}; " if t.verified is False else ""
    return f"{said}; " + (f"not done: {refused}; " if refused else "") + unverified
