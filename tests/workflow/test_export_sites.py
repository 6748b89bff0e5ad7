"""The Playwright export of 10 sites tasks runs green with plain Playwright (issue 32, "Done means").

The oracle solves the tasks once; each run is saved as a workflow, exported (agent/workflow/export.py) and
the script run with plain Python and Playwright — no Kite imported — against the test's own sites server
(another origin: ``--start-url``). A script checks each step's expected effect itself (``expect``), so it
exits 0 only when every step did what it did in the recorded run; its last line is the page's final URL,
held to the task's own check where the check names one.
"""

from __future__ import annotations

import asyncio
import re
import sys
from asyncio.subprocess import PIPE
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kite_browser.agent.workflow.export import playwright_script
from kite_browser.agent.workflow.save import workflow_from_run
from kite_browser.evals.harness import EvalReport
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.tasks import find_suite, load_suite

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

TASKS = [
    "shop-search",
    "shop-add-cheapest-blue-mug",
    "shop-filter-colour",
    "shop-sort-price",
    "shop-quantity",
    "shop-navigate-cart",
    "shop-back-forward",
    "account-login",
    "forms-profile",
    "dynamic-drag-drop",
]
SCRIPTS_AT_ONCE = 2


async def run_script(script: Path, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), *args, stdout=PIPE, stderr=PIPE, env=env
    )
    out, err = await asyncio.wait_for(proc.communicate(), 600)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_ten_exported_tasks_run_green_with_plain_playwright(
    recorded: EvalReport, sites: SitesServer, tmp_path: Path, chromium_path: str | None
) -> None:
    import os

    suite = {t.id: t for t in load_suite(find_suite("sites")).tasks}
    gate = asyncio.Semaphore(SCRIPTS_AT_ONCE)

    async def one(task_id: str) -> tuple[str, int, str, str]:
        task = next(t for t in recorded.tasks if t.id == task_id)
        assert task.run_dir
        wf = workflow_from_run(task.run_dir)
        source = playwright_script(wf)
        assert "kite_browser" not in source and "from playwright.sync_api import" in source
        script = tmp_path / f"{task_id.replace('-', '_')}.py"
        script.write_text(source)
        start = urlsplit(wf.start_url)
        args = ["--start-url", sites.url(start.path + (f"?{start.query}" if start.query else ""))]
        args += ["--chromium", chromium_path] if chromium_path else []
        env = {k: v for k, v in os.environ.items() if not k.startswith("KITE_SECRET_")}
        env |= {f"KITE_SECRET_{k.upper()}": v for k, v in suite[task_id].secrets.items()}
        env["PYTHONPATH"] = ""  # plain Python: Kite is not on the path the script is given
        async with gate:
            code, out, err = await run_script(script, args, env)
        return task_id, code, out, err

    results = await asyncio.gather(*(one(t) for t in TASKS))
    failed = {t: err[-1500:] for t, code, _, err in results if code != 0}
    assert not failed, failed
    for task_id, _, out, _ in results:
        check = suite[task_id].check
        final = out.strip().splitlines()[-1]
        assert final.startswith(sites.url("/")), (task_id, final)
        if check is not None and check.url is not None:
            assert re.search(check.url, final), (task_id, final, check.url)
