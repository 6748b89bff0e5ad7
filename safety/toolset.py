"""Safety as one wrapper around a toolset (pydantic-ai's approval wrapper): ``GatedToolset``.

The toolset inside says what a call amounts to (``plan``: a browser action on the page the caller saw, or a
declared level for a call that is no browser action); the wrapper asks the one ``Gate`` (block / confirm /
notify, the caller's confirmer asked) and only an allowed call runs (``run``, with the verdict: an action's
executor takes the gate's second look at its target from it). A refused call raises ``CallRefusedError``
and nothing ran.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.levels import LevelName
from kite_browser.agent.base.toolset import JsonObject, ToolDef
from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.observation import Observation
from kite_browser.safety.confirm import Confirmer, Gate, GateResult


@dataclass(frozen=True)
class CallPlan:
    """What one call amounts to, for the gate: ``action`` judged on ``observation`` (the page the caller
    saw), or, for a call that is no browser action, its declared ``level``. ``url``: the page the call acts
    on when there is no observation (shown to the person asked); ``about``: what else they are shown."""

    action: Action | None = None
    observation: Observation | None = None
    level: LevelName = "auto"
    url: str = ""
    about: JsonObject | None = None
    args: JsonObject | None = None
    """For a declared level: the call's arguments as checked, shown to the person asked (default: as given)."""


@dataclass(frozen=True)
class Verdict:
    """The gate's verdict on a planned call, and who was asked (asked again if the target changes)."""

    plan: CallPlan
    gate: GateResult
    confirmer: Confirmer | None = None


R_co = TypeVar("R_co", covariant=True)
R = TypeVar("R")


class JudgedToolset(Protocol[R_co]):
    """A toolset whose calls are judged before they run: only ``GatedToolset`` calls ``run``."""

    def definitions(self) -> list[ToolDef]: ...

    async def plan(self, name: str, args: JsonObject, /) -> CallPlan: ...

    async def run(self, name: str, args: JsonObject, verdict: Verdict, /) -> R_co: ...


class CallRefusedError(KiteError):
    """The gate refused a call (``blocked`` by the policy or ``declined``); it did not run."""

    type = "call_refused"

    def __init__(self, tool: str, verdict: Verdict) -> None:
        super().__init__(verdict.gate.message or f"{tool}: refused", tool=tool)
        self.tool, self.verdict = tool, verdict

    @property
    def refused(self) -> str:
        return self.verdict.gate.refused or "declined"


class OneCall(Generic[R]):
    """One call whose plan its caller makes (given, or made when the wrapper asks), as the judged toolset the
    wrapper wraps; ``run`` is given the verdict (an action's executor takes the second look from it)."""

    def __init__(
        self, plan: CallPlan | Callable[[], Awaitable[CallPlan]], run: Callable[[Verdict], Awaitable[R]]
    ) -> None:
        self._plan, self._run = plan, run

    def definitions(self) -> list[ToolDef]:
        return []  # one call, not offered as a tool of its own

    async def plan(self, name: str, args: JsonObject, /) -> CallPlan:
        return self._plan if isinstance(self._plan, CallPlan) else await self._plan()

    async def run(self, name: str, args: JsonObject, verdict: Verdict, /) -> R:
        return await self._run(verdict)


Decided = Callable[[str, Verdict], Awaitable[None]]
"""Told each verdict before anything runs (a face records it, or stops the call by raising)."""


class GatedToolset(Generic[R]):
    """``inner``'s tools, each call judged by ``gate`` first (``confirmer``: who is asked; default the
    gate's); a ``Toolset``."""

    def __init__(
        self,
        inner: JudgedToolset[R],
        gate: Gate,
        confirmer: Confirmer | None = None,
        *,
        decided: Decided | None = None,
    ) -> None:
        self.inner, self.gate, self.confirmer, self.decided = inner, gate, confirmer, decided

    def definitions(self) -> list[ToolDef]:
        return self.inner.definitions()

    async def call(self, name: str, args: JsonObject, /) -> R:
        plan = await self.inner.plan(name, args)
        verdict = Verdict(plan, await self.judge(name, args, plan), self.confirmer)
        if self.decided is not None:
            await self.decided(name, verdict)
        if not verdict.gate.allowed:
            raise CallRefusedError(name, verdict)
        return await self.inner.run(name, args, verdict)

    async def judge(self, name: str, args: JsonObject, plan: CallPlan) -> GateResult:
        if plan.action is not None:
            return await self.gate.check(
                plan.action, plan.observation, self.confirmer, about=plan.about, url=plan.url
            )
        shown = args if plan.args is None else plan.args
        return await self.gate.check_level(name, plan.level, shown, url=plan.url, confirmer=self.confirmer)
