"""Which workers are alive: each beats a heartbeat row (on the database's clock, so machines'
clocks do not matter); a row silent for ``dead_after`` seconds is a dead worker, claimed by
exactly one live worker, which puts the dead one's runs back on the queue."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from framework.database import open_database

__all__ = ["REGISTRY_SCHEMA", "WorkerRegistry", "WorkerRow"]

REGISTRY_SCHEMA = "cadre_workers"

_NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"


@dataclass(frozen=True, kw_only=True)
class WorkerRow:
    """A worker as its last heartbeat told."""

    worker_id: str
    host: str
    pid: int
    concurrency: int
    started_at: float
    seen_s_ago: float
    running: tuple[str, ...]
    draining: bool


class WorkerRegistry:
    """The ``workers`` table of the fleet.

    Args:
        url: The home's PostgreSQL URL.
    """

    def __init__(self, url: str) -> None:
        self.db = open_database(url, schema=REGISTRY_SCHEMA)
        self._lock = threading.Lock()
        with self._lock, self.db.schema_transaction():
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS workers (worker_id TEXT PRIMARY KEY,"
                " host TEXT NOT NULL, pid INTEGER NOT NULL, concurrency INTEGER NOT NULL,"
                " started_at DOUBLE PRECISION NOT NULL, seen_at DOUBLE PRECISION NOT NULL,"
                " running TEXT NOT NULL, draining INTEGER NOT NULL DEFAULT 0)"
            )

    def beat(
        self,
        worker_id: str,
        *,
        host: str,
        pid: int,
        concurrency: int,
        running: list[str],
        draining: bool,
    ) -> None:
        """Record that the worker is alive, and what it runs."""
        with self._lock:
            self.db.execute(
                "INSERT INTO workers (worker_id, host, pid, concurrency, started_at, seen_at,"
                f" running, draining) VALUES (?, ?, ?, ?, {_NOW}, {_NOW}, ?, ?)"
                f" ON CONFLICT (worker_id) DO UPDATE SET seen_at = {_NOW},"
                " running = excluded.running, draining = excluded.draining",
                (worker_id, host, pid, concurrency, json.dumps(running), int(draining)),
            )

    def silent(self, dead_after: float) -> list[str]:
        """The workers not heard from for ``dead_after`` seconds."""
        with self._lock:
            rows = self.db.execute(
                f"SELECT worker_id FROM workers WHERE seen_at < {_NOW} - ?", (dead_after,)
            ).fetchall()
        return [worker_id for (worker_id,) in rows]

    def claim(self, worker_id: str, dead_after: float) -> bool:
        """Remove a silent worker's row; True for the one caller that removed it."""
        with self._lock:
            done = self.db.execute(
                f"DELETE FROM workers WHERE worker_id = ? AND seen_at < {_NOW} - ?",
                (worker_id, dead_after),
            )
        return int(done.rowcount) == 1

    def give_up(self, worker_id: str) -> None:
        """Mark a stopping worker silent at once, so the next peer's beat takes its
        unfinished runs over."""
        with self._lock:
            self.db.execute("UPDATE workers SET seen_at = 0 WHERE worker_id = ?", (worker_id,))

    def leave(self, worker_id: str) -> None:
        """Remove a worker that stopped with nothing unfinished."""
        with self._lock:
            self.db.execute("DELETE FROM workers WHERE worker_id = ?", (worker_id,))

    def workers(self) -> list[WorkerRow]:
        """Every worker with a row, the longest running first."""
        with self._lock:
            rows = self.db.execute(
                "SELECT worker_id, host, pid, concurrency, started_at,"
                f" {_NOW} - seen_at, running, draining FROM workers"
                " ORDER BY started_at, worker_id"
            ).fetchall()
        return [
            WorkerRow(
                worker_id=worker_id,
                host=host,
                pid=int(pid),
                concurrency=int(concurrency),
                started_at=float(started_at),
                seen_s_ago=max(0.0, float(ago)),
                running=tuple(json.loads(running)),
                draining=bool(draining),
            )
            for worker_id, host, pid, concurrency, started_at, ago, running, draining in rows
        ]

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self.db.close()
