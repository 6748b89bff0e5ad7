"""Kite Events (/events/): event booking in the WebArena style — search, filter by city, category, dates and
price, sort, book tickets, see and cancel bookings. Server-rendered like the shop; the state is the visitor's
``events`` (``GET /api/state``): the bookings (with their status) and the searches."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from kite_browser.evals.sites.chrome import app_page, paged
from kite_browser.evals.sites.events_data import (
    BY_ID,
    CATEGORIES,
    CITIES,
    EVENTS,
    PREMIUM,
    USER_EMAIL,
    USER_NAME,
    Event,
)
from kite_browser.evals.sites.web import Request, Response, esc, html_response, redirect

HOME = "/events/"
FILTERS = ("q", "city", "category", "from", "to", "max_price", "sort")
SORTS = [
    ("date", "Date: soonest first"),
    ("price-asc", "Price: low to high"),
    ("price-desc", "Price: high to low"),
]
MAX_TICKETS = 8


def euros(value: float) -> str:
    return "Free" if value == 0 else f"€{value:,.2f}"


def nice_date(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%a, %d %b %Y")


def _render(req: Request, title: str, body: str, status: int = 200) -> Response:
    v = req.variant
    with req.store.edit(req.sid) as state:
        active = sum(1 for b in state["booking"]["bookings"] if b["status"] == "booked")
    links = [
        '<a id="find-link" href="/events/">Find events</a>',
        f'<a id="bookings-link" href="/events/bookings">{v.word("en", "bookings", "My bookings")} (<span id="bookings-count">{active}</span>)</a>',
    ]
    return html_response(app_page("Kite Events", HOME, links, title, body, v), status)


def _price(raw: str) -> float | None:
    try:
        return float(raw.replace("€", "").replace(",", "").strip())
    except ValueError:
        return None


def _day(raw: str) -> str | None:
    try:
        return date.fromisoformat(raw.strip()).isoformat()
    except ValueError:
        return None


def search(params: dict[str, str]) -> list[Event]:
    """The events the filters keep, in the order asked for (by date unless ``sort`` says price)."""
    words = params.get("q", "").casefold().split()
    lo, hi, top = (
        _day(params.get("from", "")),
        _day(params.get("to", "")),
        _price(params.get("max_price", "")),
    )
    found = [
        e
        for e in EVENTS
        if all(w in f"{e.title} {e.venue} {e.city} {e.category}".casefold() for w in words)
        and params.get("city", "") in ("", e.city)
        and params.get("category", "") in ("", e.category)
        and (lo is None or e.date >= lo)
        and (hi is None or e.date <= hi)
        and (top is None or e.price <= top)
    ]
    sort = params.get("sort", "")
    if sort == "price-asc":
        return sorted(found, key=lambda e: (e.price, e.date))
    if sort == "price-desc":
        return sorted(found, key=lambda e: (-e.price, e.date))
    return sorted(found, key=lambda e: e.date)


def _card(e: Event) -> str:
    sold = ' · <strong class="sold-out">Sold out</strong>' if e.seats == 0 else ""
    return (
        f'<li class="event" data-id="{e.id}"><a class="event-link" href="/events/event/{e.id}">{esc(e.title)}</a><br>'
        f'<span class="date">{nice_date(e.date)}</span> · <span class="city">{e.city}</span> · '
        f'<span class="category">{e.category.title()}</span> · <span class="price">{euros(e.price)}</span>{sold}</li>'
    )


def _select(fid: str, label: str, options: list[tuple[str, str]], chosen: str, everything: str) -> str:
    opts = "".join(
        f'<option value="{k}"{" selected" if k == chosen else ""}>{esc(t)}</option>' for k, t in options
    )
    return f'<label for="{fid}">{label}</label> <select id="{fid}" name="{fid}"><option value="">{everything}</option>{opts}</select>'


def catalogue(req: Request) -> Response:
    params = {k: req.arg(k).strip() for k in FILTERS}
    found = search(params)
    if any(params.values()):
        with req.store.edit(req.sid) as state:
            state["booking"]["searches"].append({k: v for k, v in params.items() if v})
    v = req.variant
    city_opts = [(c, c) for c in v.order(CITIES, "event-cities")]
    cat_opts = [(c, c.title()) for c in v.order(CATEGORIES, "event-categories")]
    fields = [
        _select("city", "City", city_opts, params["city"], "All cities"),
        _select("category", "Category", cat_opts, params["category"], "All categories"),
        f'<label for="from">From date</label> <input id="from" name="from" type="date" value="{esc(params["from"])}">',
        f'<label for="to">To date</label> <input id="to" name="to" type="date" value="{esc(params["to"])}">',
        f'<label for="max-price">Max price (€)</label> <input id="max-price" name="max_price" type="number" min="0" step="1" value="{esc(params["max_price"])}">',
        _select("sort", "Sort by", SORTS, params["sort"], "Featured"),
    ]
    cards, pages = paged(req, [_card(e) for e in found], params)
    results = (
        f'<ul class="events" id="events">{"".join(cards)}</ul>{pages}'
        if found
        else '<p id="no-results">No events match your search.</p>'
    )
    body = f"""<h1>Find events</h1>
