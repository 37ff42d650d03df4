"""How long one remote task may wait across its attempts: a kind's ``timeout_s`` bounds the
task, its reviewer's retries included, so a hung remote holds a run for one timeout, not one per
attempt. What failed attempts spent is kept in this process, per task of a thread (a resumed
run, in a new process, starts the task's budget again)."""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["TaskClock"]

_KEPT = 10_000
"""How many tasks' spent time a process keeps (the oldest forgotten first)."""


class TaskClock:
    """Seconds spent by the failed attempts of each remote task, and the last one's problem."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spent: OrderedDict[str, tuple[float, str]] = OrderedDict()

    def spent(self, task: str | None) -> tuple[float, str]:
        """Seconds the task's failed attempts spent and the last one's problem (0 and "" for a
        task with none, or a run without a thread)."""
        with self._lock:
            return self._spent.get(task, (0.0, "")) if task is not None else (0.0, "")

    def add(self, task: str | None, seconds: float, problem: str) -> None:
        """A failed attempt of the task spent ``seconds`` and failed with ``problem``."""
        if task is None:
            return
        with self._lock:
            before, _ = self._spent.pop(task, (0.0, ""))
            self._spent[task] = (before + seconds, problem)
            while len(self._spent) > _KEPT:
                self._spent.popitem(last=False)
