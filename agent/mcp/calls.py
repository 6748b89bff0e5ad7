"""What each MCP tool does, on one client's state. Page actions go through the same path as the agent's:
the safety gate (block / confirm / notify), the ActionExecutor (verified effects, typed stale errors), then
the new compact snapshot only when the page changed (a diff when that is smaller).

``ToolFailure`` carries a typed error ``{"error", "message", ...}``; every other outcome is text or an image,
and for the tools whose answer is data a ``Reply`` with that data too (its model is the tool's output model:
results.py).
"""

from __future__ import annotations

import asyncio
import base64
from functools import partial
from typing import TypeVar

import mcp_types as types
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from kite_browser.agent.base.errors import StaleElementError
from kite_browser.agent.base.fence import defuse, fence
from kite_browser.agent.base.levels import ConfirmLevel
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser import actions as A
from kite_browser.agent.browser.actions import ActionSpec
from kite_browser.agent.browser.observation import ActionResult
from kite_browser.agent.browser.snapshot import OFF_LOOP_ELEMENTS
from kite_browser.agent.mcp import render
from kite_browser.agent.mcp import tools as T
from kite_browser.agent.mcp.confirm import CANNOT_ASK, close_round, input_pending
from kite_browser.agent.mcp.hub import BrowserHub, ClientState
from kite_browser.agent.mcp.image import fitted_screenshot
from kite_browser.agent.mcp.record import Record
from kite_browser.agent.mcp.results import ActOut, Reply, TabsOut, snapshot_out
from kite_browser.agent.modules.action_tools import ActionToolset
from kite_browser.safety.toolset import (
    CallPlan,
    CallRefusedError,
    Decided,
    GatedToolset,
    JudgedToolset,
    OneCall,
    Verdict,
)

Content = list[types.ContentBlock]
R = TypeVar("R")


class ToolFailure(Exception):
    """A typed error; ``page``: a fresh snapshot sent after it (a ``stale_element``'s current page)."""

    def __init__(self, error: JsonObject, page: str = "") -> None:
        super().__init__(error.get("message", ""))
        self.error = error
        self.page = page


def _text(text: str) -> Content:
    """Kite's own words, which may quote the page (names, titles, a dialog's message): a fence tag the page
    wrote in them is defused, so nothing a page says can read as outside its fence."""
    return [types.TextContent(type="text", text=defuse(text))]


def _page_text(words: str, page: str) -> str:
    """Kite's words (defused), then the page as the client's model sees it (a snapshot, a diff, the read text)
    inside the ``<untrusted_page>`` fence."""
    return "\n".join(p for p in (defuse(words), fence(page) if page else "") if p)


def _with_page(words: str, page: str) -> Content:
    return [types.TextContent(type="text", text=_page_text(words, page))]


