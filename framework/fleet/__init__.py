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

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.fleet.queue import RunQueue as RunQueue
    from framework.fleet.queue import fleet_database as fleet_database
    from framework.fleet.queued import QueuedRuns as QueuedRuns
    from framework.fleet.registry import WorkerRegistry as WorkerRegistry
    from framework.fleet.registry import WorkerRow as WorkerRow
    from framework.fleet.submit import *
    from framework.fleet.worker import *

__getattr__, __dir__ = lazy_exports(__name__)
