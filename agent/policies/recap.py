"""A few lines for the prompt once the run has left a page: what the task achieved on the pages before, and
what the current page offers toward it.

A small model that changed pages lost its bearings: it copied its own earlier actions (indexes and all) or
started over. The recap names what was done by role and name, never by index (those elements are gone),
and points at the elements of the current page whose names share words with the task — plain word overlap,
nothing tuned to a task.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.actions import OBSERVE_ONLY
from kite_browser.agent.browser.observation import Element, Observation
from kite_browser.agent.browser.render import role_word
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.run.memory import describe_action

MAX_ACHIEVED = 6
MAX_OFFERS = 4
_WORD = re.compile(r"[^\W\d_]{3,}|\d+", re.UNICODE)
_STOP = frozenset(
    "the and for with its it's this that then than from into onto what which who how many much all any each "
    "one two are was were been be is of to in on at by as or an a me my your you our their there here please "
    "find tell show give get make report return answer page site task click type select press open go use "
    "about only also when where after before".split()
)
_REF = re.compile(r"\[#?\d+(?:,\d+)*\] ?")


def _stem(word: str) -> str:
    """``word`` lowercased, a plural folded (mugs, prices, boxes, categories)."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> set[str]:
    """The content words of ``text`` (lowercased, plural folded, no stop words)."""
    return {_stem(w) for w in _WORD.findall(text) if w.lower() not in _STOP}


@functools.lru_cache(maxsize=32)
def sought(task: str) -> tuple[str, ...]:
    """The task's words worth looking for outside the viewport (``out_of_view``): its content words of three
    letters or more, numbers of three digits or more, longest first (a page's text holds short ones by chance)."""
    return tuple(sorted((w for w in words(task) if len(w) >= 3), key=lambda w: (-len(w), w)))


def achieved(history: Sequence[PastAction], urls: Mapping[int, str], current_url: str) -> list[str]:
    """The actions that worked on pages other than the current one, by role and name (oldest first)."""
    done = [
        _REF.sub("", describe_action(p.action, p.element))
        for p in history
        if p.ok and p.name not in OBSERVE_ONLY and p.name != "done" and urls.get(p.step) != current_url
    ]
    if len(done) > MAX_ACHIEVED:
        done = [f"({len(done) - MAX_ACHIEVED} earlier)", *done[-MAX_ACHIEVED:]]
    return done


def _used(history: Sequence[PastAction]) -> set[tuple[str, str]]:
    """(role word, name) of every element an action of the run changed or clicked successfully."""
    return {
        (role_word(p.element), p.element.name)
        for p in history
        if p.ok and p.element is not None and p.name not in OBSERVE_ONLY
    }


def _covered(history: Sequence[PastAction]) -> set[str]:
    """The task words the run's successful actions already took care of: the names of the elements they acted
    on and the text they typed or chose."""
    out: set[str] = set()
    for p in history:
        if p.ok and p.name not in OBSERVE_ONLY and p.name != "done":
            said = " ".join(str(p.action.get(k, "")) for k in ("text", "value"))
            out |= words(f"{p.element.name if p.element is not None else ''} {said}")
    return out


def _typed(history: Sequence[PastAction]) -> set[str]:
    """The words of the text the run's successful actions typed or chose (values given, not places to go)."""
    said = " ".join(
        str(p.action.get(k, ""))
        for p in history
        if p.ok and p.name in ("type", "select")
        for k in ("text", "value")
    )
    return words(said)


