"""The Playwright export finds a frame by what it holds and asserts each step's effect: a workflow typing into
the frames page's same-origin iframe and sending its form runs green as plain Playwright on the page as
recorded and on variant 1 (its sections, and so its iframes, reordered), and fails where the submit does
nothing; its docstring names the script and the Chromium it needs."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.workflow.export import playwright_script
from kite_browser.agent.workflow.model import Step, Variable, Workflow
from kite_browser.evals.sites import SitesServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

NAME = Fingerprint(
    tag="input", attrs={"id": "inner-name", "name": "name", "type": "text"}, label="Your name", frame="0"
)
SEND = Fingerprint(
    tag="button", role="button", name="Send", attrs={"id": "inner-submit", "type": "submit"}, frame="0"
)
INERT = """<!doctype html><title>Inner</title><form onsubmit="event.preventDefault()">
<label for="n">Your name</label><input id="n" name="name" type="text">
<button type="submit">Send</button></form>"""
OUTER = """<!doctype html><title>Frames</title><h1>Frames</h1><iframe src="inner.html"></iframe>"""


def frames_workflow(start_url: str) -> Workflow:
    return Workflow(
        task="sign up in the frame",
        start_url=start_url,
        variables={"name": Variable(default="Ada")},
        steps=[
            Step(action="type", args={"text": "{name}"}, target=NAME, intent='type into "Your name"'),
            Step(action="click", target=SEND, intent='click button "Send"'),
        ],
    )


@pytest.fixture
def inert_site(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "index.html").write_text(OUTER)
    (tmp_path / "inner.html").write_text(INERT)
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


def run_script(tmp_path: Path, start_url: str, chromium_path: str | None) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "signup.py"
    source = playwright_script(frames_workflow(start_url), script=str(script))
    script.write_text(source)
    args = ["--start-url", start_url, *(["--chromium", chromium_path] if chromium_path else [])]
    env = {**os.environ, "PYTHONPATH": ""}  # plain Python: no Kite
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_the_docstring_names_the_script_and_the_chromium_it_needs(tmp_path: Path) -> None:
    source = playwright_script(frames_workflow("http://x/frames/"), script="signup.py")
    head = source.split('"""', 2)[1]
    assert "python signup.py [--start-url URL]" in head and "{script}" not in head
    assert "--chromium /usr/bin/chromium" in head and "playwright install chromium" in head
    assert 'frame_locator("iframe").nth(' not in source


@pytest.mark.parametrize("variant", [0, 1])
def test_a_frame_step_runs_green_on_the_page_and_on_reordered_frames(
    variant: int,
    sites: SitesServer,
    sites_variant: Callable[[int], SitesServer],
    tmp_path: Path,
    chromium_path: str | None,
) -> None:
    server = sites if variant == 0 else sites_variant(variant)
    page = server.url("/frames/")
    with urllib.request.urlopen(page) as resp:
        html = resp.read().decode()
    # variant 1 puts the cross-origin iframe first, where the recorded run found the form in the first
    assert (html.index("cross.html") < html.index("inner.html")) == bool(variant)
    done = run_script(tmp_path, page, chromium_path)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_submit_that_does_nothing_fails_the_script(
    inert_site: str, tmp_path: Path, chromium_path: str | None
) -> None:
    done = run_script(tmp_path, inert_site, chromium_path)
    assert done.returncode != 0
    assert "the submit changed nothing on the page" in done.stderr, done.stderr[-2000:]
