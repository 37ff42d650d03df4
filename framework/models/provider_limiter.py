"""One limiter per provider, shared by every model call of the process to it.

- **Holds**: a 429 that says ``Retry-After`` holds back every call to the provider (parallel
  workers included) until it has passed, so they back off together rather than each hitting
  the limit again.
- **Probes**: once a hold has passed, one call at a time goes (the waiting call that has sent
  the fewest requests first) until one is answered; the others wait without sending, so a long
  rate-limit spell costs about a request per ``Retry-After``, not one per waiting call. A probe
  refused again holds a little longer each time (up to twice the ``Retry-After``), so a long
  spell costs fewer requests and its end is still found within twice the ``Retry-After``.
- **A circuit**: after :attr:`~framework.models.gateway.CallLimits.circuit_after` calls in a row
  gave up, every call fails at once for
  :attr:`~framework.models.gateway.CallLimits.circuit_s`; the first call after that tries again,
  and an answer closes the circuit.
"""

from __future__ import annotations

import itertools
import threading
import time

__all__ = ["PROBE_TICK_S", "ProviderLimiter", "limiter_for"]

PROBE_TICK_S = 0.05
"""How often a call waiting behind a probe looks again."""


class ProviderLimiter:
    """The calls of this process to one provider (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resume_at = 0.0
        self._probing = False
        self._probe: int | None = None
        self._refused = 0
        """Probes refused in a row."""
        self._waiting: dict[int, tuple[int, int]] = {}
        """Each waiting call's requests sent so far and its place in line."""
        self._calls = itertools.count()
        self._gave_up = 0
        self._open_until = 0.0

    def enter(self) -> int:
        """A new call's token, for :meth:`admit` and :meth:`leave`."""
        return next(self._calls)

    def admit(self, call: int, sent: int) -> float:
        """Seconds call ``call`` (which has sent ``sent`` requests) must wait before it sends;
        0.0: send now (as the probe, when the provider was held)."""
        if not self._probing and self._resume_at <= time.monotonic():
            return 0.0  # nothing holds the provider: read without the lock
        with self._lock:
            now = time.monotonic()
            line = self._waiting.get(call, (sent, call))[1]
            self._waiting[call] = (sent, line)
            if now < self._resume_at:
                return self._resume_at - now
            if self._probing and self._probe is None:
                first = min(self._waiting, key=self._waiting.__getitem__)
                if first == call:
                    self._probe = call
            if not self._probing or self._probe == call:
                del self._waiting[call]
                return 0.0
            return PROBE_TICK_S

    def limited(self, call: int, seconds: float) -> float:
        """Call ``call`` was answered 429, asked to wait ``seconds``: hold every call back
        (longer when it was the probe, refused again), then let one at a time go; the seconds
        held (never shortening a longer hold)."""
        with self._lock:
            if self._probe == call:
                self._probe = None
                self._refused += 1
            held = seconds * min(2.0, 1.0 + 0.25 * self._refused)
            self._resume_at = max(self._resume_at, time.monotonic() + held)
            self._probing = True
            return held

    def sent(self, call: int, answered: bool) -> None:
        """Call ``call``'s request came back (``answered``, or failed otherwise than by a
        rate limit)."""
        if not self._probing and not self._gave_up:
            return
        with self._lock:
            if self._probe == call:
                self._probe = None
            if answered:
                self._probing, self._refused = False, 0
                self._gave_up, self._open_until = 0, 0.0

    def leave(self, call: int) -> None:
        """Call ``call`` is over (answered, failed or given up)."""
        if self._probe == call or call in self._waiting:
            with self._lock:
                self._waiting.pop(call, None)
                if self._probe == call:
                    self._probe = None

    def wait_s(self) -> float:
        """Seconds a hold still lasts (0.0: none)."""
        return max(0.0, self._resume_at - time.monotonic())

    def gave_up(self, circuit_after: int, circuit_s: float) -> None:
        """Count a call that gave up; the circuit opens at ``circuit_after`` in a row, for
        ``circuit_s``."""
        with self._lock:
            self._gave_up += 1
            if self._gave_up >= circuit_after:
                self._open_until = time.monotonic() + circuit_s

    def open_s(self) -> tuple[float, int]:
        """Seconds the circuit stays open (0.0: closed), and the calls in a row that gave up."""
        if not self._open_until:
            return 0.0, self._gave_up
        return max(0.0, self._open_until - time.monotonic()), self._gave_up


_LIMITERS: dict[str, ProviderLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(provider: str) -> ProviderLimiter:
    """The one limiter of this process for ``provider`` (a provider key and its address)."""
    with _LIMITERS_LOCK:
        return _LIMITERS.setdefault(provider, ProviderLimiter())
