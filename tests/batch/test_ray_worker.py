"""The Ray backend's worker as a plain object (no Ray; agent/batch/ray_worker.py): run records written in a
scratch folder come back packed and unpack into the driver's runs folder with their paths rewritten; with a
shared runs folder they are written there and nothing is sent; a failure to reach the local model is a failed
result. One real Chromium per test; only the model is faked (``kite/steps``)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from kite_browser.agent.batch.ray_worker import BrowserWorker
from kite_browser.agent.batch.records import unpack
from kite_browser.agent.llm.local_install import LocalPaths
from tests.batch.fake_llama import install_fake_local

TASK = [{"id": "shot", "task": "look [steps=3]", "start_url": "{sites}/shop/"}]


async def test_records_come_back_packed_and_unpack_into_the_driver_folder(
    steps_model: Any, make_jobs: Any, browser_config: Any, tmp_path: Path
) -> None:
    (job,) = await make_jobs(TASK, **{"run.screenshots": True})
    worker = BrowserWorker(browser_config, concurrency=1)
    await worker.start()
    try:
        assert worker.scratch is not None
        result, archive = await worker.run(job)
        assert result.success and result.steps == 3, result
        assert archive is not None and result.run_dir is not None
        assert Path(result.run_dir).is_relative_to(worker.scratch)
        assert list(worker.scratch.iterdir()) == [], "the worker keeps nothing once the record is packed"
    finally:
        await worker.close()
    assert not worker.scratch.exists()

    with zipfile.ZipFile(io.BytesIO(archive)) as packed:  # images as they are, the JSON lines deflated
        kinds = {Path(i.filename).suffix: i.compress_type for i in packed.infolist() if not i.is_dir()}
    assert kinds[".png"] == zipfile.ZIP_STORED
    assert kinds[".json"] == kinds[".jsonl"] == zipfile.ZIP_DEFLATED

    driver_runs = tmp_path / "driver-runs"
    folder = unpack(archive, driver_runs, result.run_dir)
    assert folder.parent == driver_runs and folder.name == Path(result.run_dir).name
    assert [p.name for p in driver_runs.iterdir()] == [folder.name], "no half-unpacked folder is left"
    run = json.loads((folder / "run.json").read_text())
    assert run["result"]["run_dir"] == str(folder) and run["result"]["success"] is True
    steps = (folder / "steps.jsonl").read_text().splitlines()
    shots = sorted((folder / "screenshots").glob("step-*.png"))
    assert len(steps) >= 3 and len(shots) >= 3, (steps, shots)
    assert all(shot.stat().st_size > 1000 for shot in shots)

    again = unpack(archive, driver_runs, result.run_dir)  # the same record twice: never overwritten
    assert again != folder and again.name.startswith(folder.name) and (folder / "run.json").exists()


async def test_a_shared_runs_folder_is_written_in_place_and_nothing_is_sent(
    steps_model: Any, make_jobs: Any, browser_config: Any, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    (job,) = await make_jobs(TASK, **{"run.runs_dir": str(shared)})
    # the bundled local model, whose server cannot start on this node: a failed task, not a broken worker
    home = tmp_path / "home"
    install_fake_local(home)
    LocalPaths.for_data_dir(home).server_script.write_text("#!/bin/sh\nexit 3\n")
    (local,) = await make_jobs(
        [{"id": "local", "task": "x", "model": "local"}], **{"browser.data_dir": str(home)}
    )
    worker = BrowserWorker(browser_config, concurrency=1, shared_runs=True)
    await worker.start()
    try:
        assert worker.scratch is None
        result, archive = await worker.run(job)
        broken, nothing = await worker.run(local)
    finally:
        await worker.close()
    assert result.success and archive is None
    assert result.run_dir is not None and Path(result.run_dir).parent == shared
    assert (Path(result.run_dir) / "run.json").is_file()
    assert (broken.stop_reason, broken.success, nothing) == ("runner_error", False, None)
    assert "local model server exited while starting" in (broken.message or ""), broken.message
