"""The events of Kite Events (/events/) and the booking every visitor starts with.

Ids, titles, dates and prices are stable (evals/suites/events.yaml relies on them; README.md lists them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CITIES = ["Berlin", "Lisbon", "London", "Paris"]
CATEGORIES = ["concert", "theatre", "talk", "sport", "festival"]
PREMIUM = 1.5
"""A Premium ticket costs this many Standard ones."""
USER_NAME = "Sam Taylor"
USER_EMAIL = "sam@kite.test"


@dataclass(frozen=True)
class Event:
    id: str
    title: str
    category: str
    city: str
    venue: str
    date: str
    """ISO date, 2026."""
    price: float
    """A Standard ticket in euros."""
    seats: int
    """Seats left (0: sold out)."""


EVENTS = [
    Event(
        "jazz-night-berlin",
        "Jazz Night at Quasimodo",
        "concert",
        "Berlin",
        "Quasimodo",
        "2026-04-11",
        35.0,
        40,
    ),
    Event(
        "berlin-philharmonic",
        "Berlin Philharmonic: Brahms",
        "concert",
        "Berlin",
        "Philharmonie",
        "2026-05-02",
        89.0,
        120,
    ),
    Event("lisbon-fado", "Fado in Alfama", "concert", "Lisbon", "Casa de Fado", "2026-04-18", 25.0, 30),
    Event(
        "lisbon-web-builders", "Web Builders Meetup", "talk", "Lisbon", "LX Factory", "2026-05-06", 0.0, 80
    ),
    Event(
        "london-hamlet",
        "Hamlet at the Globe",
        "theatre",
        "London",
        "Shakespeare's Globe",
        "2026-04-23",
        48.0,
        60,
    ),
    Event(
        "london-marathon",
        "London Marathon Grandstand",
        "sport",
        "London",
        "The Mall",
        "2026-04-26",
        60.0,
        200,
    ),
    Event(
        "london-ai-talk", "AI Agents in Practice", "talk", "London", "The Barbican", "2026-05-14", 15.0, 90
    ),
    Event(
        "paris-jazz",
        "Paris Jazz Club: Trio Lumiere",
        "concert",
        "Paris",
        "Le Duc des Lombards",
        "2026-04-09",
        30.0,
        25,
    ),
    Event(
        "paris-traviata",
        "La Traviata at the Opera",
        "theatre",
        "Paris",
        "Opera Bastille",
        "2026-06-05",
        120.0,
        150,
    ),
    Event(
        "paris-food-festival",
        "Paris Food Festival",
        "festival",
        "Paris",
        "Parc de la Villette",
        "2026-05-23",
        18.0,
        500,
    ),
    Event(
        "berlin-techno", "Techno Open Air", "festival", "Berlin", "Tempelhof Field", "2026-06-20", 55.0, 900
    ),
    Event("berlin-football", "Hertha vs Union", "sport", "Berlin", "Olympiastadion", "2026-04-04", 42.0, 300),
    Event(
        "lisbon-tempest",
        "The Tempest (in English)",
        "theatre",
        "Lisbon",
        "Teatro Tivoli",
        "2026-05-29",
        22.0,
        70,
    ),
    Event(
        "london-comedy", "Comedy Night at the Hive", "theatre", "London", "The Hive", "2026-04-16", 12.5, 45
    ),
    Event(
        "paris-half-marathon",
        "Paris Half Marathon Expo",
        "sport",
        "Paris",
        "Porte de Versailles",
        "2026-04-02",
        10.0,
        400,
    ),
    Event(
        "lisbon-surf",
        "Lisbon Surf Festival",
        "festival",
        "Lisbon",
        "Carcavelos Beach",
        "2026-06-13",
        28.0,
        350,
    ),
    Event(
        "berlin-design-talk",
        "Design Systems Berlin",
        "talk",
        "Berlin",
        "Kulturbrauerei",
        "2026-04-28",
        20.0,
        100,
    ),
    Event(
        "london-proms",
        "Summer Proms Preview",
        "concert",
        "London",
        "Royal Albert Hall",
        "2026-06-27",
        38.0,
        210,
    ),
    Event(
        "paris-photo-talk",
        "Photography Talk: Paris at Night",
        "talk",
        "Paris",
        "Maison de la Photo",
        "2026-05-09",
        8.0,
        40,
    ),
    Event(
        "london-late-jazz", "Ronnie's Late Jazz", "concert", "London", "Ronnie Scott's", "2026-05-16", 27.0, 0
    ),
]
BY_ID = {e.id: e for e in EVENTS}


def fresh_events() -> dict[str, Any]:
    """A new visitor's bookings: one already made (two tickets for Hertha vs Union), nothing searched."""
    game = BY_ID["berlin-football"]
    booking = {
        "ref": "EV-1000",
        "event_id": game.id,
        "event": game.title,
        "date": game.date,
        "tickets": 2,
        "ticket_type": "standard",
        "name": USER_NAME,
        "email": USER_EMAIL,
        "total": 84.0,
        "status": "booked",
    }
    return {"bookings": [booking], "searches": [], "next_ref": 1000}
