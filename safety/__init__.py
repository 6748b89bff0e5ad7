"""Kite's safety room: confirm levels, the policy, confirmers, secrets and domain limits."""

import os as _os

_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
