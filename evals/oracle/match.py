"""Find elements of the observation by what a person would say: name, role, attributes.

A spec is a mapping: ``{name: "Add to cart", role: button, nth: 0}``. Names match case-insensitively, best
tier first: exact, then prefix, then substring (``exact: true`` keeps only exact matches). Other keys:
``role`` (a role word or a list), ``placeholder`` / ``href`` / ``type`` / ``value`` (substring),
``frame`` (true: inside any iframe; a string: that frame path; false: top document), ``checked`` (bool),
``new`` (bool), ``nth`` (which of the matches, default 0; negative counts from the end).

A name no element has is looked for again in other words a page may use for the same thing ("Add to cart" /
"Add to basket", "Log in" / "Sign in"), as a person reading the page would.
"""

from __future__ import annotations

import re
from typing import Any

from kite_browser.evals.oracle.view import El

SPEC_KEYS = frozenset(
    {"name", "role", "nth", "exact", "placeholder", "href", "type", "value", "frame", "checked", "new"}
)
ElementSpec = dict[str, Any] | str
"""A spec (keys of ``SPEC_KEYS``), or a bare string: a name."""


SYNONYMS = (
    ("cart", "basket"),
    ("proceed to checkout", "go to checkout"),
    ("log in", "sign in"),
    ("log out", "sign out"),
    ("compose", "new message"),
    ("reply", "respond"),
    ("star", "flag"),
    ("book now", "reserve now"),
    ("booking", "reservation"),
    ("bookings", "reservations"),
)
"""Words that say the same thing on a page (both ways)."""


def other_words(name: str) -> list[str]:
    """``name`` (normalised) said with each synonym of a word or phrase in it."""
    out = []
    for a, b in SYNONYMS:
        for old, new in ((a, b), (b, a)):
            pattern = rf"\b{re.escape(old)}\b"
            if re.search(pattern, name):
                out.append(re.sub(pattern, new, name))
    return out


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _attr_ok(el: El, spec: dict[str, Any]) -> bool:
    role = spec.get("role")
    if role is not None:
        roles = [role] if isinstance(role, str) else list(role)
        if el.role not in roles:
            return False
    for key in ("placeholder", "href", "type", "value"):
        want = spec.get(key)
        if want is not None and _norm(want) not in _norm(el.attrs.get(key, "")):
            return False
    frame = spec.get("frame")
    if (frame is True and el.frame is None) or (frame is False and el.frame is not None):
        return False
    if isinstance(frame, str) and el.frame != frame:
        return False
    if spec.get("checked") is not None and el.checked != bool(spec["checked"]):
        return False
    return not (spec.get("new") is not None and el.new != bool(spec["new"]))


def match_elements(elements: list[El], spec: dict[str, Any]) -> list[El]:
    """All matches of the best name tier, in list order (``nth`` is applied by ``pick``)."""
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise ValueError(f"unknown element spec key(s): {', '.join(sorted(unknown))}")
    candidates = [e for e in elements if _attr_ok(e, spec)]
    name = spec.get("name")
    if name is None:
        return candidates
    for want in (_norm(name), *other_words(_norm(name))):
        found = _by_name(candidates, want, exact=bool(spec.get("exact")))
        if found:
            return found
    return []


def _by_name(candidates: list[El], want: str, *, exact: bool) -> list[El]:
    tiers: list[list[El]] = [[], [], []]
    for el in candidates:
        have = _norm(el.label())
        if have == want:
            tiers[0].append(el)
        elif have.startswith(want):
            tiers[1].append(el)
        elif want in have:
            tiers[2].append(el)
    if exact:
        return tiers[0]
    return next((t for t in tiers if t), [])


def pick(elements: list[El], spec: ElementSpec) -> El | None:
    """The element a spec designates (a bare string is a name), or None."""
    if isinstance(spec, str):
        spec = {"name": spec}
    found = match_elements(elements, spec)
    nth = int(spec.get("nth", 0))
    if not found or nth >= len(found) or -nth > len(found):
        return None
    return found[nth]


def describe(spec: ElementSpec) -> str:
    if isinstance(spec, str):
        return f'"{spec}"'
    return " ".join(f"{k}={v!r}" for k, v in spec.items())
