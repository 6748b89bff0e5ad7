"""The ``kite`` command line run inside the test process: ``main(argv)`` with its own stdin, stdout, stderr,
environment and working folder, answered as a ``subprocess.CompletedProcess``.

A ``kite`` subprocess that counts tokens or calls a model imports litellm: 5 s of CPU on a quiet machine and
10 s under load, each time. A test about what a command prints, writes or exits with runs it here instead
(litellm is imported once per test process); a test about the process itself (signals, a TTY, PATH, what a
fresh interpreter imports, exit at process level) starts a real one.

Like a subprocess with pipes: stdout and stderr are not terminals, stdin is empty and not a terminal, ``env``
is added to (and ``unset`` taken from) the environment, ``cwd`` is the working folder; all are restored after.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from kite_browser.agent.cli import main
from kite_browser.agent.llm.fakes import scripted

ROOT = Path(__file__).resolve().parents[1]


class _Pipe(io.StringIO):
    """A captured stream that says what a pipe says: not a terminal."""

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def _environment(env: Mapping[str, str], unset: Sequence[str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in (*env, *unset)}
    os.environ.update(env)
    for key in unset:
        os.environ.pop(key, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_kite(
    *argv: str,
    env: Mapping[str, str] | None = None,
    unset: Sequence[str] = (),
    cwd: str | Path = ROOT,
    stdin: str = "",
    script: Sequence[Any] | None = None,
    latency_s: float = 0.0,
    stdout: TextIO | None = None,
) -> subprocess.CompletedProcess[str]:
    """``kite ARGV`` in this process (a sync test's thread: the command runs its own event loop).

    ``script``: the replies ``kite/scripted`` gives (``latency_s`` apart), as ``tests/agent/cli_entry.py`` loads
    them into a subprocess; cleared afterwards. ``stdout``: an open file to write to instead (as ``> out.log``
    gives; the answer's ``stdout`` is then None)."""
    out, err = _Pipe(), _Pipe()
    before = Path.cwd()
    code: int
    with _environment(env or {}, unset), contextlib.ExitStack() as stack:
        if script is not None:
            stack.enter_context(scripted(list(script), latency_s=latency_s))
        os.chdir(cwd)
        stack.callback(os.chdir, before)
        stack.enter_context(contextlib.redirect_stdout(out if stdout is None else stdout))
        stack.enter_context(contextlib.redirect_stderr(err))
        saved_stdin = sys.stdin
        sys.stdin = io.StringIO(stdin)
        stack.callback(setattr, sys, "stdin", saved_stdin)
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors and --help exit
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
    printed = out.getvalue() if stdout is None else None
    return subprocess.CompletedProcess(["kite", *argv], code, printed, err.getvalue())
