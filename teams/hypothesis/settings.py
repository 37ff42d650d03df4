"""How a hypothesis team runs: its name, bounds, source cap, recall and middleware."""

from __future__ import annotations

from dataclasses import dataclass

from framework.engine.middleware import Middleware, check_middleware
from framework.errors import ConfigError
from teams.hypothesis.rules import DEFAULT_ENOUGH_NEW, DEFAULT_MAX_ITERATIONS

__all__ = ["HypothesisSettings"]


@dataclass(frozen=True, kw_only=True)
class HypothesisSettings:
    """Settings of a hypothesis team, checked when made.

    Attributes:
        name: The team's name in events and spans.
        max_iterations: Work rounds (search, judge, resolve) before the report is forced; a
            run's input may lower or raise it with ``max_iterations``.
        enough_new: New evidence that makes another judge round worthwhile.
        max_parallel: Sources searched at once per round (None: all).
        recall: Evidence and hypotheses recalled from memory at the start, at most.
        recall_min_score: Cosine similarity to the question for recall.
        middleware: Wraps every node (telemetry, policies).
    """

    name: str = "hypothesis"
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    enough_new: int = DEFAULT_ENOUGH_NEW
    max_parallel: int | None = None
    recall: int = 10
    recall_min_score: float = 0.5
    middleware: tuple[Middleware, ...] = ()

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise ConfigError(f"max_iterations must be >= 1, got {self.max_iterations}")
        if self.enough_new < 1:
            raise ConfigError(f"enough_new must be >= 1, got {self.enough_new}")
        if self.max_parallel is not None and self.max_parallel < 1:
            raise ConfigError(
                f"max_parallel must be >= 1 or None (all sources at once), got {self.max_parallel}"
            )
        if self.recall < 1 or not 0.0 <= self.recall_min_score <= 1.0:
            raise ConfigError(
                f"recall must be >= 1 and recall_min_score in [0, 1], got {self.recall} and "
                f"{self.recall_min_score}"
            )
        check_middleware(self.middleware)
