"""``cadre worker``, ``cadre submit``, ``cadre workers``: runs on the fleet's queue, executed
by worker processes on any number of machines sharing the ``--db`` PostgreSQL
(``docs/scale.md``)."""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from framework.cli.common import (
    DatabaseOption,
    HomeOption,
    debugging,
    one_line,
    use_database,
)
from framework.cli.policies import PolicyOption, read_policy
from framework.database.home import DataHome, resolve_home
from framework.errors import ConfigError

__all__ = ["list_workers", "submit", "worker"]


_CONNECTION_LOST = (
    "OperationalError",
    "connection failed",
    "Connection refused",
    "server closed the connection",
)
"""What the queue's warnings about a database that does not answer say."""


class _OneLine(logging.Filter):
    """The queue's warnings (DBOS's) as one line each: their tracebacks only with --debug.
    Its warnings that the database does not answer (several a second, from each of its
    threads) are left out: the worker says so itself, once per try."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(marker in message for marker in _CONNECTION_LOST):
            return False
        record.msg = message.splitlines()[0] if message else ""
        record.args = None
        record.exc_info = None
        record.exc_text = None
        return True


def _at_least_one(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise ConfigError(f"{name} must be at least 1, got {value}")


@one_line
def worker(
    concurrency: Annotated[int, typer.Option(help="Runs this worker executes at once.")] = 4,
    global_concurrency: Annotated[
        int | None, typer.Option(help="Runs the whole fleet executes at once (default: no cap).")
    ] = None,
    tenant_concurrency: Annotated[
        int | None,
        typer.Option(help="Runs of one tenant the whole fleet executes at once (default: no cap)."),
    ] = None,
    drain: Annotated[
        float, typer.Option(help="Seconds a stopping worker lets its runs finish (SIGTERM).")
    ] = 30.0,
    dead_after: Annotated[
        float,
        typer.Option(help="Seconds without a heartbeat after which a worker is taken for dead."),
    ] = 10.0,
    home: HomeOption = None,
    database: DatabaseOption = None,
) -> None:
    """Execute runs from the fleet's queue until SIGTERM or Ctrl-C (then drain)."""
    from framework.fleet.worker import FleetWorker, WorkerOptions

    use_database(database)
    _at_least_one("--concurrency", concurrency)
    _at_least_one("--global-concurrency", global_concurrency)
    _at_least_one("--tenant-concurrency", tenant_concurrency)
    if dead_after < 3:
        raise ConfigError(f"--dead-after must be at least 3 seconds, got {dead_after:g}")
    heartbeat = min(2.0, dead_after / 3)
    options = WorkerOptions(
        home=resolve_home(home),
        concurrency=concurrency,
        global_concurrency=global_concurrency,
        tenant_concurrency=tenant_concurrency,
        drain_s=max(0.0, drain),
        heartbeat_s=heartbeat,
        dead_after_s=dead_after,
    )
    fleet_worker = FleetWorker(options)
    if not debugging():
        logging.getLogger("dbos").addFilter(_OneLine())
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: fleet_worker.stop())
    typer.echo(
        f"cadre worker {fleet_worker.worker_id}: taking runs from {options.home.describe()} "
        f"({concurrency} at once)",
        err=True,
    )
    fleet_worker.serve()
    left = fleet_worker.running()
    typer.echo(f"cadre worker {fleet_worker.worker_id}: stopped", err=True)
    if left:  # their threads wait for the process to end, so their workflows stay pending
        sys.stderr.flush()
        os._exit(0)
    fleet_worker.close()


