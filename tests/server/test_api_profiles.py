"""A run's persistent browser profile over HTTP, in-process, against the bundled sites (scripted models): a login
cookie and localStorage set by a run with profile "p" are there for the next run with "p" and not for a run
without a profile; a second run on a profile in use is refused (409 profile_in_use) and the profile is free again
once the first ends; names that are no folder name of ours are refused (422 invalid_profile)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kite_browser.agent.browser.profiles import lock_owner
from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.conftest import follow, in_process, typed

pytestmark = pytest.mark.slow  # persistent Chromiums of their own

NOTE_JS = "localStorage.getItem('kite-note')"


def done(answer: str) -> dict[str, Any]:
    return {"name": "done", "arguments": {"success": True, "answer": answer}}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("profiles")


@pytest.fixture(scope="module")
def api(browser_config: BrowserConfig, home: Path, static_dir: Path) -> Iterator[TestClient]:
    """No modules; the profiles under a data dir of the module's own."""
    with in_process(
        browser_config, home, static_dir, modules=[], **{"browser.data_dir": str(home / "data")}
    ) as c:
        yield c


def run_to_end(api: TestClient, **body: Any) -> dict[str, Any]:
    response = api.post("/api/runs", json=body)
    assert response.status_code == 201, response.text
    run_id = response.json()["id"]
    follow(api, run_id)
    shown: dict[str, Any] = api.get(f"/api/runs/{run_id}").json()
    assert shown["status"] == "finished", shown
    return shown


def js_results(api: TestClient, run: dict[str, Any]) -> list[str]:
    """What each executeJS of the run returned, as its record keeps it (JSON)."""
    steps = api.get(f"/api/runs/{run['id']}/record").json()["steps"]
    outcomes = [a for s in steps for a in s["actions"] if a["action"]["action"] == "executeJS"]
    assert outcomes, "the run ran its executeJS"
    return [json.dumps(a, ensure_ascii=False) for a in outcomes]


def test_a_profile_keeps_a_login_and_storage_for_the_next_run_with_it_only(
    api: TestClient, sites: SitesServer, model: Any, home: Path
) -> None:
    login = [
        {"name": "type", "arguments": {"selector": "#email", "text": "demo@kite.test"}},
        {"name": "type", "arguments": {"selector": "#password", "text": "kite123"}},
        {"name": "click", "arguments": {"selector": "#login"}},
        {"name": "executeJS", "arguments": {"code": "localStorage.setItem('kite-note', 'remember me')"}},
        done("signed in"),
    ]
    first = run_to_end(
        api,
        task="sign in",
        start_url=sites.url("/account/login"),
        model=model("p-login", login),
        profile="p",
        approve=["confirm", "notify"],
    )
    assert first["profile"] == "p" and first["success"], first
    assert first["steps"][-1]["url"] == sites.url("/account/"), "the login went through"
    folder = home / "data" / "profiles" / "p"
    assert (folder / "Default").is_dir(), "the run's browser kept its profile on disk"
    assert lock_owner(folder) is None, "the profile's browser was closed when the run ended"
    record = Path(first["result"]["run_dir"]).name  # read back from disk (after a restart): its profile too
    assert api.get(f"/api/runs/{record}").json()["profile"] == "p"

    def look(name: str, **profile: str) -> dict[str, Any]:
        replies = [{"name": "executeJS", "arguments": {"code": NOTE_JS}}, done("looked")]
        return run_to_end(
            api,
            task="look at the account",
            start_url=sites.url("/account/"),
            model=model(name, replies),
            approve=["confirm"],
            **profile,
        )

    again = look("p-again", profile="p")
    assert again["steps"][0]["url"] == sites.url("/account/"), "still signed in: not sent to the login form"
    read = js_results(api, again)
    assert any("remember me" in m for m in read), read

    fresh = look("p-none")
    assert fresh["profile"] is None
    assert fresh["steps"][0]["url"] == sites.url("/account/login"), "no profile: signed out"
    read = js_results(api, fresh)
    assert not any("remember me" in m for m in read), read


def test_a_second_run_on_a_profile_in_use_is_refused_until_the_first_ends(
    api: TestClient, sites: SitesServer, model: Any
) -> None:
    scroll = {"name": "scroll", "arguments": {"direction": "down"}}
    body = {"task": "scroll", "start_url": sites.url("/shop/"), "profile": "busy", "max_steps": 50}
    first = api.post("/api/runs", json={**body, "model": model("busy-1", [scroll] * 50, latency_s=0.5)})
    assert first.status_code == 201, first.text
    run_id = first.json()["id"]
    try:
        second = api.post("/api/runs", json={**body, "model": model("busy-2", [done("no")])})
        refused = typed(second, 409, "profile_in_use")
        assert refused["profile"] == "busy" and refused["run"] == run_id and "busy" in refused["message"]
        other = run_to_end(api, **{**body, "profile": "other", "model": model("busy-3", [done("other")])})
        assert other["profile"] == "other", "another profile is not held up"
    finally:
        stopped = api.post(f"/api/runs/{run_id}/stop")
    assert stopped.json()["status"] == "stopped"
    third = run_to_end(api, **{**body, "model": model("busy-4", [done("free again")])})
    assert third["profile"] == "busy" and third["result"]["answer"] == "free again"


@pytest.mark.parametrize("name", ["", "..", "../etc", "a/b", "/tmp/x", "-x", "a..b", "x" * 65, "p q"])
def test_a_profile_name_that_is_no_folder_name_of_ours_is_refused(
    api: TestClient, sites: SitesServer, name: str
) -> None:
    before = api.get("/api/runs").json()["total"]
    body = {"task": "t", "start_url": sites.url("/shop/"), "model": "kite/scripted", "profile": name}
    refused = typed(api.post("/api/runs", json=body), 422, "invalid_profile")
    assert refused["profile"] == name and "invalid profile name" in refused["message"]
    assert api.get("/api/runs").json()["total"] == before, "no run was started"


def test_a_server_that_attaches_to_a_running_chrome_refuses_a_profile(
    browser_config: BrowserConfig, tmp_path: Path, static_dir: Path, sites: SitesServer
) -> None:
    attach = {"browser.attach": "http://127.0.0.1:9", "browser.data_dir": str(tmp_path / "data")}
    with in_process(browser_config, tmp_path, static_dir, modules=[], **attach) as api:
        body = {"task": "t", "start_url": sites.url("/shop/"), "model": "kite/scripted", "profile": "p"}
        refused = typed(api.post("/api/runs", json=body), 400, "profile_unsupported")
        assert refused["profile"] == "p" and "browser.attach" in refused["message"]
        assert api.get("/api/runs").json()["total"] == 0 and not (tmp_path / "data" / "profiles").exists()
