"""Run the real ``kite`` CLI (``kite serve`` for the panel tests) with a fake model whose replies depend on the
run's task, so several runs of one server each follow their own script.

    python -m tests.server.panel_entry SCRIPTS.json -- kite-args...

SCRIPTS.json maps a tag to ``{"replies": [...], "delays": [...]}``: a run whose task contains the tag gets the
tag's replies in order (the scripted model's reply forms); ``delays[i]`` seconds pass before reply ``i``
(a run to be stopped mid-step waits in its model call). The model is ``kite/panel``. Only the model is fake.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from kite_browser.agent.cli import main
from kite_browser.agent.llm.fakes import register_fake


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def panel_model(scripts: dict[str, dict[str, Any]]) -> Any:
    positions: dict[str, int] = {}

    async def reply(messages: list[dict[str, Any]], tools: Any, kwargs: dict[str, Any]) -> Any:
        latest = next((_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
        tag = next((t for t in scripts if t in latest), None)
        if tag is None:
            return {"name": "done", "arguments": {"success": False, "answer": "no script for this task"}}
        n = positions.get(tag, 0)
        positions[tag] = n + 1
        script = scripts[tag]
        delays = script.get("delays", [])
        if n < len(delays) and delays[n]:
            await asyncio.sleep(delays[n])
        replies = script["replies"]
        return replies[min(n, len(replies) - 1)]

    return reply


if __name__ == "__main__":
    split = sys.argv.index("--")
    register_fake("panel", panel_model(json.loads(Path(sys.argv[1]).read_text())))
    sys.exit(main(sys.argv[split + 1 :]))
