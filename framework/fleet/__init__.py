"""Scale-out: runs on a durable queue (DBOS on the home's PostgreSQL), executed by
``cadre worker`` processes on any number of machines.

The API (``cadre serve --queue``), ``cadre submit`` and :func:`submit_run` record a run and
enqueue its id; a worker dequeues it and executes one segment (the thread advanced until it
finishes, pauses for review, or fails), relaying its events through the database. Workers
beat a heartbeat; a worker silent for ``dead_after`` seconds is taken for dead and a live one
puts its runs back on the queue, where they resume from their checkpoints.

It may import the server's shared parts (:mod:`framework.server`), runs and everything below;
never the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.fleet.queue import RunQueue, fleet_database
    from framework.fleet.registry import WorkerRegistry, WorkerRow
    from framework.fleet.submit import Submitter, submit_run
    from framework.fleet.worker import FleetWorker, WorkerOptions

__all__ = [
    "FleetWorker",
    "RunQueue",
    "Submitter",
    "WorkerOptions",
    "WorkerRegistry",
    "WorkerRow",
    "fleet_database",
    "submit_run",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.fleet.queue": ("RunQueue", "fleet_database"),
        "framework.fleet.registry": ("WorkerRegistry", "WorkerRow"),
        "framework.fleet.submit": ("Submitter", "submit_run"),
        "framework.fleet.worker": ("FleetWorker", "WorkerOptions"),
    },
)
