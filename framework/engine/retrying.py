"""Retries of transient failures, driven by LangGraph's ``RetryPolicy``.

The worker applies the policy itself, inside its error handler, so that a task that keeps
failing becomes a failed result instead of an exception that cancels its siblings.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from langgraph.types import RetryPolicy

__all__ = ["RetryPolicy", "acall_with_retry", "backoff_delay", "call_with_retry", "is_transient"]

T = TypeVar("T")


def is_transient(policy: RetryPolicy, error: BaseException) -> bool:
    """Whether ``policy`` names ``error`` as worth retrying."""
    retry_on = policy.retry_on
    if isinstance(retry_on, type):
        return isinstance(error, retry_on)
    if isinstance(retry_on, Sequence):
        return isinstance(error, tuple(retry_on))
    return isinstance(error, Exception) and bool(retry_on(error))


def backoff_delay(policy: RetryPolicy, attempt: int) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based)."""
    growth = policy.backoff_factor ** (attempt - 1)
    delay = min(policy.max_interval, policy.initial_interval * growth)
    return delay + random.uniform(0, 1) if policy.jitter else delay


def call_with_retry(
    policy: RetryPolicy | None, fn: Callable[[], T], on_retry: Callable[[int], None]
) -> T:
    """Call ``fn``, retrying transient errors as the policy says; re-raise the last error."""
    attempt = 1
    while True:
        try:
            return fn()
        except Exception as error:
            if policy is None or attempt >= policy.max_attempts or not is_transient(policy, error):
                raise
            time.sleep(backoff_delay(policy, attempt))
            on_retry(attempt)
            attempt += 1


async def acall_with_retry(
    policy: RetryPolicy | None,
    fn: Callable[[], Awaitable[T]],
    on_retry: Callable[[int], None],
) -> T:
    """Async form of :func:`call_with_retry`."""
    attempt = 1
    while True:
        try:
            return await fn()
        except Exception as error:
            if policy is None or attempt >= policy.max_attempts or not is_transient(policy, error):
                raise
            await asyncio.sleep(backoff_delay(policy, attempt))
            on_retry(attempt)
            attempt += 1
