"""Recent tasks, persisted as JSON in Kite's data folder, newest first."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ValidationError

MAX_ENTRIES = 50


class TaskEntry(BaseModel):
    task: str
    start_url: str = ""
    model: str = ""
    vision: bool = False
    headed: bool = False


class TaskHistory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[TaskEntry] = self._load()

    def _load(self) -> list[TaskEntry]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return [TaskEntry.model_validate(item) for item in raw][:MAX_ENTRIES]
        except (OSError, ValueError, ValidationError, TypeError):
            return []

    def add(self, entry: TaskEntry) -> None:
        self.entries = [entry, *(e for e in self.entries if e != entry)][:MAX_ENTRIES]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps([e.model_dump() for e in self.entries], ensure_ascii=False, indent=1), "utf-8"
        )
        tmp.replace(self.path)
