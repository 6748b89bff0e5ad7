"""The two protocols the planner loop depends on: the ``Model`` that answers a step and the ``Environment``
it acts in.

A module of types alone (every Kite import below is for type checking), so the loop, the workflow replayer
and the faces can depend on the protocols without pulling in a browser or litellm. ``BrowserEnv``
(agent/browser/env.py) is the real environment; a test's in-memory one (pages as data) runs the same loop
with no browser at all. ``LiteLLMModel`` (agent/llm/client.py) is the real model; ``ScriptedModel`` and
``FunctionModel`` (agent/llm/testing.py) the test ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kite_browser.agent.browser.actions import Action
    from kite_browser.agent.browser.env import Acted, EnvSafety
    from kite_browser.agent.browser.observation import ActionResult, Fingerprint, HeldRequest, Observation
    from kite_browser.agent.browser.timing import StepTimer
    from kite_browser.agent.config import KiteConfig
    from kite_browser.agent.llm.chat import ChatMessage, ChatTool
    from kite_browser.agent.llm.client import LLMReply
    from kite_browser.agent.llm.model import ModelView
    from kite_browser.safety.confirm import Confirmer, GateResult


@runtime_checkable
class Model(Protocol):
    """Anything that answers a step. ``name`` is the model string used for capabilities and the record.

    ``messages`` are the chat messages as a real model sees them; ``view`` (agent/llm/model.py) carries the
    same step as structure, which test models and the eval oracle read instead of parsing the prompt."""

    name: str

    async def complete(
        self, messages: list[ChatMessage], tools: list[ChatTool] | None, *, view: ModelView | None
    ) -> LLMReply: ...


@runtime_checkable
class Environment(Protocol):
    """Where a run acts: what the loop, the workflow replayer and the healer ask of a page, and nothing else.

    ``safety`` is the environment's own (its gate judges every ``act``; its secrets redact the run's record).
    The loop calls, in order: ``start``, ``start_trace`` when tracing, ``open_url`` for the user's start URL,
    then per step ``observe_guarded``, ``blocked_between``, ``held_between`` and ``act`` (``read_each`` from a
    step policy), and at the end ``stop``, ``current_url``, ``screenshot``, ``stop_trace``; ``close`` is its
    opener's. A workflow's replay also waits with ``quiet`` and ``reach``, finds targets by ``fingerprints``
    and reads the page with ``read_page``."""

    config: KiteConfig
    """The settings it runs under (its step deadline, ``browser.step_timeout_ms``, is a replay's too)."""
    safety: EnvSafety
    run_dir: Path | None
    """The folder of the run it is ready for (``start``), or None."""

    async def start(self, run_dir: Path | None = None) -> None:
        """Gets ready for a run whose files go to ``run_dir`` (downloads, screenshots), the safety's rules
        on."""
        ...

    async def stop(self) -> None:
        """Ends a run: the gate's pending notifications delivered, rules taken off a context it was handed."""
        ...

    async def observe(
        self,
        *,
        screenshot_to: Path | None = None,
        want_b64: bool = False,
        include_all: bool = False,
        whole_flow: bool = False,
        flow_chars: int | None = None,
        wanted: Sequence[str] = (),
    ) -> Observation:
        """The active page as the model sees it, with a screenshot saved to ``screenshot_to`` and/or kept as
        base64 in the observation."""
        ...

    async def observe_guarded(
        self, *, screenshot_to: Path | None = None, want_b64: bool = False, wanted: Sequence[str] = ()
    ) -> tuple[Observation, str | None]:
        """``observe`` under the step deadline and the hang watchdog; the second value says what was done
        about a page that did not answer (for the model), else None."""
        ...

    async def act(
        self,
        action: Action,
        observation: Observation | None = None,
        *,
        decided: Callable[[Action, Observation | None, GateResult], Awaitable[None]] | None = None,
        veto: Callable[[Action], ActionResult | None] | None = None,
        confirmer: Confirmer | None = None,
        timer: StepTimer | None = None,
        effect_only: bool = False,
        judged: GateResult | None = None,
    ) -> Acted:
        """Judges ``action`` (seen on ``observation``) with the gate, then runs it unless refused: the gate's
        verdict and the action's result."""
        ...

    async def open_url(self, url: str, *, effect_only: bool = False) -> ActionResult:
        """Opens ``url`` in the active tab without the gate: the user's own start URL, never a model's."""
        ...

    async def read_page(self) -> ActionResult:
        """The active page's text as the ``read`` action gives it (``data["text"]``), without the gate: a
        look that changes nothing."""
        ...

    async def quiet(self, fresh: bool = True) -> None:
        """Waits for the active page's own loading (``fresh``: its document is one a navigation opened)."""
        ...

    async def reach(self, matches: Callable[[str], bool]) -> bool:
        """Waits for the active page to load a URL that ``matches`` (then for its loading); False when none
        came in time."""
        ...

    async def fingerprints(self, indexes: list[int]) -> dict[int, Fingerprint]:
        """The fingerprint of the element behind each of ``indexes`` still on the page (what a workflow's
        step finds its target again by)."""
        ...

    def blocked_between(self) -> list[str]:
        """What the domain policy stopped or the request hold held since the last action ended (the page's
        own doing), as lines for the model, once each."""
        ...

    def held_between(self) -> list[HeldRequest]:
        """The requests the page sent on its own between two actions, held and refused, once each (the run
        keeps them as its refusals)."""
        ...

    async def read_each(self, indexes: list[int], js: str) -> dict[int, object]:
        """``js`` (a read-only function of an element) on each of ``indexes``: its answer per index that is
        still on the page."""
        ...

    def current_url(self) -> str | None:
        """The active page's URL, or None when there is no page to ask."""
        ...

    async def screenshot(self, path: Path) -> bool:
        """A screenshot of the active page saved to ``path``; False when the page could not give one."""
        ...

    async def start_trace(self) -> None:
        """Starts recording a trace of what the run does (screenshots and page snapshots)."""
        ...

    async def stop_trace(self, path: Path) -> None:
        """Stops the trace and saves it to ``path``."""
        ...

    async def close(self) -> None:
        """Releases what the environment opened (idempotent)."""
        ...
