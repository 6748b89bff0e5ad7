"""Per-visitor state of the bundled sites. Every visitor (cookie ``kite_sid``) gets its own copy, so two
browser contexts never share a cart, a login or a form submission."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kite_browser.evals.sites.events import events_view
from kite_browser.evals.sites.events_data import fresh_events
from kite_browser.evals.sites.mail import mail_view
from kite_browser.evals.sites.mail_data import fresh_mail

DEMO_EMAIL = "demo@kite.test"
DEMO_PASSWORD = "kite123"
DEMO_NAME = "Demo User"


def new_account(name: str, email: str, password: str) -> dict[str, Any]:
    return {
        "name": name,
        "email": email,
        "password": password,
        "display_name": name,
        "newsletter": False,
        "language": "en",
        "created": time.time(),
    }


def fresh_state(sid: str) -> dict[str, Any]:
    """The state a new visitor starts with: an empty cart, the seeded demo account, the seeded mailbox and
    bookings."""
    return {
        "sid": sid,
        "cart": [],
        "orders": [],
        "user": None,
        "sessions": {},
        "accounts": {DEMO_EMAIL: new_account(DEMO_NAME, DEMO_EMAIL, DEMO_PASSWORD)},
        "deleted_accounts": [],
        "login_attempts": [],
        "form_submissions": [],
        "events": [],
        "mail": fresh_mail(),
        "booking": fresh_events(),
    }


def public_view(state: dict[str, Any]) -> dict[str, Any]:
    """What ``GET /api/state`` returns: the state without passwords and session tokens, plus derived keys."""
    view = copy.deepcopy(state)
    view.pop("sessions", None)
    for account in view["accounts"].values():
        account.pop("password", None)
    view["settings"] = {
        email: {k: acc[k] for k in ("display_name", "newsletter", "language")}
        for email, acc in view["accounts"].items()
    }
    view["mail"] = mail_view(view["mail"])
    view["booking"] = events_view(view["booking"])
    view["cart_count"] = sum(item["qty"] for item in view["cart"])
    view["cart_total"] = round(sum(item["qty"] * item["price"] for item in view["cart"]), 2)
    return view


class StateStore:
    """Thread-safe map of visitor id → state dict. Handlers edit a state inside ``with store.edit(sid)``."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._states: dict[str, dict[str, Any]] = {}
        self._order_seq = 10000

    @contextmanager
    def edit(self, sid: str) -> Iterator[dict[str, Any]]:
        with self._lock:
            yield self._states.setdefault(sid, fresh_state(sid))

    def next_order_number(self) -> str:
        with self._lock:
            self._order_seq += 1
            return f"KITE-{self._order_seq}"

    def get(self, sid: str) -> dict[str, Any]:
        with self.edit(sid) as state:
            return public_view(state)

    def all(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {sid: public_view(s) for sid, s in self._states.items()}

    def reset(self, sid: str | None = None) -> None:
        with self._lock:
            if sid is None:
                self._states.clear()
            else:
                self._states[sid] = fresh_state(sid)