<form id="event-search" role="search" method="get" action="/events/">
<p><input id="q" name="q" type="search" value="{esc(params["q"])}" placeholder="Search events" aria-label="Search events"></p>
<div class="toolbar">{"".join(f"<span>{f}</span>" for f in v.order(fields, "event-filters"))}</div>
<button id="search-button" type="submit">Search</button></form>
<p id="result-count">{len(found)} events</p>{results}"""
    return _render(req, "Find events", body)


def _booking_form(req: Request, e: Event, values: dict[str, str], errors: list[str]) -> str:
    if e.seats == 0:
        return '<p id="sold-out" class="errors">Sold out: no tickets left for this event.</p>'
    err = ""
    if errors:
        err = f'<div class="errors" id="errors" role="alert"><ul>{"".join(f"<li>{esc(x)}</li>" for x in errors)}</ul></div>'
    chosen = values.get("ticket_type", "standard")
    types = [
        ("standard", f"Standard ({euros(e.price)})"),
        ("premium", f"Premium ({euros(e.price * PREMIUM)})"),
    ]
    type_opts = "".join(
        f'<option value="{k}"{" selected" if k == chosen else ""}>{t}</option>' for k, t in types
    )
    fields = [
        f'<label for="tickets">Tickets</label><input id="tickets" name="tickets" type="number" min="1" max="{MAX_TICKETS}" value="{esc(values.get("tickets", "1"))}">',
        f'<label for="ticket-type">Ticket type</label><select id="ticket-type" name="ticket_type">{type_opts}</select>',
        f'<label for="name">Name</label><input id="name" name="name" type="text" value="{esc(values.get("name", USER_NAME))}" autocomplete="name">',
        f'<label for="email">Email</label><input id="email" name="email" type="email" value="{esc(values.get("email", USER_EMAIL))}" autocomplete="email">',
    ]
    book = req.variant.word("en", "book", "Book now")
    return f"""{err}<form id="booking-form" class="stack" method="post" action="/events/book" novalidate>
<input type="hidden" name="event_id" value="{e.id}">{"".join(req.variant.order(fields, "event-booking"))}
<p><button id="book" class="primary" type="submit">{book}</button></p></form>"""


def event_page(
    req: Request, eid: str, values: dict[str, str] | None = None, errors: list[str] | None = None
) -> Response:
    e = BY_ID.get(eid)
    if e is None:
        return _render(req, "Not found", "<h1>Event not found</h1>", 404)
    body = f"""<article id="event" data-id="{e.id}"><h1 id="event-title">{esc(e.title)}</h1>
<p><span id="event-date">{nice_date(e.date)}</span> · <span id="event-city">{e.city}</span>, <span id="event-venue">{esc(e.venue)}</span></p>
<p>Category: <span id="event-category">{e.category.title()}</span> · Price: <strong id="event-price">{euros(e.price)}</strong> a ticket</p>
{_booking_form(req, e, values or {}, errors or [])}</article><p><a href="/events/">Back to all events</a></p>"""
    return _render(req, e.title, body, 422 if errors else 200)


def book(req: Request) -> Response:
    values = {k: req.field(k) for k in ("event_id", "tickets", "ticket_type", "name", "email")}
    e = BY_ID.get(values["event_id"])
    if e is None:
        return _render(req, "Not found", "<h1>Event not found</h1>", 404)
    errors = []
    try:
        tickets = int(values["tickets"] or "1")
    except ValueError:
        tickets = 0
    if e.seats == 0:
        errors.append("This event is sold out.")
    elif not 1 <= tickets <= min(MAX_TICKETS, e.seats):
        errors.append(f"Choose between 1 and {min(MAX_TICKETS, e.seats)} tickets.")
    if not values["name"]:
        errors.append("Enter the name for the tickets.")
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", values["email"]):
        errors.append("Enter a valid email address.")
    kind = "premium" if values["ticket_type"] == "premium" else "standard"
    if errors:
        return event_page(req, e.id, values, errors)
    with req.store.edit(req.sid) as state:
        ev = state["booking"]
        ev["next_ref"] += 1
        ref = f"EV-{ev['next_ref']}"
        price = e.price * (PREMIUM if kind == "premium" else 1)
        ev["bookings"].append(
            {
                "ref": ref,
                "event_id": e.id,
                "event": e.title,
                "date": e.date,
                "tickets": tickets,
                "ticket_type": kind,
                "name": values["name"],
                "email": values["email"],
                "total": round(price * tickets, 2),
                "status": "booked",
            }
        )
    return redirect(f"/events/booking/{ref}")


def _find(req: Request, ref: str) -> dict[str, Any] | None:
    with req.store.edit(req.sid) as state:
        return next((dict(b) for b in state["booking"]["bookings"] if b["ref"] == ref), None)


def _cancel_link(req: Request, b: dict[str, Any]) -> str:
    word = req.variant.word("en", "cancel_booking", "Cancel booking")
    return f'<a class="cancel-link" href="/events/booking/{b["ref"]}/cancel" aria-label="{word} for {esc(b["event"])}">{word}</a>'


def booking_page(req: Request, ref: str) -> Response:
    b = _find(req, ref)
    if b is None:
        return _render(req, "Not found", "<h1>Booking not found</h1>", 404)
    booked = b["status"] == "booked"
    head = "Booking confirmed" if booked else "Booking cancelled"
    cancel = _cancel_link(req, b) if booked else '<p id="cancelled">This booking was cancelled.</p>'
    body = f"""<h1 id="booking-title">{head}</h1><dl id="booking">
