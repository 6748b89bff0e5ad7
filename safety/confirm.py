"""Asking the user: the Confirmer protocol, its terminal / batch / callback implementations, and the Gate that
applies the policy's decisions (the only place that does)."""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import Callable, Iterable
from typing import Literal, Protocol, TextIO, runtime_checkable
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.actions import ACTION_NAMES, Action
from kite_browser.agent.browser.observation import Element, Handled, Observation
from kite_browser.agent.browser.render import role_word
from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.domains import DomainPolicy
from kite_browser.safety.handover import HandBack, HandOverRequest
from kite_browser.safety.policy import ConfirmLevel, Decision, SafetyPolicy

log = logging.getLogger(__name__)


class ConfirmRequest(BaseModel):
    action: JsonObject
    """The action's JSON form (as the model wrote it: secrets are placeholders)."""
    decision: Decision
    element: Element | None = None
    url: str = ""

    def called(self) -> str:
        """What the person asked for, by its own name: the tool of a tool call (``chrome_evaluate``), else the
        action (``click``). A tool call is judged as the action it amounts to, but nobody called that."""
        return str(self.action.get("tool") or self.action.get("action"))

    def why(self, name: str | None = None) -> list[str]:
        """The policy's reasons naming the call as it was made (``name``: the caller's word for it, default
        ``called()``): a reason about ``executeJS`` reads ``chrome_evaluate`` when that tool asked."""
        name = name or self.called()
        action = str(self.action.get("action") or "")
        reasons = self.decision.reasons
        if not action or name == action:
            return list(reasons)
        return [re.sub(rf"\b{re.escape(action)}\b", name, r) for r in reasons]

    def call(self) -> JsonObject:
        """The call as the person asked it, in an action's JSON form: the tool's name in place of the action it
        was judged as (``{"action": "chrome_evaluate", "code": ...}``); an agent's action as it is."""
        tool = self.action.get("tool")
        if not tool:
            return dict(self.action)
        return {"action": tool, **{k: v for k, v in self.action.items() if k not in ("action", "tool")}}

    def describe(self) -> str:
        target = f' on "{self.element.name}"' if self.element is not None and self.element.name else ""
        why = "; ".join(self.why()) or self.decision.level.value
        return f"{self.called()}{target} at {self.url or '(no page)'}: {why}"

    def target_text(self) -> str:
        """The action's target as the page shows it (plain text): ``[6] button "Place order"``, the page's own
        dialog, ``(no element: <selector or URL>)``, or "" when the action names none (``executeJS``, a tool
        call): the confirmation then shows no target rather than an empty one."""
        if self.action.get("action") == "dialog":  # the page's own confirm()/prompt()/beforeunload
            return f'the page\'s {self.action.get("type")} dialog "{self.action.get("message")}"'
        if self.action.get("action") == "request":  # a state-changing request the network layer held
            return f"the page's {self.action.get('method')} request to {self.action.get('url')}"
        el = self.element
        if el is None:
            named = self.action.get("selector") or self.action.get("url")
            return f"(no element: {named})" if named else ""
        extra = f" type={el.type}" if el.type else ""
        return f'[{el.index}] {role_word(el)} "{el.name}"{extra}'


class ConfirmAnswer(BaseModel):
    approved: bool
    similar: bool = False
    """Also approve similar actions (same action, element and domain) for the rest of the run."""
    reason: str = ""
    unattended: bool = False
    """Nobody was asked (nobody could be): ``reason`` says why, and how to allow such actions."""

    def refusal(self) -> str:
        """How a refusal reads: who said no (the user, or nobody was there to ask) and why."""
        who = "not confirmed" if self.unattended else "the user declined"
        return f"{who}: {self.reason or 'no reason given'}"


@runtime_checkable
class Confirmer(Protocol):
    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer: ...

    async def notify(self, request: ConfirmRequest) -> None: ...


