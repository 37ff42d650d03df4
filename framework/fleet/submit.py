"""Submitting runs to the fleet from Python or ``cadre submit``: the run is recorded in the
server's tables (so the API, ``cadre workers`` and the console see it) and put on the queue."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import Any

from framework.database.home import DataHome
from framework.fleet.queue import RunQueue, checked_priority, fleet_database
from framework.fleet.queued import QueuedRuns
from framework.policy import Principal
from framework.runs.gate import Caller
from framework.runs.stores import home_checkpointer, home_cipher
from framework.server import (
    RunBody,
    RunRow,
    Segments,
    ServerTables,
    TeamApps,
    ThreadRow,
    add_owned_thread,
)

__all__ = ["Submitter", "submit_run"]


class Submitter:
    """Submits runs to the fleet, its connections opened once.

    Args:
        home: The data home (on PostgreSQL).

    Raises:
        ConfigError: The home is not on PostgreSQL.
    """

    def __init__(self, home: DataHome) -> None:
        queue = RunQueue(fleet_database(home))
        self.home = home.create()
        cipher = home_cipher(self.home)
        self.tables = ServerTables(self.home.server_target, cipher)
        self.apps = TeamApps()
        self.saver = home_checkpointer(self.home, cipher=cipher)
        self.segments = Segments(self.home, self.apps, self.saver, None)
        self.queue = queue

    def submit(
        self,
        team: str,
        inputs: Mapping[str, Any],
        *,
        principal: Principal | None = None,
        thread_id: str | None = None,
        priority: int | None = None,
        configurable: Mapping[str, Any] | None = None,
        policy: str | None = None,
    ) -> RunRow:
        """Record a run of ``team`` on a new thread (or ``thread_id``, the principal's
        tenant's) and put it on the fleet's queue; its row (``run_id``, ``thread_id``).

        Args:
            team: The installed team.
            inputs: The run's input (``{"question": ...}``).
            principal: Who the run acts for (default: user ``local`` of tenant ``default``).
            thread_id: Continue this thread (default: a new one).
            priority: 1 goes first (default 100).
            configurable: ``review``, ``model``, ``max_parallel`` for a new thread.
            policy: The policy file's text governing a new thread's runs.

        Raises:
            UnknownThread: The thread is another principal's (another tenant's, or one
                ``cadre run`` wrote).
            ConfigError: The priority is out of range.
            ThreadBusyError: The thread has a run that has not ended.
            AccessDenied: The principal may not name the model (``scripted:``,
                ``openai-compatible:``: see :func:`~framework.runs.gate.caller_model`).
        """
        checked_priority(priority)  # before anything is recorded
        who = principal or Principal(user="local", tenant="default", scopes=frozenset())
        caller = Caller(tenant=who.tenant, name=who.user, scopes=frozenset(who.scopes))
        runs = QueuedRuns(self.segments, self.tables, self.queue, policy)
        thread_id = thread_id or str(uuid.uuid4())
        config: dict[str, Any] = {"configurable": dict(configurable or {})}
        if priority is not None:
            config["configurable"]["priority"] = priority
        body = RunBody(assistant_id=team, input=dict(inputs), config=config)
        self.segments.admit(caller, thread_id, body)  # before the thread is recorded
        add_owned_thread(
            self.tables, self.segments, caller, ThreadRow.new(thread_id, who.tenant, team)
        )
        return asyncio.run(runs.start(caller, thread_id, team, body))

    def close(self) -> None:
        """Close the connections."""
        self.queue.close()
        self.saver.close()
        self.apps.close()
        self.tables.close()

    def __enter__(self) -> Submitter:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def submit_run(home: DataHome, team: str, inputs: Mapping[str, Any], **options: Any) -> RunRow:
    """One run submitted (see :meth:`Submitter.submit` for ``options``)."""
    with Submitter(home) as submitter:
        return submitter.submit(team, inputs, **options)
