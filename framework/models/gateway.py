"""The model gateway: every call of a :class:`~framework.models.chat.ProviderChatModel` is
bounded in time and retried here, in one place, by one policy.

- **Time**: the provider's SDK is built with a connect timeout and an idle timeout (a provider
  that sends nothing for :attr:`CallLimits.idle_s` is given up on), and every call has a deadline
  across all its attempts and waits (:attr:`CallLimits.deadline_s`).
- **Retries**: the SDK's own retries are off (they multiplied with cadre's: one model call cost
  up to nine HTTP calls). A transient failure (429, 5xx, a timeout, a dropped connection) is
  tried again up to :attr:`CallLimits.attempts` times in all, after a backoff with full jitter,
  or after the ``Retry-After`` the provider asked for (capped).
  A 429 with a ``Retry-After`` is counted apart (:attr:`CallLimits.rate_limited_tries`): the
  provider said when to come back.
- **One limiter per provider** (:mod:`framework.models.provider_limiter`): a ``Retry-After``
  holds back every call of this process to that provider, then one call at a time probes until
  one is answered; after :attr:`CallLimits.circuit_after` calls in a row gave up, its circuit
  opens and every call fails at once for :attr:`CallLimits.circuit_s`
  (:class:`ProviderCircuitOpenError`, saying so).
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
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from framework.errors import ModelError, OutageError
from framework.models.heartbeats import HEARTBEATS, Teller, untold
from framework.models.provider_limiter import ProviderLimiter

__all__ = [
    "DEFAULT_LIMITS",
    "CallLimits",
    "Gateway",
    "ProviderCircuitOpenError",
    "ProviderGaveUpError",
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
        rate_limited_tries: Tries of one call answered 429 with a ``Retry-After`` (waiting as
            asked, with the other calls to the provider), beside ``attempts``.
        circuit_after: Calls in a row that gave up before the provider's circuit opens (0:
            never; a remote agent's task fails instead, see :mod:`framework.kinds.remote`).
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
    rate_limited_tries: int = 10
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
        with self._tries() as tries:
            while True:
                while wait := self.limiter.admit(tries.call, tries.sent):
                    time.sleep(wait)
                try:
                    answer = attempt()
                except Exception as error:
                    backoff = self._after_failure(tries, error)
                else:
                    self.limiter.sent(tries.call, answered=True)
                    return answer
                time.sleep(backoff)

    async def acall(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """``await attempt()``, tried again after transient failures."""
        with self._tries() as tries:
            while True:
                while wait := self.limiter.admit(tries.call, tries.sent):
                    await asyncio.sleep(wait)
                try:
                    answer = await attempt()
                except Exception as error:
                    backoff = self._after_failure(tries, error)
                else:
                    self.limiter.sent(tries.call, answered=True)
                    return answer
                await asyncio.sleep(backoff)

    def _tries(self) -> _Tries:
        """A new call's tries, refused at once while the provider's circuit is open."""
        open_s, failed = self.limiter.open_s()
        if open_s:
            raise ProviderCircuitOpenError(
                f"{self.label} is not called for {open_s:.0f} s more: its last {failed} calls "
                "all gave up (a circuit opened, so calls fail at once rather than wait); check "
                "the provider's status, then continue with `cadre resume`"
            )
        return _Tries(self, self.teller())

    def _after_failure(self, tries: _Tries, error: Exception) -> float:
        """The backoff before the next try, after a try failed with ``error``; raises ``error``
        (translated) when it is not transient, or :class:`ProviderGaveUpError` when no try or
        time is left. A ``Retry-After`` holds the whole provider (backoff 0: the hold is waited
        before the next try) and is counted apart from other failures."""
        translated = self.translate(error)
        asked = retry_after_s(error) if translated is not None else None
        if asked is None:
            self.limiter.sent(tries.call, answered=False)
        if translated is None:
            raise error
        if not self.transient(translated):
            raise translated from error
        tries.sent += 1
        tries.limited += asked is not None
        failed = tries.sent - tries.limited
        wait = (
            min(asked, self.limits.retry_after_cap_s)
            if asked is not None
            else self.limits.backoff(failed)
        )
        spent = time.monotonic() - tries.started
        if (
            failed >= self.limits.attempts
            or tries.limited >= self.limits.rate_limited_tries
            or spent + wait > self.limits.deadline_s
        ):
            if asked is not None:
                self.limiter.sent(tries.call, answered=False)
            if self.limits.circuit_after:
                self.limiter.gave_up(self.limits.circuit_after, self.limits.circuit_s)
            raise ProviderGaveUpError(
                f"{translated} (gave up after {tries.said(spent)})"
            ) from error
        tell = tries.tell or untold
        if asked is None:
            reason = f"{self.label} failed ({type(error).__name__}): try {tries.sent + 1}"
            tell("waiting", wait, reason)
            return wait
        held = self.limiter.limited(tries.call, wait)
        tell("waiting", held, f"{self.label} asked to wait (Retry-After {asked:g} s)")
        return 0.0


class _Tries:
    """One call's tries so far: watched by the heartbeats (inside a run) while it lasts, and
    leaving its provider's limiter when it is over."""

    __slots__ = ("_beat", "call", "gateway", "limited", "sent", "started", "tell")

    def __init__(self, gateway: Gateway, tell: Teller | None) -> None:
        self.gateway, self.tell = gateway, tell
        self.call = gateway.limiter.enter()
        self.started = time.monotonic()
        self.sent = 0
        """Requests sent that failed."""
        self.limited = 0
        """Of those, the ones answered 429 with a ``Retry-After``."""
        self._beat: int | None = None

    def said(self, spent: float) -> str:
        """How often and how long it tried, in words."""
        limited = f", {self.limited} rate-limited" if self.limited else ""
        plural = "s" if self.sent > 1 else ""
        return f"{self.sent} attempt{plural}{limited} over {spent:.1f} s"

    def __enter__(self) -> _Tries:
        every_s = self.gateway.limits.heartbeat_s
        if self.tell is not None and every_s > 0:
            self._beat = HEARTBEATS.watch(self.tell, self.gateway.label, every_s)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._beat is not None:
            HEARTBEATS.unwatch(self._beat)
        self.gateway.limiter.leave(self.call)