class TerminalConfirmer:
    """Asks on the terminal: y = yes, n = no, a = yes to similar actions for this run. EOF = deny.
    stdin is read in a worker thread so the event loop keeps running."""

    def __init__(self, read_line: Callable[[], str] | None = None, out: TextIO | None = None) -> None:
        self._read = read_line or sys.stdin.readline
        self._out = out or sys.stderr

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self._out.write(f"\n[kite] confirm: {request.describe()}\n")
        for _ in range(5):
            self._out.write("[kite] allow? [y]es / [n]o / [a]lways for similar actions this run: ")
            self._out.flush()
            line = await asyncio.to_thread(self._read)
            if line == "":
                return ConfirmAnswer(approved=False, reason="no answer (end of input)")
            answer = line.strip().lower()
            if answer in ("y", "yes"):
                return ConfirmAnswer(approved=True)
            if answer in ("a", "always"):
                return ConfirmAnswer(approved=True, similar=True)
            if answer in ("n", "no"):
                return ConfirmAnswer(approved=False, reason="the user said no")
        return ConfirmAnswer(approved=False, reason="no valid answer")

    async def hand_over(self, request: HandOverRequest) -> HandBack:
        """The question, then Enter when the person is done (n, or end of input, when they cannot)."""
        self._out.write(f"\n[kite] a person is needed: {request.describe()}\n")
        self._out.write(
            "[kite] the browser is yours (run with --headed to see it); press Enter when done, n if not: "
        )
        self._out.flush()
        line = await asyncio.to_thread(self._read)
        if line == "" or line.strip().lower() in ("n", "no"):
            return HandBack(
                done=False, reason="no answer (end of input)" if line == "" else "the person could not"
            )
        return HandBack(done=True)

    async def notify(self, request: ConfirmRequest) -> None:
        self._out.write(f"[kite] note: {request.describe()}\n")
        self._out.flush()


def check_approvals(approve: Iterable[str]) -> frozenset[str]:
    """``--approve`` / ``safety.approve`` as a set; a UsageError for ``block`` or a name that is neither a
    level nor an action (a typo would otherwise approve nothing, silently)."""
    approved = frozenset(approve)
    for item in approved:
        if item == ConfirmLevel.BLOCK:
            raise UsageError("'block' cannot be approved: blocked actions never run")
        if item not in ACTION_NAMES and item not in (
            ConfirmLevel.CONFIRM,
            ConfirmLevel.NOTIFY,
            ConfirmLevel.AUTO,
        ):
            raise UsageError(f"--approve: {item!r} is neither a level (confirm) nor an action name")
    return approved


BY_FLAG = "--approve {}"
"""How a command's user allows what nobody could confirm (``{}``: the level, or the action's name)."""
BY_TASK = "--approve {0} (or the task's approve: [{0}])"
"""The same in a batch or eval run, where a task may approve for itself."""
BY_CONFIG = "safety.approve: [{}]"
NO_CONFIRMER = "nobody could be asked (no confirmer was given)"
"""Why nobody was asked when a face was given no confirmer at all (a Toolbox, an environment in code)."""
"""The same for Python callers (Toolbox, Agent) that gave no confirmer: the config's setting."""


class BatchConfirmer:
    """Non-interactive: confirm is denied unless ``approve`` names the level ("confirm") or the action name.
    Every question and notification is recorded (``asked``, ``notified``).

    A denial says what is true where it happens: ``nobody`` why no one was asked ("nobody is asked in a batch
    run", "nobody could be asked (stdin is not a terminal)"), ``allow`` how to allow it (a template filled
    with the level, then with the action's name: ``--approve confirm or --approve click``)."""

    def __init__(
        self,
        approve: Iterable[str] = (),
        *,
        nobody: str = "nobody is asked in a batch run",
        allow: str = BY_FLAG,
    ) -> None:
        self.approve = check_approvals(approve)
        self.nobody, self.allow = nobody, allow
        self.asked: list[tuple[ConfirmRequest, ConfirmAnswer]] = []
        self.notified: list[ConfirmRequest] = []

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        name = str(request.action.get("action"))
        level = request.decision.level.value
        if level in self.approve or name in self.approve:
            answer = ConfirmAnswer(approved=True, reason=f"approved in advance ({name}, {level})")
        else:
            ways = [level, *([name] if name in ACTION_NAMES else [])]
            how = " or ".join(self.allow.format(way) for way in ways)
            answer = ConfirmAnswer(
                approved=False, unattended=True, reason=f"{self.nobody}; to allow it: {how}"
            )
        self.asked.append((request, answer))
        return answer

    async def notify(self, request: ConfirmRequest) -> None:
        self.notified.append(request)


