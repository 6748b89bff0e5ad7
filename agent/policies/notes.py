"""The policies that only add lines to the prompt: hints from the task's words and the page, never enforced."""

from __future__ import annotations

from kite_browser.agent.browser.actions import OBSERVE_ONLY
from kite_browser.agent.policies.base import Notes, Policy, Ran, StepView
from kite_browser.agent.policies.loop_guard import said_no_effect
from kite_browser.agent.policies.recap import named_place, out_of_view, recap
from kite_browser.agent.policies.repeats import page_state


class Recap(Policy):
    """What earlier pages achieved, the task's parts that look done and next, what this page offers."""

    name = "recap"
    reason = "A small model that changed pages loses track of what it already did and what is left."

    def notes(self, view: StepView) -> Notes:
        return Notes(recap=recap(view.task, view.history, view.urls, view.obs, view.progress))


class AnswerNext(Policy):
    """Once only the answer looks left: a constrained model is asked alone, once per page, whether the page
    shows it (``Notes.question``, agent/run/ask_alone.py); after a step that only read or changed nothing, the
    prompt says to answer now. The question is a hint; only the model's own answer binds."""

    name = "answer_next"
    reason = "With the answer in view, a small model reads, scrolls and waits instead of calling done."

    def __init__(self) -> None:
        self._answer_left = False
        self._stalled = False
        self._asked: set[str] = set()
        """The pages (``page_state``) the question was asked on: at temperature 0 it would answer the same."""

    def notes(self, view: StepView) -> Notes:
        stalled, self._stalled = self._stalled, False
        self._answer_left = view.progress.answer_left
        if not self._answer_left:
            return Notes()
        notes = Notes(lines=[answer_now()] if stalled else [])
        if view.constrained and view.progress.next and (page := page_state(view.obs)) not in self._asked:
            self._asked.add(page)
            notes.question = view.progress.next
        return notes

    def learn(self, ran: Ran) -> None:
        if ran.last:
            self._stalled = self._answer_left and all(
                a.action in OBSERVE_ONLY or said_no_effect(r) for a, r in ran.ran
            )


def answer_now() -> str:
    """The hint when every part of the task but its answer looks done and a step only read, waited or
    changed nothing. It names the answer and ``done`` outright, because the plain loop warning ("do the next
    part of the task (another element), or call done") sends a small model looking for another element
    instead of answering from what it has read."""
    return (
        "Your last actions changed nothing, and every part of the task but the answer looks done: if what the "
        "task asks for is on this page or in the results above, call done now with the answer, taken from "
        "what you read (exact names, prices, numbers)."
    )


class OutOfView(Policy):
    """Names the elements below the fold whose names share words with the task."""

    name = "out_of_view"
    reason = "The page text lists what is outside the viewport only as a count, so a model never sees it."

    def notes(self, view: StepView) -> Notes:
        line = out_of_view(view.task, view.obs, view.history)
        return Notes(lines=[line] if line else [])


class NamedPlace(Policy):
    """Says to open the address the task names while the run has not been there."""

    name = "named_place"
    reason = "A small model told to go to an address acts on the page it is on instead."

    def notes(self, view: StepView) -> Notes:
        line = named_place(view.task, view.obs.url, view.urls.values())
        return Notes(lines=[line] if line else [])
