"""The HTTP API's own cost: a ``kite serve`` app (uvicorn on loopback, in a child process) against the same
work done in this process.

    python -m kite_browser.evals.bench.server [--json] [--calls N] [--steps N] [--rounds N]

* tool call round trip: ``POST /api/tools/add`` (a user function tool, keep-alive HTTP client) against
  ``ModuleRegistry.call("add", ...)`` in-process, interleaved; the overhead is the difference of the medians;
* SSE event latency: a run of a zero-latency fake model on the bundled counter page; for every event, the
  time from the run emitting it (its ``t``) to the SSE client having read it;
* 50 concurrent ``GET /api/modules`` on 50 keep-alive connections: wall time of the burst and each request's
  latency, over several bursts, sent by a lean asyncio client (and the same bursts by ``httpx.AsyncClient``,
  whose own cost dominates: reported beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from kite_browser.agent.base.httpserve import serve_asgi, until_done_or_terminated
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.fakes import FakeReply, register_fake
from kite_browser.agent.modules.functions import USER_MODULE, FunctionModule, tool
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.agent.server import ServerState, create_app
from kite_browser.evals.sites.server import SitesServer

TOKEN = "bench-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@tool(read_only=True)
def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}


def _registry(config: KiteConfig) -> ModuleRegistry:
    return ModuleRegistry(config, given={USER_MODULE: FunctionModule([add])}, names=["chrome", USER_MODULE])


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _stats(prefix: str, values: list[float]) -> dict[str, float]:
    return {
        f"{prefix}_median_ms": round(statistics.median(values), 3),
        f"{prefix}_p95_ms": round(_q(values, 0.95), 3),
    }


def tool_calls(base: str, config: KiteConfig, calls: int) -> dict[str, float]:
    local = _registry(config)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(local.load())
    over_http, in_process = [], []
    with httpx.Client(base_url=base, headers=AUTH) as client:
        for i in range(calls + 20):
            t0 = time.perf_counter()
            answer = client.post("/api/tools/add", json={"a": i, "b": 1}).json()
            t1 = time.perf_counter()
            mine = loop.run_until_complete(local.call("add", {"a": i, "b": 1}))
            t2 = time.perf_counter()
            assert answer == mine == {"sum": i + 1}, (answer, mine)
            if i >= 20:  # warm-up
                over_http.append((t1 - t0) * 1000)
                in_process.append((t2 - t1) * 1000)
    loop.run_until_complete(local.shutdown())
    loop.close()
    out = {**_stats("tool_http", over_http), **_stats("tool_inproc", in_process)}
    out["tool_overhead_median_ms"] = round(out["tool_http_median_ms"] - out["tool_inproc_median_ms"], 3)
    return out


def sse_latency(base: str, sites: SitesServer) -> dict[str, float]:
    body = {
        "task": "press increment",
        "start_url": sites.url("/test/counter.html"),
        "model": "kite/bench_serve",
    }
    latencies: list[float] = []
    with httpx.Client(base_url=base, headers=AUTH, timeout=120) as client:
        run_id = client.post("/api/runs", json=body).json()["id"]
        with client.stream("GET", f"/api/runs/{run_id}/events") as response:
            connected = time.time()
            for line in response.iter_lines():
                if line.startswith("data: "):
                    emitted = json.loads(line[6:])["t"]
                    if emitted > connected:  # not one replayed from before the stream opened
                        latencies.append((time.time() - emitted) * 1000)
        steps_done = client.get(f"/api/runs/{run_id}").json()["step_count"]
    return {
        **_stats("sse_latency", latencies),
        "sse_latency_max_ms": round(max(latencies), 3),
        "sse_events": len(latencies),
        "sse_steps": steps_done,
    }


REQUEST = b"GET /api/modules HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n\r\n"
Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _get(conn: Conn) -> float:
    """One keep-alive GET /api/modules on a raw connection (a lean client: the server's cost shows)."""
    reader, writer = conn
    t0 = time.perf_counter()
    writer.write(REQUEST)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    length = next(
        int(x.split(b":")[1]) for x in head.split(b"\r\n") if x.lower().startswith(b"content-length")
    )
    await reader.readexactly(length)
    return (time.perf_counter() - t0) * 1000


async def _bursts(base: str, n: int, rounds: int) -> tuple[list[float], list[float], list[float]]:
    host, port = base.removeprefix("http://").split(":")
    conns = [await asyncio.open_connection(host, int(port)) for _ in range(n)]
    walls, each, httpx_walls = [], [], []
    try:
        await asyncio.gather(*(_get(c) for c in conns))  # warm-up
        for _ in range(rounds):
            t0 = time.perf_counter()
            each += await asyncio.gather(*(_get(c) for c in conns))
            walls.append((time.perf_counter() - t0) * 1000)
    finally:
        for _, writer in conns:
            writer.close()
    limits = httpx.Limits(max_connections=n)
    async with httpx.AsyncClient(base_url=base, headers=AUTH, limits=limits) as client:  # the same with httpx
        await asyncio.gather(*(client.get("/api/modules") for _ in range(n)))
        for _ in range(rounds):
            t0 = time.perf_counter()
            answers = await asyncio.gather(*(client.get("/api/modules") for _ in range(n)))
            httpx_walls.append((time.perf_counter() - t0) * 1000)
            assert all(a.status_code == 200 for a in answers)
    return walls, each, httpx_walls


def concurrent_modules(base: str, rounds: int, n: int = 50) -> dict[str, float]:
    walls, each, httpx_walls = asyncio.run(_bursts(base, n, rounds))
    return {
        "modules_concurrency": n,
        "modules_burst_wall_median_ms": round(statistics.median(walls), 3),
        "modules_burst_wall_p95_ms": round(_q(walls, 0.95), 3),
        **_stats("modules_request", each),
        "modules_requests_per_s": round(n / (statistics.median(walls) / 1000), 1),
        "modules_burst_wall_httpx_client_median_ms": round(statistics.median(httpx_walls), 3),
    }


def _config(tmp: str) -> KiteConfig:
    return load_config(
        overrides={
            "run.runs_dir": str(Path(tmp) / "runs"),
            "module_settings.artifacts_dir": str(Path(tmp) / "artifacts"),
            "browser.block_external_hosts": True,
        }
    )


def serve_child(tmp: str, steps: int) -> None:
    """The child: the server with the ``add`` tool and the fake model ``kite/bench_serve``; prints its port."""
    replies = iter([{"name": "click", "arguments": {"selector": "#increment"}}] * steps)

    def model(messages: list[ChatMessage], tools: list[ChatTool] | None, kwargs: dict) -> FakeReply:
        call = next(replies, {"name": "done", "arguments": {"success": True, "answer": "ok"}})
        return FakeReply(tool_calls=[call])

    register_fake("bench_serve", model)
    config = _config(tmp)
    app = create_app(ServerState(config, token=TOKEN, registry=_registry(config)))

    async def main() -> None:
        ready = lambda port: print(port, flush=True)  # noqa: E731
        await until_done_or_terminated(asyncio.ensure_future(serve_asgi(app, "127.0.0.1", 0, ready=ready)))

    asyncio.run(main())


def measure(calls: int, steps: int, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, SitesServer() as sites:
        argv = [
            sys.executable,
            "-m",
            "kite_browser.evals.bench.server",
            "--serve-child",
            tmp,
            "--steps",
            str(steps),
        ]
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None
            base = f"http://127.0.0.1:{int(child.stdout.readline())}"
            out = tool_calls(base, _config(tmp), calls)
            out.update(sse_latency(base, sites))
            out.update(concurrent_modules(base, rounds))
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(60)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.server", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--calls", type=int, default=300, help="tool calls per side (default 300)")
    parser.add_argument("--steps", type=int, default=10, help="steps of the SSE run (default 10)")
    parser.add_argument("--rounds", type=int, default=10, help="bursts of 50 requests (default 10)")
    parser.add_argument("--serve-child", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_child:
        serve_child(args.serve_child, args.steps)
        return 0
    result = measure(args.calls, args.steps, args.rounds)
    if args.json:
        print(json.dumps(result))
        return 0
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
