"""The scenario table: (id, page, languages, action, expected level[, page kwargs]) on the bundled pages."""

from __future__ import annotations

from typing import Any

SECRET_NAMES = ("card", "cvc", "password")
BLOCKED = ("evil.test",)

BOTH, EN, ZH = ("en", "zh"), ("en",), ("zh",)
Row = tuple[str, str, tuple[str, ...], dict[str, Any], str, dict[str, Any]]


def _r(id_: str, page: str, langs: tuple[str, ...], action: dict[str, Any], level: str, **kw: Any) -> Row:
    return (id_, page, langs, action, level, kw)


ROWS: list[Row] = [
    # ordinary shop pages
    _r("search-button", "home", BOTH, {"action": "click", "index": 4}, "auto"),
    _r("type-search", "home", BOTH, {"action": "type", "index": 3, "text": "boots"}, "auto"),
    _r("enter-in-search", "home", BOTH, {"action": "pressKey", "key": "Enter"}, "auto", focused=3),
    _r(
        "card-number-in-search",
        "home",
        EN,
        {"action": "type", "index": 3, "text": "4242 4242 4242 4242"},
        "confirm",
    ),
    _r("nav-same-site", "home", EN, {"action": "navigate", "url": "/shop/cart"}, "auto"),
    _r("nav-other-site", "home", EN, {"action": "navigate", "url": "https://example.org/"}, "notify"),
    _r("nav-blocked", "home", EN, {"action": "navigate", "url": "https://evil.test/"}, "block"),
    _r("nav-blocked-subdomain", "home", EN, {"action": "navigate", "url": "http://x.evil.test/a"}, "block"),
    _r("nav-javascript", "home", EN, {"action": "navigate", "url": "javascript:alert(1)"}, "confirm"),
    _r("nav-file", "home", EN, {"action": "navigate", "url": "file:///etc/passwd"}, "confirm"),
    _r("nav-download", "home", EN, {"action": "navigate", "url": "/files/kite-setup.zip"}, "notify"),
    _r("execjs-anywhere", "home", EN, {"action": "executeJS", "code": "1+1"}, "confirm"),
    _r("get-elements", "home", EN, {"action": "getElements"}, "auto"),
    _r("done", "home", EN, {"action": "done", "success": True, "answer": "ok"}, "auto"),
    _r("add-to-cart", "product", BOTH, {"action": "click", "index": 4}, "auto"),
    _r("upload", "product", EN, {"action": "uploadFile", "index": 3, "filePath": "/tmp/x.png"}, "confirm"),
    _r("cart-update", "cart", BOTH, {"action": "click", "index": 4}, "auto"),
    _r("cart-remove", "cart", BOTH, {"action": "click", "index": 5}, "notify"),
    _r("cart-to-checkout", "cart", BOTH, {"action": "click", "index": 6}, "auto"),
    _r("cart-go-back", "cart", EN, {"action": "goBack"}, "auto"),
    # checkout (sensitive URL, payment form)
    _r("place-order", "checkout", BOTH, {"action": "click", "index": 10}, "confirm"),
    _r("place-order-by-selector", "checkout", EN, {"action": "click", "selector": "#place-order"}, "confirm"),
    _r("place-order-by-point", "checkout", EN, {"action": "click", "x": 110, "y": 415}, "confirm"),
    _r("unknown-selector", "checkout", EN, {"action": "click", "selector": "form > p > button"}, "confirm"),
    _r("stale-index", "checkout", EN, {"action": "click", "index": 99}, "confirm"),
    _r("type-full-name", "checkout", BOTH, {"action": "type", "index": 3, "text": "Ada Lovelace"}, "auto"),
    _r("type-name-then-newline", "checkout", EN, {"action": "type", "index": 3, "text": "Ada\n"}, "confirm"),
    _r("type-card-name", "checkout", EN, {"action": "type", "index": 6, "text": "Ada L"}, "confirm"),
    _r(
        "type-card-literal",
        "checkout",
        BOTH,
        {"action": "type", "index": 7, "text": "4242424242424242"},
        "confirm",
    ),
    _r(
        "type-card-secret",
        "checkout",
        BOTH,
        {"action": "type", "index": 7, "text": "<secret>card</secret>"},
        "auto",
    ),
    _r(
        "type-card-unknown-secret",
        "checkout",
        EN,
        {"action": "type", "index": 7, "text": "<secret>x</secret>"},
        "confirm",
    ),
    _r("type-cvc-literal", "checkout", BOTH, {"action": "type", "index": 9, "text": "123"}, "confirm"),
    _r(
        "type-cvc-secret",
        "checkout",
        EN,
        {"action": "type", "index": 9, "text": "<secret>cvc</secret>"},
        "auto",
    ),
    _r(
        "type-unknown-target",
        "checkout",
        EN,
        {"action": "type", "selector": "input.x", "text": "hi"},
        "confirm",
    ),
    _r("enter-in-form", "checkout", BOTH, {"action": "pressKey", "key": "Enter"}, "confirm", focused=5),
    _r("tab-in-form", "checkout", EN, {"action": "pressKey", "key": "Tab"}, "auto", focused=5),
    _r("scroll", "checkout", EN, {"action": "scroll", "direction": "down"}, "auto"),
    _r("hover-place-order", "checkout", EN, {"action": "hover", "index": 10}, "auto"),
    _r("refresh-checkout", "checkout", EN, {"action": "refresh"}, "notify"),
    _r(
        "execjs-checkout",
        "checkout",
        ZH,
        {"action": "executeJS", "code": "document.forms[0].submit()"},
        "confirm",
    ),
    # account pages
    _r("type-email", "login", BOTH, {"action": "type", "index": 3, "text": "ada@example.com"}, "auto"),
    _r("type-password-literal", "login", BOTH, {"action": "type", "index": 4, "text": "hunter2"}, "confirm"),
    _r(
        "type-password-secret",
        "login",
        BOTH,
        {"action": "type", "index": 4, "text": "<secret>password</secret>"},
        "auto",
    ),
    _r("click-log-in", "login", BOTH, {"action": "click", "index": 5}, "auto"),
    _r("enter-after-password", "login", BOTH, {"action": "pressKey", "key": "Enter"}, "confirm", focused=4),
    # links are judged like buttons (a "Delete account" link can delete as well as a button can)
    _r("delete-account-link", "account", BOTH, {"action": "click", "index": 4}, "confirm"),
    _r("settings-link", "account", BOTH, {"action": "click", "index": 3}, "auto"),
    _r("log-out", "account", BOTH, {"action": "click", "index": 5}, "auto"),
    _r("save-settings", "settings", BOTH, {"action": "click", "index": 5}, "auto"),
    _r("permanently-delete", "delete", BOTH, {"action": "click", "index": 4}, "confirm"),
    _r(
        "enter-on-delete-button", "delete", BOTH, {"action": "pressKey", "key": "Enter"}, "confirm", focused=4
    ),
    _r("cancel-link", "delete", BOTH, {"action": "click", "index": 5}, "confirm"),
    _r(
        "type-confirm-email",
        "delete",
        BOTH,
        {"action": "type", "index": 3, "text": "ada@example.com"},
        "auto",
    ),
    # labels that lie: what a person sees is judged as well as the accessible name (pages.lying)
    _r("label-aria-continue-on-pay", "lying", BOTH, {"action": "click", "index": 11}, "confirm"),
    _r("label-zero-width", "lying", BOTH, {"action": "click", "index": 12}, "confirm"),
    _r("label-pay-link", "lying", BOTH, {"action": "click", "index": 13}, "confirm"),
    _r("label-fullwidth", "lying", BOTH, {"action": "click", "index": 14}, "confirm"),
    _r("label-title-only", "lying", BOTH, {"action": "click", "index": 15}, "confirm"),
    _r("label-split-spans", "lying", BOTH, {"action": "click", "index": 16}, "confirm"),
    _r("label-image-alt", "lying", BOTH, {"action": "click", "index": 17}, "confirm"),
    _r("label-honest-continue", "lying", BOTH, {"action": "click", "index": 18}, "auto"),
    _r("label-remove-link-ordinary", "cart", BOTH, {"action": "click", "index": 7}, "notify"),
    # the delete page's text on an innocuous URL: sensitive by keyword
    _r("mirror-delete", "mirror", BOTH, {"action": "click", "index": 4}, "confirm"),
    _r("mirror-enter", "mirror", BOTH, {"action": "pressKey", "key": "Enter"}, "confirm", focused=3),
]


