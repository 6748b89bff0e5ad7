"""What a page and a run show for sure, read to check a model's claim: the numbers a run saw, a page's counters
("Cart (3)", "21 products"), and the claims an answer makes that such facts can contradict (a count in the
cart, "only ... shown", a price, a quoted name). Plain functions over text: ``claims.py`` decides."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote_plus

from kite_browser.agent.browser.observation import Observation

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\d])")
_FACT = re.compile(
    r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|(?<![\w.])\d[\d,]*\.\d+(?!\d)|(?<![\w.,])\d{3,}(?!\d|[.,]\d)"
)
"""The answer's numbers worth checking: a price (a currency sign), a decimal, or a number of three digits or
more (an order number). A small whole number is often a count the model made itself, so it is not checked."""
_QUOTED = re.compile(r'"([^"]{3,80})"|“([^”]{3,80})”')
_COUNTER = re.compile(r"\b([A-Za-z][A-Za-z ]{1,20}?)\s*[(:]\s*(\d+)\s*\)?", re.UNICODE)
_LISTING = re.compile(r"\b(\d+)\s+(products?|results?|items?|matches|entries)\b", re.IGNORECASE)
_HOLDERS = ("cart", "basket", "bag", "trolley")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_N = r"(\d+|" + "|".join(_WORDS) + r")"
_IN_HOLDER = re.compile(
    _N + r"\s+(?:\w+\s+){0,3}?(?:(?:is|are|now)\s+)?in\s+(?:the|your|my)\s+(" + "|".join(_HOLDERS) + r")\b",
    re.IGNORECASE,
)
_HOLDER_HAS = re.compile(
    r"\b(" + "|".join(_HOLDERS) + r")\s+(?:count\s+)?(?:now\s+)?(?:has|holds|contains|shows|is|:)\s+" + _N,
    re.IGNORECASE,
)
_ONLY_SHOWN = re.compile(
    r"\bonly\b[^.;]{0,80}\b(?:shown|listed|displayed|visible|remain|left)\b"
    r"|\b(?:shows?|showing|lists?|listing|displays?|displaying|filtered)\b[^.;]{0,40}\bonly\b",
    re.IGNORECASE,
)


def number_key(text: str) -> str | None:
    """A number as the check compares it: no currency sign, no thousands commas, no trailing zeros
    ("$59.00" and "59" alike)."""
    raw = re.sub(r"[^\d.]", "", text.replace(",", ""))
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return None
    return format(value.normalize(), "f")


def numbers_in(text: str) -> set[str]:
    """Every number of ``text``, as ``number_key`` reads it."""
    return {k for m in _NUMBER.finditer(text) if (k := number_key(m.group(0))) is not None}


def page_text(obs: Observation) -> str:
    """A page's words as the run saw them: its address (the query decoded: what a search sent), its visible
    text, its elements' names and values."""
    names = " | ".join(f"{e.name} {e.value or ''}" for e in obs.elements)
    return f"{unquote_plus(obs.url)}\n{obs.summary.title}\n{obs.summary.visible_text}\n{names}"


def counters(text: str) -> dict[str, int]:
    """A page's holder counters by holder word: "Cart (3)", "Basket: 2" -> {"cart": 3}."""
    out: dict[str, int] = {}
    for m in _COUNTER.finditer(text):
        last = m.group(1).split()[-1].lower()
        if last in _HOLDERS and last not in out:
            out[last] = int(m.group(2))
    return out


def listing_count(text: str) -> int | None:
    """The count a listing says it shows ("21 products"), if the page says one."""
    m = _LISTING.search(text)
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class HolderClaim:
    said: str
    holder: str
    count: int


def holder_claims(answer: str) -> list[HolderClaim]:
    """The counts an answer says a cart (basket ...) holds: "2 in the cart", "the cart has 3 items"."""
    out = [HolderClaim(m.group(0), m.group(2).lower(), _int(m.group(1))) for m in _IN_HOLDER.finditer(answer)]
    out += [
        HolderClaim(m.group(0), m.group(1).lower(), _int(m.group(2))) for m in _HOLDER_HAS.finditer(answer)
    ]
    return out


def _int(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word.lower()]


def only_shown(answer: str) -> str | None:
    """The words of an answer that say the page shows only some items ("only black bags are shown")."""
    m = _ONLY_SHOWN.search(answer)
    return m.group(0) if m else None


def facts(answer: str) -> list[str]:
    """The key facts of an answer a page must show: its prices, decimals, long numbers and quoted names."""
    found = [m.group(0) for m in _FACT.finditer(answer)]
    return found + [q for m in _QUOTED.finditer(answer) if (q := m.group(1) or m.group(2))]


def squeeze(text: str) -> str:
    """``text`` lowercased with its runs of white space made one space (a quoted name found across lines)."""
    return " ".join(text.lower().split())
