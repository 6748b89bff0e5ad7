"""The oracle on a page variant of the sites (evals/sites/variants.py, variant 3: ids renamed, lists reordered,
"Add to basket" for "Add to cart", a product on page 2, a cookie banner over every page): it works from the
page as the model sees it, so it still solves the tasks; a task file picks the variant (``sites_variant``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.evals.harness import run_eval
from kite_browser.evals.tasks import find_suite, load_suite
from tests.evals.conftest import make_config

TASKS = ["shop-add-cheapest-blue-mug", "shop-back-forward", "test-cookie-overlay"]


@pytest.mark.slow
async def test_the_oracle_solves_tasks_on_variant_3(
    chromium_path: str | None, kite_home: Path, tmp_path: Path
) -> None:
    suite = load_suite(find_suite("sites"))
    suite.sites_variant = 3
    config = make_config(chromium_path, tmp_path / "runs", kite_home)
    report = await run_eval(suite, config, concurrency=2, ids=TASKS)
    failed = {t.id: t.failures or t.message for t in report.tasks if not t.success}
    assert not failed
    steps = {t.id: t.steps for t in report.tasks}
    # one more step each than the plan: the banner closed first; and the next page for the backpack
    assert steps["shop-add-cheapest-blue-mug"] >= 4 and steps["shop-back-forward"] >= 5, steps
