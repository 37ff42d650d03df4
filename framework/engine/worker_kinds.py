"""Workers by task kind: a team of specialists behind the one worker node.

:class:`WorkerKinds` is a :class:`~framework.engine.roles.Worker` that hands each task to the
worker of its ``Task.kind``. The dispatcher still sends the tasks to the one worker node (a task
may go in a batch when its kind's worker never pauses), whose cap counts every kind together; a
kind may also cap its own tasks in flight (``max_parallel``). A task of a kind no worker takes
(from a model's plan, or a human edit that slipped past review) fails with the known kinds named;
its siblings are not touched.

A planner may declare the kinds it emits (a ``task_kinds`` attribute); :func:`check_worker_kinds`
refuses, at build time, a declared kind without a worker and a worker no planner can reach.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from framework.engine.batching import may_pause
from framework.engine.records import Task, WorkerResult
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, WorkerError

__all__ = ["WorkerKind", "WorkerKinds", "check_worker_kinds", "planned_kinds", "task_kinds_of"]

_KIND = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


@dataclass(frozen=True, kw_only=True)
class WorkerKind:
    """One kind of task and the worker that runs it.

    Attributes:
        name: The kind, as tasks name it (lowercase letters, digits, ``_`` and ``-``).
        worker: Runs the tasks of this kind.
        description: What tasks of this kind do; a model-backed planner is shown it.
        max_parallel: The most tasks of this kind in flight at once in this process (None: only
            the dispatch's cap applies).
    """

    name: str
    worker: Worker
    description: str = ""
    max_parallel: int | None = None

    def __post_init__(self) -> None:
        if not _KIND.match(self.name):
            raise ConfigError(
                f"worker kind {self.name!r} is not a kind name: use 1-40 lowercase letters, "
                "digits, '_' or '-', starting with a letter"
            )
        if not isinstance(self.worker, Worker):
            raise ConfigError(
                f"worker kind {self.name!r}: {type(self.worker).__name__} is not a Worker "
                "(it needs run(task, question, context) and arun(...))"
            )
        if self.max_parallel is not None and self.max_parallel < 1:
            raise ConfigError(
                f"worker kind {self.name!r}: max_parallel must be >= 1, got {self.max_parallel}"
            )


@dataclass(eq=False)
class _KindSlots:
    """The per-kind cap, for threads (sync graphs) and coroutines (async graphs)."""

    limit: int | None
    threads: threading.BoundedSemaphore | None = field(init=False, default=None)
    loops: dict[int, asyncio.Semaphore] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if self.limit is not None:
            self.threads = threading.BoundedSemaphore(self.limit)

    def for_loop(self) -> asyncio.Semaphore | None:
        if self.limit is None:
            return None
        loop = id(asyncio.get_running_loop())
        if loop not in self.loops:
            self.loops = {loop: asyncio.Semaphore(self.limit)}  # one loop at a time
        return self.loops[loop]


class WorkerKinds:
    """A worker that runs each task with the worker of its kind.

    Args:
        kinds: The kinds, in the order a planner is shown them; the first is the default kind
            a model's plan gets when it names none.

    Raises:
        ConfigError: No kinds, or a kind named twice.
    """

    def __init__(self, kinds: Iterable[WorkerKind]) -> None:
        listed = list(kinds)
        if not listed:
            raise ConfigError("WorkerKinds needs at least one WorkerKind")
        names = [kind.name for kind in listed]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ConfigError(f"worker kinds named more than once: {', '.join(twice)}")
        self.kinds: dict[str, WorkerKind] = {kind.name: kind for kind in listed}
        self._slots = {kind.name: _KindSlots(kind.max_parallel) for kind in listed}

    def __repr__(self) -> str:
        return f"WorkerKinds({', '.join(self.kinds)})"

    @property
    def default_kind(self) -> str:
        """The kind a task gets when its planner names none."""
        return next(iter(self.kinds))

    @property
    def descriptions(self) -> dict[str, str]:
        """Kind -> what its tasks do."""
        return {name: kind.description for name, kind in self.kinds.items()}

    def worker_for(self, task: Task) -> WorkerKind:
        """The kind that runs ``task``.

        Raises:
            WorkerError: No worker takes the task's kind (the message names the known kinds).
        """
        kind = self.kinds.get(task.kind)
        if kind is None:
            raise WorkerError(
                f"task {task.id} has kind {task.kind!r}, which no worker of this team takes; "
                f"known kinds: {', '.join(self.kinds)}"
            )
        return kind

    def may_pause(self, task: Task) -> bool:
        """Whether the task's kind's worker may pause in it (a kind no worker takes: no)."""
        kind = self.kinds.get(task.kind)
        return kind is not None and may_pause(kind.worker, task)

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task with its kind's worker (sync graphs), within the kind's cap."""
        kind = self.worker_for(task)
        slots = self._slots[kind.name].threads
        if slots is None:
            return kind.worker.run(task, question, context)
        with slots:
            return kind.worker.run(task, question, context)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task with its kind's worker (async graphs), within the kind's cap."""
        kind = self.worker_for(task)
        slots = self._slots[kind.name].for_loop()
        if slots is None:
            return await kind.worker.arun(task, question, context)
        async with slots:
            return await kind.worker.arun(task, question, context)


def task_kinds_of(worker: Worker) -> frozenset[str] | None:
    """The task kinds ``worker`` takes; None when it takes any (a single worker)."""
    return frozenset(worker.kinds) if isinstance(worker, WorkerKinds) else None


def planned_kinds(planner: object) -> frozenset[str] | None:
    """The task kinds a planner declares it emits (its ``task_kinds``); None when undeclared.

    Raises:
        ConfigError: ``task_kinds`` is not a collection of strings.
    """
    declared = getattr(planner, "task_kinds", None)
    if declared is None:
        return None
    if isinstance(declared, str) or not isinstance(declared, Collection):
        raise ConfigError(
            f"{type(planner).__name__}.task_kinds must be a collection of kind names, "
            f"got {declared!r}"
        )
    return frozenset(str(kind) for kind in declared)


def check_worker_kinds(planner: object, worker: Worker) -> None:
    """Refuse a planner and workers that do not fit: a kind the planner declares that no worker
    takes, or a worker kind the planner never emits. A planner that declares nothing, or a
    single worker, is not checked.

    Raises:
        ConfigError: The kinds do not match, naming them and the fix.
    """
    emitted, taken = planned_kinds(planner), task_kinds_of(worker)
    if emitted is None or taken is None:
        return
    planner_name = type(planner).__name__
    orphaned = sorted(emitted - taken)
    if orphaned:
        raise ConfigError(
            f"{planner_name} plans tasks of kind {', '.join(orphaned)}, which no worker takes: "
            f"add a WorkerKind for each (the workers take {', '.join(sorted(taken))})"
        )
    unreachable = sorted(taken - emitted)
    if unreachable:
        raise ConfigError(
            f"worker kind {', '.join(unreachable)} is never planned: {planner_name} plans only "
            f"{', '.join(sorted(emitted))}; drop the kind or let the planner emit it"
        )
