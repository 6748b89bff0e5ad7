"""Fixtures of the workflow tests: ``recorded``, the oracle's runs of the test module's ``TASKS`` (sites tasks),
solved once per module, each run's record then saved as a workflow by the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.evals.harness import EvalReport, run_eval
from kite_browser.evals.tasks import find_suite, load_suite
from tests.evals.conftest import make_config


@pytest.fixture(scope="module")
async def recorded(
    request: pytest.FixtureRequest,
    chromium_path: str | None,
    kite_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> EvalReport:
    """The oracle's runs of the module's ``TASKS`` (every one must pass its check)."""
    ids = list(request.module.TASKS)
    config = make_config(chromium_path, tmp_path_factory.mktemp("runs"), kite_home)
    report = await run_eval(load_suite(find_suite("sites")), config, concurrency=2, ids=ids)
    assert all(t.success for t in report.tasks), [(t.id, t.failures) for t in report.tasks]
    return report
