"""What every way of executing the API's runs shares: recording a run (after checking the
thread's other runs and the resume it carries), and what routes ask of runs and threads.
:class:`~framework.server.run_path.in_process.Runs` executes runs in the server's process; a
:class:`DispatchFactory` handed to the app makes another (``cadre serve --queue`` hands the
fleet's, which puts runs on its queue)."""

from __future__ import annotations

import asyncio
import time
import uuid
from abc import ABC, abstractmethod
from typing import ClassVar, Protocol

from framework.errors import ThreadBusyError
from framework.persistence.saver import CadreSaver
from framework.runs.gate import Caller
from framework.runs.spec import RunSpec
from framework.server._requests import RunBody
from framework.server._tables import RunRow, ServerTables
from framework.server.run_path.run_log import RunLog
from framework.server.run_path.segments import Job, Segments, run_arguments

__all__ = ["DispatchFactory", "RunDispatch"]


class RunDispatch(ABC):
    """The runs of one server.

    Args:
        segments: How a run's segment executes.
        tables: The server's thread and run rows.
        policy: The policy file's text governing new threads' runs (None: no policies).
    """

    on_queue: ClassVar[bool] = False
    """Whether runs wait on a queue for workers of their own (``GET /info``'s ``queue``)."""

    def __init__(self, segments: Segments, tables: ServerTables, policy: str | None) -> None:
        self.segments = segments
        self.tables = tables
        self.policy = policy

    @property
    def saver(self) -> CadreSaver:
        """The home's checkpointer."""
        return self.segments.saver

    def thread_spec(self, thread_id: str) -> RunSpec | None:
        """What the thread's first run recorded; None before it has one."""
        return self.segments.thread_spec(thread_id)

    def forget_thread(self, thread_id: str) -> None:
        """Drop what is kept of a deleted thread."""
        self.segments.forget_thread(thread_id)

    async def admit(self, caller: Caller, thread_id: str, body: RunBody) -> None:
        """Refuse what the run's execution would refuse the caller (the model it names), before
        anything is recorded (see :meth:`Segments.admit`).

        Raises:
            AccessDenied: The caller may not name that model.
        """
        await asyncio.to_thread(self.segments.admit, caller, thread_id, body)

    async def start(self, caller: Caller, thread_id: str, team: str, body: RunBody) -> RunRow:
        """Record a run and start it (after the thread's current run, with ``enqueue``).

        Raises:
            AccessDenied: The caller may not name the model the body names (nothing ran).
            ThreadBusyError: The thread runs already and ``multitask_strategy`` is ``reject``.
            ReviewError: A resume value is not a valid decision (nothing ran).
        """
        await self.admit(caller, thread_id, body)
        strategy = body.multitask_strategy or "reject"
        started = await asyncio.to_thread(self.started, thread_id)
        if started:
            if strategy == "reject":
                raise ThreadBusyError(
                    f"thread {thread_id} is busy with run {started[0]}: wait for it (join), or "
                    "send multitask_strategy enqueue or interrupt"
                )
            if strategy in ("interrupt", "rollback"):
                for run_id in started:
                    self.cancel(run_id)
        segments = self.segments
        command = await asyncio.to_thread(segments.command, caller, thread_id, team, body)
        now = time.time()
        row = RunRow(
            run_id=str(uuid.uuid4()),
            thread_id=thread_id,
            tenant=caller.tenant,
            assistant_id=body.assistant_id,
            status="pending",
            created_at=now,
            updated_at=now,
            arguments=run_arguments(body, team, caller, self.policy),
        )
        self.tables.add_run(row)
        job = Job(
            row=row,
            caller=caller,
            team=team,
            body=body,
            command=command,
            policy=self.policy,
            trace=row.arguments.get("trace"),
        )
        await self.dispatch(job)
        return row

    @abstractmethod
    def started(self, thread_id: str) -> list[str]:
        """The thread's runs started and not ended, the oldest first."""

    def active_run(self, thread_id: str) -> str | None:
        """The run executing on ``thread_id`` now, or the first waiting its turn, if any."""
        return next(iter(self.started(thread_id)), None)

    @abstractmethod
    async def dispatch(self, job: Job) -> None:
        """Have a recorded run executed."""

    @abstractmethod
    async def recover(self) -> int:
        """Start again what a stopped server left unfinished; how many runs."""

    @abstractmethod
    def log_of(self, run_id: str) -> RunLog | None:
        """The run's events to follow, while it runs and a while after (None: not kept)."""

    @abstractmethod
    def cancel(self, run_id: str) -> bool:
        """Ask a run to stop at its next step; whether it was running."""

    @abstractmethod
    def close(self) -> None:
        """Stop."""


class DispatchFactory(Protocol):
    """Makes the runs of a server from its parts, when it starts."""

    def __call__(
        self, segments: Segments, tables: ServerTables, policy: str | None
    ) -> RunDispatch: ...
