"""``python -m tests.batch.kite_fake ARGS``: the ``kite`` command line with the test fakes registered.

``kite/steps`` (tests/batch/fakes.py) answers after 0.3 s per call, ``kite/holder`` (tests/batch/holder.py)
holds a task until Ctrl-C; the guard refusing real model calls is installed, as in the test session."""

from __future__ import annotations

import sys

from kite_browser.agent.cli import exit_with, main
from tests.batch.fakes import register_steps
from tests.batch.holder import register_holder
from tests.fixtures.llm import install_model_guard

if __name__ == "__main__":
    install_model_guard()
    register_steps(latency_s=0.3)
    register_holder()
    exit_with(main(sys.argv[1:]))
