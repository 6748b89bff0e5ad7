"""The browser module's ``attach`` profile: the user's running Chrome, left running when the module stops."""

from __future__ import annotations

from typing import Any

from tests.browser.test_session_attach import UserChrome, free_port, user_chrome  # noqa: F401  (fixture)
from tests.modules.conftest import ToolboxHarness


def test_attach_drives_the_users_chrome_and_leaves_it_running(
    harness_factory: Any,
    user_chrome: UserChrome,  # noqa: F811
) -> None:
    h: ToolboxHarness = harness_factory(
        ["browser"], **{"module_settings.browser.attach_endpoint": user_chrome.endpoint}
    )
    status = h.ok("browser", {"action": "start", "profile": "attach"})
    assert status["running"] and status["profile"] == "attach" and status["url"].endswith("/attach/user")
    assert "user page" in h.ok("browser", {"action": "snapshot"})["snapshot"]
    assert h.ok("browser", {"action": "stop"})["stopped"] is True
    assert user_chrome.proc.poll() is None  # only disconnected
    assert any(t["url"].endswith("/attach/user") for t in user_chrome.targets())


def test_attach_to_nothing_is_a_typed_error(harness_factory: Any) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    h: ToolboxHarness = harness_factory(["browser"], **{"module_settings.browser.attach_endpoint": endpoint})
    err = h.call("browser", {"action": "start", "profile": "attach"})
    assert err["error"] == "attach_failed" and endpoint in err["message"], err
    assert h.ok("browser", {"action": "status"})["running"] is False
