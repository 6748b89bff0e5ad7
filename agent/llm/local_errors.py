"""Typed errors of the bundled local model (install, verification, server)."""

from __future__ import annotations

from kite_browser.agent.base.errors import KiteError


class LocalModelError(KiteError):
    """Base of every failure of the bundled local model."""

    type = "local_model_error"


class LocalInstallError(LocalModelError):
    """Downloading or installing the pinned packages failed (pip's last lines are in the message)."""

    type = "local_install_failed"


class LocalHashMismatchError(LocalModelError):
    """A downloaded file does not have the pinned sha256: nothing is used and the file is deleted."""

    type = "local_hash_mismatch"


class LocalServerError(LocalModelError):
    """The model server exited or never became healthy; the message ends with the last lines of its log."""

    type = "local_server_failed"


class LocalServerTimeoutError(LocalServerError):
    """The model server did not answer /health in time."""

    type = "local_server_timeout"
