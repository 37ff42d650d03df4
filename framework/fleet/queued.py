"""Runs put on the fleet's queue (``cadre serve --queue``): the dispatch the serve command
hands the app. The server records and enqueues them, ``cadre worker`` processes execute them,
and their events come back through the database (the rows, read when PostgreSQL notifies the
run's id), so any server process can stream, join or cancel any run."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading

from framework.database import database_gone
from framework.database.home import DataHome
from framework.errors import CadreError, ConfigError, brief
from framework.fleet.queue import RunQueue, checked_priority, fleet_database
from framework.runs.gate import Caller
from framework.server import RUN_EVENTS_CHANNEL, UNFINISHED, RunBody, RunRow, ServerTables
from framework.server.run_path.dispatch import DispatchFactory, RunDispatch
from framework.server.run_path.outage import wait_for
from framework.server.run_path.run_log import EndedLogs, RunLog
from framework.server.run_path.segments import Job, Segments

__all__ = ["QueuedRuns", "queued_dispatch"]

logger = logging.getLogger("cadre.server")

POLL_S = 2.0
"""How often a followed run's new events are read when no notification came (PostgreSQL
tells the server's listener each time a worker writes a run's events or ends it)."""

STORED_EPOCH = "db"
"""The epoch of event ids numbered by the database: the same in every server process."""


def _priority(body: RunBody) -> int | None:
    return checked_priority(((body.config or {}).get("configurable") or {}).get("priority"))


class QueuedRuns(RunDispatch):
    """The runs of a server whose workers are a fleet.

    Args:
        segments: What routes read of threads (no segment executes here).
        tables: The server's thread and run rows.
        queue: The fleet's queue.
        policy: The policy file's text governing new threads' runs (None: no policies).
    """

    on_queue = True

    def __init__(
        self, segments: Segments, tables: ServerTables, queue: RunQueue, policy: str | None
    ) -> None:
        super().__init__(segments, tables, policy)
        self.queue = queue
        self._logs: dict[str, RunLog] = {}
        self._ended = EndedLogs(self._logs)
        self._tails: set[asyncio.Task[None]] = set()
        self._listener: _Listener | None = None

    def started(self, thread_id: str) -> list[str]:
        """The thread's runs that have not ended, on any worker."""
        return self.tables.started_runs(thread_id)

    async def start(self, caller: Caller, thread_id: str, team: str, body: RunBody) -> RunRow:
        """See :meth:`RunDispatch.start`; a bad priority is refused before anything is
        recorded (ConfigError)."""
        _priority(body)
        return await super().start(caller, thread_id, team, body)

    async def dispatch(self, job: Job) -> None:
        """Put the run on the queue (``config.configurable.priority``: 1 goes first).

        Raises:
            ConfigError: The queue cannot take it (the run is recorded as failed).
        """
        row = job.row
        try:
            await asyncio.to_thread(self.queue.enqueue, row.run_id, row.tenant, _priority(job.body))
        except Exception as error:
            self.tables.set_run_status(row.run_id, "error")
            if isinstance(error, CadreError):
                raise
            raise ConfigError(
                f"the fleet's queue did not take run {row.run_id}: {brief(error)}"
            ) from None

    async def recover(self) -> int:
        """Nothing: the workers take over the runs of a worker that died."""
        return 0

    def log_of(self, run_id: str) -> RunLog | None:
        """The run's events, read from the database as its worker writes them."""
        log = self._logs.get(run_id)
        if log is None:
            if self.tables.run_status(run_id) is None:
                return None
            log = self._logs[run_id] = RunLog(asyncio.get_running_loop(), STORED_EPOCH)
            task = asyncio.create_task(self._tail(run_id, log))
            self._tails.add(task)
            task.add_done_callback(self._tails.discard)
        return log

    async def _tail(self, run_id: str, log: RunLog) -> None:
        after = -1
        if self._listener is None:
            self._listener = _Listener(self.queue.url, asyncio.get_running_loop())
        waker = self._listener.waker(run_id)
        try:
            while True:
                waker.clear()  # before reading: a notification after the read still wakes
                try:
                    status = await asyncio.to_thread(self.tables.run_status, run_id)
                    events = await asyncio.to_thread(self.tables.events, run_id, after)
                except Exception as error:
                    if not database_gone(error):
                        raise
                    following = f"following run {run_id}"
                    await asyncio.to_thread(wait_for, self.tables.db, following)
                    continue  # the run goes on meanwhile: its worker waits for it too
                for seq, name, data in events:
                    if seq != after + 1:  # numbering restarted by a deleted run's id
                        break
                    log.add(name, data)
                    after = seq
                if status not in UNFINISHED and not events:
                    break
                if not events:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(waker.wait(), POLL_S)
        except Exception:  # an event that cannot be read: followers end; the run's row says more
            logger.warning("cadre: cannot follow run %s's events", run_id, exc_info=True)
        finally:
            self._listener.forget(run_id)
            log.finish()
            self._ended.ended(run_id)

    def cancel(self, run_id: str) -> bool:
        """Ask the run's worker to stop it at its next step (it looks at each heartbeat)."""
        return self.tables.request_cancel(run_id)

    def close(self) -> None:
        """Stop following runs and close the queue's connections (the runs go on)."""
        if self._listener is not None:
            self._listener.close()
        for task in list(self._tails):
            task.cancel()
        with contextlib.suppress(Exception):
            self.queue.close()


def queued_dispatch(home: DataHome) -> DispatchFactory:
    """The dispatch ``cadre serve --queue`` hands its app: the runs put on the queue in
    ``home``'s database.

    Raises:
        ConfigError: The home is not on PostgreSQL (at once, before the server starts).
    """
    url = fleet_database(home)

    def dispatch(segments: Segments, tables: ServerTables, policy: str | None) -> QueuedRuns:
        return QueuedRuns(segments, tables, RunQueue(url), policy)

    return dispatch


class _Listener:
    """Listens on :data:`RUN_EVENTS_CHANNEL` on a connection of its own (a daemon thread) and
    wakes the followers of the run each notification names; reconnects when the database
    went away (followers then read at :data:`POLL_S` meanwhile)."""

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop) -> None:
        self.url = url
        self.loop = loop
        self._wakers: dict[str, asyncio.Event] = {}
        self._stop = threading.Event()
        threading.Thread(target=self._listen, name="cadre-run-events", daemon=True).start()

    def waker(self, run_id: str) -> asyncio.Event:
        """The event set when run ``run_id`` has news (on the server's loop)."""
        return self._wakers.setdefault(run_id, asyncio.Event())

    def forget(self, run_id: str) -> None:
        """Stop waking the followers of ``run_id``."""
        self._wakers.pop(run_id, None)

    def _listen(self) -> None:
        import psycopg  # noqa: PLC0415 - PostgreSQL's driver, present with a fleet

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {RUN_EVENTS_CHANNEL}")
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            self.loop.call_soon_threadsafe(self._wake, note.payload)
            except (psycopg.Error, RuntimeError):  # RuntimeError: the loop closed
                logger.debug("cadre: run event notifications lost, listening again", exc_info=True)
                self._stop.wait(POLL_S)

    def _wake(self, run_id: str) -> None:
        waker = self._wakers.get(run_id)
        if waker is not None:
            waker.set()

    def close(self) -> None:
        """Stop listening (within a second)."""
        self._stop.set()