class GateResult(BaseModel):
    allowed: bool
    decision: Decision
    answer: ConfirmAnswer | None = None
    message: str = ""
    """For a refused action: the text shown to the model as the action's result."""
    similar: bool = Field(False, description="Allowed because the user approved similar actions earlier.")

    @property
    def refused(self) -> Literal["blocked", "declined"] | None:
        """How a refused action's error is named: ``blocked`` by the policy, or ``declined`` (nobody approved
        it); None when it may run. Every face names a refusal by this."""
        if self.allowed:
            return None
        return "blocked" if self.decision.level is ConfirmLevel.BLOCK else "declined"


def rejudge(
    policy: SafetyPolicy, action: Action, observation: Observation | None, before: Decision, fresh: Element
) -> ConfirmRequest | None:
    """A second look at the target of an allowed action, as it reads right before the input lands (the page
    may have relabelled it or pointed its form elsewhere since the snapshot): judged again in the same
    observation with ``fresh`` in its place. Returns what to apply when it is stricter than ``before`` (or
    another reason to confirm than the one approved), else None."""
    if observation is None:
        return None
    elements = [fresh if e.index == fresh.index else e for e in observation.elements]
    if all(e is not fresh for e in elements):
        elements.append(fresh)
    obs = observation.model_copy(update={"elements": elements})
    if policy.target(action, obs) is not fresh and "index" in type(action).model_fields:
        action = action.model_copy(update={"index": fresh.index, "selector": None})  # judged on fresh
    decision = policy.evaluate(action, obs)
    stricter = decision.level.rank > before.level.rank
    if not stricter and not (decision.level is ConfirmLevel.CONFIRM and decision.reasons != before.reasons):
        return None
    note = (
        f"the target changed after the snapshot: it now reads {fresh.name!r} ({'; '.join(decision.reasons)})"
    )
    return ConfirmRequest(
        action=action.to_json(),
        decision=decision.model_copy(update={"reasons": [note]}),
        element=fresh,
        url=observation.summary.url,
    )


