"""Property 6 of seed 000 (browser lifecycle) as a hypothesis state machine over real Chromium processes.

Every browser chrome_launch starts gets a unique id, is tracked by the module (its state and
chrome_list_tabs), and is gone, process and all, once chrome_close closes it or the module shuts down;
a closed id answers browser_not_found (its tabs tab_not_found) from then on.

A launch costs a Chromium process (0.5-5 s), so launches come from a budget shared by all examples (at most
three browsers at once) and the browsers stay open from one example to the next: each example starts by
adopting the module's real state as its model and then runs its steps (launch, close, new tab, close tab,
look up closed or unknown ids, and, twice per run, shut the whole module down and start a new one).
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from kite_browser.agent.modules.chrome.module import ChromeModule
from tests.fixtures.procs import gone, processes
from tests.modules.conftest import ToolboxHarness

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

MAX_OPEN = 3


class World:
    """What outlives one example: the harness, the launch budget, every id ever issued and its process marker."""

    def __init__(self, make: Any) -> None:
        self.make = make
        self.h: ToolboxHarness = make(["chrome"])
        self.launches_left = 8
        self.shutdowns_left = 2
        self.browser_ids: set[str] = set()
        self.tab_ids: set[str] = set()
        self.closed_browsers: set[str] = set()
        self.closed_here: set[str] = set()
        """Closed by the current module instance (a new one after a shutdown knows nothing of older ids)."""
        self.closed_tabs: set[str] = set()
        self.markers: dict[str, str] = {}
        self.counter = itertools.count()

    @property
    def module(self) -> ChromeModule:
        module = self.h.toolbox.registry.module("chrome")
        assert isinstance(module, ChromeModule)
        return module


WORLD: list[World] = []


class BrowserLifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.w = WORLD[0]
        self.model: dict[str, set[str]] = {}

    @initialize()
    def adopt(self) -> None:
        """The browsers earlier examples left open are this example's starting state."""
        manager = self.w.module.manager
        assert manager is not None
        self.model = {bid: set(inst.tabs) for bid, inst in manager.browsers.items()}

    def _pick(self, which: int) -> str | None:
        return sorted(self.model)[which % len(self.model)] if self.model else None

    # Every rule is always enabled and draws the same shape of data whatever the state: the state outlives
    # the example (hypothesis replays choices, so what is drawn must not depend on it); a rule that does not
    # apply to the current state does nothing.

    @rule()
    def launch(self) -> None:
        if self.w.launches_left <= 0 or len(self.model) >= MAX_OPEN:
            return
        if self.model and next(self.w.counter) % 4:
            return  # with a browser open, only every fourth launch step launches: spreads the budget
        self.w.launches_left -= 1
        marker = f"--kite-test-marker={uuid.uuid4().hex}"
        out = self.w.h.ok("chrome_launch", {"args": [marker]})
        bid, tab = out["browserId"], out["tabId"]
        assert bid not in self.w.browser_ids and tab not in self.w.tab_ids  # unique, also across examples
        assert out["status"] == "running" and processes(marker)
        self.w.browser_ids.add(bid)
        self.w.tab_ids.add(tab)
        self.w.markers[bid] = marker
        self.model[bid] = {tab}

    @rule(which=st.integers(0, 7))
    def close(self, which: int) -> None:
        bid = self._pick(which)
        if bid is None or (len(self.model) == 1 and self.w.launches_left == 0):
            return  # the last browser stays once no launch is left: later examples use it
        assert self.w.h.ok("chrome_close", {"browserId": bid}) == {"browserId": bid, "closed": True}
        self.w.closed_browsers.add(bid)
        self.w.closed_here.add(bid)
        self.w.closed_tabs |= self.model.pop(bid)
        assert gone(self.w.markers[bid]), f"Chromium of {bid} still running after chrome_close"

    @rule(which=st.integers(0, 7))
    def new_tab(self, which: int) -> None:
        bid = self._pick(which)
        if bid is None or len(self.model[bid]) >= 3:
            return
        tab = self.w.h.ok("chrome_new_tab", {"browserId": bid})
        assert tab["browserId"] == bid and tab["tabId"] not in self.w.tab_ids
        self.w.tab_ids.add(tab["tabId"])
        self.model[bid].add(tab["tabId"])

    @rule(which=st.integers(0, 7), which_tab=st.integers(0, 7))
    def close_tab(self, which: int, which_tab: int) -> None:
        bid = self._pick(which)
        if bid is None or len(self.model[bid]) < 2:
            return  # a browser's last tab stays: closing it is chrome_close's business
        tab = sorted(self.model[bid])[which_tab % len(self.model[bid])]
        self.w.h.ok("chrome_close_tab", {"tabId": tab})
        self.model[bid].discard(tab)
        self.w.closed_tabs.add(tab)

    @rule(
        which=st.integers(0, 63),
        closed=st.booleans(),
        closed_tab=st.booleans(),
        fresh=st.text("abcdef0123456789", min_size=1, max_size=12),
    )
    def look_upgone(self, which: int, closed: bool, closed_tab: bool, fresh: str) -> None:
        """A closed browser or tab, or one never issued, answers its typed error with its id."""
        gone = sorted(self.w.closed_browsers)
        bid = gone[which % len(gone)] if gone and closed else f"browser-{fresh}"
        err = self.w.h.call("chrome_list_tabs", {"browserId": bid})
        assert err["error"] == "browser_not_found" and err["browserId"] == bid, err
        assert ("was closed" in err["message"]) == (bid in self.w.closed_here)
        err = self.w.h.call("chrome_new_tab", {"browserId": bid})
        assert err["error"] == "browser_not_found", err
        tabs = sorted(self.w.closed_tabs)
        tab = tabs[which % len(tabs)] if tabs and closed_tab else f"tab-{fresh}"
        err = self.w.h.call("chrome_get_url", {"tabId": tab})
        assert err["error"] == "tab_not_found" and err["tabId"] == tab, err

    @rule()
    def shut_down(self) -> None:
        """Shutting the module down closes every browser it launched; a new toolbox starts from nothing."""
        if self.w.shutdowns_left <= 0 or not self.model or self.w.launches_left == 0:
            return
        self.w.shutdowns_left -= 1
        self.w.h.run(self.w.h.toolbox.close())
        assert all(s.status == "shutdown" for s in self.w.h.toolbox.states())
        for bid in self.model:
            assert gone(self.w.markers[bid]), f"Chromium of {bid} still running after shutdown"
            self.w.closed_browsers.add(bid)
            self.w.closed_tabs |= self.model[bid]
        self.model = {}
        self.w.closed_here = set()
        self.w.h = self.w.make(["chrome"])

    @invariant()
    def tracked(self) -> None:
        """The module tracks exactly the model's browsers and tabs, each running and listing its own tabs."""
        manager = self.w.module.manager
        assert manager is not None
        assert set(manager.browsers) == set(self.model)
        for bid, tabs in self.model.items():
            assert manager.browsers[bid].info()["status"] == "running"
            listed = self.w.h.ok("chrome_list_tabs", {"browserId": bid})["tabs"]
            assert {t["tabId"] for t in listed} == tabs
            assert all(t["browserId"] == bid and t["status"] == "active" for t in listed)


def test_browser_lifecycle(harness_factory: Any) -> None:
    WORLD[:] = [World(harness_factory)]
    run_state_machine_as_test(
        BrowserLifecycle,
        settings=settings(
            max_examples=100,
            stateful_step_count=6,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
    w = WORLD[0]
    assert len(w.browser_ids) >= 2 and w.closed_browsers, "the run launched or closed too little"
    open_markers = [w.markers[bid] for bid in w.module.manager.browsers]  # type: ignore[union-attr]
    assert open_markers and all(processes(m) for m in open_markers)
    w.h.run(w.h.toolbox.close())  # and the module's shutdown at the end closes what is left
    assert all(gone(m) for m in w.markers.values())
