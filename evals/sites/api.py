"""JSON endpoints (/api/...) and the generated /test/ pages."""

from __future__ import annotations

import time
from typing import Any

from kite_browser.evals.sites.web import Request, Response, esc, html_response, json_response

FEED_TOTAL = 200
FEED_PAGE = 20


def get_state(req: Request) -> Response:
    return json_response(req.store.get(req.sid))


def reset_state(req: Request) -> Response:
    req.store.reset(req.sid)
    return json_response({"ok": True})


def post_event(req: Request) -> Response:
    """Record one interaction of a static page: ``{"source": "dynamic", "name": "drop", "detail": {...}}``."""
    data = req.json()
    if not isinstance(data, dict) or not data.get("name"):
        return json_response({"error": "bad_request", "message": "JSON body with 'name' expected"}, 400)
    event: dict[str, Any] = {
        "source": str(data.get("source", "")),
        "name": str(data["name"]),
        "detail": data.get("detail"),
        "origin": req.headers.get("origin", ""),
        "time": time.time(),
    }
    with req.store.edit(req.sid) as state:
        state["events"].append(event)
    return json_response({"ok": True, "event": event})


def submit_form(req: Request) -> Response:
    data = req.json()
    if not isinstance(data, dict):
        return json_response({"error": "bad_request", "message": "JSON object expected"}, 400)
    with req.store.edit(req.sid) as state:
        state["form_submissions"].append({**data, "time": time.time()})
        number = len(state["form_submissions"])
    return json_response({"ok": True, "submission": number})


def delayed_items(req: Request) -> Response:
    delay = min(5.0, max(0.0, float(req.arg("delay", "0.7") or 0.7)))
    req.stopping.wait(delay)
    items = [
        "Kite tip: use the search box",
        "Free shipping over $50",
        "New: yellow rain bag",
        "Order by 3pm",
        "Support 24/7",
    ]
    return json_response({"items": items, "delay": delay})


def feed(req: Request) -> Response:
    page = max(0, int(req.arg("page", "0") or 0))
    start = page * FEED_PAGE
    items = [f"Feed item {i + 1}" for i in range(start, min(FEED_TOTAL, start + FEED_PAGE))]
    return json_response(
        {"items": items, "page": page, "more": start + FEED_PAGE < FEED_TOTAL, "total": FEED_TOTAL}
    )


def hang(req: Request) -> Response:
    """A subresource that never answers (until the server stops)."""
    req.stopping.wait()
    return Response(status=503, body=b"server stopping", content_type="text/plain")


def slow(req: Request) -> Response:
    delay = min(30.0, max(0.0, float(req.arg("ms", "1000") or 1000) / 1000))
    req.stopping.wait(delay)
    return Response(body=f"/* waited {delay}s */".encode(), content_type="application/javascript")


def download(req: Request) -> Response:
    rows = "order,item,qty,price\nKITE-1,Classic Blue Mug,2,12.99\nKITE-2,Black Backpack,1,59.00\n"
    return Response(
        body=rows.encode(),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="kite-report.csv"'},
    )


def big_page(req: Request) -> Response:
    """``/test/big?n=10000``: about n elements (groups of five: a div with a heading, a link, an input, a button)."""
    n = max(1, min(200_000, int(req.arg("n", "10000") or 10000)))
    parts = []
    for i in range(0, n, 5):
        parts.append(
            f'<div class="group" id="s{i // 5}"><h3>Section {i // 5}</h3><a href="#s{i // 5}">Link {i // 5}</a>'
            f'<input aria-label="Field {i // 5}"><button>Button {i // 5}</button></div>'
        )
    body = f"""<!doctype html><html><head><meta charset="utf-8"><title>Big page ({n} nodes)</title></head>
<body><h1 id="big-title">Big page with {esc(n)} nodes</h1><main id="big">{"".join(parts)}</main></body></html>"""
    return html_response(body)
