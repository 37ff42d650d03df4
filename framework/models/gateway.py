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
- **A circuit per provider**: after :attr:`CallLimits.circuit_after` calls in a row gave up,
  every call to that provider fails at once for :attr:`CallLimits.circuit_s`
  (:class:`ProviderCircuitOpenError`, saying so); the first call after that tries again, and an
  answer closes the circuit.
- **Progress**: a run is told what a call waits for (a ``waiting`` event) and, every
  :attr:`CallLimits.heartbeat_s`, that a call is still running (a ``running`` event).

A call that has used its attempts or its deadline fails with :class:`ProviderGaveUpError`: the
last failure's line (the provider, what happened, what to do), then how often it was tried.
It is an :class:`~framework.errors.OutageError`: a worker's retry policy does not try it again,
and the run stops where it is, so that ``cadre resume`` runs what failed once the provider is
back (not what a policy or a person refused).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, TypeVar

from framework.errors import ModelError, OutageError

__all__ = [
    "DEFAULT_LIMITS",
    "HEARTBEATS",
    "CallLimits",
    "Gateway",
    "Heartbeats",
    "ProviderCircuitOpenError",
    "ProviderGaveUpError",
    "ProviderLimiter",
    "Teller",
    "limiter_for",
    "retry_after_s",
]

T = TypeVar("T")


class ProviderGaveUpError(ModelError, OutageError):
    """A model call failed for a transient reason on every attempt it was allowed (or ran past
    its deadline); the message names the provider, the last failure and what to do."""


class ProviderCircuitOpenError(ProviderGaveUpError):
    """Calls to a provider fail at once for a while: its last calls all gave up."""


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
        circuit_after: Calls in a row that gave up before the provider's circuit opens.
        circuit_s: Seconds an open circuit fails calls at once.
        heartbeat_s: Seconds between the events that say a call is still running.
    """

    connect_s: float = 10.0
    idle_s: float = 60.0
    attempts: int = 3
    deadline_s: float = 600.0
    backoff_s: float = 1.0
    backoff_cap_s: float = 30.0
    retry_after_cap_s: float = 120.0
    circuit_after: int = 3
    circuit_s: float = 30.0
    heartbeat_s: float = 15.0

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
    call waits until then before it goes; when its circuit is open, every call fails at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resume_at = 0.0
        self._gave_up = 0
        self._open_until = 0.0

    def gave_up(self, limits: CallLimits) -> None:
        """Count a call that gave up; the circuit opens at ``limits.circuit_after`` in a row."""
        with self._lock:
            self._gave_up += 1
            if self._gave_up >= limits.circuit_after:
                self._open_until = time.monotonic() + limits.circuit_s

    def answered(self) -> None:
        """A call was answered: the circuit is closed."""
        if self._gave_up:
            with self._lock:
                self._gave_up, self._open_until = 0, 0.0

    def open_s(self) -> tuple[float, int]:
        """Seconds the circuit stays open (0.0: closed), and the calls in a row that gave up."""
        if not self._open_until:
            return 0.0, self._gave_up
        return max(0.0, self._open_until - time.monotonic()), self._gave_up

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
        teller: The current run's teller (read in the calling thread; None outside a run):
            told what a call waits for before it waits, and that it is still running.
    """

    label: str
    limiter: ProviderLimiter
    limits: CallLimits
    translate: Callable[[Exception], Exception | None]
    transient: Callable[[Exception], bool]
    teller: Callable[[], Teller | None] = lambda: None

    def call(self, attempt: Callable[[], T]) -> T:
        """``attempt()``, tried again after transient failures."""
        self._refuse_if_open()
        started, number, tell = time.monotonic(), 1, self.teller()
        with HEARTBEATS.watching(tell, self.label, self.limits.heartbeat_s):
            while True:
                if held := self.limiter.wait_s():
                    time.sleep(held)
                try:
                    answer = attempt()
                except Exception as error:
                    backoff = self._retry_after_failure(number, started, error, tell)
                else:
                    self.limiter.answered()
                    return answer
                time.sleep(backoff)
                number += 1

    async def acall(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """``await attempt()``, tried again after transient failures."""
        self._refuse_if_open()
        started, number, tell = time.monotonic(), 1, self.teller()
        with HEARTBEATS.watching(tell, self.label, self.limits.heartbeat_s):
            while True:
                if held := self.limiter.wait_s():
                    await asyncio.sleep(held)
                try:
                    answer = await attempt()
                except Exception as error:
                    backoff = self._retry_after_failure(number, started, error, tell)
                else:
                    self.limiter.answered()
                    return answer
                await asyncio.sleep(backoff)
                number += 1

    def _refuse_if_open(self) -> None:
        """Fail at once while the provider's circuit is open."""
        open_s, failed = self.limiter.open_s()
        if open_s:
            raise ProviderCircuitOpenError(
                f"{self.label} is not called for {open_s:.0f} s more: its last {failed} calls "
                "all gave up (a circuit opened, so calls fail at once rather than wait); check "
                "the provider's status, then continue with `cadre resume`"
            )

    def _retry_after_failure(
        self, number: int, started: float, error: Exception, tell: Teller | None
    ) -> float:
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
            self.limiter.gave_up(self.limits)
            tried = f"{number} attempt{'s' if number > 1 else ''} over {spent:.1f} s"
            raise ProviderGaveUpError(f"{translated} (gave up after {tried})") from error
        tell = tell or _untold
        if asked is None:
            reason = f"{self.label} failed ({type(error).__name__}): attempt {number + 1}"
            tell("waiting", wait, reason)
            return wait
        tell("waiting", wait, f"{self.label} asked to wait (Retry-After {asked:g} s)")
        self.limiter.hold_for(wait)
        return 0.0


Teller = Callable[[str, float, str], None]
"""Tells a run an event about a model call: its name (``waiting``, ``running``), its seconds,
and why."""


def _untold(event: str, seconds: float, reason: str) -> None:
    """Tells no one (a call outside a run)."""


class Heartbeats:
    """Tells each run, every so often, which of its model calls are still running: one daemon
    thread for the process, started with the first call it watches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, tuple[Teller, str, float, float]] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    @contextmanager
    def watching(self, tell: Teller | None, label: str, every_s: float) -> Iterator[None]:
        """Watch a call while the block runs (not outside a run, or with no heartbeat)."""
        if tell is None or every_s <= 0:
            yield
            return
        key, now = next(self._ids), time.monotonic()
        with self._lock:
            self._calls[key] = (tell, label, now, every_s)
            if self._thread is None:
                self._thread = threading.Thread(target=self._beat, daemon=True, name="heartbeat")
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                del self._calls[key]

    def _beat(self) -> None:
        told: dict[int, int] = {}
        while True:
            time.sleep(_TICK_S)
            now = time.monotonic()
            with self._lock:
                calls = list(self._calls.items())
            for key, (tell, label, started, every_s) in calls:
                beats = int((now - started) // every_s)
                if beats > told.get(key, 0):
                    told[key] = beats
                    with suppress(Exception):  # a run that has just ended: nobody to tell
                        tell("running", now - started, f"call to {label}")
            told = {key: told[key] for key, _ in calls if key in told}


_TICK_S = 0.5
"""How often the heartbeat thread looks at the calls it watches."""

HEARTBEATS = Heartbeats()
"""The process's heartbeats."""