def _where(url: str) -> str:
    """A URL as a place: its path and query (an element's href is written origin-relative)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


_PLACE = re.compile(r"https?://[^\s\"'<>]+|(?<![\w/.:])/[\w\-./]*[\w\-/]")
"""A URL, or a path that starts with / (not "and/or", not "12/05")."""


def named_place(task: str, url: str, visited: Iterable[str] = ()) -> str | None:
    """A line saying to open the address the task names (a URL, or a path such as /shop/cart) while the run
    has not been there, because a small model told to go to an address tends to act on the page it is on and
    take it for the one named."""

    def place(u: str) -> tuple[str, str, str]:
        parts = urlsplit(u)
        return parts.netloc, parts.path.rstrip("/"), parts.query

    been = {place(u) for u in (*visited, url)}
    for m in _PLACE.finditer(task):
        named = m.group(0).rstrip(".,;:!?)")
        if place(urljoin(url, named)) not in been:
            return (
                f"The task names the address {named}, and this page is {_where(url)}: open it with navigate."
            )
    return None


def offers(
    task: str, obs: Observation, history: Sequence[PastAction] = (), visited: Iterable[str] = ()
) -> list[Element]:
    """The current page's elements whose names share the most words with the task (page order among equals),
    leaving out those the run already used, because a model offered an action it has already done (an "Add to
    cart" that worked) does it again. What is done is in ``achieved``; this says what the page offers that is
    not done yet. Links back to a page the run has already been on are left out too, since an offered link
    back to the start page draws the model away from the step forward. A link is not offered for words the
    run only typed (the login email names the shop's home link too), and a field or a button is offered only
    for a task word that no successful action has covered yet, so that a control named after what the run
    has already searched, opened and added (a cart line's quantity) does not draw the model into changing
    it step after step."""
    wanted = words(task)
    fresh = wanted - _covered(history)
    typed = _typed(history)
    used = _used(history)
    been = {_where(url) for url in (*visited, obs.url)}
    scored = []
    for pos, el in enumerate(obs.elements):
        if (role_word(el), el.name) in used or (el.href and _where(urljoin(obs.url, el.href)) in been):
            continue
        named = wanted & words(f"{el.name} {el.placeholder or ''}")
        hits = len(named)
        # ranked by every task word it names; a field or button only for a word not yet taken care of (a link
        # to a page not yet seen is a step forward whatever it names: "View cart" after "Add to cart")
        if named and ((el.href and named - typed) or named & fresh):
            scored.append((-hits, pos, el))
    return [el for _, _, el in sorted(scored, key=lambda t: (t[0], t[1]))[:MAX_OFFERS]]


_SPLIT = re.compile(
    r"\s*(?:[,;，；。]|\.\s|(?:\band\s+)?\bthen\b)\s*(?:and\s+)?(?:then\s+|然后)?", re.IGNORECASE
)
_AND = re.compile(r"\s+and\s+(?=(?:then\s+)?(\w+))", re.IGNORECASE)
_VERBS = frozenset(
    "add open report tell click go put type enter select choose press search find read return say give check "
    "submit log sign fill remove delete buy sort filter view show list write send save download upload visit "
    "navigate scroll set pick mark answer count compare look book order pay apply close accept subscribe "
    "unsubscribe register dismiss refresh reload drag drop hover switch wait try create change update edit "
    "rename share follow reply copy move print cancel confirm expand collapse increment decrement".split()
)
_ASKS = frozenset(
    "report tell say answer return give state name what which how who when where why show list".split()
)
"""A part that starts so asks the user to be told something ("show the results"): it is done by answering,
not by acting on the page, which a small model with the results in view otherwise goes on doing."""
_ASKS_ZH = ("报告", "告诉", "回答", "说出", "给出", "列出", "显示")


def asks_answer(part: str) -> bool:
    """Whether a part of the task asks for an answer (report, tell, what ...) rather than an action on the
    page: such a part is done by ``done`` with the answer, and the recap says so because a small model left
    with only an answer to give tends to keep reading the page instead of giving it."""
    first = part.split(maxsplit=1)[0].lower() if part.split() else ""
    return first in _ASKS or part.startswith(_ASKS_ZH)


def _chunks(text: str) -> list[str]:
    """``text`` cut at ``_SPLIT``, except at a plain comma that no verb follows: a list's comma ("Add milk,
    eggs and bread to the cart", "a hotel in Paris, London or Rome") starts no instruction."""
    out, start = [""], 0
    for m in _SPLIT.finditer(text):
        after = text[m.end() :].split(maxsplit=1)
        out[-1] += text[start : m.start()]
        listed = m.group(0).strip() == "," and not (after and after[0].lower().strip(",.") in _VERBS)
        if listed:
            out[-1] += m.group(0)
        else:
            out.append("")
        start = m.end()
    out[-1] += text[start:]
    return out


def task_parts(task: str) -> list[str]:
    """The task cut where a new instruction starts: at semicolons, sentence ends and "then", at a comma a verb
    follows, and at "and" when a verb follows it ("open the cart and report what it holds", not "blue and red
    mugs"). A guess from the words, for the prompt's hints only. Quoted
    text and text in brackets are never cut. Chinese is cut at its commas, semicolons and full stops ("然后" dropped); "and" is read
    in English only."""
    quoted: list[str] = []

    def hide(m: re.Match[str]) -> str:
        quoted.append(m.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    text = re.sub(r'"[^"]*"|“[^”]*”|\'[^\']*\'|\([^()]*\)|（[^（）]*）', hide, task.strip().rstrip(".。"))
    pieces: list[str] = []
    for chunk in _chunks(text):
        start = 0
        for m in _AND.finditer(chunk):
            if m.group(1).lower() in _VERBS:
                pieces.append(chunk[start : m.start()])
                start = m.end()
        pieces.append(chunk[start:])
    restore = re.compile(r"\x00(\d+)\x00")
    return [restore.sub(lambda m: quoted[int(m.group(1))], p).strip() for p in pieces if p.strip()]


def _action_words(p: PastAction) -> set[str]:
    said = " ".join(str(p.action.get(k, "")) for k in ("text", "value", "url"))
    return words(f"{p.name} {p.element.name if p.element is not None else ''} {said}")


def _sends(p: PastAction) -> bool:
    """A click or an Enter: what sends what the actions before it filled in."""
    return p.name == "click" or (p.name == "pressKey" and p.action.get("key") == "Enter")


class Progress(NamedTuple):
    """The task's parts that look done and the part that looks next: a guess from the task's words, said in
    the prompt as a hint and never enforced (no offer is withheld for it)."""

    done: list[str]
    next: str | None

    @property
    def answer_left(self) -> bool:
        """Every part but one that asks for an answer looks done."""
        return self.next is not None and asks_answer(self.next)


def progress(task: str, history: Sequence[PastAction]) -> Progress:
    """The task's parts the run's successful actions have done, in order, and the part that comes next.

    A part is done by the first later action whose element name, or the text it typed, chose or opened, holds
    at least half of the part's content words (type "espresso" into "Search" does "Search the shop for
    "espresso""; a click on "Add to cart" does "add it to the cart"). Parts are matched in order and the
    matching stops at the first part not done, or with no content word to judge it by: nothing after it is
    claimed. The parts are named because a list of the actions done does not tell a small model which part
    of the task is left, and with the answer in view it goes back to parts already done.
    """
    parts = task_parts(task)
    if len(parts) < 2:
        return Progress([], None)
    done = _done_parts(parts, history)
    if not done:
        return Progress([], None)
    return Progress(done, parts[len(done)] if len(done) < len(parts) else None)


def _done_parts(parts: Sequence[str], history: Sequence[PastAction]) -> list[str]:
    """The leading parts the run's successful actions have done, in order (``progress``)."""
    ok = [p for p in history if p.ok and p.name not in OBSERVE_ONLY and p.name != "done"]
    acts, sends = [_action_words(p) for p in ok], [_sends(p) for p in ok]
    done: list[str] = []
    at = 0
    for part in parts:
        wanted = words(part)
        if not wanted:
            break
        hit = _hit(wanted, acts, sends, at, _verb(part, wanted))
        if hit is None:
            break
        done.append(part)
        at = hit + 1
    return done


def looks_complete(task: str, history: Sequence[PastAction]) -> bool:
    """Whether the run's actions look to have done every part of the task, a one-part task too, and no part
    asks for an answer (a guess from the task's words: a hint, never enforced)."""
    parts = task_parts(task)
    if not parts or any(asks_answer(p) for p in parts):
        return False
    return len(_done_parts(parts, history)) == len(parts)


_NAMED_VERBS = frozenset(
    "add remove delete buy subscribe unsubscribe book order pay cancel reply send save submit upload download "
    "confirm accept share follow create rename print".split()
)
"""Verbs a control that does them carries in its name (Add to cart, Delete, Subscribe, Reply ...)."""


def _verb(part: str, wanted: set[str]) -> str | None:
    """The part's leading verb when it is one a control names (``_NAMED_VERBS``): the action that does the
    part must name it too, so a click on the link "Cart (0)" does not "add it to the cart"."""
    first = words(part.split(maxsplit=1)[0]) if part.split() else set()
    return next(iter(first & wanted & _NAMED_VERBS), None)


def _hit(
    wanted: set[str], acts: list[set[str]], sends: list[bool], at: int, verb: str | None = None
) -> int | None:
    """The first action from ``at`` that does a part asking for ``wanted``: one that names at least half of
    its words, or a click or Enter that sends what the actions since ``at`` named, together, at least half of:
    a login part ("log in as ... with the wrong password") is done by the email, the password and the click
    between them, none of which names half of it alone, and a run never told the login was tried tries it
    again instead of reporting what it led to."""
    seen: set[str] = set()
    for i in range(at, len(acts)):
        seen |= wanted & acts[i]
        if verb is not None and verb not in seen:
            continue
        if 2 * len(wanted & acts[i]) >= len(wanted) or (sends[i] and 2 * len(seen) >= len(wanted)):
            return i
    return None


def answer_next(task: str, history: Sequence[PastAction]) -> bool:
    """Whether the run looks to have done every part of the task before one that asks for an answer."""
    return progress(task, history).answer_left


def recap(
    task: str,
    history: Sequence[PastAction],
    urls: Mapping[int, str],
    obs: Observation,
    done: Progress | None = None,
) -> dict[str, list[str]]:
    """``done``: what worked on earlier pages; ``parts``: the task's parts done so far and ``next`` the part
    that comes next (see ``progress``), ``all_done`` when every part is, also in ``answer`` when it asks for an
    answer (``asks_answer``); ``offers``: this page's elements named like the task. ``done`` and ``offers``
    stay empty while the run has not left a page (the steps shown say it all); the parts are said on the first
    page too, since a task done on one page (open a modal, then subscribe in it) otherwise starts over once
    it is done. Page words in them are defused (they stand outside the page's fence, as the history's element
    names do)."""
    parts, nxt = done if done is not None else progress(task, history)
    said = {
        "parts": parts,
        "next": [nxt] if nxt else [],
        "all_done": ["yes"] if parts and nxt is None else [],
        "answer": [nxt] if nxt and asks_answer(nxt) else [],
    }
    if all(url == obs.url for url in urls.values()):
        return {"done": [], **said, "offers": []}
    return {
        "done": [defuse(line) for line in achieved(history, urls, obs.url)],
        **said,
        # no offers when what is left is an answer: it is on this page, and elements named like the task
        # would draw the model into acting on them instead of answering
        "offers": []
        if nxt and asks_answer(nxt)
        else [
            defuse(f'[{e.index}] {role_word(e)} "{e.name[:50]}"')
            for e in offers(task, obs, history, visited=urls.values())
        ],
    }


def out_of_view(task: str, obs: Observation, history: Sequence[PastAction] = ()) -> str | None:
    """A line naming the elements outside the viewport whose names share words with the task (``offers``),
    which the page text lists only as "N more below": a model that sees only what is in view tries the
    visible elements one after another and never reaches the one the task names below the fold."""
    hidden = [e for e in obs.elements if not e.in_viewport]
    if not hidden:
        return None
    found = offers(task, obs.model_copy(update={"elements": hidden}), history)[:3]
    if not found:
        return None
    listed = "; ".join(f'[{e.index}] {role_word(e)} "{e.name[:50]}"' for e in found)
    return f"Out of view, named like the task: {listed}. Act on it by its index (Kite scrolls to it)."
