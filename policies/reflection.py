"""Reflection stop rules for review loops: confidence reached, and no progress (the delta rule)."""

from __future__ import annotations

from framework.engine.records import ReviewVerdict
from framework.engine.state import TeamState
from framework.errors import ConfigError

__all__ = ["ConfidenceReached", "NoProgress"]


class ConfidenceReached:
    """Finish once the reviewer's confidence reaches ``threshold``."""

    name = "confidence_threshold"

    def __init__(self, threshold: float) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"confidence threshold must be in [0, 1], got {threshold}")
        self.threshold = threshold

    def check(self, state: TeamState, verdict: ReviewVerdict, iteration: int) -> str | None:
        """Finish when the verdict's confidence is at or above the threshold."""
        if verdict.confidence >= self.threshold:
            return f"confidence {verdict.confidence:.2f} reached the threshold {self.threshold:.2f}"
        return None


class NoProgress:
    """The delta rule: finish when the consolidated findings stayed unchanged ``rounds`` times."""

    name = "no_progress"

    def __init__(self, rounds: int) -> None:
        if rounds < 1:
            raise ConfigError(f"no-progress rounds must be >= 1, got {rounds}")
        self.rounds = rounds

    def check(self, state: TeamState, verdict: ReviewVerdict, iteration: int) -> str | None:
        """Finish when the aggregator saw no change for ``rounds`` rounds in a row."""
        stable = state.get("stable_rounds", 0)
        if stable >= self.rounds:
            return f"findings unchanged for {stable} rounds"
        return None
