"""SitesServer: serves the bundled local web apps (evals/sites/static + small server-side handlers).

Two listening ports on 127.0.0.1 share one state store: the main origin and a second one used as the
cross-origin iframe origin. State is per visitor, keyed by the persistent ``kite_sid`` cookie."""

from __future__ import annotations

import contextlib
import mimetypes
import secrets
import socket
import threading
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, unquote, urlsplit

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.evals.sites.routes import build_routes, match
from kite_browser.evals.sites.state import StateStore
from kite_browser.evals.sites.variants import CONSENT_COOKIE, Variant
from kite_browser.evals.sites.web import Request, Response, set_cookie

STATIC = Path(__file__).parent / "static"
MAX_BODY = 20 * 1024 * 1024


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("GET", head=True)

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str, head: bool = False) -> None:
        owner = self.server.owner
        url = urlsplit(self.path)
        path = unquote(url.path)
        length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
        body = self.rfile.read(length) if length else b""
        cookies = {k: m.value for k, m in SimpleCookie(self.headers.get("Cookie", "")).items()}
        sid = cookies.get("kite_sid") or ""
        new_sid = not sid
        if new_sid:
            sid = secrets.token_hex(12)
        req = Request(
            method=method,
            path=path,
            query=parse_qs(url.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in self.headers.items()},
            cookies=cookies,
            body=body,
            sid=sid,
            store=owner.store,
            stopping=owner.stopping,
            variant=owner.variant,
        )
        found = match(owner.routes, method, path)
        if found:
            fn, groups = found
            resp = fn(req, *groups)
        elif method == "GET":
            resp = owner.static(path)
        else:
            resp = Response(status=405, body=b"method not allowed", content_type="text/plain")
        if resp.content_type.startswith("text/html") and resp.body:
            html = owner.variant.finish(
                resp.body.decode("utf-8"),
                rename=owner.variant.renames_page(path, rendered=found is not None),
                document=req.headers.get("sec-fetch-dest", "document") == "document",
                consent=CONSENT_COOKIE in cookies,
            )
            resp.body = html.encode("utf-8")
        if new_sid:
            resp.cookies.append(set_cookie("kite_sid", sid))
        self._send(resp, head)

    def _send(self, resp: Response, head: bool) -> None:
        try:
            self.send_response(resp.status)
            self.send_header("Content-Type", resp.content_type)
            self.send_header("Content-Length", str(len(resp.body)))
            self.send_header("Cache-Control", "no-store")
            for key, value in resp.headers.items():
                self.send_header(key, value)
            for cookie in resp.cookies:
                self.send_header("Set-Cookie", cookie)
            self.end_headers()
            if not head:
                self.wfile.write(resp.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, owner: SitesServer, port: int) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        with self.connections_lock:
            if isinstance(request, socket.socket):  # always, over TCP
                self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        with self.connections_lock:
            if isinstance(request, socket.socket):
                self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Cut open keep-alive connections, so a stopped server answers nothing at all."""
        with self.connections_lock:
            open_now, self.connections = list(self.connections), set()
        for conn in open_now:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: object, client_address: object) -> None:  # quiet on client disconnects
        pass


class SitesServer:
    """The bundled sites on 127.0.0.1: ``with SitesServer() as s: page.goto(s.url("/shop/"))``.

    ``variant`` (0–3) serves a page variant, ``marks`` the hidden element markers (evals/sites/variants.py)."""

    def __init__(
        self,
        port: int = 0,
        cross_port: int = 0,
        static_dir: Path = STATIC,
        *,
        variant: int = 0,
        marks: bool = False,
    ) -> None:
        self._ports = (port, cross_port)
        self.variant = Variant(variant, marks)
        self.static_dir = static_dir
        self.store = StateStore()
        self.routes = build_routes()
        self.stopping = threading.Event()
        self._servers: list[_HTTPServer] = []
        self._threads: list[threading.Thread] = []
        self._bound: tuple[int, int] | None = None

    def start(self) -> SitesServer:
        if self._servers:
            return self
        self.stopping.clear()
        servers: list[_HTTPServer] = []
        try:
            for p in self._ports:
                servers.append(_HTTPServer(self, p))
        except OSError:
            for srv in servers:
                srv.server_close()
            raise
        self._servers = servers
        self._bound = (int(self._servers[0].server_address[1]), int(self._servers[1].server_address[1]))
        for srv in self._servers:
            thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
            thread.name = f"kite-sites-{srv.server_address[1]}"
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop both ports; requests that hang on purpose are released first, so this returns promptly."""
        self.stopping.set()
        for srv in self._servers:
            srv.shutdown()
            srv.server_close()
            srv.close_connections()
        for thread in self._threads:
            thread.join(timeout=5)
        self._servers, self._threads = [], []

    def __enter__(self) -> SitesServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _port(self, i: int) -> int:
        """The bound port (kept after ``stop()`` for messages); RuntimeError before the first ``start()``."""
        if self._bound is None:
            raise RuntimeError("SitesServer is not started")
        return self._bound[i]

    @property
    def port(self) -> int:
        return self._port(0)

    @property
    def cross_port(self) -> int:
        return self._port(1)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def cross_origin_url(self) -> str:
        return f"http://127.0.0.1:{self.cross_port}"

    def url(self, path: str = "/") -> str:
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def cross_url(self, path: str = "/") -> str:
        return self.cross_origin_url + (path if path.startswith("/") else "/" + path)

    def state_for(self, sid: str) -> JsonObject:
        """The state of one visitor (as ``GET /api/state`` returns it)."""
        return self.store.get(sid)

    def states(self) -> dict[str, JsonObject]:
        """Every visitor's state, keyed by ``kite_sid``."""
        return self.store.all()

    def reset(self) -> None:
        """Forget every visitor."""
        self.store.reset()

    def static(self, path: str) -> Response:
        """A file under ``static/`` (``/dir/`` serves ``dir/index.html``); ``__MAIN_ORIGIN__`` and
        ``__CROSS_ORIGIN__`` in HTML files are replaced by the two origins."""
        root = self.static_dir.resolve()
        target = (root / path.lstrip("/")).resolve()
        if not target.is_relative_to(root):
            return Response(status=404, body=b"not found", content_type="text/plain")
        if target.is_dir():
            if not path.endswith("/"):
                return Response(status=301, headers={"Location": path + "/"})
            target = target / "index.html"
        if not target.is_file() and target.with_suffix(".html").is_file():
            target = target.with_suffix(".html")
        if not target.is_file():
            return Response(
                status=404, body=b"<h1>404 Not found</h1>", content_type="text/html; charset=utf-8"
            )
        data = target.read_bytes()
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype == "text/html":
            text = data.decode("utf-8").replace("__MAIN_ORIGIN__", self.base_url)
            data = text.replace("__CROSS_ORIGIN__", self.cross_origin_url).encode("utf-8")
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        return Response(body=data, content_type=ctype)
