"""``cadre worker``: dequeues runs from the fleet's queue and executes their segments.

Each run is a DBOS workflow whose only input is the run's id; its body executes one segment
from the thread's checkpoints, so a workflow DBOS runs again (after its worker died) redoes
only the tasks that had not saved a result. Flow control is DBOS's: ``concurrency`` per
worker, ``global_concurrency`` over the fleet, ``tenant_concurrency`` per tenant (the queue is
partitioned by tenant and each poll visits the tenants in random order, so one tenant's
backlog does not starve another's), and priorities.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from framework.database import database_gone
from framework.database.home import DataHome
from framework.errors import CadreError, ThreadBusyError, brief
from framework.fleet.queue import (
    APP_NAME,
    FLEET_SCHEMA,
    FLEET_VERSION,
    QUEUE_NAME,
    WORKFLOW_NAME,
    dbos_module,
    fleet_database,
    migrate,
)
from framework.fleet.registry import WorkerRegistry
from framework.runs.observe import ObserverOptions
from framework.runs.stores import home_checkpointer, home_cipher
from framework.server import Segments, ServerTables, TeamApps, until_written

__all__ = ["FleetWorker", "WorkerOptions"]

logger = logging.getLogger("cadre.fleet")

EVENTS_KEPT_S = 600.0
"""How long an ended run's events stay in the database for streams that reattach."""

_WAIT_STEP_S = 0.25
_PRUNE_EVERY = 30
"""Heartbeats between two prunings of ended runs' events."""


@dataclass(frozen=True, kw_only=True)
class WorkerOptions:
    """How a worker runs."""

    home: DataHome
    concurrency: int = 4
    """Segments executing at once in this worker."""
    global_concurrency: int | None = None
    """Segments executing at once in the whole fleet (None: no limit)."""
    tenant_concurrency: int | None = None
    """Segments of one tenant executing at once in the whole fleet (None: no limit)."""
    drain_s: float = 30.0
    """How long a stopping worker lets its segments finish before it leaves them to peers."""
    heartbeat_s: float = 2.0
    dead_after_s: float = 10.0
    """A worker silent this long is dead: a live one puts its runs back on the queue."""
    poll_s: float = 0.5
    """How often the worker looks for runs to dequeue."""
    observe: ObserverOptions | None = field(default_factory=ObserverOptions)
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}-{uuid.uuid4().hex[:8]}")


class _StoredEvents:
    """A segment's events as rows of the run (any API process follows them)."""

    def __init__(self, tables: ServerTables, run_id: str) -> None:
        self.tables = tables
        self.run_id = run_id
        self.seq = tables.last_event(run_id)

    def add(self, name: str, data: Any) -> None:
        self.seq += 1
        self.tables.add_event(self.run_id, self.seq, name, data)


class _Process:
    """The worker of this process, and whether the workflow is registered with DBOS."""

    worker: FleetWorker | None = None
    registered = False


def _run_segment(run_id: str) -> str:
    """The fleet's workflow: one segment of run ``run_id``."""
    if _Process.worker is None:  # pragma: no cover - DBOS starts workflows after launch only
        raise RuntimeError("no cadre worker in this process")
    return _Process.worker.execute(run_id)


