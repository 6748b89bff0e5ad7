"""A ``done`` that claims success is checked against what the run can verify before the run reports it.

The checks read facts only: the counter a page shows for a cart ("Cart (3)" against "2 in the cart"), a
listing's own count and URL against a claim that the page shows "only" some items (the same 21 products at
the same address as when the run first saw it: nothing was filtered), and the answer's key facts (prices,
decimals, long numbers, quoted names) against the text of every page the run saw, what it read, and the task.
A claim the page contradicts is sent back once with the evidence (an ``unverified_claim`` error, no failed
step); a ``done`` that insists ends the run as unverified (``RunResult.verified`` False, never a plain
success). A claim that passes its checks is marked verified; one with nothing to check is left unjudged
(None). No check asks the model anything.
"""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import urlsplit

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.actions import Done
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo, Observation
from kite_browser.agent.policies.base import Notes, Policy, Proposed, Ran, StepView
from kite_browser.agent.policies.evidence import (
    counters,
    facts,
    holder_claims,
    listing_count,
    number_key,
    numbers_in,
    only_shown,
    page_text,
    squeeze,
)

UNVERIFIED = "unverified_claim"
"""The error type of a ``done`` sent back because the page contradicts its claim."""
VERIFIED = "verified"
VERIFICATION = "verification"
"""The keys of a ``done``'s result data that carry the verdict to the run's result (agent/run/output.py)."""
MAX_DERIVED = 2000
"""Numbers seen that the computed-number check combines (pairs: a set lookup each)."""
MAX_TEXT = 400_000
"""Characters of seen text kept for the quoted-name check (the numbers are kept apart, all of them)."""


class Claims(Policy):
    """Checks a claimed success against the pages and the run's effects; sends a contradicted claim back once."""

    name = "claims"
    reason = "A model's claim of success is not a result, and the page can contradict it."
    held_as = frozenset({UNVERIFIED})

    def __init__(self) -> None:
        self._numbers: set[str] = set()
        self._text: list[str] = []
        self._size = 0
        self._first: dict[str, tuple[str, int]] = {}
        """The address (without its query) of each listing the run saw -> (the full URL, its count) the first
        time it was seen."""
        self._sent_back = False
        self._verdict: tuple[bool | None, str] = (None, "")

    def notes(self, view: StepView) -> Notes:
        if view.step == 1 or not self._text:
            self._see(view.task)
        self._see(page_text(view.obs))
        count = listing_count(view.obs.summary.visible_text)
        if count is not None:
            self._first.setdefault(_place(view.obs.url), (view.obs.url, count))
        return Notes()

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        action = proposed.action
        if not isinstance(action, Done) or not action.success:
            return None
        self._see(page_text(proposed.obs))
        contradictions, checked = self.check(action.answer, proposed.obs)
        if not contradictions:
            self._verdict = (True if checked else None, "; ".join(checked))
            return None
        evidence = "; ".join(contradictions)
        if self._sent_back:  # it insists: the run ends, reported as unverified
            self._verdict = (False, evidence)
            return None
        self._sent_back = True
        message = (
            f"not accepted yet: {evidence}. Check the page: if the task is not done, go on; if it is, call done "
            "again with an answer the page bears out."
        )
        return ActionResult(action="done", ok=False, error=ErrorInfo(error=UNVERIFIED, message=message))

    def learn(self, ran: Ran) -> None:
        if isinstance(ran.action, Done):
            if ran.result.ok and ran.action.success:
                verified, why = self._verdict
                if verified is not None:  # nothing checked: the result says nothing of it
                    ran.result.data[VERIFIED], ran.result.data[VERIFICATION] = verified, why
            return
        if ran.result.ok:  # what it read, and a value set and read back from its field
            effects = ran.result.effects
            self._see(f"{ran.result.message}\n{ran.result.data.get('text', '')}\n{effects.value or ''}")

    def check(self, answer: str, obs: Observation) -> tuple[list[str], list[str]]:
        """(what the pages contradict, what they bear out) of ``answer`` on the final page ``obs``."""
        bad: list[str] = []
        good: list[str] = []
        shown = counters(page_text(obs))
        for claim in holder_claims(answer):
            if claim.holder not in shown:
                continue
            if shown[claim.holder] != claim.count:
                bad.append(
                    f'you said "{defuse(claim.said)}", the page shows {claim.holder} ({shown[claim.holder]})'
                )
            else:
                good.append(f"{claim.holder} ({claim.count}) shown")
        if (said := only_shown(answer)) is not None:
            count = listing_count(obs.summary.visible_text)
            first = self._first.get(_place(obs.url))
            if count is not None and count > 1 and first == (obs.url, count):
                bad.append(
                    f'you said "{defuse(said)}", the page lists {count} items at the same address, as it did '
                    "before anything was filtered"
                )
        self._facts(answer, bad, good)
        return bad, good

    def _facts(self, answer: str, bad: list[str], good: list[str]) -> None:
        """The answer's numbers and quoted names against everything the run saw. A number the run could
        have computed from two it saw (a sum, a difference, a multiple by 2 to 10) is neither."""
        seen = squeeze("\n".join(self._text))
        for fact in facts(answer):
            if fact[0].isdigit() or fact[0] in "$€£¥":
                key = number_key(fact)
                if key is None or (key not in self._numbers and self._derived(key)):
                    continue
                if key in self._numbers:
                    good.append(f"{fact} seen")
                else:
                    bad.append(f"{defuse(fact)} in your answer appears on no page this run saw")
            elif squeeze(fact) in seen:
                good.append(f'"{fact}" seen')
            else:
                bad.append(f'"{defuse(fact)}" in your answer appears on no page this run saw')

    def _derived(self, key: str) -> bool:
        """Whether ``key`` is a sum, a difference or a small multiple of numbers the run saw."""
        want = Decimal(key)
        seen = [Decimal(n) for n in sorted(self._numbers)[:MAX_DERIVED]]
        if any(want == n * k for n in seen for k in range(2, 11)):
            return True
        pool = set(seen)
        return any(want - n in pool or n - want in pool for n in seen)

    def _see(self, text: str) -> None:
        self._numbers |= numbers_in(text)
        if self._size < MAX_TEXT:
            self._text.append(text)
            self._size += len(text)


def _place(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
