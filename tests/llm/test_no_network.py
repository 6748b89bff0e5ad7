"""Importing the LLM layer (and looking up capabilities, registering fakes) never opens a connection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(args[1:] if len(args) > 1 else args)
    raise OSError("network disabled by test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
import kite_browser.agent.llm
from kite_browser.agent.llm import client, capabilities, fakes, parsing, schemas
import litellm
capabilities.capabilities_for("gpt-4o-mini")
capabilities.capabilities_for("openai/foo", api_base="http://10.9.9.9/v1")
fakes.register_fakes()
print("ATTEMPTS", len(attempts), attempts)
"""


def test_importing_agent_llm_makes_no_network_connection():
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "ATTEMPTS 0 []" in result.stdout, result.stdout + result.stderr[-2000:]


def test_importing_agent_llm_alone_does_not_import_litellm():
    probe = "import sys, kite_browser.agent.llm, kite_browser.agent.llm.parsing, kite_browser.agent.llm.schemas; print('litellm' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False", result.stderr[-2000:]
