"""The model gateway: every call of a :class:`~framework.models.chat.ProviderChatModel` is
bounded in time and retried here, in one place, by one policy.

- **Time**: the provider's SDK is built with a connect timeout and an idle timeout (a provider
  that sends nothing for :attr:`CallLimits.idle_s` is given up on), and every call has a deadline
  across all its attempts and waits (:attr:`CallLimits.deadline_s`).
- **Retries**: the SDK's own retries are off (they multiplied with cadre's: one model call cost
  up to nine HTTP calls). A transient failure (429, 5xx, a timeout, a dropped connection) is
  tried again up to :attr:`CallLimits.attempts` times in all, after a backoff with full jitter,
  or after the ``Retry-After`` the provider asked for (capped).
- **One limiter per provider**: a 429 that says ``Retry-After`` holds back every call of this
  process to that provider (parallel workers included) until it has passed, so they back off
  together rather than each hitting the limit again.

A call that has used its attempts or its deadline fails with :class:`ProviderGaveUpError`: the
last failure's line (the provider, what happened, what to do), then how often it was tried.
A worker's retry policy does not try it again (it is no
:class:`~framework.errors.TransientError`).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from framework.errors import ModelError

__all__ = [
    "DEFAULT_LIMITS",
    "CallLimits",
    "Gateway",
    "ProviderGaveUpError",
    "ProviderLimiter",
    "limiter_for",
    "retry_after_s",
]

T = TypeVar("T")


class ProviderGaveUpError(ModelError):
    """A model call failed for a transient reason on every attempt it was allowed (or ran past
    its deadline); the message names the provider, the last failure and what to do."""


@dataclass(frozen=True, kw_only=True)
class CallLimits:
    """How long a model call may take and how often it is tried.

    Attributes:
        connect_s: Seconds to connect to the provider.
        idle_s: Seconds the provider may send nothing before the attempt is given up on.
        attempts: Tries of one call, the first included (1: no retry).
        deadline_s: Seconds one call may take across all its attempts and waits.
        backoff_s: The most the first backoff waits (full jitter: a random wait up to it),
            doubling with each retry.
        backoff_cap_s: The most any backoff waits.
        retry_after_cap_s: The most a provider's ``Retry-After`` is waited for.
    """

    connect_s: float = 10.0
    idle_s: float = 60.0
    attempts: int = 3
    deadline_s: float = 600.0
    backoff_s: float = 1.0
    backoff_cap_s: float = 30.0
    retry_after_cap_s: float = 120.0

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1-based), with full jitter."""
        return random.uniform(0.0, min(self.backoff_cap_s, self.backoff_s * 2 ** (retry - 1)))


DEFAULT_LIMITS = CallLimits()
"""The limits of every provider model unless a caller gives others."""


def retry_after_s(error: BaseException) -> float | None:
    """The seconds a provider's answer asked to wait (``Retry-After`` in seconds, or
    ``retry-after-ms``), found on the error or the error it was raised from; None if none."""
    seen: BaseException | None = error
    while seen is not None:
        headers = getattr(getattr(seen, "response", None), "headers", None)
        if headers is not None:
            waited = _header_seconds(headers)
            if waited is not None:
                return waited
        seen = seen.__cause__
    return None


def _header_seconds(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP date: rare from model providers; backoff applies instead
        if seconds >= 0:
            return seconds
    return None


class ProviderLimiter:
    """The calls of this process to one provider: when a ``Retry-After`` holds them back, every
    call waits until then before it goes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resume_at = 0.0

    def hold_for(self, seconds: float) -> None:
        """Hold every call back for ``seconds`` from now (never shortening a longer hold)."""
        with self._lock:
            self._resume_at = max(self._resume_at, time.monotonic() + seconds)

    def wait_s(self) -> float:
        """Seconds a call must still wait before it goes (0.0 when nothing holds it: read
        without the lock, a float being written whole)."""
        if not self._resume_at:
            return 0.0
        return max(0.0, self._resume_at - time.monotonic())


_LIMITERS: dict[str, ProviderLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(provider: str) -> ProviderLimiter:
    """The one limiter of this process for ``provider`` (a provider key and its address)."""
    with _LIMITERS_LOCK:
        return _LIMITERS.setdefault(provider, ProviderLimiter())


@dataclass(frozen=True, kw_only=True)
class Gateway:
    """Calls to one provider model, bounded and retried as ``limits`` say.

    Attributes:
        label: How messages name the model (``the openai chat model 'gpt-4o'``).
        limiter: The provider's limiter, shared by every call of the process.
        limits: Time and attempts.
        translate: A provider SDK's failure as cadre's error (None: not the SDK's, such as a
            programming error: it goes on unchanged).
        transient: Whether a translated failure is worth another attempt.
        notify: Told what a call waits for before it waits (a progress line).
    """

    label: str
    limiter: ProviderLimiter
    limits: CallLimits
    translate: Callable[[Exception], Exception | None]
    transient: Callable[[Exception], bool]
    notify: Callable[[float, str], None] = lambda seconds, reason: None

    def call(self, attempt: Callable[[], T]) -> T:
        """``attempt()``, tried again after transient failures."""
        started, number = time.monotonic(), 1
        while True:
            if held := self.limiter.wait_s():
                time.sleep(held)
            try:
                return attempt()
            except Exception as error:
                backoff = self._retry_after_failure(number, started, error)
            time.sleep(backoff)
            number += 1

    async def acall(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """``await attempt()``, tried again after transient failures."""
        started, number = time.monotonic(), 1
        while True:
            if held := self.limiter.wait_s():
                await asyncio.sleep(held)
            try:
                return await attempt()
            except Exception as error:
                backoff = self._retry_after_failure(number, started, error)
            await asyncio.sleep(backoff)
            number += 1

    def _retry_after_failure(self, number: int, started: float, error: Exception) -> float:
        """The backoff before the next attempt, after attempt ``number`` failed with ``error``;
        raises ``error`` (translated) when it is not transient, or :class:`ProviderGaveUpError`
        when no attempt or time is left. A ``Retry-After`` holds the whole provider (backoff 0:
        the hold is waited at the next attempt)."""
        translated = self.translate(error)
        if translated is None:
            raise error
        if not self.transient(translated):
            raise translated from error
        asked = retry_after_s(error)
        wait = (
            min(asked, self.limits.retry_after_cap_s)
            if asked is not None
            else self.limits.backoff(number)
        )
        spent = time.monotonic() - started
        if number >= self.limits.attempts or spent + wait > self.limits.deadline_s:
            tried = f"{number} attempt{'s' if number > 1 else ''} over {spent:.1f} s"
            raise ProviderGaveUpError(f"{translated} (gave up after {tried})") from error
        if asked is None:
            self.notify(wait, f"{self.label} failed ({type(error).__name__}): attempt {number + 1}")
            return wait
        self.notify(wait, f"{self.label} asked to wait (Retry-After {asked:g} s)")
        self.limiter.hold_for(wait)
        return 0.0
