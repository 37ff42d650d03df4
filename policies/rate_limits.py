"""Rate limits per model provider or tool: requests and tokens per minute, shared by every
worker of the process.

Each limit is a reservation scheduler (the generic cell rate algorithm): a call reserves its
slot at once and waits until the slot comes, so parallel workers queue fairly and never exceed
the rate together. The wait is a policy wait: the node's span and event stream show it, and the
run's usage counts it as ``wait_s``, apart from execution.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Hook, Policy, Verdict, allow

__all__ = ["Rate", "RateLimit"]


@dataclass(frozen=True, kw_only=True)
class Rate:
    """Requests and (estimated input) tokens per minute; ``burst`` requests may go at once."""

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    burst: int = 1

    def __post_init__(self) -> None:
        for value in (self.requests_per_minute, self.tokens_per_minute):
            if value is not None and value <= 0:
                raise ConfigError(f"a rate must be > 0 per minute, got {value}")
        if self.burst < 1:
            raise ConfigError(f"burst must be >= 1, got {self.burst}")


class _Schedule:
    """When the next unit may go (theoretical arrival time), for one rate."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.interval = 60.0 / per_minute
        self.tolerance = (burst - 1) * self.interval
        self.arrival = 0.0

    def reserve(self, units: float, now: float) -> float:
        """Reserve ``units``; the seconds to wait before they may go."""
        arrival = max(self.arrival, now)
        self.arrival = arrival + units * self.interval
        return max(0.0, arrival - self.tolerance - now)


class RateLimit(Policy):
    """Delays model and tool calls so each limited target keeps its rate.

    Args:
        limits: A pattern of targets -> its rate: ``model:openai:*`` (model calls, by the
            model's ``provider:name``) or ``tool:sql_*`` (tool calls). Every target matching a
            pattern shares that pattern's rate.
    """

    name = "rate_limit"

    def __init__(self, limits: Mapping[str, Rate]) -> None:
        for pattern in limits:
            if not pattern.startswith(("model:", "tool:")):
                raise ConfigError(
                    f"rate limit target {pattern!r}: start it with model: or tool: "
                    "(model:openai:*, tool:search_corpus)"
                )
        self.limits = dict(limits)
        self._schedules: dict[tuple[str, str], _Schedule] = {}
        for pattern, rate in self.limits.items():
            if rate.requests_per_minute is not None:
                self._schedules[(pattern, "requests")] = _Schedule(
                    rate.requests_per_minute, rate.burst
                )
            if rate.tokens_per_minute is not None:
                self._schedules[(pattern, "tokens")] = _Schedule(
                    rate.tokens_per_minute, rate.burst * 1000
                )
        self._lock = threading.Lock()
        self._matching: dict[str, tuple[str, ...]] = {}

    def hooks(self) -> frozenset[Hook]:
        """Model calls, tool calls, or both, as its targets say."""
        wanted: set[Hook] = set()
        if any(pattern.startswith("model:") for pattern in self.limits):
            wanted.add("before_model")
        if any(pattern.startswith("tool:") for pattern in self.limits):
            wanted.add("before_tool")
        return frozenset(wanted)

    def describe(self) -> str:
        """The limited targets and their rates."""
        return "; ".join(
            f"{pattern} {rate.requests_per_minute or '-'} rpm {rate.tokens_per_minute or '-'} tpm"
            for pattern, rate in self.limits.items()
        )

    def _wait(self, target: str, tokens: float) -> Verdict:
        patterns = self._matching.get(target)
        if patterns is None:
            patterns = tuple(p for p in self.limits if fnmatchcase(target, p))
            self._matching[target] = patterns
        if not patterns:
            return ALLOW
        now = time.monotonic()
        wait = 0.0
        with self._lock:
            for pattern in patterns:
                requests = self._schedules.get((pattern, "requests"))
                if requests is not None:
                    wait = max(wait, requests.reserve(1, now))
                counted = self._schedules.get((pattern, "tokens"))
                if counted is not None and tokens:
                    wait = max(wait, counted.reserve(tokens, now))
        return allow(wait) if wait > 0 else ALLOW

    def before_model(self, call: Call) -> Verdict:
        """Wait for the model's request and token slots."""
        messages = call.value if isinstance(call.value, Sequence) else ()
        tokens = sum(-(-len(str(getattr(m, "content", m))) // 4) for m in messages)
        return self._wait(f"model:{call.target}", tokens)

    def before_tool(self, call: Call) -> Verdict:
        """Wait for the tool's request slot."""
        return self._wait(f"tool:{call.target}", 0)
