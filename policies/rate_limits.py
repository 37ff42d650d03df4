"""Rate limits per model provider or tool: requests and tokens per minute, shared by every
run of the process, and by every process of the fleet when the home is on PostgreSQL.

Each limit is a reservation scheduler (the generic cell rate algorithm): a call reserves its
slot at once and waits until the slot comes, so parallel workers queue fairly and never exceed
the rate together. The wait is a policy wait: the node's span and event stream show it, and the
run's usage counts it as ``wait_s``, apart from execution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Hook, Policy, Verdict, allow
from framework.policy.rates import MemorySchedules, RateSchedules

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


_SPARE = 1.005
"""Slots are spaced 0.5% wider than the rate: a call leaves a little after its slot (timers,
the database's answer), and without room to spare one late call and one on time would put one
call more than the rate into some minute."""


@dataclass(frozen=True)
class _Schedule:
    """One rate of one pattern: its schedule's key, interval and burst tolerance."""

    key: str
    interval: float
    tolerance: float

    @classmethod
    def of(cls, pattern: str, unit: str, per_minute: float, burst: int) -> _Schedule:
        interval = 60.0 / per_minute * _SPARE
        key = f"{pattern}|{unit}|{per_minute:g}|{burst}"
        return cls(key=key, interval=interval, tolerance=(burst - 1) * interval)


class RateLimit(Policy):
    """Delays model and tool calls so each limited target keeps its rate.

    Args:
        limits: A pattern of targets -> its rate: ``model:openai:*`` (model calls, by the
            model's ``provider:name``) or ``tool:sql_*`` (tool calls). Every target matching a
            pattern shares that pattern's rate.
    """

    name = "rate_limit"
    may_ask = False

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
                self._schedules[(pattern, "requests")] = _Schedule.of(
                    pattern, "requests", rate.requests_per_minute, rate.burst
                )
            if rate.tokens_per_minute is not None:
                self._schedules[(pattern, "tokens")] = _Schedule.of(
                    pattern, "tokens", rate.tokens_per_minute, rate.burst * 1000
                )
        self.schedules: RateSchedules = MemorySchedules()
        self._matching: dict[str, tuple[str, ...]] = {}

    def use_schedules(self, schedules: RateSchedules) -> None:
        """Keep the rates in ``schedules`` (the home's database: every worker of the fleet
        then shares them)."""
        self.schedules = schedules

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
        wait = 0.0
        for pattern in patterns:
            for unit, units in (("requests", 1.0), ("tokens", tokens)):
                schedule = self._schedules.get((pattern, unit))
                if schedule is not None and units:
                    wait = max(wait, self._reserve(schedule, units))
        return allow(wait) if wait > 0 else ALLOW

    def _reserve(self, schedule: _Schedule, units: float) -> float:
        return self.schedules.reserve(schedule.key, schedule.interval, schedule.tolerance, units)

    def before_model(self, call: Call) -> Verdict:
        """Wait for the model's request and token slots."""
        messages = call.value if isinstance(call.value, Sequence) else ()
        tokens = sum(-(-len(str(getattr(m, "content", m))) // 4) for m in messages)
        return self._wait(f"model:{call.target}", tokens)

    def before_tool(self, call: Call) -> Verdict:
        """Wait for the tool's request slot."""
        return self._wait(f"tool:{call.target}", 0)
