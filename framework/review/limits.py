"""Limits on what a reviewer may put into a thread: how many tasks a plan holds, how long a
text may be. Each is refused with the limit named, before anything is written.

The defaults suit a plan a person reads; set them higher (or lower) for a process with
``CADRE_REVIEW_MAX_TASKS``, ``CADRE_REVIEW_MAX_TEXT`` (characters of a goal, a task
description, its inputs, a reason or a reviewer's name) and ``CADRE_REVIEW_MAX_ANSWER``
(characters of an answer).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from framework.engine.records import Plan, Task
from framework.errors import ConfigError, ReviewError

__all__ = ["ReviewLimits"]

_VARIABLES = {
    "max_tasks": "CADRE_REVIEW_MAX_TASKS",
    "max_text": "CADRE_REVIEW_MAX_TEXT",
    "max_answer": "CADRE_REVIEW_MAX_ANSWER",
}


@dataclass(frozen=True, kw_only=True)
class ReviewLimits:
    """The most a review decision may carry.

    Attributes:
        max_tasks: Tasks in one plan (an edited plan, or the tasks of one edit).
        max_text: Characters of a goal, rationale, task description, task inputs (as JSON),
            reason or reviewer name.
        max_answer: Characters of an answer (an edited answer, a plan's direct answer).
    """

    max_tasks: int = 64
    max_text: int = 4_000
    max_answer: int = 200_000

    @classmethod
    def from_environment(cls) -> ReviewLimits:
        """The defaults, with the ``CADRE_REVIEW_*`` variables that are set laid over them."""
        given: dict[str, int] = {}
        for field, variable in _VARIABLES.items():
            raw = os.environ.get(variable, "").strip()
            if not raw:
                continue
            if not raw.isdigit() or int(raw) < 1:
                raise ConfigError(f"${variable} must be a whole number of at least 1, got {raw!r}")
            given[field] = int(raw)
        return cls(**given)

    @property
    def max_file_bytes(self) -> int:
        """The largest edit file worth reading: an answer of ``max_answer`` characters, in
        UTF-8 at worst, with room for its JSON or YAML."""
        return 4 * self.max_answer + 64 * 1024

    def check_text(self, text: str, what: str, *, answer: bool = False) -> None:
        """Refuse ``text`` longer than its limit (``what`` names it in the message)."""
        limit, variable = (self.max_answer, "max_answer") if answer else (self.max_text, "max_text")
        if len(text) > limit:
            raise ReviewError(
                f"{what} has {len(text):,} characters, over the limit of {limit:,} "
                f"(${_VARIABLES[variable]}): shorten it"
            )

    def check_tasks(self, tasks: list[Task], what: str) -> None:
        """Refuse more than ``max_tasks`` tasks, or a task with an oversized text."""
        if len(tasks) > self.max_tasks:
            raise ReviewError(
                f"{what} has {len(tasks)} tasks, over the limit of {self.max_tasks} "
                f"(${_VARIABLES['max_tasks']}): split the work or raise the limit"
            )
        for task in tasks:
            self.check_text(task.description, f"the description of task {task.id!r}")
            self.check_text(json.dumps(task.inputs), f"the inputs of task {task.id!r}")

    def check_plan(self, plan: Plan, what: str) -> None:
        """Refuse a plan over the limits."""
        self.check_tasks(plan.tasks, what)
        self.check_text(plan.goal, f"the goal of {what}")
        self.check_text(plan.rationale, f"the rationale of {what}")
        if plan.direct_answer is not None:
            self.check_text(plan.direct_answer, f"the direct answer of {what}", answer=True)
