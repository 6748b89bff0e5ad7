"""Constrained replies through a real OpenAI-compatible HTTP server on 127.0.0.1 and the real litellm path.

The fake model reads the ``response_format`` it is sent, checks it against the page it is shown (every index
in the schema is one of this step's elements, each action only where it can act: ``type`` on the text fields,
``select`` on the dropdown, ``uploadFile`` on the file input; no action the page gives nothing to act on), and
answers with a JSON object picked from the schema, as a server decoding under it would."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from kite_browser.agent import Agent
from kite_browser.agent.browser.actions import ACTION_NAMES
from kite_browser.safety.secrets import SecretStore
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, Respond, Status, saying_no

_LINE = re.compile(r"^\s*\*?\[(\d+)\]\s+(\S+)\s*(.*)$")


def page_elements(body: dict[str, Any]) -> dict[int, str]:
    """index -> the element's line as the model was shown it (the page part of the last user message)."""
    text = body["messages"][-1]["content"]
    page = text.split("<untrusted_page>", 1)[1].split("</untrusted_page>", 1)[0]
    found = {}
    for line in page.splitlines():
        if m := _LINE.match(line):
            found[int(m.group(1))] = f"{m.group(2)} {m.group(3)}"
    return found


def variants(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema", fmt
    schema = fmt["json_schema"]["schema"]
    # the thought first, or the model's own notes around it (the ``own_plan`` policy, when on), the actions last
    fields = list(schema["properties"])
    assert fields in (
        ["thought", "actions"],
        ["plan", "thought", "actions"],
        ["done_so_far", "thought", "next", "actions"],
    ), fields
    assert schema["required"] == fields
    items = schema["properties"]["actions"]["items"]["anyOf"]
    return {v["properties"]["action"]["const"]: v for v in items}


_TARGET = re.compile(r"^(\S+?)(?:: (.*))? \[(\d+)\]$")


def target_enum(variant: dict[str, Any], elements: dict[int, str]) -> set[int]:
    """The indexes the variant's ``target`` enum names, each checked against the page: the role, the name,
    then the index of an element of this page with that role and name."""
    out = set()
    for label in variant["properties"]["target"]["enum"]:
        m = _TARGET.match(label)
        assert m, label
        role, name, index = m.group(1), m.group(2) or "", int(m.group(3))
        assert index in elements and elements[index].startswith(role), (label, elements.get(index))
        assert f'"{name}"' in elements[index] or name in elements[index], (label, elements[index])
        out.add(index)
    return out


def target_of(variant: dict[str, Any], index: int) -> str:
    """The enum value naming ``index`` (what a server decoding under the schema would write)."""
    [label] = [v for v in variant["properties"]["target"]["enum"] if v.endswith(f"[{index}]")]
    return str(label)


def by_name(elements: dict[int, str], word: str) -> int:
    [index] = [i for i, line in elements.items() if word in line]
    return index


class SchemaChecker:
    """The fake model: checks each step's schema against that step's page, then acts from the schema."""

    def __init__(self) -> None:
        self.seen: list[tuple[dict[int, str], dict[str, dict[str, Any]]]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        elements, actions = page_elements(body), variants(body)
        self.seen.append((elements, actions))
        assert set(actions) <= set(ACTION_NAMES), actions.keys()
        for name, variant in actions.items():
            assert "index" not in variant["properties"] or name in ("switchTab",), name
            if "target" in variant["properties"]:
                assert target_enum(variant, elements) <= set(elements), (name, elements)
        if len(self.seen) == 1:  # the order form: every kind of field
            name, notes = by_name(elements, '"Name"'), by_name(elements, '"Notes"')
            colour, photo = by_name(elements, '"Colour"'), by_name(elements, '"Photo"')
            assert target_enum(actions["type"], elements) == {name, notes}, elements
            assert target_enum(actions["select"], elements) == {colour}, elements
            assert target_enum(actions["uploadFile"], elements) == {photo}, elements
            assert target_enum(actions["click"], elements) == set(elements)
            assert (
                "target" in actions["click"]["required"] and "selector" not in actions["click"]["properties"]
            )
            # the target is written before the action's other fields
            assert list(actions["type"]["properties"])[:2] == ["action", "target"]
            assert "switchTab" not in actions  # one tab: nothing to switch to
            # a click's double and mouse_button only when the task asks for them ("Fill in the name Ada")
            assert not {"double", "mouse_button"} & set(actions["click"]["properties"])
            key = actions["pressKey"]["properties"]["key"]["anyOf"][0]["enum"]
            assert "Enter" in key and "Escape" in key
            assert actions["scroll"]["properties"]["direction"]["enum"] == ["up", "down", "left", "right"]
            reply = {
                "thought": "I fill the name, then open the next page.",
                "actions": [
                    {"action": "type", "target": target_of(actions["type"], name), "text": "Ada"},
                    {
                        "action": "click",
                        "target": target_of(actions["click"], by_name(elements, '"Next page"')),
                    },
                ],
            }
        else:  # the next page: no field, so no type, select or upload; only its own indexes
            assert not {"type", "select", "uploadFile"} & set(actions), actions.keys()
            first_page = set(self.seen[0][0])
            assert target_enum(actions["click"], elements) == set(elements)
            assert set(elements) - first_page, "the next page's elements are new ones"
            reply = {
                "thought": "The order page is behind me.",
                "actions": [{"action": "done", "success": True, "answer": "sent"}],
            }
        return Reply(content=json.dumps(reply))


async def test_each_step_sends_a_schema_of_that_page_and_the_reply_runs(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    checker = SchemaChecker()
    openai_server.fallback = Respond(checker)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run("Fill in the name Ada", start_url=sites.url("/test/reply-form.html"))
    assert not openai_server.errors, openai_server.errors
    assert result.stop_reason == "done" and result.answer == "sent", result
    assert len(checker.seen) == 2
    assert result.replies_rejected == 0 and result.actions_refused == 0
    assert result.final_url and result.final_url.endswith("/test/reply-next.html")
    system = openai_server.requests[0]["messages"][0]["content"]
    assert '{"thought": "<' in system  # the prompt shows the object form the schema allows


async def test_constrained_off_sends_no_schema(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    done = {"thought": "done", "actions": [{"action": "done", "success": True, "answer": "x"}]}
    openai_server.push(Reply(content=json.dumps(done)))
    config = kite_config(
        **{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url, "llm.constrained": "off"}
    )
    result = await Agent(config).run("look", start_url=sites.url("/test/reply-next.html"))
    assert result.stop_reason == "done", result
    assert "response_format" not in openai_server.requests[0]


async def test_a_server_that_refuses_the_schema_is_asked_again_without_it(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """``auto``: a server that answers the schema with 400 gets the same step again, unconstrained, and no
    schema after that; the run goes on."""
    done = Reply(content='I am done.\n```json\n{"action": "done", "success": true, "answer": "x"}\n```')
    openai_server.push(Status(400, message="response_format is not supported"), done)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run("look", start_url=sites.url("/test/reply-next.html"))
    assert result.stop_reason == "done", result
    first, second = openai_server.requests
    assert "response_format" in first and "response_format" not in second


@pytest.mark.parametrize("setting", ["on"])
async def test_on_keeps_the_schema_error(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer, setting: str
) -> None:
    openai_server.push(Status(400, message="response_format is not supported"))
    config = kite_config(
        **{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url, "llm.constrained": setting}
    )
    result = await Agent(config).run("look", start_url=sites.url("/test/reply-next.html"))
    assert result.stop_reason == "model_error" and "llm_bad_request" in result.message, result
    assert len(openai_server.requests) == 1


async def test_a_read_repeated_to_no_end_is_left_out_of_the_next_schema(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """The recorded demo run read the same passages four steps running on the cart page, through the loop
    warnings, then ended with ``done`` and no answer. After the warning the next schema has no ``read``, and
    ``done`` always needs an answer."""
    offered: list[set[str]] = []

    def reply(body: dict[str, Any]) -> Reply:
        actions = variants(body)
        offered.append(set(actions))
        done = actions["done"]
        assert done["required"] == ["action", "success", "answer"], done
        assert done["properties"]["answer"]["minLength"] == 1
        if "read" in actions:
            act: dict[str, Any] = {"action": "read", "query": "order"}
        else:
            act = {"action": "done", "success": True, "answer": "the order page"}
        return Reply(content=json.dumps({"thought": "I read the page.", "actions": [act]}))

    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run(
        "Say what the page is about", start_url=sites.url("/test/reply-next.html")
    )
    assert not openai_server.errors, openai_server.errors
    assert ["read" in names for names in offered] == [True, True, False], offered
    assert "click" in offered[2]  # only the repeated action is withheld
    assert result.stop_reason == "done" and result.answer == "the order page", result


async def test_only_the_answer_left_is_said_as_a_hint_and_nothing_is_withheld_for_it(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """When every part of the task but an answer looks done (a guess from the task's words), the model is
    asked alone whether the page shows it (agent/run/ask_alone.py); after its "no" and a step that only read,
    the prompt says to answer now, and the schema still offers every action the page allows."""
    offered: list[set[str]] = []
    questions = 0

    def reply(body: dict[str, Any]) -> Reply:
        nonlocal questions
        if "shown" in body["response_format"]["json_schema"]["schema"]["properties"]:
            questions += 1
            return Reply(content=json.dumps({"shown": "no", "answer": ""}))
        actions, elements = variants(body), page_elements(body)
        offered.append(set(actions))
        if len(offered) == 1:
            act: dict[str, Any] = {
                "action": "click",
                "target": target_of(actions["click"], by_name(elements, '"Next page"')),
            }
        elif len(offered) == 2:
            act = {"action": "read", "query": "order"}
        else:
            act = {"action": "done", "success": True, "answer": "an order"}
        return Reply(content=json.dumps({"thought": "On it.", "actions": [act]}))

    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run(
        "Open the next page, then report what it says", start_url=sites.url("/test/reply-form.html")
    )
    assert not openai_server.errors, openai_server.errors
    assert questions == 1  # on the next page, once: the read left it the same
    assert {"click", "read", "scroll", "done", "navigate"} <= offered[2], offered
    last_prompt = openai_server.requests[-1]["messages"][-1]["content"]
    assert "every part of the task but the answer looks done: if what the task asks for" in last_prompt
    assert result.stop_reason == "done" and result.answer == "an order", result


async def test_an_action_repeated_to_no_effect_is_not_offered_on_that_element_again(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """Recorded (MiniWoB form-sequence-2): the model retyped a field's value and clicked its chosen radio ten
    steps running and never pressed Submit. Once the loop guard warns, the next schema does not offer that
    action on that element; other fields, and other actions on it, stay offered."""
    typeable: list[set[int]] = []
    clickable: list[set[int]] = []

    def reply(body: dict[str, Any]) -> Reply:
        actions, elements = variants(body), page_elements(body)
        if "Send order" not in " ".join(elements.values()):
            act: dict[str, Any] = {"action": "done", "success": True, "answer": "sent"}
            return Reply(content=json.dumps({"thought": "Sent.", "actions": [act]}))
        name = by_name(elements, '"Name"')
        typeable.append(target_enum(actions["type"], elements))
        clickable.append(target_enum(actions["click"], elements))
        if name in typeable[-1]:
            act = {"action": "type", "target": target_of(actions["type"], name), "text": "Ann"}
        else:
            act = {
                "action": "click",
                "target": target_of(actions["click"], by_name(elements, '"Send order"')),
            }
        return Reply(content=json.dumps({"thought": "The form.", "actions": [act]}))

    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run("Order as Ann", start_url=sites.url("/test/reply-form.html"))
    assert not openai_server.errors, openai_server.errors
    assert len(typeable) == 4, typeable  # typed (a change), typed again twice (nothing changed), then no more
    names = [len(t) for t in typeable]
    assert names[0] == names[1] == names[2] == names[3] + 1, typeable  # only the Name field left the enum
    assert typeable[3] < typeable[2] and clickable[3] == clickable[2]  # and only from ``type``
    assert result.stop_reason == "done" and result.answer == "sent", result


async def test_a_control_toggled_on_and_off_again_is_not_offered_for_the_next_step(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """Recorded (MiniWoB click-collapsible-2): the model opened and closed the same section nine times. Each
    click changes the page, but the steps come back to where they were: after the warning, the next schema
    does not offer a click on that control."""
    clickable: list[set[int]] = []

    def reply(body: dict[str, Any]) -> Reply:
        actions, elements = variants(body), page_elements(body)
        if "Send order" not in " ".join(elements.values()):
            act: dict[str, Any] = {"action": "done", "success": True, "answer": "sent"}
            return Reply(content=json.dumps({"thought": "Sent.", "actions": [act]}))
        gift = by_name(elements, "checkbox")
        clickable.append(target_enum(actions["click"], elements))
        if gift in clickable[-1]:
            acts = [{"action": "click", "target": target_of(actions["click"], gift)}]
        else:  # a name typed first: a form sent with nothing in it is refused once (agent/policies/unfilled.py)
            name = by_name(elements, '"Name"')
            acts = [
                {"action": "type", "target": target_of(actions["type"], name), "text": "Ada"},
                {"action": "click", "target": target_of(actions["click"], by_name(elements, '"Send order"'))},
            ]
        return Reply(content=json.dumps({"thought": "The form.", "actions": acts}))

    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run("Order a gift", start_url=sites.url("/test/reply-form.html"))
    assert not openai_server.errors, openai_server.errors
    # on, off, on, off: the fourth step comes back to the second (the first began with nothing focused),
    # the warning; then the box is not offered, and every other control is
    assert len(clickable) == 5, clickable
    assert clickable[0] == clickable[1] == clickable[2] == clickable[3]
    assert len(clickable[4]) == len(clickable[3]) - 1 and clickable[4] < clickable[3]
    assert result.stop_reason == "done" and result.answer == "sent", result


async def test_a_password_field_takes_only_the_secrets_the_run_was_given(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """Recorded (the sites subset, bundled model): told to log in "with the password you were given", the
    model typed the secret's name, a made-up password and the field's own dots, each refused as plain text
    in a password field. With secrets given, the schema's ``type`` on a password field offers only their
    placeholders; other fields still take any text."""
    seen: list[list[dict[str, Any]]] = []

    def reply(body: dict[str, Any]) -> Reply:
        items = body["response_format"]["json_schema"]["schema"]["properties"]["actions"]["items"]["anyOf"]
        types = [v for v in items if v["properties"]["action"]["const"] == "type"]
        elements = page_elements(body)
        if "Log in" not in " ".join(elements.values()) or seen:
            act: list[dict[str, Any]] = [{"action": "done", "success": True, "answer": "in"}]
            return Reply(content=json.dumps({"thought": "Done.", "actions": act}))
        seen.append(types)
        [secret] = [v for v in types if "enum" in v["properties"]["text"]]
        [plain] = [v for v in types if "enum" not in v["properties"]["text"]]
        assert secret["properties"]["text"]["enum"] == ["<secret>demo_password</secret>"]
        assert secret["required"][:3] == ["action", "target", "text"]
        password = target_of(secret, by_name(elements, '"Password"'))
        email = target_of(plain, by_name(elements, '"Email"'))
        assert all("Password" not in label for label in plain["properties"]["target"]["enum"])
        act = [
            {"action": "type", "target": email, "text": "demo@kite.test"},
            {"action": "type", "target": password, "text": "<secret>demo_password</secret>"},
            {
                "action": "click",
                "target": target_of(variants(body)["click"], by_name(elements, 'button "Log in"')),
            },
        ]
        return Reply(content=json.dumps({"thought": "The login form.", "actions": act}))

    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    store = SecretStore.from_sources(config.safety, cli=["demo_password=kite123"])
    result = await Agent(config, secrets=store).run(
        "Log in as demo@kite.test with the password you were given", start_url=sites.url("/account/login")
    )
    assert not openai_server.errors, openai_server.errors
    assert len(seen) == 1 and result.stop_reason == "done", result
    assert "demo@kite.test" in [state.get("user") for state in sites.states().values()]


async def test_after_typing_into_a_search_box_without_sending_enter_and_search_are_still_offered(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """The task parser once counted 'Search the shop for "mug"' done after ``type "mug"`` into the box, not
    sent, and the next schema offered reading, scrolling and ``done`` only. A guess from the task's words is
    now a hint: the next schema still offers Enter (pressKey) and the Search button, and, on the results, every
    action the page allows (typing, choosing, clicks), with the parts that look done said in the prompt."""
    seen: list[tuple[dict[int, str], dict[str, dict[str, Any]], str]] = []

    def reply(body: dict[str, Any]) -> Reply:
        elements, actions = page_elements(body), variants(body)
        seen.append((elements, actions, body["messages"][-1]["content"]))
        box = next(i for i, line in elements.items() if line.startswith('input "Search"'))
        go = next(i for i, line in elements.items() if line.startswith('button "Search"'))
        if len(seen) == 1:
            acts = [{"action": "type", "target": target_of(actions["type"], box), "text": "mug"}]
        elif len(seen) == 2:
            assert "Enter" in actions["pressKey"]["properties"]["key"]["anyOf"][0]["enum"], actions[
                "pressKey"
            ]
            assert go in target_enum(actions["click"], elements) and box in target_enum(
                actions["type"], elements
            )
            assert {"type", "select", "click", "navigate", "done"} <= set(actions), sorted(actions)
            acts = [{"action": "pressKey", "key": "Enter", "target": target_of(actions["pressKey"], box)}]
        else:
            assert {"type", "select", "click", "navigate", "done"} <= set(actions), sorted(actions)
            assert go in target_enum(actions["click"], elements)
            acts = [{"action": "done", "success": True, "answer": "Classic Blue Mug, Red Enamel Mug"}]
        return Reply(content=json.dumps({"thought": "t", "actions": acts}))

    openai_server.fallback = Respond(saying_no(reply))
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run(
        'Search the shop for "mug" and show the results', start_url=sites.url("/shop/")
    )
    assert not openai_server.errors, openai_server.errors
    assert "q=mug" in (result.final_url or ""), result.final_url
    assert "Next part of the task: show the results" in seen[2][2], seen[2][2]
    assert result.stop_reason == "done" and len(seen) == 3, result