@one_line
def submit(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    team: Annotated[str, typer.Option(help="The installed team.")] = "meta",
    thread: Annotated[
        str | None, typer.Option(help="Continue this thread (default: a new one).")
    ] = None,
    priority: Annotated[
        int | None, typer.Option(help="1 goes first; runs without one are 100.")
    ] = None,
    review: Annotated[
        str, typer.Option(help="Pause for a human at these review points: plan, tasks, answer.")
    ] = "",
    model: Annotated[
        str | None, typer.Option(help="Chat model as provider:name; offline when left out.")
    ] = None,
    tenant: Annotated[str, typer.Option(help="The tenant the run belongs to.")] = "default",
    user: Annotated[str, typer.Option(help="Who the run acts for.")] = "local",
    scopes: Annotated[str, typer.Option(help="The user's scopes, comma-separated.")] = "",
    policy: PolicyOption = None,
    corpus: Annotated[
        Path | None, typer.Option(help="A folder to index into the store first.")
    ] = None,
    wait: Annotated[
        bool, typer.Option(help="Wait until the run ends and print its status.")
    ] = False,
    home: HomeOption = None,
    database: DatabaseOption = None,
) -> None:
    """Put a run of QUESTION on the fleet's queue (a `cadre worker` executes it)."""
    from framework.fleet.submit import submit_run
    from framework.policy import Principal

    use_database(database)
    if not question.strip():
        raise ConfigError("the question is empty: pass the question to research")
    data_home = resolve_home(home)
    if corpus is not None:
        _ingest(data_home, corpus)
    configurable: dict[str, object] = {}
    if review:
        configurable["review"] = [point.strip() for point in review.split(",") if point.strip()]
    if model:
        configurable["model"] = model
    granted = frozenset(scope.strip() for scope in scopes.split(",") if scope.strip())
    row = submit_run(
        data_home,
        team,
        {"question": question},
        principal=Principal(user=user, tenant=tenant, scopes=granted),
        thread_id=thread,
        priority=priority,
        configurable=configurable,
        policy=read_policy(policy) if policy is not None else None,
    )
    typer.echo(f"run {row.run_id} on thread {row.thread_id}: queued")
    if wait:
        typer.echo(f"run {row.run_id}: {_ended(data_home, row.run_id)}")


def _ingest(home: DataHome, corpus: Path) -> None:
    from framework.memory import ingest_corpus
    from framework.runs.stores import home_cipher, home_store

    created = home.create()
    store = home_store(created, home_cipher(created))
    try:
        ingest_corpus(corpus, store)
    finally:
        store.close()


def _ended(home: DataHome, run_id: str) -> str:
    """Wait for the run's end (through a database outage too); its status."""
    from framework.runs.stores import home_cipher
    from framework.server import UNFINISHED, ServerTables, until_written

    tables = ServerTables(home.server_target, home_cipher(home))
    waiting = f"waiting for run {run_id}"
    try:
        while (
            status := until_written(lambda: tables.run_status(run_id), tables.db, waiting)
        ) in UNFINISHED:
            time.sleep(0.5)
        return str(status)
    finally:
        tables.close()


@one_line
def list_workers(
    home: HomeOption = None,
    database: DatabaseOption = None,
) -> None:
    """List the live workers, what each runs, and the queue per tenant."""
    from framework.fleet.queue import RunQueue, fleet_database
    from framework.fleet.registry import WorkerRegistry

    use_database(database)
    url = fleet_database(resolve_home(home))
    registry = WorkerRegistry(url)
    try:
        rows = registry.workers()
    finally:
        registry.close()
    if not rows:
        typer.echo("no worker: start one with `cadre worker --db URL`")
    for row in rows:
        state = "draining" if row.draining else "live"
        running = ", ".join(row.running) or "-"
        typer.echo(
            f"{row.worker_id}  {row.host}:{row.pid}  {state}, seen {row.seen_s_ago:.0f} s ago"
            f"  {len(row.running)}/{row.concurrency} running: {running}"
        )
    queue = RunQueue(url)
    try:
        depth = queue.depth()
    finally:
        queue.close()
    if not depth:
        typer.echo("queue: empty")
    for tenant, counts in sorted(depth.items()):
        typer.echo(f"tenant {tenant}: {counts['queued']} queued, {counts['executing']} executing")
