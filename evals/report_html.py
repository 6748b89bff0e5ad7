"""The eval report as one self-contained HTML page: a table of the tasks (status, steps, tokens, cost, time,
stop reason and why a task failed), a "failures only" filter, and every task's steps with the screenshot taken
*after* each step's actions (the next step's, or the run's ``final.png`` after the last step), the step's
tokens, its thought, actions and results.

No script, no external resource, no emoji: the status marks are text styled by CSS (PASS / FAIL), so the page
reads the same in any browser and font; the filter is a CSS checkbox.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import TypedDict

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.batch.results import TaskResult
from kite_browser.evals.harness import EvalReport
from kite_browser.evals.report import claimed, fmt_cost, headline

SCREENSHOT_LIMIT = 40
"""Screenshots inlined per task (those of the last steps are kept)."""
WHY_LIMIT = 200
"""Characters of the "why" column."""


def _esc(value: object) -> str:
    return html.escape(str(value))


def mark(t: TaskResult) -> str:
    """The status mark: text and a CSS class, never an emoji; a pass or failure with a caveat (the model said
    the opposite, declined actions) says it and is styled apart."""
    word, cls = ("PASS", "pass") if t.success else ("FAIL", "fail")
    if t.caveat:
        return f'<span class="mark {cls} caveat" title="{_esc(t.caveat)}">{word}?</span> <small>{_esc(t.caveat)}</small>'
    return f'<span class="mark {cls}">{word}</span>'


def why(t: TaskResult) -> str:
    """Why the task ended as it did: the stop reason and, for a failure, the check's lines or the message."""
    text = "; ".join(t.failures) or (t.message if not t.success else "")
    return (t.stop_reason + (f": {claimed(t)}{text}" if text or claimed(t) else ""))[:WHY_LIMIT]


class _Error(TypedDict, total=False):
    error: str
    message: str


class _Result(TypedDict, total=False):
    ok: bool
    message: str
    error: _Error


class _Decision(TypedDict, total=False):
    level: str


class _Item(TypedDict, total=False):
    action: JsonObject
    result: _Result
    decision: _Decision


class _Usage(TypedDict, total=False):
    prompt_tokens: int
    completion_tokens: int


class _Step(TypedDict, total=False):
    """One line of a run's ``steps.jsonl`` (``agent.step_record.StepRecord`` as JSON): what the report shows."""

    step: int
    url: str
    thought: str
    usage: _Usage
    prompt_tokens_est: int
    actions: list[_Item]
    parse_error: _Error
    error: JsonValue


