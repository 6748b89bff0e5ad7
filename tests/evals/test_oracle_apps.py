"""The oracle on the two WebArena-style apps (Kite Mail, Kite Events) through the whole pipeline: the harness,
Chromium, the loop, the tasks' state checks, on variant 3 (ids renamed, lists reordered, labels said otherwise,
lists in pages, a cookie banner) and in another phrasing: it works from what the page shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.evals.harness import run_eval
from kite_browser.evals.tasks import find_suite, load_suite
from tests.evals.conftest import make_config

CASES = {
    "mail": ["mail-reply-attach", "mail-new-folder", "mail-archive-statement"],
    "events": ["events-cancel-rebook", "events-cheap-june-festival"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
async def test_the_oracle_solves_the_apps_tasks_on_variant_3_in_other_words(
    name: str, chromium_path: str | None, kite_home: Path, tmp_path: Path
) -> None:
    suite = load_suite(find_suite(name))
    suite.sites_variant = 3
    config = make_config(chromium_path, tmp_path / "runs", kite_home)
    report = await run_eval(suite, config, concurrency=2, ids=CASES[name], phrasing="list")
    assert [t.id for t in report.tasks] == [f"{i}:list" for i in CASES[name]]
    failed = {t.id: t.failures or t.message for t in report.tasks if not t.success}
    assert not failed
    assert all(t.task.startswith("1. ") for t in report.tasks)  # the list's words reached the agent
