"""Kite: an autonomous browser agent.

Importing any part of Kite never touches the network: litellm is told to use its bundled model cost map
before anything imports it.
"""

import os as _os

_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
