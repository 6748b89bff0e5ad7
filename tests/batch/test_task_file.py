"""Task files: validation errors name the task and field (one line, exit 2); a task's own settings override
the command's."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.cli import main
from tests.batch.conftest import write_tasks
from tests.batch.fakes import register_steps


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["batch", *argv, "--model", "kite/steps"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("tasks", "expected"),
    [
        (
            [{"id": "a", "task": "x"}, {"id": "b", "task": "y", "max_steps": 0}],
            "task #2 (b), field 'max_steps'",
        ),
        ([{"id": "a", "task": "x"}, {"task": "no id"}], "task #2, field 'id'"),
        ([{"id": "a", "task": "x", "colour": "red"}], "task #1 (a), field 'colour'"),
        ([{"id": "a", "task": "x"}, {"id": "a", "task": "y"}], "task #2 (a): id already used by task #1"),
        ([{"id": "a", "task": "x", "check": {"url": "("}}], "task #1 (a), field 'check'"),
    ],
)
def test_invalid_yaml_tasks_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tasks: list[dict], expected: str
) -> None:
    path = write_tasks(tmp_path / "tasks.yaml", tasks)
    code, err = run_cli(capsys, str(path))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("kite: error: ")
    assert str(path) in err and expected in err, err


def test_invalid_jsonl_line_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"id": "a", "task": "x"}\n{"id": "b", "task": \n')
    code, err = run_cli(capsys, str(path))
    assert code == 2 and f"{path} line 2: invalid JSON" in err


def test_bad_approve_in_a_task_names_the_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_tasks(
        tmp_path / "t.jsonl", [{"id": "ok", "task": "x"}, {"id": "z", "task": "y", "approve": ["nope"]}]
    )
    code, err = run_cli(capsys, str(path))
    assert code == 2 and "task #2 (z)" in err and "'nope'" in err


def test_missing_file_and_miniwob_suite_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_cli(capsys, str(tmp_path / "nope.yaml"))
    assert code == 2 and "cannot read" in err
    suite = tmp_path / "mw.yaml"
    suite.write_text("name: mw\nkind: miniwob\nminiwob: {tasks: [click-button]}\n")
    code, err = run_cli(capsys, str(suite))
    assert code == 2 and "kite eval" in err


async def test_task_settings_override_the_command(make_jobs) -> None:
    jobs = await make_jobs(
        [
            {"id": "plain", "task": "inherit everything"},
            {
                "id": "own",
                "task": "own settings",
                "model": "kite/other",
                "max_steps": 3,
                "approve": [],
                "allowed_domains": ["example.com"],
                "secrets": {"pin": "9876", "token": "task-token"},
            },
        ],
        cli_secrets=("token=cli-token", "user=ada"),
        **{"safety.approve": ["executeJS"], "agent.max_steps": 7, "safety.allowed_domains": ["127.0.0.1"]},
    )
    plain, own = jobs
    assert (plain.config.llm.model, plain.config.agent.max_steps) == ("kite/steps", 7)
    assert plain.approve == ["executeJS"] and plain.config.safety.allowed_domains == ["127.0.0.1"]
    assert sorted(plain.secrets.names()) == ["token", "user"]
    assert (own.config.llm.model, own.config.agent.max_steps) == ("kite/other", 3)
    assert own.approve == [] and own.config.safety.allowed_domains == ["example.com"]
    assert sorted(own.secrets.names()) == ["pin", "token", "user"]
    assert own.secrets.redact_obj("task-token cli-token") == "<secret>token</secret> cli-token"


async def test_sites_placeholder_and_defaults(make_jobs, sites) -> None:
    jobs = await make_jobs([{"id": "s", "task": "go", "start_url": "{sites}/shop/"}])
    assert jobs[0].task.start_url == sites.url("/shop/")


async def test_a_bad_task_secret_is_reported_with_the_task(make_jobs) -> None:
    with pytest.raises(UsageError, match=r"task #1 \(s\)"):
        await make_jobs([{"id": "s", "task": "go", "secrets": {"9bad": "x"}}])


def test_the_oracle_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_steps()  # the batch's own model must be usable (alone, this test found kite/steps unregistered)
    path = write_tasks(
        tmp_path / "t.yaml", [{"id": "a", "task": "x"}, {"id": "b", "task": "y", "model": "kite/oracle"}]
    )
    assert main(["batch", str(path), "--model", "kite/steps"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "kite/oracle" in err[0] and "kite eval" in err[0]


def test_a_tasks_output_schema_reaches_the_agent_only_once_read() -> None:
    """``Agent(output_type=...)`` takes a schema (a dict), never the path it was read from."""
    from kite_browser.agent.batch.tasks import Task

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert Task(id="t", task="x", output_schema=schema).resolved_schema == schema
    assert Task(id="t", task="x").resolved_schema is None
    with pytest.raises(UsageError, match="was not read"):
        _ = Task(id="t", task="x", output_schema="schemas/mugs.json").resolved_schema