def _steps(run_dir: str | None) -> list[_Step]:
    if not run_dir or not (Path(run_dir) / "steps.jsonl").is_file():
        return []
    out: list[_Step] = []
    for line in (Path(run_dir) / "steps.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def _img(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return (
        f'<figure><img loading="lazy" alt="{_esc(path.name)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


def after_shot(shots: Path, step: int, last: bool) -> tuple[Path | None, str]:
    """The screenshot showing the page after ``step``'s actions, and its caption; else the step's own (taken
    before its actions) when no later one exists (records from before ``final.png``), else None."""
    later = shots / f"step-{step + 1:03d}.png"
    if later.is_file():
        return later, f"after step {step}"
    if last and (shots / "final.png").is_file():
        return shots / "final.png", f"after step {step} (the end of the run)"
    before = shots / f"step-{step:03d}.png"
    return (before, f"before step {step} (no later screenshot)") if before.is_file() else (None, "")


def _action_html(item: _Item) -> str:
    action = item.get("action") or {}
    result = item.get("result") or {}
    decision = item.get("decision") or {}
    ok = result.get("ok")
    err = result.get("error") or {}
    res = "ok" if ok else f"error {err.get('error', '')}: {err.get('message', '')}"
    if ok and result.get("message"):
        res += f" — {result['message']}"
    level = decision.get("level")
    badge = f' <span class="lvl lvl-{_esc(level)}">{_esc(level)}</span>' if level and level != "auto" else ""
    return (
        f'<li class="{"ok" if ok else "err"}"><code>{_esc(json.dumps(action, ensure_ascii=False))}</code>'
        f"{badge}<br><span class=res>{_esc(res[:600])}</span></li>"
    )


def _tokens(s: _Step) -> str:
    usage = s.get("usage") or {}
    if usage:
        return f"{usage.get('prompt_tokens', 0)} in / {usage.get('completion_tokens', 0)} out tokens"
    return f"~{s['prompt_tokens_est']} prompt tokens (estimated)" if s.get("prompt_tokens_est") else ""


def _step_html(s: _Step, shots: Path | None, last: bool, keep: set[str]) -> str:
    n = s.get("step", 0)
    head = f"Step {n}" + (f" — {_esc(s['url'])}" if s.get("url") else "")
    tokens = _tokens(s)
    body = "".join(_action_html(a) for a in s.get("actions") or [])
    if s.get("parse_error"):
        body += f"<li class=err>parse error: {_esc(s['parse_error'].get('message', ''))}</li>"
    if s.get("error"):
        body += f"<li class=err>{_esc(json.dumps(s['error'], ensure_ascii=False)[:600])}</li>"
    thought = s.get("thought")
    th = f"<p class=thought>{_esc(str(thought)[:600])}</p>" if thought else ""
    img = ""
    if shots is not None and isinstance(n, int):
        shot, caption = after_shot(shots, n, last)
        img = _img(shot, caption) if shot is not None and shot.name in keep else ""
    meta = f" <span class=meta>{_esc(tokens)}</span>" if tokens else ""
    return f"<div class=step><h4>{head}{meta}</h4>{th}<ul>{body}</ul>{img}</div>"


def task_html(t: TaskResult) -> str:
    steps = _steps(t.run_dir)
    shots = Path(t.run_dir) / "screenshots" if t.run_dir else None
    shots = shots if shots is not None and shots.is_dir() else None
    names = sorted(p.name for p in shots.glob("*.png")) if shots else []
    keep = set(names[-SCREENSHOT_LIMIT:]) | ({"final.png"} if "final.png" in names else set())
    last = max((s.get("step", 0) for s in steps), default=0)
    parts = [_step_html(s, shots, s.get("step") == last, keep) for s in steps]
    status = "task-pass" if t.success else "task-fail"
    data = json.dumps(t.data, ensure_ascii=False) if t.data is not None else ""
    return (
        f'<details class="task {status}" id="{_esc(t.id)}-{t.repeat}"><summary>'
        f"{mark(t)} <b>{_esc(t.id)}</b>{f' r{t.repeat}' if t.repeat else ''} — "
        f"{t.steps} steps, score {t.score:g}, {_esc(t.stop_reason)}, {t.wall_s:.1f}s</summary>"
        f"<p><b>Task:</b> {_esc(t.task)}</p>"
        f"<p><b>Answer:</b> {_esc(t.answer)}</p>"
        + (f"<p><b>Data:</b> <code>{_esc(data[:2000])}</code></p>" if data else "")
        + (f"<p class=why><b>Claimed vs done:</b> {_esc(claimed(t))}</p>" if claimed(t) else "")
        + (
            f"<p class=why><b>Why not:</b> {_esc('; '.join(t.failures) or t.message)}</p>"
            if not t.success
            else ""
        )
        + f"<p class=meta>tokens {t.tokens_in}/{t.tokens_out} · cost {fmt_cost(t.cost_usd)} · model "
        f"{t.model_latency_s:.2f}s · Kite {t.overhead_s:.2f}s · final URL {_esc(t.final_url or '')}</p>"
        + "".join(parts)
        + "</details>"
    )


_CSS = """body{font:14px system-ui,sans-serif;margin:2em;max-width:1200px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top}
.task{border:1px solid #ddd;margin:6px 0;padding:4px 8px}.task.task-fail{border-color:#d66}
.step{border-top:1px dashed #ccc;margin-top:6px}.step img{max-width:min(100%,720px);border:1px solid #999}
figure{margin:4px 0}figcaption{font-size:12px;color:#555}
li.err{color:#a00}.res{color:#555}.lvl{background:#fd6;padding:0 4px;border-radius:3px}
.why{color:#a00}td.why{max-width:420px;color:inherit}tr.task-fail td.why{color:#a00}.thought{font-style:italic;color:#444}code{font-size:12px}
.meta{color:#666;font-weight:normal;font-size:12px}
.mark{display:inline-block;min-width:3.2em;text-align:center;font:bold 11px monospace;border-radius:3px;padding:1px 3px;color:#fff}
.mark.pass{background:#2f855a}.mark.fail{background:#c53030}.mark.caveat{background:#b7791f}
#only-failed:checked~#report .task-pass{display:none}
label.filter{display:inline-block;margin:6px 0;cursor:pointer}"""


def html_report(r: EvalReport) -> str:
    rows = "".join(
        f"<tr class={'task-pass' if t.success else 'task-fail'}>"
        f"<td><a href='#{_esc(t.id)}-{t.repeat}'>{_esc(t.id)}</a></td>"
        f"<td>{mark(t)}</td><td>{t.score:g}</td><td>{t.steps}</td>"
        f"<td>{t.tokens_in}/{t.tokens_out}</td><td>{fmt_cost(t.cost_usd)}</td><td>{t.wall_s:.1f}</td>"
        f"<td class=why>{_esc(why(t))}</td></tr>"
        for t in r.tasks
    )
    failed = sum(not t.success for t in r.tasks)
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>Kite eval: {_esc(r.suite)}</title><style>{_CSS}</style></head><body>"
        f"<h1>Kite eval: {_esc(r.suite)}</h1><p>{_esc(headline(r))}</p>"
        f'<input type="checkbox" id="only-failed"><label class="filter" for="only-failed">'
        f"show only the {failed} failed task(s)</label>"
        "<div id=report><table><tr><th>task</th><th>status</th><th>score</th><th>steps</th><th>tokens</th>"
        f"<th>cost</th><th>wall s</th><th>why (stop reason: failure)</th></tr>{rows}</table><h2>Tasks</h2>"
        + "".join(task_html(t) for t in r.tasks)
        + "</div></body></html>\n"
    )


def write_html(report: EvalReport, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(html_report(report), encoding="utf-8")
    return p
