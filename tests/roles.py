"""Small deterministic roles for engine tests: each decides from the state, nothing is faked."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from framework.engine.records import MemoryFact, Plan, Provenance, ReviewVerdict, Task, WorkerResult
from framework.engine.roles import Roles
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState

HOLD_DEADLINE_S = 60.0
"""How long a held worker waits for its condition before it gives up and goes on: generous,
since the condition holds within milliseconds unless the engine is broken."""
HOLD_POLL_S = 0.001


@dataclass
class CountingPlanner:
    """Plans ``n`` tasks; on a re-plan (a reflection exists) plans ``replan_n`` new ones."""

    n: int
    replan_n: int | None = None
    direct_answer: str | None = None
    calls: int = 0

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        self.calls += 1
        if self.direct_answer is not None:
            return Plan(goal=state["question"], direct_answer=self.direct_answer)
        replanning = state.get("reflection") is not None
        count = self.replan_n if replanning and self.replan_n is not None else self.n
        prefix = f"r{self.calls}-" if replanning else "t"
        tasks = [Task(id=f"{prefix}{i}", description=f"task {i}") for i in range(count)]
        return Plan(goal=state["question"], tasks=tasks)


@dataclass
class FailFirst:
    """A ``fail`` hook: raises ``error`` on the first ``times`` attempts of the named tasks."""

    error: Callable[[], BaseException]
    times: int = 1
    task_ids: frozenset[str] | None = None
    attempts: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, task: Task) -> BaseException | None:
        if self.task_ids is not None and task.id not in self.task_ids:
            return None
        with self._lock:
            seen = self.attempts.get(task.id, 0)
            self.attempts[task.id] = seen + 1
        return self.error() if seen < self.times else None


@dataclass
class ProgrammableWorker:
    """Returns ok results unless ``fail`` says otherwise; tracks peak concurrency.

    ``delay`` is seconds per task, or a function of the task (a slow sibling, a fast failure).
    ``until`` holds each task, once it has entered (counted in ``active``), until
    ``until(worker, task)`` is true: parallel tasks are ordered by conditions, never by sleeps
    and a busy machine. A hold that gives up after :data:`HOLD_DEADLINE_S` names its task in
    ``gave_up``.
    """

    delay: float | Callable[[Task], float] = 0.0
    fail: Callable[[Task], BaseException | None] = lambda task: None
    confidence: Callable[[Task], float] = lambda task: 0.9
    until: Callable[[ProgrammableWorker, Task], bool] | None = None
    active: int = 0
    peak: int = 0
    calls: list[str] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _enter(self, task: Task) -> None:
        with self._lock:
            self.calls.append(task.id)
            self.active += 1
            self.peak = max(self.peak, self.active)

    def _delay(self, task: Task) -> float:
        return self.delay(task) if callable(self.delay) else self.delay

    def _hold(self, task: Task) -> None:
        deadline = time.monotonic() + HOLD_DEADLINE_S
        while self.until is not None and not self.until(self, task):
            if time.monotonic() > deadline:
                self._give_up(task)
                return
            time.sleep(HOLD_POLL_S)

    async def _ahold(self, task: Task) -> None:
        deadline = time.monotonic() + HOLD_DEADLINE_S
        while self.until is not None and not self.until(self, task):
            if time.monotonic() > deadline:
                self._give_up(task)
                return
            await asyncio.sleep(HOLD_POLL_S)

    def _give_up(self, task: Task) -> None:
        with self._lock:
            self.gave_up.append(task.id)

    def _leave(self) -> None:
        with self._lock:
            self.active -= 1

    def _result(self, task: Task) -> WorkerResult:
        error = self.fail(task)
        if error is not None:
            raise error
        return WorkerResult(
            task_id=task.id,
            status="ok",
            output=f"{task.id}:{task.inputs.get('query', task.description)}",
            confidence=self.confidence(task),
        )

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        self._enter(task)
        try:
            self._hold(task)
            time.sleep(self._delay(task))
            return self._result(task)
        finally:
            self._leave()

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        self._enter(task)
        try:
            await self._ahold(task)
            await asyncio.sleep(self._delay(task))
            return self._result(task)
        finally:
            self._leave()


class JoiningAggregator:
    """Consolidates the ok outputs, sorted, one per line."""

    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        results = state.get("worker_results") or {}
        return "\n".join(sorted(r.output for r in results.values() if r.status == "ok"))


@dataclass
class ScriptedReviewer:
    """Returns its verdicts in order, then finishes."""

    verdicts: Sequence[ReviewVerdict] = ()
    seen: list[TeamState] = field(default_factory=list)

    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        self.seen.append(state)
        index = len(self.seen) - 1
        if index < len(self.verdicts):
            return self.verdicts[index]
        return ReviewVerdict(decision="finish", confidence=1.0)


class OutputCurator:
    """Remembers one fact per ok result."""

    def curate(self, state: TeamState, context: NodeContext) -> list[MemoryFact]:
        return [
            MemoryFact(
                subject=task_id,
                predicate="produced",
                object=result.output,
                provenance=Provenance(thread_id=context.thread_id, task_id=task_id),
            )
            for task_id, result in sorted((state.get("worker_results") or {}).items())
            if result.status == "ok"
        ]


class EchoFormatter:
    """Answers with the consolidated text."""

    def format(self, state: TeamState, context: NodeContext) -> str:
        return f"ANSWER\n{state.get('consolidated', '')}"


def make_roles(
    planner: CountingPlanner | None = None,
    worker: ProgrammableWorker | None = None,
    reviewer: ScriptedReviewer | None = None,
) -> Roles:
    """Roles for a test team."""
    return Roles(
        planner=planner or CountingPlanner(n=3),
        worker=worker or ProgrammableWorker(),
        aggregator=JoiningAggregator(),
        reviewer=reviewer or ScriptedReviewer(),
        curator=OutputCurator(),
        formatter=EchoFormatter(),
    )
