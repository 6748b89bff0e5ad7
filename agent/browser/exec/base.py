"""What every action unit receives (ExecContext) and returns (Outcome), plus the typed errors they raise."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from playwright.async_api import ElementHandle, Frame, Page

from kite_browser.agent.base.errors import ActionError
from kite_browser.agent.browser.observation import (
    DialogInfo,
    DownloadNotice,
    Element,
    ElementDetails,
    Fingerprint,
    Observation,
    TabInfo,
)
from kite_browser.agent.config import KiteConfig

if TYPE_CHECKING:
    from kite_browser.agent.browser.waits import FirstAnswer, PageMark, Settler


class EventsLike(Protocol):
    new_tabs: list[str]
    dialogs: list[DialogInfo]
    downloads: list[str]
    download_notices: list[DownloadNotice]
    crashed: bool


class SessionLike(Protocol):
    """The part of ``agent.browser.session.ContextSession`` the executor uses."""

    @property
    def page(self) -> Page: ...

    async def tabs(self) -> list[TabInfo]: ...

    async def switch_tab(self, index: int | None = None, url: str | None = None) -> Page: ...

    async def to_front(self, page: Page) -> None: ...

    async def open_tab(self, url: str | None = None) -> Page: ...

    def drain_events(self) -> EventsLike: ...


class ResolvedLike(Protocol):
    frame: Frame
    handle: ElementHandle
    element: Element


class SnapshotterLike(Protocol):
    """The part of ``agent.browser.snapshot.Snapshotter`` the executor uses."""

    async def snapshot(self, page: Page, *, include_all: bool = False) -> Observation: ...

    async def resolve(self, page: Page, index: int) -> ResolvedLike: ...

    async def details(self, page: Page, indices: list[int]) -> list[ElementDetails]: ...

    async def reread(self, page: Page, index: int) -> Element: ...

    def last(self, page: Page) -> Observation | None: ...


# Typed errors of the action engine (ActionError subclasses; ``type`` is the wire name).
class AmbiguousTargetError(ActionError):
    type = "ambiguous_selector"


class InvalidSelectorError(ActionError):
    type = "invalid_selector"


class OutsideViewportError(ActionError):
    type = "outside_viewport"


class ElementCoveredError(ActionError):
    type = "element_covered"


class NotInteractableError(ActionError):
    type = "not_interactable"


class URLRefusedError(ActionError):
    type = "url_refused"


class PathRefusedError(ActionError):
    type = "path_refused"


class OptionNotFoundError(ActionError):
    type = "option_not_found"


class JSError(ActionError):
    type = "js_error"


class JSTimeoutError(ActionError):
    type = "js_timeout"


NO_EFFECT = "no_effect"
"""Key of ``Outcome.data`` (and so ``ActionResult.data``): the unit did nothing because nothing was needed
(the field already held the text, the option was already selected). Loop detection reads it."""


TOGGLED = "toggled"
"""Key of ``Outcome.data``: the click opened (``"expanded"``) or closed (``"collapsed"``) what its element
controls (``aria-expanded``, a ``<details>``'s summary). The loop runs no more of the reply's actions after it:
they were chosen before the section showed or hid its content."""


@dataclass
class Outcome:
    """What an action unit reports; the executor turns it into an ActionResult."""

    method: str | None = None
    message: str = ""
    data: dict[str, object] = field(default_factory=dict)
    value: str | None = None
    scroll: bool = False
    """Report the scroll position and the elements newly in view."""
    page: Page | None = None
    """Set when the action changed the active page (switchTab)."""


@dataclass
class ExecContext:
    session: SessionLike
    snapshotter: SnapshotterLike | None
    config: KiteConfig
    settler: Settler
    run_dir: Path | None = None
    secret_resolver: Callable[[str, str], str] | None = None
    screenshot_b64: bool = False
    """Include the PNG as base64 in screenshot results (vision models)."""
    pending_mark: asyncio.Future[PageMark] | None = None
    """The settle mark, still in flight while the unit resolves and probes its target (read-only work that
    the page runs after the mark anyway). Units await ``ready()`` before sending input events."""
    recheck: Callable[[Element], Awaitable[str | None]] | None = None
    """The safety gate's second look at a click's target as it reads right before the input lands (None
    to go on, else why not); set by the caller for one action (``ActionExecutor.execute(recheck=...)``)."""
    fingerprint_of: int | None = None
    """The index whose fingerprint to take when the unit resolves it (the action's own target), with
    ``take_fingerprint``; set by the caller for one action (``ActionExecutor.execute(fingerprint=True)``)."""
    take_fingerprint: Callable[[ElementHandle, Element], Awaitable[Fingerprint | None]] | None = None
    fingerprint: asyncio.Future[Fingerprint | None] | None = None
    """The fingerprint being taken: asked for right after the target was resolved, so the page answers it
    before any input of the action (its reads run in order); awaited when the action is done."""

    on_input_over: Callable[[], None] | None = None
    """Set by the executor for one action: begins its settle (see ``input_over``)."""
    on_input_again: Callable[[], Awaitable[None]] | None = None
    """Set by the executor for one action: ends a settle begun (see ``input_again``)."""

    @property
    def page(self) -> Page:
        return self.session.page

    def input_over(self) -> None:
        """The action's last input event was acknowledged by the page (its handlers ran) and the unit's last
        call into the page is already sent: the settle may begin now, its calls following that one in the page,
        while the unit awaits its answer (the input guard's disarm: one round trip fewer per action)."""
        if self.on_input_over is not None:
            self.on_input_over()

    async def input_again(self) -> None:
        """More input follows an ``input_over`` (a fallback): the settle begun then is let finish and dropped,
        and the executor settles after the unit, from the same mark (so the report covers all the input)."""
        if self.on_input_again is not None:
            await self.on_input_again()

    async def resolved(self, index: int, handle: ElementHandle, element: Element) -> None:
        """A unit resolved element ``index``: the action's own target has its fingerprint asked for now, and
        the request is sent before the unit's next call (the page answers a frame's calls in order)."""
        if self.fingerprint_of == index and self.fingerprint is None and self.take_fingerprint is not None:
            self.fingerprint = asyncio.ensure_future(self.take_fingerprint(handle, element))
            await asyncio.sleep(0)  # the task's first step sends the request

    async def first_answer(self) -> FirstAnswer | None:
        """The answer of the unit's ``ActionSpec.first_call``, made in the settle mark's call: ``{"value"}`` or
        ``{"error"}``; None when the top frame's mark did not answer (the call may not have run)."""
        if self.pending_mark is None:
            return None
        mark = await asyncio.shield(self.pending_mark)
        first: FirstAnswer | None = getattr(mark, "first", None)
        return first

    async def ready(self) -> None:
        """Wait until the page has been marked for the settle and the target's fingerprint is taken (call
        right before dispatching input)."""
        if self.pending_mark is not None:
            await asyncio.shield(self.pending_mark)
        if self.fingerprint is not None:
            await asyncio.wait({self.fingerprint})
