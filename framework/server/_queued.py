"""Runs put on the fleet's queue (``cadre serve --queue``): the server records and enqueues
them, ``cadre worker`` processes execute them, and their events come back through the
database, so any server process can stream, join or cancel any run."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from framework.errors import CadreError, ConfigError, brief
from framework.fleet.queue import RunQueue, checked_priority
from framework.server._caller import Caller
from framework.server._dispatch import RunDispatch
from framework.server._requests import RunBody
from framework.server._runlog import RunLog
from framework.server._segments import Job, Segments
from framework.server._tables import UNFINISHED, RunRow, ServerTables

__all__ = ["QueuedRuns"]

logger = logging.getLogger("cadre.server")

POLL_S = 0.25
"""How often a followed run's new events are read."""

LOG_KEPT_S = 600.0
"""How long an ended run's followed events stay in memory."""

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

    def __init__(
        self, segments: Segments, tables: ServerTables, queue: RunQueue, policy: str | None
    ) -> None:
        super().__init__(segments, tables, policy)
        self.queue = queue
        self._logs: dict[str, RunLog] = {}
        self._tails: set[asyncio.Task[None]] = set()

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
        try:
            while True:
                status = await asyncio.to_thread(self.tables.run_status, run_id)
                events = await asyncio.to_thread(self.tables.events, run_id, after)
                for seq, name, data in events:
                    if seq != after + 1:  # numbering restarted by a deleted run's id
                        break
                    log.add(name, data)
                    after = seq
                if status not in UNFINISHED and not events:
                    break
                if not events:
                    await asyncio.sleep(POLL_S)
        except Exception:  # the database went away: followers end; the run's row says more
            logger.warning("cadre: cannot follow run %s's events", run_id, exc_info=True)
        finally:
            log.finish()
            asyncio.get_running_loop().call_later(LOG_KEPT_S, self._logs.pop, run_id, None)

    def cancel(self, run_id: str) -> bool:
        """Ask the run's worker to stop it at its next step (it looks at each heartbeat)."""
        return self.tables.request_cancel(run_id)

    def close(self) -> None:
        """Stop following runs and close the queue's connections (the runs go on)."""
        for task in list(self._tails):
            task.cancel()
        with contextlib.suppress(Exception):
            self.queue.close()
