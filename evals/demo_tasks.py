"""A task of the bundled suites by its id, for ``kite demo --task ID``: the demo runs it where the task starts
(the shop, Kite Mail, Kite Events...), in its words or one of its phrasings, and checks what the task's
``check`` says of the app's server state and of the answer (never the model's claim)."""

from __future__ import annotations

import re

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.batch.checks import state_failures
from kite_browser.evals.tasks import Suite, Task, find_suite, load_suite

BUNDLED = ("sites", "mail", "events")
"""The suites over the bundled sites whose task ids ``kite demo --task`` knows."""


def find_task(ref: str) -> tuple[Suite, Task] | None:
    """The bundled suite and task with the id ``ref`` (None: ``ref`` is a task in words)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", ref.strip()):
        return None
    for name in BUNDLED:
        suite = load_suite(find_suite(name))
        task = next((t for t in suite.tasks if t.id == ref.strip()), None)
        if task is not None:
            return suite, task
    return None


def prepared(suite: Suite, task: Task, base_url: str, phrasing: str | None) -> Task:
    """The task with the sites' address filled in, said in ``phrasing`` when given."""
    if phrasing is not None:
        words = suite.phrasings.get(task.id)
        if words is None:
            raise UsageError(f"task {task.id} has no phrasings (it takes one action): leave out --phrasing")
        task = task.model_copy(update={"task": getattr(words, phrasing)})
    return task.resolve({"sites": base_url.rstrip("/"), "suite_dir": str(suite.folder())})


def misses(task: Task, state: JsonObject, answer: str) -> list[str]:
    """What the task's check finds undone in the app's state and the answer (its page checks need the
    browser: ``kite eval`` makes them); empty when it is all done."""
    check = task.check
    if check is None:
        return []
    out = state_failures(check.state, state, "the app's state") if check.state else []
    if check.answer is not None and not re.search(check.answer, answer or "", re.I):
        out.append(f"answer: {answer[:200]!r} does not match /{check.answer}/")
    return out