<dt>Reference</dt><dd id="booking-ref">{b["ref"]}</dd><dt>Event</dt><dd id="booking-event">{esc(b["event"])}</dd>
<dt>Date</dt><dd>{nice_date(b["date"])}</dd><dt>Tickets</dt><dd id="booking-tickets">{b["tickets"]} × {b["ticket_type"].title()}</dd>
<dt>Name</dt><dd>{esc(b["name"])}</dd><dt>Total</dt><dd id="booking-total">{euros(b["total"])}</dd></dl>
<p>{cancel}</p><p><a href="/events/bookings">{req.variant.word("en", "bookings", "My bookings")}</a></p>"""
    return _render(req, head, body)


def bookings_page(req: Request) -> Response:
    with req.store.edit(req.sid) as state:
        rows = [dict(b) for b in state["booking"]["bookings"]]
    notice = (
        '<p class="notice" id="notice" role="status">Booking cancelled.</p>'
        if req.arg("notice") == "cancelled"
        else ""
    )
    lines = "".join(
        f'<tr class="booking" data-ref="{b["ref"]}"><td>{b["ref"]}</td><td><a href="/events/booking/{b["ref"]}">{esc(b["event"])}</a></td>'
        f"<td>{nice_date(b['date'])}</td><td>{b['tickets']} × {b['ticket_type'].title()}</td><td>{euros(b['total'])}</td>"
        f'<td class="status">{"Booked" if b["status"] == "booked" else "Cancelled"}</td>'
        f"<td>{_cancel_link(req, b) if b['status'] == 'booked' else ''}</td></tr>"
        for b in rows
    )
    title = req.variant.word("en", "bookings", "My bookings")
    table = (
        f'<table id="bookings"><tbody>{lines}</tbody></table>'
        if rows
        else '<p id="no-bookings">No bookings yet.</p>'
    )
    return _render(req, title, f"<h1>{title}</h1>{notice}{table}")


def cancel_page(req: Request, ref: str) -> Response:
    b = _find(req, ref)
    if b is None or b["status"] != "booked":
        return redirect("/events/bookings")
    confirm = req.variant.word("en", "confirm_cancel", "Yes, cancel booking")
    body = f"""<h1 id="cancel-title">Cancel your booking for {esc(b["event"])}?</h1>
<p>{b["tickets"]} × {b["ticket_type"].title()} on {nice_date(b["date"])}, {euros(b["total"])}. The tickets are released.</p>
<form id="cancel-form" method="post" action="/events/booking/{ref}/cancel"><button id="confirm-cancel" type="submit">{confirm}</button>
<a id="keep-booking" href="/events/bookings">Keep booking</a></form>"""
    return _render(req, "Cancel booking", body)


def cancel(req: Request, ref: str) -> Response:
    with req.store.edit(req.sid) as state:
        for b in state["booking"]["bookings"]:
            if b["ref"] == ref:
                b["status"] = "cancelled"
    return redirect("/events/bookings?notice=cancelled")


def events_view(events: dict[str, Any]) -> dict[str, Any]:
    """The ``events`` part of ``GET /api/state``: bookings, searches, and ``active`` (the event ids booked)."""
    view = {k: v for k, v in events.items() if k != "next_ref"}
    view["active"] = [b["event_id"] for b in events["bookings"] if b["status"] == "booked"]
    return view
