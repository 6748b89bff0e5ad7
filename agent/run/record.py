"""The run record: ``runs/<timestamp>-<id>/`` with run.json, steps.jsonl, screenshots/, sent/ and trace.zip.

Everything is written as the run goes (steps.jsonl is appended and flushed per step) so that a crash loses at
most the step in flight. Every object passes through ``redact`` first: secret values never reach the disk.

Each step's record holds the request sent to the model (``request``: the messages and tools). What is the same
every step is stored once per run: the system message and the tool definitions go to ``sent/`` under a hash
of their content and the step refers to them (``content_file``, ``tools_file``); an attached screenshot is
referred to by its file in ``screenshots/`` instead of its base64. ``load_request`` puts them back.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TypedDict

from pydantic import BaseModel

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.base.result import RefusedAction, RunResult
from kite_browser.agent.llm.chat import ChatMessage, ChatTool

Redactor = Callable[[JsonValue], JsonValue]


class _JsonRecord(Protocol):
    def to_json(self) -> JsonObject: ...


StepLike = _JsonRecord | JsonObject


class StoredRequest(TypedDict, total=False):
    """A step record's ``request`` as stored: messages (a system message by its ``content_file``) and the tools
    by their ``tools_file``."""

    messages: list[JsonObject]
    tools_file: str | None


__all__ = ["RefusedAction", "RunRecorder", "RunResult", "load_request"]


def _image_ref(part: object, shot: str | None) -> object:
    url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
    if not str(url).startswith("data:"):
        return part
    return {
        "type": "image_url",
        "image_url": {"url": shot or f"(an image of {len(url)} characters, not kept)"},
    }


def load_request(
    run_dir: str | Path, request: StoredRequest
) -> tuple[list[JsonObject], list[JsonValue] | None]:
    """A step record's ``request`` with its stored parts read back: (messages, tools)."""
    root = Path(run_dir)
    messages = []
    for m in request.get("messages") or []:
        if "content_file" in m:
            text = (root / str(m["content_file"])).read_text(encoding="utf-8")
            m = {"role": m.get("role", "system"), "content": text}
        messages.append(m)
    tools = request.get("tools_file")
    return messages, json.loads((root / tools).read_text(encoding="utf-8")) if tools else None


def _default(obj: object) -> JsonValue:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json", by_alias=True)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return repr(obj)


class RunRecorder:
    def __init__(self, run_dir: Path, redact: Redactor | None = None) -> None:
        self.run_dir = run_dir
        self.redact: Redactor = redact or (lambda x: x)
        self.screenshots = run_dir / "screenshots"
        self.downloads = run_dir / "downloads"
        for d in (self.run_dir, self.screenshots, self.downloads):
            d.mkdir(parents=True, exist_ok=True)
        self._steps = (run_dir / "steps.jsonl").open("a", encoding="utf-8")
        self._run: dict[str, object] = {}

    @classmethod
    def create(
        cls, runs_dir: str | Path, redact: Redactor | None = None, label: str | None = None
    ) -> RunRecorder:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        name = f"{stamp}-{label or secrets.token_hex(3)}"
        return cls(Path(runs_dir) / name, redact)

    def _dump(self, obj: object) -> str:
        return json.dumps(self.redact(json.loads(json.dumps(obj, default=_default))), ensure_ascii=False)

    def start(self, **info: object) -> None:
        self._run = {"started_at": datetime.now(UTC).isoformat(), **info, "result": None}
        self._write_run()

    def _stored(self, kind: str, text: str, suffix: str) -> str:
        """``text`` (redacted) stored once under ``sent/``; its path relative to the run folder."""
        text = str(self.redact(text))
        name = f"sent/{kind}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.{suffix}"
        path = self.run_dir / name
        if not path.is_file():
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return name

    def request(
        self, messages: list[ChatMessage], tools: list[ChatTool] | None, image: str | None = None
    ) -> dict[str, object]:
        """What a step sent to the model, for its record: system messages and tools by reference, an image by
        its screenshot file (``image``: the path; else only its size is kept)."""
        shot = (
            str(Path(image).relative_to(self.run_dir))
            if image and Path(image).is_relative_to(self.run_dir)
            else image
        )
        out: list[dict[str, object]] = []
        for m in messages:
            content = m.get("content")
            if m.get("role") == "system" and isinstance(content, str):
                out.append({"role": "system", "content_file": self._stored("system", content, "txt")})
            elif isinstance(content, list):
                out.append({**m, "content": [_image_ref(part, shot) for part in content]})
            else:
                out.append(dict(m))
        sent = json.dumps(tools, ensure_ascii=False, indent=1) if tools else None
        return {"messages": out, "tools_file": self._stored("tools", sent, "json") if sent else None}

    def step(self, record: StepLike) -> None:
        t = time.time()  # the step ends here: its line's own making and writing is the next step's "record"
        data = record.to_json() if not isinstance(record, dict) else record
        self._steps.write(self._dump({"t": t, **data}) + "\n")
        self._steps.flush()

    def finish(self, result: RunResult) -> None:
        self._run["finished_at"] = datetime.now(UTC).isoformat()
        self._run["result"] = result
        self._write_run()
        self._steps.close()

    def _write_run(self) -> None:
        tmp = self.run_dir / "run.json.tmp"
        tmp.write_text(
            json.dumps(json.loads(self._dump(self._run)), indent=2, ensure_ascii=False), encoding="utf-8"
        )
        tmp.replace(self.run_dir / "run.json")