class Gate:
    """Applies decisions: auto runs, notify runs and tells the user (without waiting), confirm asks,
    block never runs. Remembers 'approve similar' for the run (action + element name + domain).

    The one gate of every face: the agent's actions and every tool call (a module maps a call to the browser
    action it amounts to, or declares a level: ``check_level``; ``agent/modules/gate.py`` turns a refusal
    into the tool's typed error). ``confirmer`` is who is asked by default; a call may bring its own."""

    def __init__(self, policy: SafetyPolicy, confirmer: Confirmer) -> None:
        self.policy = policy
        self.confirmer = confirmer
        self._similar: set[tuple[str, str, str]] = set()
        self._pending: set[asyncio.Task[None]] = set()

    @classmethod
    def from_config(
        cls, safety: SafetyConfig, confirmer: Confirmer | None = None, secret_names: Iterable[str] = ()
    ) -> Gate:
        """The policy of ``safety`` (config/safety.yaml + the user's rules) and ``confirmer`` (default: the
        ``approve`` list decides and a refusal says that nobody was given to ask)."""
        policy = SafetyPolicy.from_config(safety, secret_names=list(secret_names))
        return cls(policy, confirmer or BatchConfirmer(safety.approve, nobody=NO_CONFIRMER, allow=BY_CONFIG))

    @property
    def domains(self) -> DomainPolicy:
        """The policy's allowed/blocked domains (also enforced on the network of every context)."""
        return self.policy.domains

    @staticmethod
    def similar_key(request: ConfirmRequest) -> tuple[str, str, str]:
        name = request.element.name if request.element is not None else ""
        return (str(request.action.get("action")), name, (urlsplit(request.url).hostname or "").lower())

    async def _ask(self, request: ConfirmRequest, confirmer: Confirmer | None) -> ConfirmAnswer:
        """The confirmer's answer; a confirmer that fails refuses, it never lets the action through."""
        try:
            return await (confirmer or self.confirmer).confirm(request)
        except Exception as exc:
            log.warning("confirmer failed: %s", exc)
            return ConfirmAnswer(approved=False, reason=f"the confirmer failed: {exc}")

    async def check(
        self,
        action: Action,
        observation: Observation | None,
        confirmer: Confirmer | None = None,
        *,
        about: JsonObject | None = None,
        url: str = "",
    ) -> GateResult:
        """Judge ``action`` on ``observation`` and apply the decision. ``confirmer``: who is asked this time
        (a face whose callers each bring their own); default the gate's. ``about``: what the person asked
        is also shown (the tool and its arguments of a tool call). ``url``: the page a call with no
        observation acts on (a tool's tab), shown to the person."""
        decision = self.policy.evaluate(action, observation)
        if decision.level is ConfirmLevel.AUTO:
            return GateResult(allowed=True, decision=decision)
        request = ConfirmRequest(
            action={**action.to_json(), **(about or {})},
            decision=decision,
            element=self.policy.target(action, observation),
            url=observation.summary.url if observation else url,
        )
        return await self._apply(request, confirmer)

    async def check_level(
        self,
        name: str,
        level: str,
        args: JsonObject,
        *,
        url: str = "",
        confirmer: Confirmer | None = None,
    ) -> GateResult:
        """Apply a declared level to a call that is no browser action (a user's own tool)."""
        reason = f"{name} is declared '{level}'"
        decision = Decision(level=ConfirmLevel(level), reasons=[reason] if level != "auto" else [], rule=name)
        if decision.level is ConfirmLevel.AUTO:
            return GateResult(allowed=True, decision=decision)
        request = ConfirmRequest(
            action={"action": name, "tool": name, "args": args}, decision=decision, url=url
        )
        return await self._apply(request, confirmer)

    async def _apply(self, request: ConfirmRequest, confirmer: Confirmer | None) -> GateResult:
        decision = request.decision
        why = "; ".join(decision.reasons)
        if decision.level is ConfirmLevel.BLOCK:
            return GateResult(
                allowed=False, decision=decision, message=f"blocked by the safety policy: {why}"
            )
        if decision.level is ConfirmLevel.NOTIFY:
            self._notify(request, confirmer)
            return GateResult(allowed=True, decision=decision)
        key = self.similar_key(request)
        if key in self._similar:
            return GateResult(allowed=True, decision=decision, similar=True)
        answer = await self._ask(request, confirmer)
        if not answer.approved:
            return GateResult(
                allowed=False,
                decision=decision,
                answer=answer,
                message=f"{answer.refusal()} (it needs confirmation because {why})",
            )
        if answer.similar:
            self._similar.add(key)
        return GateResult(allowed=True, decision=decision, answer=answer)

    async def recheck(
        self,
        action: Action,
        observation: Observation | None,
        before: Decision,
        fresh: Element,
        *,
        confirmer: Confirmer | None = None,
    ) -> str | None:
        """The second look (``rejudge``) applied: block refuses, confirm asks again, notify tells. Returns
        why the action is refused, or None to go on."""
        request = rejudge(self.policy, action, observation, before, fresh)
        if request is None:
            return None
        note = request.decision.reasons[0]
        if request.decision.level is ConfirmLevel.BLOCK:
            return f"blocked by the safety policy: {note}"
        if request.decision.level is ConfirmLevel.NOTIFY:
            self._notify(request, confirmer)
            return None
        answer = await self._ask(request, confirmer)
        if answer.approved:
            return None
        return f"{answer.refusal()} (it needs confirmation because {note})"

    async def check_dialog(self, kind: str, message: str, url: str) -> tuple[bool, str] | None:
        """For a page's confirm/prompt/beforeunload: (accept?, why), or None when the policy has no objection
        (the context's default answer then applies). A sensitive one is dismissed unless the user approves."""
        decision = self.policy.evaluate_dialog(kind, message, url)
        if decision.level is ConfirmLevel.AUTO:
            return None
        why = "; ".join(decision.reasons)
        if decision.level is ConfirmLevel.NOTIFY:
            self._notify(self._dialog_request(kind, message, url, decision))
            return None
        if decision.level is ConfirmLevel.BLOCK:
            return False, f"dismissed by the safety policy: {why}"
        request = self._dialog_request(kind, message, url, decision)
        key = ("dialog", message, (urlsplit(url).hostname or "").lower())
        if key in self._similar:
            return True, "accepted: the user approved similar dialogs"
        answer = await self._ask(request, None)
        if not answer.approved:
            return (
                False,
                f"dismissed, {answer.refusal()} (it needs confirmation because {why})",
            )
        if answer.similar:
            self._similar.add(key)
        return True, f"accepted, the user approved (asked because {why})"

    async def check_request(
        self, method: str, url: str, kind: str, view: Observation | None, page_url: str, *, covered: bool
    ) -> tuple[bool, Handled, str] | None:
        """For a state-changing request the page sends (held at the network layer, ``agent/browser/holds.py``):
        (let it go?, how it was handled, why), or None when the policy has no objection. ``covered``: an
        approved action sent it (its approval covers it: nobody is asked twice). Else a sensitive one is asked
        as an action is (a batch run declines) and failed unless approved."""
        decision = self.policy.evaluate_request(method, url, kind, view, page_url)
        if decision.level is ConfirmLevel.AUTO:
            return None
        why = "; ".join(decision.reasons)
        if decision.level is ConfirmLevel.BLOCK:
            return False, "blocked", f"blocked by the safety policy: {why}"
        if decision.level is ConfirmLevel.NOTIFY:
            self._notify(self._held_request(method, url, kind, page_url, decision))
            return None
        if covered:
            return True, "covered", f"covered by the approval of the action that sent it ({why})"
        request = self._held_request(method, url, kind, page_url, decision)
        key = ("request", f"{method} {urlsplit(url).path}", (urlsplit(page_url).hostname or "").lower())
        if key in self._similar:
            return True, "approved", "the user approved similar requests"
        answer = await self._ask(request, None)
        if not answer.approved:
            return False, "declined", f"{answer.refusal()} (it needs confirmation because {why})"
        if answer.similar:
            self._similar.add(key)
        return True, "approved", f"the user approved it (asked because {why})"

    @staticmethod
    def _held_request(method: str, url: str, kind: str, page_url: str, decision: Decision) -> ConfirmRequest:
        return ConfirmRequest(
            action={"action": "request", "method": method, "url": url, "kind": kind},
            decision=decision,
            url=page_url,
        )

    @staticmethod
    def _dialog_request(kind: str, message: str, url: str, decision: Decision) -> ConfirmRequest:
        return ConfirmRequest(
            action={"action": "dialog", "type": kind, "message": message}, decision=decision, url=url
        )

    def _notify(self, request: ConfirmRequest, confirmer: Confirmer | None = None) -> None:
        task = asyncio.ensure_future((confirmer or self.confirmer).notify(request))
        self._pending.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("notification failed: %s", task.exception())

    async def flush(self) -> None:
        """Wait for notifications still being delivered (call at the end of a run)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
