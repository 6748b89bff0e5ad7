"""Every byte sent to a model is redacted: whole request bodies, as they arrive at a real OpenAI-compatible HTTP
server on 127.0.0.1 through the real litellm path, are scanned for every form of a secret a page echoes.

The page shows the secret plainly (a button's label and a field's placeholder: both are names in the
constrained reply schema's ``target`` enum, which is built from the page), percent-encoded byte by byte, once
and twice, with combining marks, with combining marks and percent-encoded, split by U+2063 INVISIBLE
SEPARATOR, spaced out, and in a link's query. Every model face is scanned: the agent's steps with a reply
schema (``response_format``), the agent's steps with tool definitions (function calling), and a workflow's
healing (an ``Agent`` run in the replay's environment). The scan is independent of Kite's redaction: each
string of each body is read by the standard library (percent-decoded three times, NFKD, marks and format
characters dropped, case folded) and must not hold the value; the raw bytes must hold none of the forms."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from kite_browser.agent import Agent
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.workflow.heal import Healer
from kite_browser.agent.workflow.model import Expect, Step, Workflow
from kite_browser.agent.workflow.replay import Replayer
from kite_browser.safety.secrets import SecretStore
from tests.agent.test_constrained_http import page_elements
from tests.fixtures.browser import PagesServer
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, Respond

pytestmark = [pytest.mark.timeout(240)]

VALUE = "Qx7vR2mK9pZt"
PLACEHOLDER = "<secret>token</secret>"


def every_byte(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


FORMS = {
    "plain": VALUE,
    "percent": every_byte(VALUE),
    "percent-twice": every_byte(VALUE).replace("%", "%25"),
    "marks": "".join(c + "\u0301" for c in VALUE),
    "percent-marks": every_byte("".join(c + "\u0308" for c in VALUE)),
    "invisible-separator": "\u2063".join(VALUE),
    "spaced": " ".join(VALUE),
    "query": quote(VALUE, safe=""),
}
ECHO = (
    "<!doctype html><meta charset=utf-8><title>Your token</title><main><h1>API token</h1>"
    f"<button id=copy onclick=\"location.href='/echo/done'\">Copy {VALUE}</button>"
    f'<input id=paste placeholder="{VALUE}">'
    + "".join(f"<p>{kind}: {form}</p>" for kind, form in FORMS.items())
    + f'<a href="/echo/share?t={FORMS["percent-twice"]}">Share {FORMS["percent"]}</a></main>'
)
DONE = "<!doctype html><title>Copied</title><main><h1>Copied</h1></main>"


def read(text: str) -> str:
    """A string as the scan reads it, with the standard library only (not Kite's redaction)."""
    for _ in range(3):
        text = unquote(text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Cf"))
    return re.sub(r"\s+", "", text).casefold()


def strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)


def assert_clean(raw_bodies: list[bytes]) -> None:
    """No form of the value anywhere in any body: not in its bytes, not in any of its strings as read."""
    assert raw_bodies
    needles = {f.encode() for f in FORMS.values()} | {
        json.dumps(f).strip('"').encode() for f in FORMS.values()
    }
    for raw in raw_bodies:
        for needle in needles:
            assert needle not in raw, needle
        for s in strings(json.loads(raw)):
            assert VALUE.casefold() not in read(s), s[:200]
    assert any(
        PLACEHOLDER.encode() in raw or json.dumps(PLACEHOLDER)[1:-1].encode() in raw for raw in raw_bodies
    )


def target_with(body: dict[str, Any], action: str, word: str) -> str:
    """The schema's ``target`` name of ``action`` that holds ``word`` (what a server decoding under it writes)."""
    variants = body["response_format"]["json_schema"]["schema"]["properties"]["actions"]["items"]["anyOf"]
    [variant] = [v for v in variants if v["properties"]["action"]["const"] == action]
    [label] = [t for t in variant["properties"]["target"]["enum"] if word in t]
    return str(label)


class CopyThenDone:
    """The fake model: on the echo page, click "Copy …" (by the schema's target, or by the listed index when
    the step has tools), then ``done`` on the next page."""

    def __init__(self) -> None:
        self.targets: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        page = body["messages"][-1]["content"]
        if "Copied" in page:
            act: dict[str, Any] = {"action": "done", "success": True, "answer": "copied"}
        elif "response_format" in body:
            target = target_with(body, "click", "Copy")
            self.targets.append(target)
            act = {"action": "click", "target": target}
        else:
            [index] = [i for i, line in page_elements(body).items() if "Copy" in line]
            act = {"action": "click", "index": index}
        if "response_format" in body:
            return Reply(content=json.dumps({"thought": "I copy the token.", "actions": [act]}))
        return Reply(content=f"```json\n{json.dumps(act)}\n```")


@pytest.fixture
def echo(pages_server: PagesServer) -> str:
    pages_server.add("/echo/done", DONE)
    return pages_server.add("/echo/token", ECHO)


def store(kite_config: Any) -> SecretStore:
    return SecretStore.from_sources(kite_config().safety, cli=[f"token={VALUE}"], env={})


@pytest.mark.parametrize("face", ["reply-schema", "function-calling"])
async def test_the_agents_requests_hold_no_form_of_an_echoed_secret(
    kite_config: Any,
    ctx_session: ContextSession,
    echo: str,
    openai_server: FakeOpenAIServer,
    face: str,
) -> None:
    model = CopyThenDone()
    openai_server.fallback = Respond(model)
    settings: dict[str, Any] = {"llm.model": "openai/fake", "llm.api_base": openai_server.base_url}
    if face == "function-calling":
        settings["llm.function_calling"] = True
    config = kite_config(**settings)
    result = await Agent(config, context=ctx_session, secrets=store(kite_config)).run(
        "copy the API token", start_url=echo
    )
    assert not openai_server.errors, openai_server.errors
    assert result.stop_reason == "done" and result.answer == "copied", result
    assert ctx_session.page.url.endswith("/echo/done")  # the click on the redacted target ran
    bodies = openai_server.requests
    assert len(bodies) == 2
    if face == "reply-schema":
        # the schema built from the page names the button by its placeholder, and the reply naming it ran
        assert model.targets and PLACEHOLDER in model.targets[0], model.targets
        assert all("response_format" in b and "tools" not in b for b in bodies)
    else:
        assert all(b.get("tools") and "response_format" not in b for b in bodies)
    assert_clean(openai_server.raw)


COPY = Step(
    action="click",
    target=Fingerprint(tag="button", name="Copy token", attrs={"id": "copy-token"}),
    expect=Expect(url="/echo/done"),
    intent='click button "Copy token"',
)


async def test_healing_requests_hold_no_form_of_an_echoed_secret(
    kite_config: Any,
    ctx_session: ContextSession,
    echo: str,
    openai_server: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    """A recorded "Copy token" button is now "Copy <the value>": the model heals the step, and what it was sent
    (the heal prompt, the page, the schema of the page's targets) holds no form of the value."""
    model = CopyThenDone()
    openai_server.fallback = Respond(model)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config, secrets=store(kite_config)))
    await env.start(tmp_path)
    try:
        out = await Replayer(
            Workflow(task="copy the token", start_url=echo, steps=[COPY]), healer=Healer(config)
        ).run(env)
    finally:
        await env.stop()
    assert not openai_server.errors, openai_server.errors
    assert out.success and out.by == ["healed"], out
    assert model.targets and PLACEHOLDER in model.targets[0]
    assert_clean(openai_server.raw)
