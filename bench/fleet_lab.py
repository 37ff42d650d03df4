"""A fleet on one machine for the scale bench and the fleet tests: ``cadre worker``
processes on one PostgreSQL database, runs of the ``fleety`` team submitted to their queue,
kills with SIGKILL, and what the runs' model calls and rows say afterwards."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from bench.fleet_team import Call, read_calls, write_fleet_team
from framework.database.home import DataHome
from framework.fleet.registry import WorkerRegistry
from framework.fleet.submit import Submitter
from framework.policy import Principal
from framework.runs.stores import home_cipher
from framework.server._tables import UNFINISHED, RunRow, ServerTables

__all__ = ["FleetLab", "Worker", "peak_in_window"]


@dataclass
class Worker:
    """One ``cadre worker`` process and its log."""

    process: subprocess.Popen[bytes]
    log: Path
    killed_at: float | None = None
    held: tuple[str, ...] = ()
    """The threads of the runs it was executing when it was killed."""

    def alive(self) -> bool:
        """Whether the process runs."""
        return self.process.poll() is None


@dataclass
class FleetLab:
    """A data home on ``database`` with the fleety team installed for workers.

    Args:
        root: A folder of its own (created).
        database: An empty PostgreSQL database's URL.
        tasks: Tasks per run.
        delay: Each model call's latency, seconds.
        policy: A policy file's text for the runs (rate limits...).
        max_parallel: Tasks of a run at once (default: all).
    """

    root: Path
    database: str
    tasks: int = 8
    delay: float = 0.2
    policy: str | None = None
    max_parallel: int | None = None
    workers: list[Worker] = field(default_factory=list)
    runs: list[RunRow] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.calls_file = self.root / "calls.txt"
        self.home = DataHome(root=self.root / "home", database=self.database)
        self.env = write_fleet_team(
            self.root / "team", self.calls_file, tasks=self.tasks, delay=self.delay
        )
        self.env.update(CADRE_DB=self.database, CADRE_HOME=str(self.home.root))
        self.cadre = str(Path(sys.executable).with_name("cadre"))
        self._tables: ServerTables | None = None
        self._submitter: Submitter | None = None

    # -- workers -------------------------------------------------------------------------------

    def start_worker(
        self, *, concurrency: int = 4, dead_after: float = 4.0, extra: Sequence[str] = ()
    ) -> Worker:
        """Start a ``cadre worker``."""
        log = self.root / f"worker-{len(self.workers)}.log"
        args = [self.cadre, "worker", "--concurrency", str(concurrency)]
        args += ["--dead-after", str(dead_after), *extra]
        with log.open("wb") as out:
            process = subprocess.Popen(args, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        worker = Worker(process=process, log=log)
        self.workers.append(worker)
        return worker

    def kill(self, worker: Worker) -> None:
        """SIGKILL a worker, noting the runs it was executing."""
        registry = WorkerRegistry(self.database)
        try:
            ids = [row.worker_id for row in registry.workers() if row.pid == worker.process.pid]
        finally:
            registry.close()
        worker.process.send_signal(signal.SIGKILL)
        worker.process.wait(timeout=30)
        worker.killed_at = time.time()
        threads = {row.run_id: row.thread_id for row in self.runs}
        running = [run_id for worker_id in ids for run_id in self.tables.running_on(worker_id)]
        worker.held = tuple(threads[run_id] for run_id in running if run_id in threads)

    def stop_all(self, timeout: float = 60.0) -> list[int | None]:
        """SIGTERM every live worker and wait; their exit codes (None: killed before)."""
        for worker in self.workers:
            if worker.alive():
                worker.process.send_signal(signal.SIGTERM)
        codes = []
        for worker in self.workers:
            codes.append(None if worker.killed_at else worker.process.wait(timeout=timeout))
        return codes

    def cadre_command(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run ``cadre ARGS`` against the lab's home."""
        return subprocess.run(
            [self.cadre, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    # -- runs ----------------------------------------------------------------------------------

    def submit(
        self, count: int, *, tenants: Sequence[str] = ("default",), priority: int | None = None
    ) -> list[RunRow]:
        """Put ``count`` runs of the fleety team on the queue, the tenants in turn."""
        submitted = []
        for index in range(count):
            tenant = tenants[index % len(tenants)]
            row = self.submitter.submit(
                "fleety",
                {"question": f"run {len(self.runs) + index}"},
                principal=Principal(user="bench", tenant=tenant, scopes=frozenset()),
                configurable={"max_parallel": self.max_parallel or self.tasks},
                policy=self.policy,
                priority=priority,
            )
            submitted.append(row)
        self.runs.extend(submitted)
        return submitted

    @property
    def submitter(self) -> Submitter:
        """Submits runs to the lab's queue (opened once)."""
        if self._submitter is None:
            self._submitter = Submitter(self.home)
        return self._submitter

    @property
    def tables(self) -> ServerTables:
        """The home's server tables (opened once)."""
        if self._tables is None:
            self._tables = ServerTables(self.home.server_target, home_cipher(self.home))
        return self._tables

    def statuses(self) -> Counter[str]:
        """How many submitted runs are in each status (one query: the bench counts the
        database's transactions, and must not add one per run)."""
        ids = [row.run_id for row in self.runs]
        with psycopg.connect(self.database, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT status, COUNT(*) FROM cadre_server.server_runs"
                " WHERE run_id = ANY(%s) GROUP BY status",
                (ids,),
            ).fetchall()
        return Counter({str(status): int(count) for status, count in rows})

    def wait_all(self, timeout: float) -> Counter[str]:
        """Wait until every submitted run ended (or ``timeout``); their statuses."""
        deadline = time.monotonic() + timeout
        while True:
            statuses = self.statuses()
            if not any(status in UNFINISHED for status in statuses):
                return statuses
            if time.monotonic() > deadline:
                return statuses
            time.sleep(0.25)

    def start_order(self) -> list[str]:
        """The submitted runs' ids in the order workers dequeued them."""
        with psycopg.connect(self.database, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT workflow_uuid FROM cadre_fleet.workflow_status"
                " WHERE started_at_epoch_ms IS NOT NULL ORDER BY started_at_epoch_ms"
            ).fetchall()
        return [str(run_id) for (run_id,) in rows]

    def calls(self) -> list[Call]:
        """Every model call the runs' tasks finished."""
        return read_calls(self.calls_file)

    def duplicates(self, save_lag: float | None = None) -> int:
        """Task executions that ran again although their result was saved: a second
        completion of a task, unless a kill came within ``save_lag`` seconds after the first
        (default: one model call's time; its result may then not have reached the database,
        and running it again is what should happen)."""
        save_lag = self.delay if save_lag is None else save_lag
        kills = [w.killed_at for w in self.workers if w.killed_at is not None]
        ended: dict[tuple[str, str], list[float]] = {}
        for call in self.calls():
            ended.setdefault((call.thread_id, call.task_id), []).append(call.ended)
        again = 0
        for times in ended.values():
            for first in sorted(times)[:-1]:
                if not any(first <= kill <= first + save_lag for kill in kills):
                    again += 1
        return again

    def recoveries(self) -> list[float]:
        """For each killed worker that held runs: seconds from the kill to the first model call
        of one of them on another worker."""
        calls = self.calls()
        found = []
        for worker in self.workers:
            if worker.killed_at is None or not worker.held:
                continue
            later = [
                call.started
                for call in calls
                if call.thread_id in worker.held and call.started > worker.killed_at
            ]
            if later:
                found.append(min(later) - worker.killed_at)
        return found

    def redo_lags(self) -> list[float]:
        """For each execution redone, seconds from its first completion to the next kill."""
        kills = sorted(w.killed_at for w in self.workers if w.killed_at is not None)
        ended: dict[tuple[str, str], list[float]] = {}
        for call in self.calls():
            ended.setdefault((call.thread_id, call.task_id), []).append(call.ended)
        lags = []
        for times in ended.values():
            for first in sorted(times)[:-1]:
                after = [kill - first for kill in kills if kill >= first]
                lags.append(min(after) if after else float("inf"))
        return lags

    def redone(self) -> int:
        """Task executions beyond one per task (saved or not)."""
        counts = Counter((call.thread_id, call.task_id) for call in self.calls())
        return sum(count - 1 for count in counts.values())

    def close(self) -> None:
        """Stop the workers and close the tables."""
        for worker in self.workers:
            if worker.alive():
                worker.process.kill()
                worker.process.wait(timeout=30)
        if self._tables is not None:
            self._tables.close()
        if self._submitter is not None:
            self._submitter.close()


def peak_in_window(times: Sequence[float], window: float) -> int:
    """The most of ``times`` in any half-open window ``[t, t + window)``."""
    ordered = sorted(times)
    peak, start = 0, 0
    for end, moment in enumerate(ordered):
        while moment - ordered[start] >= window:
            start += 1
        peak = max(peak, end - start + 1)
    return peak
