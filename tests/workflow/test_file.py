"""The workflow file: save → load → save gives the same file; a file that cannot be used is one typed line
and exit 2 (agent/workflow/model.py, ``kite workflow``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.cli import main
from kite_browser.agent.workflow.errors import (
    WorkflowInvalidError,
    WorkflowMissingVariableError,
    WorkflowNotYamlError,
    WorkflowUnknownActionError,
)
from kite_browser.agent.workflow.model import (
    Expect,
    Step,
    Variable,
    Workflow,
    dump_workflow,
    parse_workflow,
    workflow_schema,
)

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
fingerprints = st.builds(
    Fingerprint,
    tag=st.sampled_from(["a", "button", "input", "select"]),
    role=st.none() | st.sampled_from(["button", "link", "textbox"]),
    name=text,
    attrs=st.dictionaries(st.sampled_from(["id", "name", "href", "data-testid"]), text, max_size=3),
    label=text,
    heading=text,
    neighbours=st.lists(text, max_size=3),
    frame=st.none() | st.sampled_from(["0", "0.1"]),
    path=text,
)


@st.composite
def workflows(draw: st.DrawFn) -> Workflow:
    variables = draw(st.dictionaries(names, st.builds(Variable, default=text), max_size=3))
    steps = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["type", "click", "pressKey", "navigate"]))
        if kind == "type":
            typed = "{" + draw(st.sampled_from(sorted(variables))) + "}" if variables else "plain"
            step = Step(
                action="type", args={"text": typed}, target=draw(fingerprints), expect=Expect(value=typed)
            )
        elif kind == "click":
            url = draw(st.none() | st.just("/shop/[?]q=*"))
            step = Step(
                action="click", target=draw(fingerprints), expect=Expect(url=url, new_tab=draw(st.booleans()))
            )
        elif kind == "pressKey":
            step = Step(action="pressKey", args={"key": "Enter"})
        else:
            step = Step(action="navigate", args={"url": "http://127.0.0.1:1/shop/cart"})
        steps.append(step.model_copy(update={"intent": draw(text)}))
    return Workflow(task=draw(text), start_url="http://127.0.0.1:1/shop/", variables=variables, steps=steps)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows())
def test_save_load_save_gives_the_same_file(wf: Workflow) -> None:
    first = dump_workflow(wf)
    loaded = parse_workflow(first)
    assert loaded == wf
    assert dump_workflow(loaded) == first


@pytest.mark.parametrize(
    ("source", "error", "words"),
    [
        ("steps: [unclosed", WorkflowNotYamlError, "is not YAML at line 1"),
        ("- just a list", WorkflowNotYamlError, "expected a mapping"),
        ("start_url: http://x/\nsteps: [{action: fly}]", WorkflowUnknownActionError, "unknown action 'fly'"),
        (
            "start_url: http://x/\nsteps: [{action: type, args: {text: '{who}'}, target: {tag: input}}]",
            WorkflowMissingVariableError,
            "uses who, not declared",
        ),
        (
            "start_url: http://x/\nsteps: [{action: type, args: {text: '<secret>pin</secret>'}, target: {tag: input}}]",
            WorkflowMissingVariableError,
            "uses pin",
        ),
        (
            "start_url: http://x/\nsteps: [{action: click, args: {bogus: 1}, target: {tag: a}}]",
            WorkflowInvalidError,
            "bogus",
        ),
        ("steps: []", WorkflowInvalidError, "start_url: Field required"),
    ],
)
def test_a_file_that_cannot_be_used_is_one_typed_line(
    source: str, error: type[KiteError], words: str
) -> None:
    with pytest.raises(error) as caught:
        parse_workflow(source, "wf.yaml")
    assert words in caught.value.message and "\n" not in caught.value.message


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("a: [", "not YAML"),
        ("start_url: http://x/\nsteps: [{action: teleport}]", "unknown action 'teleport'"),
        (
            "start_url: http://x/\nsteps: [{action: type, args: {text: '{q}'}, target: {tag: input}}]",
            "uses q",
        ),
    ],
)
def test_the_cli_says_it_in_one_line_and_exits_2(
    source: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text(source, encoding="utf-8")
    out = str(tmp_path / "out.py")
    for argv in (
        ["workflow", "check", str(path)],
        ["replay", str(path)],
        ["workflow", "export", str(path), "--playwright", out],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("kite: error: ") and kind in err, err


def test_check_lists_the_steps_and_schema_describes_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wf = Workflow(
        start_url="http://127.0.0.1:1/shop/",
        variables={"q": Variable(default="mug")},
        steps=[
            Step(
                action="type",
                args={"text": "{q}"},
                target=Fingerprint(tag="input", name="Search"),
                intent="type q",
            )
        ],
    )
    path = tmp_path / "wf.yaml"
    path.write_text(dump_workflow(wf), encoding="utf-8")
    assert main(["workflow", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 steps from http://127.0.0.1:1/shop/; variables: q=mug" in out and "1. type q" in out
    schema = workflow_schema()
    assert schema["required"] == ["start_url"] and "Fingerprint" in schema["$defs"]


def test_an_unknown_action_is_answered_with_the_actions_a_step_may_name() -> None:
    """``kite tools`` lists module tools, not actions: the error names the actions themselves."""
    from kite_browser.agent.workflow.model import parse_workflow

    with pytest.raises(KiteError) as caught:
        parse_workflow("start_url: http://x/\nsteps: [{action: fly}]")
    assert "kite tools" not in caught.value.message
    assert "click" in caught.value.message and "pressKey" in caught.value.message
