"""Run the real ``kite`` CLI in a subprocess with a scripted fake model loaded from a JSON file.

    python -m tests.agent.cli_entry SCRIPT.json [LATENCY_S] -- kite-args...

Only the model is fake; everything else (CLI, config, browser, sites) is real.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kite_browser.agent.cli import exit_with, main
from kite_browser.agent.llm.fakes import set_script

if __name__ == "__main__":
    split = sys.argv.index("--")
    script_path, *rest = sys.argv[1:split]
    set_script(json.loads(Path(script_path).read_text()), latency_s=float(rest[0]) if rest else 0.0)
    exit_with(main(sys.argv[split + 1 :]))
