"""Typed errors of the LLM layer. Every message says what to fix; ``retryable`` tells the client what to retry."""

from __future__ import annotations

from typing import ClassVar

from kite_browser.agent.base.errors import KiteError


class LLMError(KiteError):
    """Base of every model-call failure."""

    type = "llm_error"
    retryable: ClassVar[bool] = False

    @property
    def retry_after_s(self) -> float | None:
        """Seconds the server asked us to wait before retrying (``Retry-After``), when it said so."""
        value = self.context.get("retry_after_s")
        return float(value) if isinstance(value, int | float) else None


class LLMAuthError(LLMError):
    """The provider rejected the credentials (401/403). Never retried."""

    type = "llm_auth_error"


class LLMBadRequestError(LLMError):
    """The provider refused the request as malformed, or the model does not exist. Never retried."""

    type = "llm_bad_request"


class LLMUnsupportedParamError(LLMBadRequestError):
    """A parameter the model does not accept (e.g. temperature on a reasoning model). Never retried."""

    type = "llm_unsupported_param"


class ContextWindowError(LLMBadRequestError):
    """The prompt is longer than the model's input window; the planner compacts the history and retries once."""

    type = "context_window_exceeded"


class LLMRateLimitedError(LLMError):
    """429 from the provider; retried with backoff, honouring Retry-After."""

    type = "llm_rate_limited"
    retryable = True


class LLMUnavailableError(LLMError):
    """5xx from the provider; retried with backoff."""

    type = "llm_unavailable"
    retryable = True


class LLMTimeoutError(LLMError):
    """One call took longer than ``llm.timeout_s``; retried."""

    type = "llm_timeout"
    retryable = True


class LLMConnectionError(LLMError):
    """The server could not be reached (refused, DNS, reset); retried."""

    type = "llm_connection_error"
    retryable = True
