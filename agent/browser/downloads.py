"""Downloads a page starts: stopped at a size cap while they arrive, and their content scanned for secrets.

* **The cap** (``browser.max_download_mb``): each tab's own CDP session reports every download's progress
  (``Page.downloadWillBegin``, then ``Page.downloadProgress`` with the bytes received and the size the server
  announced). A download whose announced size or received bytes pass the cap is cancelled (Playwright's
  ``Download.cancel``): nothing of it is kept, and a ``download_too_large`` notice says where it stopped.
  Chromium reports progress only about every half second (a local server sends 100 MB meanwhile), so while
  a download of unannounced size arrives, the file Chromium writes it to (``<guid>.crdownload`` in
  Playwright's artifacts folder, named by the event's guid) is also measured every ``POLL_S``. A download no
  tab reported (a cross-origin frame's, or a browser refusing CDP) is measured once saved: past the cap it
  is deleted, with the same notice.
* **The run's total** (``browser.max_download_total_mb``): what the context's downloads add up to — the files
  kept plus what the downloads in flight received — is held under a second cap, so a page cannot fill the
  disk with many files each under the per-file cap. The download that would pass it is stopped (or, measured
  once saved, deleted) with a ``download_total_too_large`` notice; the files already kept stay.
* **The content**: a saved file is read and every value of the run's secrets in it (``SecretStore.redact``:
  after NFKC and case folding, with separators between the characters, URL/HTML/base64 encoded) is replaced
  by its placeholder when the file is UTF-8 text (``download_secret_redacted``); a file that is not (a
  binary holding the value's UTF-8 bytes) is deleted (``download_withheld``). A quick test comes first
  (``SecretStore.might_contain``, C-speed searches: about a second per 100 MB); the full pattern, seconds
  per MB, runs only over the pieces of a file that pass it (``SecretStore.redact_long``). Not found: a value in a compressed or encrypted file (zip,
  gzip, most PDF streams), in UTF-16 text, or split across the file.

A download's CDP progress and Playwright's ``Download`` are matched by URL (both come from the same
``downloadWillBegin``); two downloads of one URL at once are told apart by order only.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypedDict

from playwright.async_api import BrowserContext, Download, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.observation import DownloadNotice

MB = 1024 * 1024

_PLACEHOLDER = re.compile(r"<secret>([^<>\s]+)</secret>")
"""A secret's placeholder (the safety room's ``PLACEHOLDER_RE``, which this room does not import)."""
POLL_S = 0.05
"""How often the file of a download in flight is measured (between Chromium's progress events)."""


class _WillBegin(TypedDict, total=False):
    """CDP's ``Page.downloadWillBegin`` event: the parts read here."""

    guid: str
    url: str


class _Progressed(TypedDict, total=False):
    """CDP's ``Page.downloadProgress`` event."""

    guid: str
    state: str
    receivedBytes: float
    totalBytes: float


class SecretScan(Protocol):
    """What the content scan needs of the run's secrets (``SecretStore``)."""

    def redact_long(self, text: str) -> str: ...

    def might_contain(self, text: str) -> bool: ...


Scrubbed = Literal["clean", "redacted", "withheld"]


@dataclass
class _Progress:
    url: str
    received: int = 0
    total: int = 0


def _mb(n: int) -> float:
    return round(n / MB, 1)


def _cap_text(cap_mb: float) -> str:
    return f"{cap_mb:g} MB"


def too_large(name: str, received: int, total: int, cap_mb: float) -> DownloadNotice:
    announced = f" of {_mb(total)} MB announced" if total > 0 else ""
    return DownloadNotice(
        type="download_too_large",
        file=name,
        message=(
            f"the download {name} was stopped at {_mb(received)} MB{announced}: larger than the download cap "
            f"of {_cap_text(cap_mb)} (browser.max_download_mb); nothing of it was kept"
        ),
        received_mb=_mb(received),
        cap_mb=cap_mb,
    )


def over_total(name: str, received: int, kept: int, cap_mb: float) -> DownloadNotice:
    return DownloadNotice(
        type="download_total_too_large",
        file=name,
        message=(
            f"the download {name} was stopped at {_mb(received)} MB: with the {_mb(kept)} MB already downloaded "
            f"in this run it passes the run's download cap of {_cap_text(cap_mb)} "
            "(browser.max_download_total_mb); nothing of it was kept"
        ),
        received_mb=_mb(received),
        cap_mb=cap_mb,
    )


def _partial_file(guid: str) -> str | None:
    """The file Chromium writes a download to, in Playwright's artifacts folder (None: not found)."""
    pattern = os.path.join(glob.escape(tempfile.gettempdir()), "playwright-artifacts-*", glob.escape(guid))
    found = glob.glob(pattern + ".crdownload") or glob.glob(pattern)
    return found[0] if found else None


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def scrub_file(path: Path, secrets: SecretScan) -> tuple[Scrubbed, list[str]]:
    """Take every secret value out of the file at ``path``: rewritten with placeholders when it is UTF-8
    text (``redacted``), deleted when it is not (``withheld``). Also the names of the secrets found."""
    data = path.read_bytes()
    text = data.decode("utf-8", "surrogateescape")  # undecodable bytes kept apart, UTF-8 text as it is
    if not secrets.might_contain(text):
        return "clean", []
    out = secrets.redact_long(text)
    if out == text:
        return "clean", []
    names = sorted(set(_PLACEHOLDER.findall(out)) - set(_PLACEHOLDER.findall(text)))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        path.unlink(missing_ok=True)
        return "withheld", names
    path.write_bytes(out.encode("utf-8"))
    return "redacted", names


def _scrub_notice(name: str, how: Scrubbed, names: list[str]) -> DownloadNotice | None:
    which = ", ".join(f"<secret>{n}</secret>" for n in names) or "a secret"
    if how == "redacted":
        return DownloadNotice(
            type="download_secret_redacted",
            file=name,
            message=f"the downloaded file {name} held the value of {which}: the saved file has the placeholder "
            "in its place",
        )
    if how == "withheld":
        return DownloadNotice(
            type="download_withheld",
            file=name,
            message=f"the downloaded file {name} held the value of {which} and is not text: it was deleted",
        )
    return None


class DownloadGuard:
    """The downloads of one browser context: their progress (per tab, over CDP), the cap, the content scan."""

    def __init__(self, max_mb: float | None = None, max_total_mb: float | None = None) -> None:
        self.max_mb = max_mb
        """The cap in MB; None: no cap."""
        self.max_total_mb = max_total_mb
        """The cap on all the context's downloads together, in MB; None: no cap."""
        self._kept = 0
        """Bytes of the downloaded files kept so far."""
        self._progress: dict[str, _Progress] = {}
        """CDP guid -> what arrived so far."""
        self._in_flight: list[Download] = []
        self._capped: dict[int, tuple[int, int, int | None]] = {}
        """id(Download) -> (received, announced, kept before it: None when the per-file cap stopped it)."""
        self._early: dict[str, tuple[int, int, int | None]] = {}
        """url -> the same, for a download stopped before Playwright reported it."""
        self._tasks: set[asyncio.Task[object]] = set()

    @property
    def max_bytes(self) -> int | None:
        return int(self.max_mb * MB) if self.max_mb is not None else None

    @property
    def max_total_bytes(self) -> int | None:
        return int(self.max_total_mb * MB) if self.max_total_mb is not None else None

    def _before(self, guid: str) -> int:
        """What the run downloaded besides the download ``guid``: files kept, and the others in flight."""
        return self._kept + sum(p.received for g, p in self._progress.items() if g != guid)

    def _passes(self, guid: str, prog: _Progress) -> int | bool | None:
        """False when ``prog`` is within both caps; else what ``_stop`` records: None for the per-file cap,
        the bytes downloaded before it for the run's total."""
        cap, total = self.max_bytes, self.max_total_bytes
        if cap is not None and (prog.received > cap or prog.total > cap):
            return None
        if total is not None and (before := self._before(guid)) + max(prog.received, prog.total) > total:
            return before
        return False

    # ----------------------------------------------------------------- progress
    def watch(self, context: BrowserContext, page: Page) -> None:
        """Follow the downloads ``page`` starts (a CDP session of its own, set up in the background)."""
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to follow with
            task = asyncio.ensure_future(self._attach(context, page))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _attach(self, context: BrowserContext, page: Page) -> None:
        try:
            cdp = await context.new_cdp_session(page)
            cdp.on("Page.downloadWillBegin", self._on_will_begin)
            cdp.on("Page.downloadProgress", self._on_progress)
            await cdp.send("Page.enable")
        except PlaywrightError:
            return  # not Chromium, or the tab is gone: saved files are still measured

    def _on_will_begin(self, event: _WillBegin) -> None:
        guid = str(event.get("guid"))
        self._progress[guid] = _Progress(url=str(event.get("url", "")))
        if self.max_mb is not None or self.max_total_mb is not None:
            task = asyncio.ensure_future(self._measure(guid))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _measure(self, guid: str) -> None:
        """Measure the file the download is written to until it ends, is stopped, or passes the cap."""
        path: str | None = None
        while (prog := self._progress.get(guid)) is not None:
            path = path or await asyncio.to_thread(_partial_file, guid)
            size = await asyncio.to_thread(_size, path) if path else 0
            measured = _Progress(prog.url, max(size, prog.received), 0)
            if (why := self._passes(guid, measured)) is not False and self._progress.pop(
                guid, None
            ) is not None:
                prog.received = measured.received
                self._stop(prog, why)
                return
            await asyncio.sleep(POLL_S)

    def _on_progress(self, event: _Progressed) -> None:
        guid = str(event.get("guid"))
        prog = self._progress.get(guid)
        if prog is None:
            return
        if event.get("state") != "inProgress":
            self._progress.pop(guid, None)
            return
        prog.received = int(event.get("receivedBytes") or 0)
        prog.total = int(event.get("totalBytes") or 0)
        if (why := self._passes(guid, prog)) is not False:
            self._progress.pop(guid, None)
            self._stop(prog, why)

    def _stop(self, prog: _Progress, before: int | None) -> None:
        found = next((d for d in self._in_flight if d.url == prog.url and id(d) not in self._capped), None)
        if found is None:  # Playwright has not reported it yet: stopped when it does
            self._early[prog.url] = (prog.received, prog.total, before)
            return
        self._cancel(found, (prog.received, prog.total, before))

    def _cancel(self, download: Download, sizes: tuple[int, int, int | None]) -> None:
        self._capped[id(download)] = sizes
        task = asyncio.ensure_future(download.cancel())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----------------------------------------------------------------- one download
    def started(self, download: Download) -> None:
        self._in_flight.append(download)
        sizes = self._early.pop(download.url, None)
        if sizes is not None:
            self._cancel(download, sizes)

    def finished(self, download: Download, name: str) -> DownloadNotice | None:
        """The download is no longer in flight; the notice when it was stopped at the cap."""
        with contextlib.suppress(ValueError):
            self._in_flight.remove(download)
        sizes = self._capped.pop(id(download), None)
        if sizes is None:
            return None
        received, announced, before = sizes
        if before is not None and self.max_total_mb is not None:
            return over_total(name, received, before, self.max_total_mb)
        return too_large(name, received, announced, self.max_mb) if self.max_mb is not None else None

    async def check_saved(self, path: Path, name: str, secrets: SecretScan | None) -> DownloadNotice | None:
        """A saved file past the cap is deleted; secrets in its content are taken out (or it is withheld)."""
        return await asyncio.to_thread(self._check_saved, path, name, secrets)

    def _check_saved(self, path: Path, name: str, secrets: SecretScan | None) -> DownloadNotice | None:
        cap, cap_mb = self.max_bytes, self.max_mb
        size = path.stat().st_size
        if cap is not None and cap_mb is not None and size > cap:
            path.unlink(missing_ok=True)
            return too_large(name, size, 0, cap_mb)
        total, total_mb = self.max_total_bytes, self.max_total_mb
        if total is not None and total_mb is not None and self._kept + size > total:
            path.unlink(missing_ok=True)
            return over_total(name, size, self._kept, total_mb)
        self._kept += size
        if secrets is None:
            return None
        how, names = scrub_file(path, secrets)
        return _scrub_notice(name, how, names)

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