# Domains under ``domains.allow_loopback: false`` with the page's own host and port allowed (LOOPBACK_ALLOWED):
# other loopback hosts and ports follow the allow list like any host; another spelling of the same address
# (localhost, [::1]) reaches the allowed server, so it is allowed, noticed as another origin (safety/domains.py).
# (page "loopback" = home + two links)
LOOPBACK_ALLOWED = ("127.0.0.1:8765",)
DOMAIN_ROWS: list[Row] = [
    _r("loopback-same-origin", "loopback", BOTH, {"action": "navigate", "url": "/shop/cart"}, "auto"),
    _r(
        "loopback-other-ip",
        "loopback",
        BOTH,
        {"action": "navigate", "url": "http://127.0.0.2:8765/"},
        "block",
    ),
    _r(
        "loopback-other-port", "loopback", BOTH, {"action": "navigate", "url": "http://127.0.0.1:9/"}, "block"
    ),
    _r(
        "loopback-localhost",
        "loopback",
        EN,
        {"action": "navigate", "url": "http://localhost:8765/"},
        "notify",
    ),
    _r("loopback-ipv6", "loopback", EN, {"action": "navigate", "url": "http://[::1]:8765/x"}, "notify"),
    _r(
        "loopback-localhost-other-port",
        "loopback",
        EN,
        {"action": "navigate", "url": "http://localhost:9/"},
        "block",
    ),
    _r(
        "loopback-websocket", "loopback", EN, {"action": "navigate", "url": "ws://127.0.0.2:8765/ws"}, "block"
    ),
    _r("loopback-link-other-host", "loopback", BOTH, {"action": "click", "index": 3}, "block"),
    _r("loopback-link-same-origin", "loopback", BOTH, {"action": "click", "index": 4}, "auto"),
]


