"""The MCP server's run record: ``<runs_dir>/mcp-<time>/record.jsonl``, append-only, one line per tool call
and one per safety decision, secrets redacted, written as the server goes; each page action that ran is a line
with its fingerprinted result too (``kite workflow save`` makes a workflow of them)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.observation import ActionResult
from kite_browser.safety.secrets import SecretStore


class Record:
    def __init__(self, run_dir: Path, secrets: SecretStore) -> None:
        self.run_dir = run_dir
        self.path = run_dir / "record.jsonl"
        self.secrets = secrets
        self._lock = threading.Lock()
        run_dir.mkdir(parents=True, exist_ok=True)

    @classmethod
    def create(cls, runs_dir: str | Path, secrets: SecretStore) -> Record:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        base = Path(runs_dir) / f"mcp-{stamp}"
        path, n = base, 1
        while path.exists():
            path, n = Path(f"{base}-{n}"), n + 1
        return cls(path, secrets)

    def write(self, event: str, **data: object) -> None:
        line = {"time": round(time.time(), 3), "event": event, **self.secrets.redact_obj(data)}
        text = json.dumps(line, ensure_ascii=False, default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(text + "\n")

    def action(self, client: str, tool: str, action: JsonObject, result: ActionResult) -> None:
        """One page action that ran: the action as Kite's JSON and its result with the target's fingerprint,
        what ``kite workflow save`` turns into a workflow's step."""
        self.write("action", client=client, tool=tool, action=action, result=result.model_dump(mode="json"))

    def read(self) -> list[JsonObject]:
        if not self.path.exists():
            return []
        return [json.loads(x) for x in self.path.read_text(encoding="utf-8").splitlines() if x.strip()]
