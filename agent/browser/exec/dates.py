"""A date or time as people write it, in the value format of a date/time input.

``<input type=date>`` takes only ``2010-05-20``, ``type=time`` only ``21:37``: what a task or a model writes
("05/20/2010", "May 20, 2010", "9:37 PM") is refused by the input as it is, and a model that retypes it
fails step after step. ``type`` sets the value as written when the input takes it, else the same date in the
input's own format (this module).
"""

from __future__ import annotations

from datetime import datetime

from dateutil import parser

_A = datetime(2001, 1, 1, 0, 0, 0)
_B = datetime(2002, 2, 2, 1, 1, 1)
"""Two defaults: a part that comes out different under each was not written."""


def input_value(kind: str, text: str) -> str | None:
    """``text`` in the value format of an ``<input type=kind>`` (date, time, datetime-local, month, week), or
    None when it does not hold what that input needs (a time for a date input, a word that is no date).
    Ambiguous day/month orders read month first unless the first number cannot be a month (13/05/2010)."""
    try:
        a = parser.parse(text, default=_A)
        b = parser.parse(text, default=_B)
    except (ValueError, OverflowError):
        return None
    has_date = a.year == b.year and a.month == b.month
    has_day = has_date and a.day == b.day
    has_time = a.hour == b.hour
    if kind == "date" and has_day:
        return a.strftime("%Y-%m-%d")
    if kind == "month" and has_date:
        return a.strftime("%Y-%m")
    if kind == "week" and has_day:
        year, week, _ = a.isocalendar()
        return f"{year:04d}-W{week:02d}"
    if kind == "time" and has_time:
        return _clock(a)
    if kind == "datetime-local" and has_day:
        return f"{a.strftime('%Y-%m-%d')}T{_clock(a)}"
    return None


def input_format(kind: str) -> str:
    """The form an input of this kind takes, for a refusal's message."""
    return {
        "date": "YYYY-MM-DD",
        "time": "HH:MM (24-hour)",
        "datetime-local": "YYYY-MM-DDTHH:MM",
        "month": "YYYY-MM",
        "week": "YYYY-Www",
    }.get(kind, "its own format")


def _clock(t: datetime) -> str:
    return t.strftime("%H:%M:%S") if t.second else t.strftime("%H:%M")
