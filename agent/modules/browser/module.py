"""The ``browser`` module: one compound tool over a stateful browser (seed 001).

``browser {action: status|start|stop|snapshot|act|navigate, target_url?, request?: {kind, target_id?, text?},
profile?: sandbox|attach}``. ``snapshot`` gives Kite's compact element list (``[15] button "Submit"``);
``act`` targets those ids with Kite's action engine (real mouse events, settle waits, verified effects); an id
that is not on the page answers ``stale_element`` with a fresh list. The browser stays up between calls;
``navigate``/``snapshot``/``act`` start a sandbox when none is running (lazily: never before).

The module is one ``BrowserEnv`` (on a browser of its own from the runtime's pool): ``act`` goes through the
env's gate and its second look at the target, as the agent's actions do, asking the caller's confirmer.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.toolset import JsonObject, ToolHints
from kite_browser.agent.browser.actions import Action, Navigate
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.browser.tokens import count_tokens
from kite_browser.agent.browser.tool_face import act_kinds, kind_action
from kite_browser.agent.modules.action_tools import act_gated
from kite_browser.agent.modules.base import (
    CallContext,
    Params,
    Tool,
    ToolError,
    ToolModule,
    WebComponent,
)
from kite_browser.agent.modules.chrome.pages import check_url
from kite_browser.agent.modules.gate import check_domain
from kite_browser.safety.secrets import SecretStore
from kite_browser.safety.toolset import CallRefusedError

KINDS = act_kinds()
"""The ``act`` kinds, derived from the action registry (each action's ``ToolFace``), in the model's menu order."""
NOT_OFFERED: dict[str, str] = {
    "askHuman": "a tool caller is the one to ask its user: it has its own channel to them",
    "navigate": "the tool's own navigate (target_url), which starts the browser when none runs",
    "screenshot": "the snapshot is the module's view of the page",
    "wait": "each act already waits for the page to settle",
    "goBack": "not an act kind yet: navigate to the page instead",
    "goForward": "not an act kind yet: navigate to the page instead",
    "refresh": "not an act kind yet: navigate to the page again",
    "dragDrop": "act takes one target_id; a drag needs two",
    "uploadFile": "act's text is no file: the chrome module's tools or the MCP upload_file upload files",
    "switchTab": "status lists the tabs; the chrome module's tools switch them",
    "read": "not an act kind yet: the snapshot action gives the page with its text",
    "getElements": "the snapshot action lists the elements",
    "getElementDetails": "the snapshot action shows each element's details on its line",
    "done": "ends the agent's own run; a tool caller has no run to end",
}
"""The registry's actions ``act`` offers no kind for, and why."""
NEEDS_TARGET = frozenset(name for name, (_, kind) in KINDS.items() if kind.target == "needed")
NEEDS_TEXT = frozenset(
    name for name, (_, kind) in KINDS.items() if kind.text is not None and kind.text_default is None
)

if TYPE_CHECKING:
    Kind = str
else:
    Kind = Literal[tuple(KINDS)]


def _text_words() -> str:
    """What ``text`` is for each kind that takes one: "type/fill: the text; press: the key ..."."""
    says: dict[str, list[str]] = {}
    for name, (_, kind) in KINDS.items():
        if kind.text is not None:
            says.setdefault(kind.says, []).append(name)
    return "; ".join(f"{'/'.join(names)}: {words}" for words, names in says.items()) + "."


class ActRequest(Params):
    kind: Kind = Field(description="What to do.")
    target_id: str | int | None = Field(
        None,
        description=f'Element id from the latest snapshot, e.g. "15" '
        f"({', '.join(k for k in KINDS if k in NEEDS_TARGET)}).",
    )
    text: str | None = Field(None, description=_text_words())

    @model_validator(mode="after")
    def _complete(self) -> ActRequest:
        if self.kind in NEEDS_TARGET and self.target_id is None:
            raise ValueError(f"'{self.kind}' needs a target_id from the latest snapshot")
        if self.kind in NEEDS_TEXT and self.text is None:
            raise ValueError(f"'{self.kind}' needs text")
        if self.target_id is not None and not str(self.target_id).strip().isdigit():
            raise ValueError(f'target_id must be an element id such as "15", not {self.target_id!r}')
        return self

    @property
    def index(self) -> int | None:
        return int(str(self.target_id).strip()) if self.target_id is not None else None


class BrowserToolParams(Params):
    action: Literal["status", "start", "stop", "snapshot", "act", "navigate"] = Field(
        description="status | start | stop | snapshot (the element list) | act (on an element id) | navigate"
    )
    target_url: str | None = Field(None, min_length=1, description="URL to open (navigate).")
    request: ActRequest | None = Field(None, description="The action (act).")
    profile: Literal["sandbox", "attach"] | None = Field(
        None, description="start: sandbox = an isolated Chromium; attach = the user's running Chrome."
    )

    @model_validator(mode="after")
    def _complete(self) -> BrowserToolParams:
        if self.action == "navigate" and not self.target_url:
            raise ValueError("navigate needs target_url")
        if self.action == "act" and self.request is None:
            raise ValueError("act needs request: {kind, target_id?, text?}")
        return self


def to_action(req: ActRequest) -> Action:
    """The action an ``act`` request makes (its kind's action, from the registry)."""
    spec, kind = KINDS[req.kind]
    try:
        return kind_action(spec, kind, req.index, req.text)
    except ValueError as exc:  # a text that is no choice of the parameter, or a value the action refuses
        raise ToolError("invalid_arguments", str(exc)) from None


class BrowserModule(ToolModule):
    name = "browser"

    def __init__(self) -> None:
        self.env: BrowserEnv | None = None
        self.profile: str | None = None
        self._lock = asyncio.Lock()

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "browser",
                "Drive one stateful browser: start it, navigate, take a snapshot (interactive elements with ids "
                f"like [15]), act on an id ({', '.join(KINDS)}), stop.",
                BrowserToolParams,
                self.run,
                hints=ToolHints(),  # one tool for every action: it can click, submit and evaluate
            )
        ]

    def web_component(self) -> WebComponent:
        return WebComponent(
            module_name=self.name,
            display_name="Browser (snapshot + act)",
            icon="🪁",
            panel_html='<div class="browser-module-panel"><p>One stateful browser; see <code>kite tools call '
            'browser \'{"action": "status"}\'</code>.</p></div>',
        )

    async def shutdown(self) -> None:
        await self._stop()

    # ------------------------------------------------------------------ lifecycle
    @property
    def running(self) -> bool:
        return self.env is not None and self.env.alive

    @property
    def session(self) -> BrowserSession | None:
        """The module's browser, while it runs."""
        return self.env.session if self.env is not None else None

    async def _start(self, profile: str | None) -> None:
        assert self.runtime is not None
        cfg = self.runtime.config
        profile = profile or cfg.module_settings.browser.profile
        if self.running and profile == self.profile:
            return
        await self._stop()
        overrides: dict[str, object] = {"profile": None, "attach": None}
        if profile == "attach":
            overrides["attach"] = cfg.module_settings.browser.attach_endpoint
        gate = self.gate
        safety = EnvSafety.from_config(cfg, gate.confirmer, SecretStore(), gate.policy)
        try:
            env = await BrowserEnv.open_browser(
                self.runtime.pool, cfg, safety, cfg.browser.model_copy(update=overrides)
            )
        except KiteError as exc:
            kind = "attach_failed" if profile == "attach" else "browser_launch_failed"
            raise ToolError(kind, exc.message, profile=profile, **exc.context) from exc
        self.env, self.profile = env, profile

    async def _stop(self) -> None:
        env, self.env = self.env, None
        if env is not None:
            await env.close()

    async def _ensure(self) -> BrowserEnv:
        if not self.running:
            await self._start(self.profile)
        assert self.env is not None
        return self.env

    # ------------------------------------------------------------------ the tool
    async def run(self, ctx: CallContext, a: BrowserToolParams) -> JsonObject:
        async with self._lock:  # one browser, one caller at a time: calls are applied in order
            if a.action == "status":
                return await self._status()
            if a.action == "start":
                await self._start(a.profile)
                return await self._status()
            if a.action == "stop":
                was = self.running
                await self._stop()
                return {"running": False, "stopped": was}
            if a.action == "snapshot":
                await self._ensure()
                return await self._snapshot()
            if a.action == "navigate":
                return await self._navigate(ctx, a.target_url or "")
            assert a.request is not None
            return await self._act(ctx, a.request)

    async def _status(self) -> JsonObject:
        if not self.running or self.env is None:
            return {"running": False, "profile": self.profile}
        tabs = await self.env.ctx.tabs()
        active = next((t for t in tabs if t.active), tabs[0] if tabs else None)
        return {
            "running": True,
            "profile": self.profile,
            "url": active.url if active else None,
            "title": active.title if active else None,
            "tabs": [t.model_dump() for t in tabs],
        }

    async def _observe(self) -> Observation:
        assert self.env is not None
        return await self.env.observe()

    def _render(self, obs: Observation) -> JsonObject:
        assert self.runtime is not None
        text = render_observation(obs, budget_tokens=self.runtime.config.snapshot.token_budget)
        return {
            "url": obs.summary.url,
            "title": obs.summary.title,
            "snapshot": text,
            "elements": len(obs.elements),
            "tokens": count_tokens(text),
        }

    async def _rendered(self, obs: Observation) -> JsonObject:
        """``_render`` in a thread: fitting the token budget counts tokens (CPU work), which on the event loop
        would hold up every other caller of the server meanwhile."""
        return await asyncio.to_thread(self._render, obs)

    async def _snapshot(self) -> JsonObject:
        return await self._rendered(await self._observe())

    async def _navigate(self, ctx: CallContext, url: str) -> JsonObject:
        assert self.runtime is not None
        url = check_url(url, self.runtime.config.browser)
        check_domain(self.gate, url, "browser")
        env = await self._ensure()
        try:
            acted = await act_gated(env, Navigate(url=url), self._last(), ctx.confirmer)
        except CallRefusedError as exc:
            raise ToolError(exc.refused, f"browser: {exc.verdict.gate.message}", url=url) from None
        result = acted.result
        if not result.ok and result.error is not None:
            raise ToolError(result.error.error, f"browser: {result.error.message}", url=url)
        return {"ok": True, "message": result.message, **await self._rendered(await self._observe())}

    def _last(self) -> Observation | None:
        if self.env is None:
            return None
        with contextlib.suppress(KiteError):
            return self.env.snapshotter.last(self.env.ctx.page)
        return None

    async def _act(self, ctx: CallContext, req: ActRequest) -> JsonObject:
        env = await self._ensure()
        obs = self._last()
        if req.index is not None and (obs is None or obs.element(req.index) is None):
            fresh = await self._observe()
            raise ToolError(
                "stale_element",
                f"element [{req.index}] is not in the current page; use an id from this fresh snapshot",
                target_id=str(req.index),
                **(await self._rendered(fresh)),
            )
        try:
            acted = await act_gated(env, to_action(req), obs, ctx.confirmer)
        except CallRefusedError as exc:
            gate = exc.verdict.gate
            raise ToolError(exc.refused, f"browser: {gate.message}", level=str(gate.decision.level)) from None
        result = acted.result
        if not result.ok and result.error is not None:
            info = result.error.model_dump()
            extra = {k: v for k, v in info.items() if k not in ("error", "message")}
            if info["error"] == "stale_element":
                extra["snapshot"] = extra.pop("elements", "")
            raise ToolError(info["error"], info["message"], **extra)
        out: dict[str, Any] = {
            "ok": True,
            "kind": req.kind,
            "message": result.message,
            "effects": result.effects.model_dump(exclude_defaults=True),
        }
        if result.data:
            out["data"] = result.data
        if result.page_changed:
            out.update(await self._rendered(await self._observe()))
        return out
