"""Stop rules: what may force a review loop to finish whatever the reviewer proposes."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from framework.engine.records import ReviewVerdict
from framework.engine.state import TeamState

__all__ = ["IterationBound", "StopRule"]


@runtime_checkable
class StopRule(Protocol):
    """Decides whether the loop must finish now; returns the reason, or None to go on."""

    name: str

    def check(self, state: TeamState, verdict: ReviewVerdict, iteration: int) -> str | None:
        """Return why the run must finish after review round ``iteration``, or None."""
        ...


class IterationBound:
    """The hard bound every team has: at most ``max_iterations`` review rounds."""

    name = "iteration_bound"

    def __init__(self, max_iterations: int) -> None:
        self.max_iterations = max_iterations

    def check(self, state: TeamState, verdict: ReviewVerdict, iteration: int) -> str | None:
        """Finish once ``iteration`` reaches the bound."""
        if iteration >= self.max_iterations:
            return f"reached the bound of {self.max_iterations} review rounds"
        return None
