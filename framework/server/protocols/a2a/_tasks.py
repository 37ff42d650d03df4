"""A2A tasks as views of cadre threads: a task's id is its thread's id, and what a task shows
is read through the gate from the thread (its latest run: working, answered, paused for
review, failed or cancelled), so a task outlives the server that started it. A task read
from its thread is dated by the thread's last update; ``ListTasks`` lists the caller's
tenant's threads of the team as tasks.

The messages a task exchanged (its history) and its A2A context id are kept besides: the
history in memory (the most recent tasks' only), the context id in the thread's metadata
(``a2a_context_id``).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator
from datetime import UTC, datetime

from a2a.helpers import new_text_part
from a2a.server.context import ServerCallContext
from a2a.server.tasks import TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task, TaskState, TaskStatus

from framework.runs.gate import admit
from framework.server._http import Server, blocking, owned_thread
from framework.server._served import assistant_id
from framework.server._tables import UNFINISHED, ThreadRow
from framework.server.protocols._base import ServedTeam, outcome
from framework.server.protocols.a2a._calls import caller_in, gate_errors
from framework.server.protocols.a2a._listing import listed, matches
from framework.server.protocols.a2a._report import Report, report_of

__all__ = ["CONTEXT_KEY", "ThreadTasks"]

_ENDED = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_REJECTED,
    }
)
"""The states a task never leaves."""

CONTEXT_KEY = "a2a_context_id"
"""The thread metadata key holding its task's A2A context id."""


class ThreadTasks(TaskStore):
    """The tasks of one served team, each a view of its thread (see the module).

    Args:
        team: The team whose threads are its tasks.
        kept: How many tasks' histories are kept in memory (the least recently used go).
    """

    def __init__(self, team: ServedTeam, kept: int = 1024) -> None:
        self.team = team
        self.kept = kept
        self._tasks: OrderedDict[str, Task] = OrderedDict()
        self._followed: set[str] = set()
        """Tasks whose run a call of this process started and follows: until it ends or
        pauses, the SDK's view of them is the task (their thread may be ahead of it)."""

    @contextlib.asynccontextmanager
    async def following(self, task_id: str) -> AsyncIterator[None]:
        """Follow the task whose run the block starts (a start refused lets it go)."""
        self._followed.add(task_id)
        try:
            yield
        except BaseException:
            self._followed.discard(task_id)
            raise

    async def opened(self, server: Server, a2a_task: Task) -> None:
        """Record a new task's context id in its new thread's metadata."""
        metadata = {CONTEXT_KEY: a2a_task.context_id}
        await blocking(lambda: server.tables.update_thread(a2a_task.id, metadata=metadata))

    def working(self, a2a_task: Task) -> Task:
        """``task`` working on the run just started (its last status message moved to its
        history, as the SDK does), kept."""
        working = _copy(a2a_task)
        if working.status.HasField("message"):
            working.history.append(working.status.message)
        working.status.CopyFrom(_status(TaskState.TASK_STATE_WORKING))
        self._keep(working)
        return working

    async def save(self, a2a_task: Task, context: ServerCallContext) -> None:
        """Keep what the SDK made of a task; a task that ended or waits for review is no
        longer followed."""
        self._keep(a2a_task)
        if (
            a2a_task.status.state in _ENDED
            or a2a_task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        ):
            self._followed.discard(a2a_task.id)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        """The task of thread ``task_id``, as the gate lets the call's caller read it (None:
        not this team's, or no run on it yet).

        Raises:
            TaskNotFoundError: The thread is not there or is another tenant's.
        """
        server, caller = caller_in(context)
        with gate_errors():
            thread = owned_thread(server, admit(caller, "read"), task_id)
        if not self._serves(thread):
            return None
        return await self._task_of(server, thread)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        """The tasks of this team the gate lets the call's caller read (its tenant's threads
        with a run), filtered and paged as ``params`` asks (see :mod:`._listing`); the
        request's ``tenant`` field is not read: the caller's token says whose tasks."""
        server, caller = caller_in(context)
        with gate_errors():
            tenant = admit(caller, "read").tenant
        found = []
        for thread in await blocking(server.tables.threads, tenant):
            if not self._serves(thread):
                continue
            a2a_task = await self._task_of(server, thread)
            if a2a_task is not None and matches(a2a_task, params):
                found.append(a2a_task)
        return listed(found, params)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        """Forget a task's history (its thread stays: LangGraph's API deletes threads)."""
        self._tasks.pop(task_id, None)

    def _serves(self, thread: ThreadRow) -> bool:
        """Whether ``thread`` runs this team (by its key, name or assistant id)."""
        team = self.team
        return thread.assistant_id in (team.team, team.name, assistant_id(team.team))

    async def _task_of(self, server: Server, thread: ThreadRow) -> Task | None:
        """The task of ``thread`` (None: no run on it yet): as this process keeps it while it
        follows its run or once it ended, else as the thread's latest run shows it."""
        kept = self._tasks.get(thread.thread_id)
        if kept is not None and (thread.thread_id in self._followed or kept.status.state in _ENDED):
            return _copy(kept)
        report = await _thread_report(server, thread)
        if report is None:
            return None
        if kept is not None and kept.status.state == report.state:
            return _copy(kept)
        a2a_task = _task(thread, report, kept)
        self._keep(a2a_task)
        return _copy(a2a_task)

    def _keep(self, a2a_task: Task) -> None:
        self._tasks[a2a_task.id] = _copy(a2a_task)
        self._tasks.move_to_end(a2a_task.id)
        while len(self._tasks) > self.kept:
            self._tasks.popitem(last=False)


async def _thread_report(server: Server, thread: ThreadRow) -> Report | None:
    """How the thread's latest run shows on its task (None: no run yet)."""
    runs = await blocking(server.tables.runs, thread.thread_id)
    if not runs:
        return None
    latest = runs[0]
    if latest.status in UNFINISHED:
        return Report(state=TaskState.TASK_STATE_WORKING)
    if latest.status == "interrupted":  # cancelled
        cancelled = new_text_part(f"run {latest.run_id} was cancelled")
        return Report(state=TaskState.TASK_STATE_CANCELED, parts=[cancelled])
    return report_of(await outcome(server, latest))


def _task(thread: ThreadRow, report: Report, kept: Task | None) -> Task:
    """The task of ``thread`` as ``report`` says (its status dated by the thread's last update),
    with the history kept of it."""
    context_id = kept.context_id if kept else thread.metadata.get(CONTEXT_KEY, thread.thread_id)
    status = _status(report.state, at=datetime.fromtimestamp(thread.updated_at, UTC))
    message = report.message(thread.thread_id, context_id)
    if message is not None:
        status.message.CopyFrom(message)
    return Task(
        id=thread.thread_id,
        context_id=context_id,
        status=status,
        artifacts=[report.artifact] if report.artifact is not None else [],
        history=list(kept.history) if kept else [],
    )


def _status(state: TaskState, *, at: datetime | None = None) -> TaskStatus:
    """A status in ``state`` since ``at`` (now by default)."""
    status = TaskStatus(state=state)
    status.timestamp.FromDatetime(at or datetime.now(UTC))
    return status


def _copy(a2a_task: Task) -> Task:
    copied = Task()
    copied.CopyFrom(a2a_task)
    return copied
