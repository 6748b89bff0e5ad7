"""The route table of the bundled sites: (method, path regex, handler). Groups of the regex are passed on."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from kite_browser.evals.sites import accounts, api, events, mail, policy, shop
from kite_browser.evals.sites.web import Request, Response

Route = tuple[str, re.Pattern[str], Callable[..., Response]]


def _localised() -> list[tuple[str, str, Callable[..., Response]]]:
    table: list[tuple[str, str, Callable[..., Response]]] = [
        ("GET", r"/shop/?", shop.catalogue),
        ("GET", r"/shop/product/([\w-]+)", shop.product_page),
        ("POST", r"/shop/cart/add", shop.cart_add),
        ("POST", r"/shop/cart/update", shop.cart_update),
        ("GET", r"/shop/cart", shop.cart_page),
        ("GET", r"/shop/checkout", shop.checkout_page),
        ("POST", r"/shop/checkout", shop.checkout_submit),
        ("GET", r"/shop/order/([\w-]+)", shop.order_page),
        ("GET", r"/account/?", accounts.home),
        ("GET", r"/account/login", accounts.login_form),
        ("POST", r"/account/login", accounts.login_submit),
        ("POST", r"/account/logout", accounts.logout),
        ("GET", r"/account/register", accounts.register_form),
        ("POST", r"/account/register", accounts.register_submit),
        ("GET|POST", r"/account/settings", accounts.settings_page),
        ("GET", r"/account/delete", accounts.delete_page),
        ("GET|POST", r"/account/delete/confirm", accounts.delete_confirm),
        ("GET", r"/account/deleted", accounts.deleted_page),
    ]
    out = []
    for method, path, fn in table:

        def wrap(
            req: Request, *groups: str, _fn: Callable[..., Response] = fn, _lang: str = "en"
        ) -> Response:
            return _fn(req, _lang, *groups)

        out.append((method, path, wrap))
        out.append((method, "/zh" + path, partial(wrap, _lang="zh")))
    return out


def build_routes() -> list[Route]:
    table: list[tuple[str, str, Callable[..., Response]]] = [
        *_localised(),
        ("GET", r"/help/returns", policy.returns_page),
        ("GET", r"/mail/?", mail.mailbox),
        ("GET", r"/mail/message/(\w+)", mail.message_page),
        ("POST", r"/mail/message/(\w+)", mail.message_action),
        ("GET", r"/mail/compose", mail.compose_page),
        ("POST", r"/mail/send", mail.send),
        ("POST", r"/mail/folders", mail.new_folder),
        ("GET", r"/events/?", events.catalogue),
        ("GET", r"/events/event/([\w-]+)", events.event_page),
        ("POST", r"/events/book", events.book),
        ("GET", r"/events/bookings", events.bookings_page),
        ("GET", r"/events/booking/([\w-]+)", events.booking_page),
        ("GET", r"/events/booking/([\w-]+)/cancel", events.cancel_page),
        ("POST", r"/events/booking/([\w-]+)/cancel", events.cancel),
        ("GET", r"/api/state", api.get_state),
        ("POST", r"/api/reset", api.reset_state),
        ("POST", r"/api/event", api.post_event),
        ("POST", r"/api/forms/submit", api.submit_form),
        ("GET", r"/api/dynamic/items", api.delayed_items),
        ("GET", r"/api/dynamic/feed", api.feed),
        ("GET", r"/test/hang-resource", api.hang),
        ("GET", r"/test/slow-resource", api.slow),
        ("GET", r"/test/download/kite-report\.csv", api.download),
        ("GET", r"/test/big", api.big_page),
    ]
    return [(m, re.compile(p), fn) for m, p, fn in table]


def match(
    routes: list[Route], method: str, path: str
) -> tuple[Callable[..., Response], tuple[str, ...]] | None:
    for methods, pattern, fn in routes:
        m = pattern.fullmatch(path)
        if m and method in methods.split("|"):
            return fn, m.groups()
    return None
