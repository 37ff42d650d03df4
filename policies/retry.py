"""Retry presets that name what is transient (LangGraph's default would skip OSError and co.)."""

from __future__ import annotations

from framework.engine.retrying import RetryPolicy
from framework.errors import TransientError

__all__ = ["NO_RETRY", "TRANSIENT_ERRORS", "transient_retry"]

TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    TransientError,
    TimeoutError,
    ConnectionError,
)
"""Errors worth another attempt: timeouts, dropped connections, and cadre's TransientError."""

NO_RETRY = RetryPolicy(max_attempts=1)


def transient_retry(
    *,
    max_attempts: int = 3,
    initial_interval: float = 0.2,
    backoff_factor: float = 2.0,
    max_interval: float = 5.0,
    extra: tuple[type[Exception], ...] = (),
    jitter: bool = True,
) -> RetryPolicy:
    """A policy retrying :data:`TRANSIENT_ERRORS` (plus ``extra``) with exponential backoff."""
    return RetryPolicy(
        initial_interval=initial_interval,
        backoff_factor=backoff_factor,
        max_interval=max_interval,
        max_attempts=max_attempts,
        jitter=jitter,
        retry_on=(*TRANSIENT_ERRORS, *extra),
    )
