"""The panel's hand-over: an ``askHuman`` of a run becomes a ``handover`` event; the panel's live view turns
interactive (clicks, typing, keys and the wheel sent to the run's page with ``POST /api/runs/{id}/input``) until
the person says Done or Can't (``POST /api/runs/{id}/handover/{hid}``); nobody answering within
``server.confirm_timeout_s`` hands it back undone. Nothing the person types is put in an event, a log or the
record: it is hidden from everything the run sends or keeps (``SecretStore.hide``)."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field

from kite_browser.agent.server.errors import ApiError
from kite_browser.agent.server.run import Run, now
from kite_browser.agent.server.run_models import HandOverAnswer, HandOverView, PageInput
from kite_browser.safety.handover import HandBack, HandOverRequest
from kite_browser.safety.secrets import SecretStore

INPUT_TIMEOUT_MS = 10_000


@dataclass
class Handing:
    view: HandOverView
    store: SecretStore
    """The run's secrets: what the person types is hidden in it."""
    back: asyncio.Future[HandBack] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


async def hand_over(run: Run, request: HandOverRequest, timeout_s: float, store: SecretStore) -> HandBack:
    """``request`` shown in the panel; the person's answer (undone after ``timeout_s``)."""
    view = HandOverView.model_validate(
        store.redact_obj(
            {
                "id": secrets.token_hex(4),
                "step": run.step,
                "question": request.question,
                "url": request.url,
                "timeout_s": timeout_s,
                "created_at": now(),
            }
        )
    )
    handing = Handing(view, store)
    run.handing = handing
    run.add("handover", view.model_dump(mode="json"))
    started = time.monotonic()
    try:
        back = await asyncio.wait_for(asyncio.shield(handing.back), timeout_s)
    except TimeoutError:
        back = HandBack(done=False, reason=f"nobody took over within {timeout_s:g} s")
    finally:
        run.handing = None
    seconds = round(time.monotonic() - started, 1)
    run.add(
        "handed_back",
        {"id": view.id, "step": view.step, "done": back.done, "reason": back.reason, "seconds": seconds},
    )
    return back


def answer(run: Run, hid: str, body: HandOverAnswer) -> HandOverView:
    """The person's Done or Can't; 404 ``unknown_handover`` when ``hid`` is not the open hand-over."""
    handing = _open(run, hid)
    if not handing.back.done():
        handing.back.set_result(HandBack(done=body.done, reason=body.reason))
    return handing.view


async def page_input(run: Run, body: PageInput) -> None:
    """One input of the person to the run's page (only while a hand-over is open: 409 ``no_handover``)."""
    if run.handing is None or run.context is None:
        raise ApiError(409, "no_handover", f"run {run.id} has not handed the browser over", run=run.id)
    page, store = run.context.page, run.handing.store
    if body.kind == "click":
        if body.x is None or body.y is None:
            raise ApiError(422, "invalid_input", "a click needs x and y (fractions of the picture)")
        size = page.viewport_size or await page.evaluate("() => ({width: innerWidth, height: innerHeight})")
        await page.mouse.click(body.x * size["width"], body.y * size["height"])
    elif body.kind == "type":
        if not body.text:
            raise ApiError(422, "invalid_input", "type needs a text")
        store.hide(body.text)  # before it reaches the page: no look at the page shows it unredacted
        await page.keyboard.type(body.text)
    elif body.kind == "press":
        if not body.key:
            raise ApiError(422, "invalid_input", "press needs a key (Enter, Tab, Backspace, ...)")
        await page.keyboard.press(body.key)
    else:
        await page.mouse.wheel(0, body.dy or 0)


def _open(run: Run, hid: str) -> Handing:
    handing = run.handing
    if handing is None or handing.view.id != hid:
        raise ApiError(404, "unknown_handover", f"run {run.id} has no open hand-over {hid!r}", id=hid)
    return handing
