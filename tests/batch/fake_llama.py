"""A stand-in for the bundled ``llama-server-vulkan`` (stdlib only: it runs with PYTHONPATH set to the install's
``site``), so the local-model wiring can be tested without the 1.1 GB model.

``install_fake_local(data_dir)`` lays out ``<data_dir>/local/`` as a finished install would look to
``agent.llm.local_install.is_installed`` (the pin markers, a sparse GGUF of the pinned size) with this script
as the server. The server speaks what Kite uses: ``GET /health`` and ``POST /v1/chat/completions`` (the key
in ``LLAMA_API_KEY`` required, as llama-server does), answering every call with a JSON-text ``done``. Each
start appends the server's pid and its parent's to ``local/fake-starts.log``; each call appends the model and
the server's clients at that moment (from ``server.json``) to ``fake-calls.log``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DONE = '```json\n{"thought": "done", "action": "done", "success": true, "answer": "answered locally"}\n```'


def install_fake_local(data_dir: Path) -> Path:
    """A fake install under ``data_dir/local``; returns that folder."""
    from kite_browser.agent.llm.local_install import LocalPaths
    from kite_browser.agent.llm.local_pins import GGUF_SHA256, GGUF_SIZE, SERVER_WHEEL

    paths = LocalPaths.for_data_dir(data_dir)
    paths.server_script.parent.mkdir(parents=True, exist_ok=True)
    paths.server_script.write_text(f"#!{sys.executable}\n" + Path(__file__).read_text(encoding="utf-8"))
    paths.server_script.chmod(0o755)
    (paths.site / ".kite-pin").write_text(SERVER_WHEEL.sha256)
    paths.gguf.parent.mkdir(parents=True, exist_ok=True)
    with paths.gguf.open("wb") as f:
        f.truncate(GGUF_SIZE)  # sparse: no disk used
    paths.gguf_marker.write_text(GGUF_SHA256)
    return paths.root


def _serve(argv: list[str]) -> None:
    port = int(argv[argv.index("--port") + 1])
    root = Path(argv[argv.index("-m") + 1]).parents[1]
    key = os.environ.get("LLAMA_API_KEY", "")
    with (root / "fake-starts.log").open("a") as f:
        f.write(json.dumps({"pid": os.getpid(), "parent": os.getppid()}) + "\n")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._send(200, {"status": "ok"} if self.path == "/health" else {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.headers.get("Authorization") != f"Bearer {key}":
                self._send(401, {"error": {"message": "Invalid API Key", "type": "authentication_error"}})
                return
            state = json.loads((root / "server.json").read_text())  # who uses this server right now
            with (root / "fake-calls.log").open("a") as f:
                f.write(json.dumps({"model": body.get("model"), "clients": state.get("clients")}) + "\n")
            message = {"role": "assistant", "content": DONE}
            usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            self._send(200, {"id": "fake", "object": "chat.completion", "created": int(time.time()),
                             "model": body.get("model", "fake"), "usage": usage,
                             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip

        def _send(self, code: int, data: dict[str, object]) -> None:
            raw = json.dumps(data).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    _serve(sys.argv[1:])