# A page's own dialogs, judged like a button (policy.evaluate_dialog): (id, page, kind, {lang: message}, level)
DialogRow = tuple[str, str, str, dict[str, str], str]
DIALOG_ROWS: list[DialogRow] = [
    (
        "confirm-delete",
        "cart",
        "confirm",
        {"en": "Are you sure you want to delete this item?", "zh": "确定要删除这个商品吗？"},
        "confirm",
    ),
    ("confirm-pay", "cart", "confirm", {"en": "Pay $42.00 now?", "zh": "现在支付 ¥42.00 吗？"}, "confirm"),
    (
        "confirm-hidden-chars",
        "cart",
        "confirm",
        {"en": "Re\u200bmove all items?", "zh": "删\u200b除全部？"},
        "confirm",
    ),
    (
        "confirm-keyword",
        "home",
        "confirm",
        {"en": "This cannot be undone. OK?", "zh": "此操作不可恢复，继续吗？"},
        "confirm",
    ),
    (
        "confirm-harmless",
        "home",
        "confirm",
        {"en": "Show 10 more results?", "zh": "显示更多结果吗？"},
        "auto",
    ),
    (
        "prompt-type-delete",
        "account",
        "prompt",
        {"en": "Type DELETE to confirm", "zh": "输入“删除”以确认"},
        "confirm",
    ),
    (
        "alert-only-informs",
        "account",
        "alert",
        {"en": "Your account will be deleted", "zh": "您的账户将被删除"},
        "auto",
    ),
    ("beforeunload-sensitive-page", "checkout", "beforeunload", {"en": "", "zh": ""}, "confirm"),
    ("beforeunload-ordinary-page", "home", "beforeunload", {"en": "", "zh": ""}, "auto"),
]


def dialog_cases() -> list[tuple[str, str, str, str, str, str]]:
    """(id, page, lang, kind, message, expected) per row and language."""
    return [
        (f"{lang}-{i}", page, lang, kind, msg, lvl)
        for i, page, kind, msgs, lvl in DIALOG_ROWS
        for lang, msg in msgs.items()
    ]


def cases() -> list[tuple[str, str, str, dict[str, Any], str, dict[str, Any]]]:
    """One case per (row, language): (id, page, lang, action, expected, page kwargs)."""
    return expand(ROWS)


def expand(rows: list[Row]) -> list[tuple[str, str, str, dict[str, Any], str, dict[str, Any]]]:
    return [(f"{lang}-{i}", page, lang, a, lvl, kw) for i, page, langs, a, lvl, kw in rows for lang in langs]
