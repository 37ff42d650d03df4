"""The fleet's queue: DBOS's durable queue in the home's PostgreSQL database (schema
:data:`FLEET_SCHEMA`). What goes on it is a run's id only; the run's request stays sealed in
the server's tables."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from framework.database import is_postgres_url, open_database
from framework.database.home import DataHome
from framework.errors import ConfigError, brief

if TYPE_CHECKING:
    from dbos import DBOSClient

__all__ = [
    "APP_NAME",
    "FLEET_SCHEMA",
    "FLEET_VERSION",
    "QUEUE_NAME",
    "WORKFLOW_NAME",
    "RunQueue",
    "checked_priority",
    "dbos_module",
    "fleet_database",
    "migrate",
]

FLEET_SCHEMA = "cadre_fleet"
"""The PostgreSQL schema of DBOS's tables (workflows, queues)."""

APP_NAME = "cadre"
QUEUE_NAME = "cadre_runs"
WORKFLOW_NAME = "cadre.run_segment"
FLEET_VERSION = "cadre-fleet-1"
"""The application version every worker runs under: DBOS recovers a dead worker's workflows
only for workers of the same version, so it changes only when a segment's meaning does."""

DEFAULT_PRIORITY = 100
"""The priority of a run that names none (1 goes first; DBOS's 0 would outrank every run)."""


def checked_priority(priority: object) -> int | None:
    """``priority`` if it is None or a whole number from 1 (first) to 1000000.

    Raises:
        ConfigError: It is not.
    """
    if priority is None:
        return None
    if isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 10**6:
        raise ConfigError(
            f"priority must be a whole number, 1 (first) to 1000000, got {priority!r}"
        )
    return priority


def fleet_database(home: DataHome) -> str:
    """The PostgreSQL URL the fleet shares (the home's).

    Raises:
        ConfigError: The home is on SQLite, which one machine's processes share only.
    """
    if home.database is None or not is_postgres_url(home.database):
        raise ConfigError(
            "workers share runs through PostgreSQL: pass --db postgresql://user@host/dbname "
            "(or set $CADRE_DB); on one machine without it, `cadre run` and `cadre serve` "
            "execute runs in their own process"
        )
    return home.database


def dbos_module() -> ModuleType:
    """DBOS, its INFO logs (every start and stop) kept quiet.

    Raises:
        ConfigError: DBOS is not installed.
    """
    try:
        import dbos  # noqa: PLC0415 - optional dependency, slow to import
    except ImportError:
        raise ConfigError("the fleet needs DBOS: pip install 'cadre[fleet]'") from None
    logging.getLogger("dbos").setLevel(logging.WARNING)
    return dbos


_MIGRATED: set[str] = set()
_MIGRATE_LOCK = threading.Lock()


def migrate(url: str) -> None:
    """Create or update DBOS's tables (once per process and database)."""
    with _MIGRATE_LOCK:
        if url in _MIGRATED:
            return
        dbos = dbos_module()
        try:
            dbos.DBOS.migrate(url, schema=FLEET_SCHEMA)
        except Exception as error:
            raise ConfigError(f"cannot prepare the fleet's queue: {brief(error)}") from None
        _MIGRATED.add(url)


class RunQueue:
    """Puts runs on the fleet's queue and reads its depth.

    Args:
        url: The home's PostgreSQL URL.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._client: DBOSClient | None = None
        self._lock = threading.Lock()

    def _connected(self) -> DBOSClient:
        with self._lock:
            if self._client is None:
                migrate(self.url)
                self._client = dbos_module().DBOSClient(
                    system_database_url=self.url,
                    dbos_system_schema=FLEET_SCHEMA,
                    application_name=APP_NAME,
                )
            return self._client

    def enqueue(self, run_id: str, tenant: str, priority: int | None = None) -> None:
        """Put run ``run_id`` of ``tenant`` on the queue (once: its id is the workflow's).

        Raises:
            ConfigError: ``priority`` is out of range.
        """
        checked_priority(priority)
        options: Any = {
            "queue_name": QUEUE_NAME,
            "workflow_name": WORKFLOW_NAME,
            "workflow_id": run_id,
            "queue_partition_key": tenant,
            "priority": priority or DEFAULT_PRIORITY,
            "app_version": FLEET_VERSION,
        }
        self._connected().enqueue(options, run_id)

    def depth(self) -> Mapping[str, Mapping[str, int]]:
        """Runs per tenant: ``{"queued": n, "executing": n}`` each."""
        migrate(self.url)
        db = open_database(self.url, schema=FLEET_SCHEMA)
        try:
            rows = db.execute(
                "SELECT queue_partition_key, status, COUNT(*) FROM workflow_status"
                " WHERE queue_name = ? AND status IN ('ENQUEUED', 'PENDING')"
                " GROUP BY queue_partition_key, status",
                (QUEUE_NAME,),
            ).fetchall()
        finally:
            db.close()
        depth: dict[str, dict[str, int]] = {}
        for tenant, status, count in rows:
            counts = depth.setdefault(str(tenant), {"queued": 0, "executing": 0})
            counts["queued" if status == "ENQUEUED" else "executing"] += int(count)
        return depth

    def close(self) -> None:
        """Close the client's connections."""
        with self._lock:
            if self._client is not None:
                self._client.destroy()
                self._client = None
