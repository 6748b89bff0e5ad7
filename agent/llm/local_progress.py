"""A rich progress bar for the first install of the local model (~1.1 GB to download, then assemble)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from kite_browser.agent.llm.local_install import ProgressFn


@contextlib.contextmanager
def rich_progress(*, enabled: bool = True, console: Console | None = None) -> Iterator[ProgressFn | None]:
    """Yield a ``(description, done, total)`` callback drawing one bar per phase, or None when disabled.

    The callback may be called from a worker thread (rich's Progress is thread-safe)."""
    if not enabled:
        yield None
        return
    console = console or Console(stderr=True)
    columns = (
        TextColumn("[bold]local model[/] {task.description:<11}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    tasks: dict[str, TaskID] = {}
    with Progress(*columns, console=console) as bar:

        def report(description: str, done: int, total: int) -> None:
            if description not in tasks:
                tasks[description] = bar.add_task(description, total=total)
            bar.update(tasks[description], completed=done, total=total)

        yield report
