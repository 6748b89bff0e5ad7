"""``kite demo --task ID``: a task of the bundled suites (here Kite Mail's and Kite Events') runs where it
starts, in its words or a phrasing, and is checked on the app's server state, never on the model's claim.
Driven end to end (the real sites, Chromium, the loop) with a test model that follows a plan by element names."""

from __future__ import annotations

from typing import Any

import pytest

from kite_browser.agent.cli import main
from kite_browser.evals.demo_tasks import find_task
from tests.agent.plan_model import install, prompt_text

STAR = ("click", "Add star", {})
DONE = ("done", None, {"success": True, "answer": "Starred."})


def run_demo(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["demo", *args, "--model", "kite/plan", "--no-vision"])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_mail_task_by_id_starts_in_the_mail_and_passes_on_its_state(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = install([("click", "Team offsite in Lisbon", {}), STAR, DONE])
    code, text = run_demo(capsys, "--task", "mail-star-offsite", "--phrasing", "chatty")
    assert code == 0, text[-2000:]
    assert "checked on the app: the task's check (mail-star-offsite) holds" in text
    first = prompt_text(model.received[0]["messages"])
    assert "Could you put a star on it for me?" in first  # the chatty words, not the task's own
    assert "Kite Mail" in first


def test_a_task_by_id_fails_when_the_state_is_wrong_whatever_the_claim(
    capsys: pytest.CaptureFixture[str],
) -> None:
    install([("click", "Lunch on Thursday?", {}), STAR, DONE])  # the wrong message starred
    code, text = run_demo(capsys, "--task", "mail-star-offsite")
    assert code == 1, text[-2000:]
    assert "checked on the app: not done" in text
    assert "state: mail.messages.m8.starred = false, expected true" in text, text[-2000:]


def test_an_events_task_by_id(capsys: pytest.CaptureFixture[str]) -> None:
    install(
        [
            ("click", "My bookings", {}),
            ("click", "Cancel booking for Hertha vs Union", {}),
            ("click", "Yes, cancel booking", {}),
            ("done", None, {"success": True, "answer": "Cancelled."}),
        ]
    )
    code, text = run_demo(capsys, "--task", "events-cancel-football")
    assert code == 0, text[-2000:]
    assert "events-cancel-football) holds" in text


def test_phrasing_needs_a_task_id_with_phrasings(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run_demo(capsys, "--task", "Star a mail", "--phrasing", "terse")
    assert code == 2 and "--phrasing needs --task ID" in text
    code, text = run_demo(capsys, "--task", "shop-price-screenshot", "--phrasing", "terse")
    assert code == 2 and "has no phrasings" in text


def test_find_task_knows_the_bundled_suites_ids_only() -> None:
    found: Any = find_task("events-book-fado")
    assert found is not None and found[0].name == "events" and found[1].id == "events-book-fado"
    assert find_task("shop-search") is not None
    assert find_task("Book two tickets") is None and find_task("no-such-task") is None
