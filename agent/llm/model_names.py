"""The names the model door gives meaning to, and the refusal of real model requests in tests: a leaf, so
that the model client and its capabilities can ask ``is_local``/``is_fake`` without importing the door
(``agent.llm.resolve``, which builds models and so imports the client)."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

LOCAL_MODEL = "local"
"""The bundled local model (also what an unset model means)."""
FAKE_PREFIX = "kite/"
"""Kite's own models: the fakes of ``agent.llm.fakes`` and models registered in-process (``register_model``)."""
SCRIPTED_MODEL = f"{FAKE_PREFIX}scripted"
"""The built-in fake every process has (``agent.llm.fakes``: follows ``[steps=N]``-style hints in the task)."""


REFUSE_MODEL_REQUESTS = "KITE_REFUSE_MODEL_REQUESTS"
"""Set to 1 to refuse every request to a real model (not ``kite/…``, not a server on this machine)."""
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


class ModelRequestRefused(BaseException):
    """A request to a real model while ``KITE_REFUSE_MODEL_REQUESTS=1``. A BaseException, so no retry loop
    or ``except Exception`` swallows it: the test that made it fails."""


def check_model_request(model: object, api_base: object = None) -> None:
    """Raise ``ModelRequestRefused`` when real model requests are refused and this is one."""
    if os.environ.get(REFUSE_MODEL_REQUESTS, "").strip().lower() not in ("1", "true", "yes"):
        return
    if isinstance(model, str) and is_fake(model):
        return
    if isinstance(api_base, str) and urlsplit(api_base).hostname in _LOOPBACK:
        return  # a server on this machine: the bundled local model, a test's own fake server
    raise ModelRequestRefused(
        f"real model request refused ({REFUSE_MODEL_REQUESTS}=1): model={model!r}, api_base={api_base!r}"
    )


def is_local(model: str | None) -> bool:
    """``model`` names the bundled local model (``local``, or nothing configured)."""
    return model in (None, "", LOCAL_MODEL)


def is_fake(model: str | None) -> bool:
    """``model`` is one of Kite's own (``kite/…``): a fake, the eval oracle, a model registered in-process."""
    return bool(model) and str(model).startswith(FAKE_PREFIX)


def model_or_local(model: str | None) -> str:
    """The model string to show for ``model`` (``local`` when none is configured)."""
    return model or LOCAL_MODEL
