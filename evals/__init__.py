"""Kite's evaluation room: bundled sites, suites, the harness and benchmarks."""

import os as _os

_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
