"""ActionExecutor: run one Action against the active tab, settle, and report verified effects.

The per-action code lives in ``agent/browser/exec/`` (one small unit per action); this module only
dispatches, settles (``agent/browser/waits.py``), collects effects and turns failures into structured
errors. ``execute`` never raises for an action's failure.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import ValidationError

from kite_browser.agent.base.errors import KiteError, browser_failure
from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.browser.actions import Action, parse_action, spec_of
from kite_browser.agent.browser.exec import scroll
from kite_browser.agent.browser.exec.base import ExecContext, Outcome, SessionLike, SnapshotterLike
from kite_browser.agent.browser.exec.recheck import Recheck
from kite_browser.agent.browser.exec.spec import ActionSpec
from kite_browser.agent.browser.fingerprint import element_index, take_fingerprint
from kite_browser.agent.browser.observation import ActionResult, Effects, ErrorInfo, Fingerprint
from kite_browser.agent.browser.waits import PageMark, Settler, SettleReport
from kite_browser.agent.browser.watchdog import guard
from kite_browser.agent.config import KiteConfig

FINGERPRINT_WAIT_S = 1.0
"""How long a fingerprint still unanswered when the action is done may take (a page that stopped answering)."""
_SECRET_RE = re.compile(r"<secret>(.*?)</secret>")

_FOCUS_JS = """() => { let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a || a === document.body || a === document.documentElement) return null;
  const name = (a.getAttribute('aria-label') || a.getAttribute('name') || a.getAttribute('placeholder') || a.innerText || '').trim().slice(0, 40);
  return a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + (name ? ` "${name}"` : ''); }"""


class ActionExecutor:
    """Executes actions for one browser context session."""

    def __init__(
        self,
        ctx: SessionLike,
        snapshotter: SnapshotterLike | None,
        config: KiteConfig,
        *,
        run_dir: Path | None = None,
        secret_resolver: Callable[[str, str], str] | None = None,
    ) -> None:
        self.settler = Settler(config.waits)
        self.ec = ExecContext(ctx, snapshotter, config, self.settler, run_dir, secret_resolver)
        self._effect_only = False
        """The action being run settles ``effect_only`` (``execute``)."""

    @property
    def screenshot_b64(self) -> bool:
        """Include the PNG as base64 in screenshot results (vision models)."""
        return self.ec.screenshot_b64

    @screenshot_b64.setter
    def screenshot_b64(self, value: bool) -> None:
        self.ec.screenshot_b64 = value

    async def execute(
        self,
        action: Action | dict[str, object],
        *,
        recheck: Recheck | None = None,
        fingerprint: bool = False,
        effect_only: bool = False,
    ) -> ActionResult:
        """Run one action with its settle, under the step deadline and the hang watchdog. ``recheck``: the
        safety gate's second look at a click's target right before the input lands (``exec/recheck.py``);
        ``fingerprint``: the result keeps its target's fingerprint (``ActionResult.target``), taken from the
        unit's own resolution of the target before any input (None when the unit never resolved it);
        ``effect_only``: the settle waits for what the action set off, not for the page's own loading
        (``Settler.settle``; a workflow's replay)."""
        ec = self.ec
        ec.recheck = recheck
        ec.fingerprint_of = element_index(action) if fingerprint else None
        ec.take_fingerprint = take_fingerprint
        self._effect_only = effect_only
        try:
            result = await self._guarded(action)
            if ec.fingerprint is not None:
                result.target = await _taken(ec.fingerprint)
            return result
        finally:
            ec.recheck = ec.fingerprint_of = ec.fingerprint = None
            self._effect_only = False

    async def _guarded(self, action: Action | dict[str, object]) -> ActionResult:
        name = str(action.get("action", "?")) if isinstance(action, dict) else action.action
        cfg = self.ec.config.browser
        t0 = time.monotonic()
        try:
            return await guard(
                self.ec.session,
                self._execute(action),
                what=f"the action {name}",
                deadline_s=cfg.step_timeout_ms / 1000,
                hang_s=cfg.hang_timeout_ms / 1000,
            )
        except KiteError as exc:  # a stuck tab (closed now), a deadline, a tab that could not be closed
            return ActionResult(
                action=name,
                ok=False,
                message=exc.message,
                error=ErrorInfo(**exc.to_dict()),
                duration_ms=round((time.monotonic() - t0) * 1000, 1),
            )

    async def _execute(self, action: Action | dict[str, object]) -> ActionResult:
        t0 = time.monotonic()
        if isinstance(action, dict):
            parsed = _parse(action)
            if isinstance(parsed, ActionResult):
                return parsed
            action = parsed
        name = action.action
        spec = spec_of(action)
        try:
            page = self.ec.page
        except KiteError as exc:  # crashed tab, no open tab, closed context
            return ActionResult(action=name, ok=False, message=exc.message, error=ErrorInfo(**exc.to_dict()))
        await self.ec.session.to_front(page)  # a tab behind another draws a frame a second once it gets input
        secrets = self._secret_values(action)
        effects = Effects(url_before=page.url)
        mark_task: asyncio.Future[PageMark] | None = None
        if spec.settle != "none":
            first = spec.first_call(action) if spec.first_call is not None else None
            mark_task = asyncio.ensure_future(self.settler.mark(page, first, name, self._effect_only))
            if spec.settle != "early":  # "early": the unit awaits ec.ready() once its target is found
                await mark_task
        early = _EarlySettle(self.settler, page, name, mark_task, self._effect_only)
        result, out = await self._run_unit(spec, action, mark_task, early)
        if out is not None:
            effects.value = out.value
        page_after = out.page if out is not None and out.page is not None else self.ec.page
        report = None
        mark = await mark_task if mark_task is not None else None
        scrolled = out is not None and out.scroll
        if early.task is not None:
            report = await early.task
        elif mark is not None and not page.is_closed():  # a scroll's position read as the settle ends
            after = scroll.AFTER_JS if scrolled and page_after is page else None
            report = await self.settler.settle(
                page, mark, name, after_js=after, effect_only=self._effect_only
            )
        await self._effects(effects, page, page_after, report, scrolled)
        result.effects = effects
        if report is not None and result.ok:
            effects.changed = _changed(effects, report)
            if not effects.changed and spec.says_no_effect:
                result.message = f"{result.message}: nothing changed"
        if report is not None:
            result.data.setdefault("settle_ms", round(report.waited_ms, 1))
        result.duration_ms = round((time.monotonic() - t0) * 1000, 1)
        return _mask(result, secrets) if secrets else result

    async def _run_unit(
        self,
        spec: ActionSpec,
        action: Action,
        mark_task: asyncio.Future[PageMark] | None,
        early: _EarlySettle,
    ) -> tuple[ActionResult, Outcome | None]:
        """The action's unit: its result, and its outcome when it succeeded."""
        name = action.action
        self.ec.pending_mark = mark_task
        self.ec.on_input_over = early.begin
        self.ec.on_input_again = early.drop
        try:
            out: Outcome = await spec.run(self.ec, action)
        except KiteError as exc:
            return ActionResult(
                action=name, ok=False, message=exc.message, error=ErrorInfo(**exc.to_dict())
            ), None
        except PlaywrightError as exc:
            error = ErrorInfo(**browser_failure(str(exc)))
            return ActionResult(action=name, ok=False, message=error.message, error=error), None
        except BaseException:  # cancelled (the step deadline): so is a settle begun
            early.cancel()
            raise
        finally:
            self.ec.pending_mark = None
            self.ec.on_input_over = self.ec.on_input_again = None
        return ActionResult(action=name, ok=True, method=out.method, message=out.message, data=out.data), out

    def _secret_values(self, action: Action) -> list[str]:
        text = getattr(action, "text", None)
        if not text or self.ec.secret_resolver is None or "<secret>" not in text:
            return []
        values = []
        for m in _SECRET_RE.finditer(text):
            try:
                values.append(self.ec.secret_resolver(m.group(0), self.ec.page.url))
            except KiteError:
                continue
        return [v for v in values if v]

    async def _effects(
        self, eff: Effects, page: Page, page_after: Page, rep: SettleReport | None, scrolled: bool
    ) -> None:
        if rep is not None:
            eff.added, eff.removed = rep.added, rep.removed
        live = page_after if not page_after.is_closed() else None
        eff.url_after = live.url if live else None
        eff.navigated = bool(rep and rep.navigated) or (
            eff.url_after is not None and eff.url_after != eff.url_before
        )
        waiter = getattr(self.ec.session, "wait_for_downloads", None)
        if waiter is not None:  # downloads are saved in the background: let those in flight land
            await waiter(timeout_s=5.0)
        events = self.ec.session.drain_events()
        eff.new_tabs = list(events.new_tabs)
        eff.downloads = list(events.downloads)
        eff.download_notices = list(events.download_notices)
        eff.dialog = events.dialogs[-1] if events.dialogs else None
        if live is None:
            return
        try:
            if rep is not None and rep.focus_known and live is page:
                eff.focused = rep.focused
            else:
                eff.focused = await live.evaluate(_FOCUS_JS)
            got = scroll.read_after(rep.after) if rep is not None and live is page else None
            if scrolled and (got is not None or (got := await scroll.after_scroll(live)) is not None):
                eff.scroll, eff.new_in_view = got
        except PlaywrightError:
            pass


class _EarlySettle:
    """The settle begun as soon as the unit's input is over (``ExecContext.input_over``), while the unit still
    awaits its last answer from the page; None until then (the executor settles after the unit, as before)."""

    def __init__(
        self,
        settler: Settler,
        page: Page,
        action: str,
        mark: asyncio.Future[PageMark] | None,
        effect_only: bool = False,
    ) -> None:
        self.settler, self.page, self.action, self.mark = settler, page, action, mark
        self.effect_only = effect_only
        self.task: asyncio.Future[SettleReport] | None = None

    def begin(self) -> None:
        mark = self.mark
        if (
            self.task is not None
            or mark is None
            or not mark.done()
            or mark.cancelled()
            or self.page.is_closed()
        ):
            return
        if mark.exception() is None:
            settle = self.settler.settle(self.page, mark.result(), self.action, effect_only=self.effect_only)
            self.task = asyncio.ensure_future(settle)

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def drop(self) -> None:
        """Let a settle begun finish (its in-page wait would end on its own) and forget it: the executor settles
        after the unit instead, from the same mark."""
        task, self.task = self.task, None
        if task is not None:
            await asyncio.wait({task})
            if not task.cancelled():
                task.exception()  # retrieved: a failed settle begun is of no account now


async def _taken(fingerprint: asyncio.Future[Fingerprint | None]) -> Fingerprint | None:
    """The fingerprint asked for before the input (answered by now unless the page stopped answering)."""
    try:
        return await asyncio.wait_for(asyncio.shield(fingerprint), FINGERPRINT_WAIT_S)
    except (TimeoutError, PlaywrightError):
        fingerprint.cancel()
        return None


def _changed(eff: Effects, rep: SettleReport) -> bool:
    """Whether anything a user could notice happened during the action and its settle."""
    return bool(
        eff.navigated
        or rep.dom_changed
        or rep.state_changed
        or rep.network_requests
        or eff.new_tabs
        or eff.dialog
        or eff.downloads
        or eff.download_notices
    )


def _mask(result: ActionResult, secrets: list[str]) -> ActionResult:
    """Replace every secret value inside the result's strings by *** (never inside numbers or keys)."""
    ordered = sorted(secrets, key=len, reverse=True)

    def scrub(value: JsonValue) -> JsonValue:
        if isinstance(value, str):
            for secret in ordered:
                value = value.replace(secret, "***")
            return value
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return ActionResult.model_validate(scrub(result.model_dump(mode="json")))


def _parse(raw: dict[str, object]) -> Action | ActionResult:
    """The action of its JSON form, or the ``invalid_action`` result naming the first bad field."""
    try:
        return parse_action(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"][1:]) or "action"
        name = str(raw.get("action", "?"))
        info = ErrorInfo.model_validate(
            {"error": "invalid_action", "message": f"{name}: {loc}: {err['msg']}", "field": loc}
        )
        return ActionResult(action=name, ok=False, message=info.message, error=info)
