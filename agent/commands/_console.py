"""The consoles the commands print to: rich on a terminal, plain text anywhere else.

Redirected to a file or a pipe (``kite run ... > out.log``, CI logs, ``| grep``), rich would still wrap at
80 columns, splitting URLs and numbers across lines. There a console is plain: no colour or other escape
codes, no wrapping at any width, no live animation (spinners, redrawn bars).
"""

from __future__ import annotations

import sys
from typing import IO, TextIO

from rich.console import Console

PLAIN_WIDTH = 10_000
"""A plain console's width: what rich lays out tables and rules in; lines are never wrapped to it."""


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def console_for(stream: TextIO | None = None, *, stderr: bool = False) -> Console:
    """A rich Console on ``stream`` (default: stdout, or stderr with ``stderr=True``): rich's own behaviour on
    a terminal, plain when the stream is not one."""
    out = stream if stream is not None else (sys.stderr if stderr else sys.stdout)
    if is_terminal(out):
        return Console(file=out, highlight=False)
    return Console(
        file=out,
        highlight=False,
        force_terminal=False,
        force_interactive=False,
        no_color=True,
        color_system=None,
        emoji=False,
        soft_wrap=True,
        width=PLAIN_WIDTH,
    )
