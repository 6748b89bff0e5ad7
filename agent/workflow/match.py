"""Finding a step's target again: every candidate element's fingerprint scored against the recorded one.

The evidence, strongest first: the stable attributes (id, name, data-testid, href, label's ``for``) — equal
counts for, different counts against —, then role and accessible name, then the label, the nearest heading
and the neighbours' text, then the structural path. A candidate without any naming evidence (a stable
attribute, its name or its label) is not one. The best score wins; **two candidates with the same best
score are never guessed between** (``Ambiguous``), and no candidate is ``NotFound``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kite_browser.agent.browser.fingerprint import STABLE_ATTRS
from kite_browser.agent.browser.observation import Element, Fingerprint

ATTR_WEIGHT = 10.0
NAME_WEIGHT = 6.0
LABEL_WEIGHT = 3.0
HEADING_WEIGHT = 2.0
PATH_WEIGHT = 2.0
NEIGHBOUR_WEIGHT = 1.0
MAX_NEIGHBOURS = 3


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _attrs(want: Fingerprint, got: Fingerprint) -> tuple[float, bool]:
    """Score of the stable attributes, and whether one was equal."""
    score, hit = 0.0, False
    for key in STABLE_ATTRS:
        mine = want.attrs.get(key)
        if mine is None or key not in got.attrs:
            continue
        if got.attrs[key] == mine:
            score, hit = score + ATTR_WEIGHT, True
        else:
            score -= ATTR_WEIGHT
    return score, hit


def score(want: Fingerprint, got: Fingerprint) -> float | None:
    """How well ``got`` matches the recorded ``want``; None when it has nothing that names it as the one."""
    total, attr_hit = _attrs(want, got)
    name_hit = bool(_norm(want.name)) and _norm(want.name) == _norm(got.name)
    label_hit = bool(_norm(want.label)) and _norm(want.label) == _norm(got.label)
    if not (attr_hit or name_hit or label_hit):
        return None
    total += NAME_WEIGHT if name_hit else 0.0
    total += LABEL_WEIGHT if label_hit else 0.0
    total += 1.0 if want.role == got.role else 0.0
    total += 1.0 if want.tag == got.tag else -4.0
    if _norm(want.heading) and _norm(want.heading) == _norm(got.heading):
        total += HEADING_WEIGHT
    shared = {_norm(n) for n in want.neighbours} & {_norm(n) for n in got.neighbours}
    total += NEIGHBOUR_WEIGHT * min(len(shared), MAX_NEIGHBOURS)
    total += PATH_WEIGHT if want.path and want.path == got.path else 0.0
    total -= 6.0 if want.frame != got.frame else 0.0
    return total


def worth_a_look(want: Fingerprint, el: Element) -> bool:
    """A cheap look at an element of the list before its fingerprint is taken: same name, id, name
    attribute or href (the fingerprint then decides)."""
    attrs = el.attrs
    return (
        (bool(want.name) and _norm(want.name) == _norm(el.name))
        or any(attrs.get(k) == want.attrs.get(k) for k in ("id", "name") if want.attrs.get(k))
        or (bool(want.attrs.get("href")) and bool(el.href) and str(el.href).endswith(want.attrs["href"]))
        or (bool(want.label) and _norm(want.label) == _norm(el.name))
    )


@dataclass
class Scored:
    index: int
    score: float
    fingerprint: Fingerprint


@dataclass
class Found:
    best: Scored


@dataclass
class NotFound:
    looked_at: int


@dataclass
class Ambiguous:
    tied: list[Scored]


Match = Found | NotFound | Ambiguous


def pick(want: Fingerprint, candidates: list[tuple[int, Fingerprint]]) -> Match:
    """The one candidate that matches best, or why there is none."""
    scored = [Scored(i, s, fp) for i, fp in candidates if (s := score(want, fp)) is not None]
    if not scored:
        return NotFound(len(candidates))
    top = max(s.score for s in scored)
    best = [s for s in scored if s.score == top]
    if len(best) > 1:
        return Ambiguous(best)
    return Found(best[0])


def as_recorded(want: Fingerprint, match: Match) -> bool:
    """``match`` is one element with the very fingerprint recorded (every trait the same, its structural
    path and frame too): the page is where the recording was, whatever it still loads."""
    return isinstance(match, Found) and match.best.fingerprint == want


def looked_for(want: Fingerprint) -> str:
    """The fingerprint in a few words, for an error: ``button "Add to cart" (id=add)``."""
    attrs = ", ".join(f"{k}={v}" for k, v in want.attrs.items() if k in STABLE_ATTRS)
    name = want.name or want.label
    return f'{want.role or want.tag} "{name}"' + (f" ({attrs})" if attrs else "")
