"""Runs started over the API, executed in the server process: one at a time per thread, each
on a worker thread, its events relayed to a :class:`RunLog`; their rows say how they ended, so
a server killed mid-run resumes them from their checkpoints when it starts again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time

from framework.engine.draining import DRAIN
from framework.errors import CadreError, brief
from framework.server._tables import RunRow, ServerTables
from framework.server.run_path.dispatch import RunDispatch
from framework.server.run_path.outage import until_written
from framework.server.run_path.run_log import EndedLogs, RunLog
from framework.server.run_path.segments import STOPPED, Job, Segments

__all__ = ["Runs"]

logger = logging.getLogger("cadre.server")

STOP_TIMEOUT_S = 10.0
"""How long a stopping server waits for its runs to reach a step boundary."""


class Runs(RunDispatch):
    """The runs of one server, executed in its process.

    Args:
        segments: How a run's segment executes.
        tables: The server's thread and run rows.
        workers: How many runs execute at once (each on a thread of its own).
        policy: The policy file's text governing new threads' runs (None: no policies).
    """

    def __init__(
        self,
        segments: Segments,
        tables: ServerTables,
        *,
        workers: int = 8,
        policy: str | None = None,
    ) -> None:
        super().__init__(segments, tables, policy)
        self.workers = workers
        self._slots: asyncio.Semaphore | None = None
        self._threads: set[threading.Thread] = set()
        self.logs: dict[str, RunLog] = {}
        self._ended = EndedLogs(self.logs, forgotten=self._forget_run)
        self._cancelled: dict[str, threading.Event] = {}
        self._thread_locks: dict[str, asyncio.Lock] = {}
        self._queued: dict[str, list[str]] = {}
        """Thread -> its runs started and not ended (executing, or waiting their turn)."""
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()

    def started(self, thread_id: str) -> list[str]:
        """The thread's runs started here and not ended, the oldest first."""
        return list(self._queued.get(thread_id) or ())

    async def dispatch(self, job: Job) -> None:
        """Execute the run here, after the thread's earlier runs."""
        self._launch(job)

    async def recover(self) -> int:
        """Start again the runs a stopped server left pending or running: from the thread's
        checkpoints when they wrote some, else as asked; how many."""
        rows = self.tables.unfinished_runs()
        for row in rows:
            try:
                job = await asyncio.to_thread(self.segments.job_of, row)
            except CadreError as error:
                logger.warning("run %s cannot be resumed: %s", row.run_id, brief(error))
                self.tables.set_run_status(row.run_id, "error")
                continue
            self._launch(job)
        return len(rows)

    def _launch(self, job: Job) -> None:
        self._queued.setdefault(job.row.thread_id, []).append(job.row.run_id)
        log = self.logs[job.row.run_id] = RunLog(asyncio.get_running_loop())
        log.add("metadata", {"run_id": job.row.run_id, "attempt": 1})
        self._cancelled[job.row.run_id] = threading.Event()
        task = asyncio.create_task(self._drive(job, log))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- executing -----------------------------------------------------------------------------

    async def _drive(self, job: Job, log: RunLog) -> None:
        row = job.row
        lock = self._thread_locks.setdefault(row.thread_id, asyncio.Lock())
        try:
            self._slots = self._slots or asyncio.Semaphore(self.workers)
            async with lock, self._slots:
                await self._on_thread(job, log)
        except CadreError as error:  # the rows cannot be written (a full disk): the log says it
            said = " ".join(str(error).split())  # whole: the end of it says what to do
            logger.error("run %s of thread %s: %s", row.run_id, row.thread_id, said)
            log.add("error", {"error": type(error).__name__, "message": said})
            log.unrecorded_error = True
        finally:
            queued = self._queued.get(row.thread_id) or []
            if row.run_id in queued:
                queued.remove(row.run_id)
            if not queued:  # no run of the thread waits for its lock: drop both
                self._queued.pop(row.thread_id, None)
                self._thread_locks.pop(row.thread_id, None)
            log.finish()
            self._ended.ended(row.run_id)

    def _execute(self, job: Job, log: RunLog) -> None:
        """The run's segment between the records of its statuses, all on the run's thread
        (no hop through the event loop's workers, which the requests keep busy)."""
        row = job.row
        self._record(row, "running", "busy")
        outcome = ("error", "error")
        try:
            outcome = self.segments.execute(job, log, self._cancelled[row.run_id])
        finally:
            if outcome != STOPPED and not self._closing:  # left running: resumed at start
                self._record(row, *outcome)

    def _record(self, row: RunRow, status: str, thread_status: str) -> None:
        """Record the run's and its thread's status, once the database answers."""

        def write() -> None:
            self.tables.set_statuses(row.run_id, status, row.thread_id, thread_status)

        until_written(write, self.tables.db, f"run {row.run_id} of thread {row.thread_id}")

    def _forget_run(self, run_id: str) -> None:
        """What is kept of an ended run besides its events (dropped by :class:`EndedLogs`)."""
        self._cancelled.pop(run_id, None)

    async def _on_thread(self, job: Job, log: RunLog) -> None:
        """The segment on a daemon thread of its own: a stopping server does not wait
        for a run stuck in a tool or model call (its checkpoints resume it at the next start).

        Raises:
            CadreError: The run's rows cannot be written (a full disk).
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def work() -> None:
            failure: CadreError | None = None
            try:
                self._execute(job, log)
            except CadreError as error:
                failure = error
            finally:
                self._threads.discard(threading.current_thread())
                with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                    loop.call_soon_threadsafe(_settle, done, failure)

        thread = threading.Thread(target=work, name=f"cadre-run-{job.row.run_id}", daemon=True)
        self._threads.add(thread)
        thread.start()
        return await done

    # -- asking about runs ---------------------------------------------------------------------

    def log_of(self, run_id: str) -> RunLog | None:
        """The run's events, kept a while after it ended (see :class:`EndedLogs`)."""
        return self.logs.get(run_id)

    def forget_thread(self, thread_id: str) -> None:
        """Drop what is kept of a deleted thread."""
        super().forget_thread(thread_id)
        self._thread_locks.pop(thread_id, None)

    def cancel(self, run_id: str) -> bool:
        """Ask a run to stop at its next step; whether it was running here."""
        flag = self._cancelled.get(run_id)
        log = self.logs.get(run_id)
        if flag is None or log is None or log.finished:
            return False
        flag.set()
        return True

    def close(self) -> None:
        """Stop: runs going on stop at their next step (waited for up to
        :data:`STOP_TIMEOUT_S`) and stay recorded as running, so the next start resumes them
        from their checkpoints. While the process drains (a signal), their tasks going on first
        get until the drain's deadline to finish, each one saved."""
        self._closing = True
        self._join(DRAIN.seconds_left())
        for flag in self._cancelled.values():
            flag.set()
        self._join(STOP_TIMEOUT_S)

    def _join(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the runs' threads to end."""
        deadline = time.monotonic() + seconds
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))


def _settle(done: asyncio.Future[None], failure: CadreError | None) -> None:
    if done.done():
        return
    if failure is None:
        done.set_result(None)
    else:
        done.set_exception(failure)