class Calls:
    def __init__(self, hub: BrowserHub, record: Record) -> None:
        self.hub = hub
        self.record = record

    # ------------------------------------------------------------ gated page actions

    def _decided(self, client: str, tool: str) -> Decided:
        """What the wrapper is told of each verdict on this client's call, before anything runs: a question
        that went back to the client stops the call; a decision other than ``auto`` is recorded."""

        async def decided(name: str, verdict: Verdict) -> None:
            if input_pending():  # 2026-07-28: the question goes back to the client; nothing runs this round
                raise ToolFailure({"error": "input_required", "message": "asked the user"})
            close_round()
            gate, obs, action = verdict.gate, verdict.plan.observation, verdict.plan.action
            if gate.decision.level is not ConfirmLevel.AUTO and action is not None:
                self.record.write(
                    "decision",
                    client=client,
                    tool=tool,
                    action=action.to_json(),
                    url=obs.url if obs is not None else "",
                    level=str(gate.decision.level),
                    reasons=gate.decision.reasons,
                    allowed=gate.allowed,
                    answer=gate.answer.reason if gate.answer else None,
                )

        return decided

    async def _gated(
        self, state: ClientState, toolset: JudgedToolset[R], tool: str, args: JsonObject, client: str
    ) -> R:
        """One call of ``toolset`` through the safety wrapper on the client's env gate (the decision recorded);
        a refusal is a typed ``ToolFailure``."""
        gated = GatedToolset(toolset, state.env.gate, decided=self._decided(client, tool))
        try:
            return await gated.call(tool, args)
        except CallRefusedError as exc:
            kind, gate = exc.refused, exc.verdict.gate
            message, answer = gate.message, gate.answer
            if answer is not None and answer.reason.startswith(CANNOT_ASK):
                kind, message = "refused", answer.reason  # nobody was asked, so nobody declined
            raise ToolFailure(
                {"error": kind, "message": message, "reasons": [r for r in gate.decision.reasons]}
            ) from None

    async def act(self, state: ClientState, tool: str, args: JsonObject, client: str) -> Reply:
        """One page action through the client's env, as a gated toolset's call (``safety/toolset.py``): the
        gate (the decision recorded), then the executor with the second look at the target; a refusal or a
        failure is a typed ``ToolFailure``."""
        toolset = ActionToolset(state.env)
        acted = await self._gated(state, toolset, tool, args, client)
        result = acted.result
        if not result.ok and result.error is not None:
            raise ToolFailure(result.error.model_dump())  # a domain block during it is named (env.act)
        self.record.action(client, tool, toolset.action(tool, args).to_json(), result)
        update = await self._update(state, result)
        text = render.effects_text(
            result,
            changed=result.page_changed or bool(update.text),
            listed=bool(update.text),
            page_url=update.page_url,
        )
        out = ActOut(
            ok=result.ok,
            message=result.message,
            changed=result.page_changed or bool(update.text),
            effects=result.effects,
            data={k: v for k, v in result.data.items() if k not in render.UNSENT_DATA},
            page="snapshot" if update.page_url else "diff" if update.text else "unchanged",
        )
        return Reply(_with_page(text, update.text), out)

    async def _update(self, state: ClientState, result: ActionResult) -> render.Update:
        """What changed on the page for this client (no text when nothing did), checked on a new snapshot:
        some changes (a modal shown by CSS, a field's value) add no element and move no URL."""
        obs = await state.env.observe()
        # off the event loop: choosing between diff and snapshot counts tokens (CPU work; the first count
        # loads the tokenizer), which would hold up every other session's calls meanwhile
        update = await asyncio.to_thread(
            render.page_update, obs, state.shown, state.shown_url, changed=result.page_changed
        )
        if update.text:
            state.shown, state.shown_url = update.lines, obs.url
        return update

    async def stale(self, state: ClientState, error: JsonObject) -> ToolFailure:
        """A ``stale_element`` answer: the error, then the current page as a snapshot (the client's fresh
        refs, in the format every snapshot has)."""
        error = {k: v for k, v in error.items() if k != "elements"}
        error["message"] = str(error.get("message", "")).replace(
            "use an index from the fresh element list", "use a ref from the fresh snapshot below"
        )
        obs = await state.env.observe()
        text, lines = await asyncio.to_thread(render.snapshot_text, obs)
        state.shown, state.shown_url = lines, obs.url
        return ToolFailure(error, page=fence(text))

    # ------------------------------------------------------------ the tools

    async def action(self, s: ClientState, spec: ActionSpec, a: BaseModel, client: str) -> Reply:
        """A tool derived from the action registry: its arguments made into the action, then ``act``."""
        assert spec.face is not None
        return await self.act(s, spec.face.name, a.model_dump(mode="json"), client)

    async def snapshot(self, s: ClientState, a: T.SnapshotArgs, client: str) -> Reply:
        whole = not a.visible_only  # the whole page, its text in reading order too
        obs = await s.env.observe(include_all=whole, whole_flow=whole, flow_chars=a.max_text + 200)
        render_it = partial(
            render.snapshot_text, obs, visible_only=a.visible_only, query=a.query, max_text=a.max_text
        )
        if len(obs.elements) < OFF_LOOP_ELEMENTS:
            text, lines = render_it()
        else:  # thousands of lines: rendered off the event loop, as the snapshot was built
            text, lines = await asyncio.to_thread(render_it)
        if a.visible_only and not a.query:
            s.shown, s.shown_url = lines, obs.url
        return Reply(_with_page("", text), snapshot_out(obs, list(lines)))

    async def tabs(self, s: ClientState, a: T.TabsArgs, client: str) -> Reply:
        ctx = s.ctx
        if a.action == "switch":
            if (a.index is None) == (a.url is None):
                raise ToolFailure(
                    {"error": "invalid_arguments", "message": "switch needs one of index or url"}
                )
            await ctx.switch_tab(a.index, a.url)
        elif a.action == "close":
            if a.index is None:
                raise ToolFailure({"error": "invalid_arguments", "message": "close needs the tab index"})
            await ctx.close_tab(a.index)
        elif a.action == "new":
            if a.url:  # judged as a navigation from the page the client saw, as the navigate tool is
                plan = CallPlan(action=A.Navigate(url=a.url), observation=await s.env.latest())
                opened = OneCall(plan, lambda _: ctx.open_tab(a.url))
                await self._gated(s, opened, "tabs", a.model_dump(mode="json"), client)
            else:
                await ctx.open_tab(None)
        tabs = await ctx.tabs()
        listing = "\n".join(f"{t.index}{'*' if t.active else ' '} {t.title[:60]!r} {t.url}" for t in tabs)
        out = f"Tabs (* = active):\n{listing}"
        if a.action != "list":
            obs = await s.env.observe()
            obs.summary.tabs = []  # listed just above
            text, lines = render.snapshot_text(obs)
            s.shown, s.shown_url = lines, obs.url
            return Reply(_with_page(out + "\nActive tab:", text), TabsOut(tabs=tabs))
        return Reply(_text(out), TabsOut(tabs=tabs))

    async def screenshot(self, s: ClientState, a: T.ScreenshotArgs, client: str) -> Content:
        page = s.ctx.page
        element = (await s.env.snapshotter.resolve(page, a.ref)).handle if a.ref is not None else None
        shot = await fitted_screenshot(page, full_page=a.full_page, element=element)
        out: Content = [
            types.ImageContent(type="image", data=base64.b64encode(shot.data).decode(), mime_type=shot.mime)
        ]
        if shot.note:
            out.append(types.TextContent(type="text", text=f"Screenshot sent as {shot.note}."))
        return out

    async def wait_for(self, s: ClientState, a: T.WaitForArgs, client: str) -> Content:
        page = s.ctx.page
        if (a.text is None) == (a.ref is None):
            raise ToolFailure({"error": "invalid_arguments", "message": "give one of text or ref"})
        try:
            if a.text is not None:
                locator = page.get_by_text(a.text).first
                if a.state == "appear":
                    await locator.wait_for(state="visible", timeout=a.timeout_ms)
                else:
                    await locator.wait_for(state="hidden", timeout=a.timeout_ms)
                what = f"text {a.text!r}"
            else:
                if a.state == "appear":
                    raise ToolFailure(
                        {
                            "error": "invalid_arguments",
                            "message": "a ref is already on the page; wait for text",
                        }
                    )
                what = f"element [{a.ref}]"
                try:
                    resolved = await s.env.snapshotter.resolve(page, a.ref)  # type: ignore[arg-type]
                    await resolved.handle.wait_for_element_state("hidden", timeout=a.timeout_ms)
                except StaleElementError:
                    pass  # already gone
        except PlaywrightError as exc:
            if "Timeout" in str(exc):
                raise ToolFailure(
                    {"error": "timeout", "message": f"{a.state} did not happen within {a.timeout_ms} ms"}
                ) from None
            raise
        return _text(f"{what} did {a.state}.")

    async def read(self, s: ClientState, a: T.ReadArgs, client: str) -> Reply:
        from kite_browser.agent.browser.reader import read_page

        res = await read_page(
            s.ctx.page,
            s.env.snapshotter,
            query=a.query,
            page_number=a.page,
            budget_tokens=self.hub.config.snapshot.read_tokens,
        )
        head = res.text().partition("\n")[0]
        more = f"\n(more: read page={res.page + 1})" if res.page < res.pages else ""
        text = _page_text(head, res.markdown or "(nothing to read)") + more
        return Reply([types.TextContent(type="text", text=text)], res)

    async def dialog(self, s: ClientState, a: T.DialogArgs, client: str) -> Content:
        s.ctx.dialog_policy = a.action
        s.ctx.prompt_text = a.prompt_text
        last = s.ctx.last_dialog
        seen = f' The last dialog was a {last.type} "{last.message[:120]}" ({last.handled}).' if last else ""
        return _text(f"From now on confirm and prompt dialogs are {a.action}ed (alerts are accepted).{seen}")