class FleetWorker:
    """One worker process of the fleet.

    Raises:
        ConfigError: The home is not on PostgreSQL, or the options are out of range.
    """

    def __init__(self, options: WorkerOptions) -> None:
        self.options = options
        self.worker_id = options.worker_id
        self.url = fleet_database(options.home)
        home = options.home.create()
        cipher = home_cipher(home)
        self.tables = ServerTables(home.server_target, cipher)
        self.apps = TeamApps()
        self.segments = Segments(
            home, self.apps, home_checkpointer(home, cipher=cipher), options.observe
        )
        self.registry = WorkerRegistry(self.url)
        self._running: dict[str, threading.Event] = {}
        self._running_lock = threading.Lock()
        self._stop = threading.Event()
        self._closing = False
        self._abandoned = threading.Event()
        """Never set: a segment stopped by a closing worker waits on it, so its workflow stays
        pending (for a peer to take over) until the process exits."""

    # -- one segment ---------------------------------------------------------------------------

    def execute(self, run_id: str) -> str:
        """Execute one segment of run ``run_id``; its status (``skipped`` when it ended
        already: a workflow run again after its worker finished it and died). The database's
        going away never ends the workflow with the run unfinished: what failed so is done
        again once it answers (see :mod:`framework.server.run_path.outage`)."""
        return until_written(lambda: self._execute(run_id), self.tables.db, f"run {run_id}")

    def _execute(self, run_id: str) -> str:
        row = self.tables.claim_run(run_id, self.worker_id)
        if row is None:
            return "skipped"
        cancelled = threading.Event()
        with self._running_lock:
            self._running[run_id] = cancelled
        sink = _StoredEvents(self.tables, run_id)
        try:
            self._wait_turn(row.thread_id, run_id)
            sink.add("metadata", {"run_id": run_id, "worker": self.worker_id})
            try:
                job = self.segments.job_of(row)
            except CadreError as error:
                if database_gone(error):
                    raise
                sink.add("error", {"error": type(error).__name__, "message": brief(error)})
                status, thread_status = "error", "error"
            else:
                status, thread_status = self.segments.execute(job, sink, cancelled)
            if self._closing:
                self._abandoned.wait()
            until_written(
                lambda: self.tables.end_run(row, self.worker_id, status, thread_status),
                self.tables.db,
                f"run {run_id}",
            )
            return status
        finally:
            with self._running_lock:
                self._running.pop(run_id, None)

    def _wait_turn(self, thread_id: str, run_id: str) -> None:
        """Wait until the thread's earlier runs ended and no process holds the thread (one
        taken over from a dead worker is released when the database drops its session)."""
        while True:
            started = self.tables.started_runs(thread_id)
            if not started or started[0] == run_id:
                try:
                    with self.segments.saver.hold_thread(thread_id):
                        return
                except ThreadBusyError:
                    pass
            time.sleep(_WAIT_STEP_S)

    # -- the process ---------------------------------------------------------------------------

    def serve(self) -> None:
        """Take runs until :meth:`stop`, then drain (see :attr:`WorkerOptions.drain_s`)."""
        migrate(self.url)
        DBOS = dbos_module().DBOS  # noqa: N806 - DBOS's own name for its class
        options = self.options
        if not _Process.registered:
            DBOS.workflow(name=WORKFLOW_NAME)(_run_segment)
            _Process.registered = True
        _Process.worker = self
        DBOS(
            config={
                "name": APP_NAME,
                "system_database_url": self.url,
                "dbos_system_schema": FLEET_SCHEMA,
                "application_version": FLEET_VERSION,
                "executor_id": self.worker_id,
                "log_level": "WARNING",
            }
        )
        DBOS.launch()
        tenant = options.tenant_concurrency
        DBOS.register_queue(
            QUEUE_NAME,
            worker_concurrency=options.concurrency,
            global_concurrency=options.global_concurrency,
            partition_concurrency=tenant,
            partition_worker_concurrency=min(options.concurrency, tenant or options.concurrency),
            polling_interval_sec=options.poll_s,
            on_conflict="always_update",
        )
        beats = threading.Thread(target=self._beat_forever, name="cadre-heartbeat", daemon=True)
        beats.start()
        self._stop.wait()
        self._drain(DBOS)
        beats.join(timeout=options.heartbeat_s * 2)

    def stop(self) -> None:
        """Stop taking runs (from a signal handler: returns at once)."""
        self._stop.set()

    def _drain(self, dbos: Any) -> None:
        """Let the segments going on finish (up to ``drain_s``), take no new ones; what is
        still running then stops at its next step and is left to a peer."""
        self._beat(draining=True)
        dbos.destroy(workflow_completion_timeout_sec=max(1, round(self.options.drain_s)))
        left = self.running()
        if left:
            self._closing = True
            with self._running_lock:
                for flag in self._running.values():
                    flag.set()
            logger.warning(
                "cadre worker: %d segment(s) still running after %.0f s: left to the other "
                "workers, which resume them from their checkpoints",
                len(left),
                self.options.drain_s,
            )
            self.registry.give_up(self.worker_id)
        else:
            self.registry.leave(self.worker_id)

    def running(self) -> list[str]:
        """The runs this worker executes now."""
        with self._running_lock:
            return list(self._running)

    # -- heartbeat -----------------------------------------------------------------------------

    def _beat_forever(self) -> None:
        """Beat every ``heartbeat_s``; while the database does not answer, try again at a
        growing interval short enough that peers never take this worker for dead once it
        answers (a quarter of ``dead_after_s``). Back from an outage, peers are judged only
        after ``dead_after_s``: all of them were silent through it, and they are alive."""
        options = self.options
        backoff = options.heartbeat_s
        most_backoff = max(options.heartbeat_s, options.dead_after_s / 4)
        failing = False
        judge_after = 0.0
        beats = 0
        while not self._stop.wait(backoff):
            try:
                self._beat(draining=False)
                self._relay_cancels()
                if time.monotonic() >= judge_after:
                    self._take_over_dead()
                beats += 1
                if beats % _PRUNE_EVERY == 0:
                    self.tables.prune_events(time.time() - EVENTS_KEPT_S)
            except Exception as error:  # the database went away: say so, retry with backoff
                backoff = min(most_backoff, backoff * 2)
                failing = True
                logger.warning(
                    "cadre worker: the database %s does not answer (%s): retrying in %.0f s",
                    self.registry.db.label,
                    brief(error),
                    backoff,
                )
                self._reopen_registry()
                continue
            if failing:
                logger.warning("cadre worker: the database answers again")
                failing = False
                judge_after = time.monotonic() + options.dead_after_s
            backoff = options.heartbeat_s

    def _beat(self, *, draining: bool) -> None:
        self.registry.beat(
            self.worker_id,
            host=socket.gethostname(),
            pid=os.getpid(),
            concurrency=self.options.concurrency,
            running=self.running(),
            draining=draining,
        )

    def _relay_cancels(self) -> None:
        with self._running_lock:
            flags = dict(self._running)
        for run_id in self.tables.cancels_asked(list(flags)):
            flags[run_id].set()

    def _take_over_dead(self) -> None:
        for worker_id in self.registry.silent(self.options.dead_after_s):
            if worker_id == self.worker_id or not self.registry.claim(
                worker_id, self.options.dead_after_s
            ):
                continue
            # DBOS's own recovery, for an executor it cannot see die: the dead worker's
            # pending workflows go back on their queue, each taken by one live worker
            handles = dbos_module().DBOS._recover_pending_workflows([worker_id])
            logger.warning(
                "cadre worker: worker %s was silent for %.0f s: %d run(s) back on the queue",
                worker_id,
                self.options.dead_after_s,
                len(handles),
            )

    def _reopen_registry(self) -> None:
        try:
            fresh = WorkerRegistry(self.url)
        except CadreError:
            return
        old, self.registry = self.registry, fresh
        try:
            old.close()
        except Exception:  # a broken connection may fail to close
            logger.debug("closing a broken registry connection failed", exc_info=True)

    def close(self) -> None:
        """Close the databases."""
        self.apps.close()
        self.segments.saver.close()
        self.tables.close()
        self.registry.close()
