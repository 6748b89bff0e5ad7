"""What ``kite --help`` and ``kite COMMAND --help`` print: plain text (no reStructuredText markup from the
docstrings), and ``kite batch --help`` lists every field a task may have, taken from the task model."""

from __future__ import annotations

import argparse

import pytest

from kite_browser.agent.batch.tasks import Task
from kite_browser.agent.cli import COMMANDS, build_parser


def command_help(name: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name].format_help()


@pytest.mark.parametrize("name", COMMANDS)
def test_help_has_no_double_backticks(name: str) -> None:
    text = command_help(name)
    assert "``" not in text, text


def test_batch_help_lists_every_task_field() -> None:
    text = command_help("batch")
    fields = text.split("task fields", 1)[1]
    listed = [line.split()[0] for line in fields.splitlines()[1:] if line.startswith("  ") and line[2] != " "]
    assert listed == list(Task.model_fields), listed
    assert "output_schema" in listed
    for name, field in Task.model_fields.items():
        assert field.description, f"the task field {name} has no description"
