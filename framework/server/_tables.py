"""The server's own rows: which tenant owns each thread, and the runs started over the API.

Thread metadata and run arguments (a run's input, command and config) are sealed under the
home's cipher, bound to their row; ids, tenants, statuses and times stay in plaintext columns
so a server can list and recover runs without opening them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from framework.database import Database, open_database
from framework.persistence.cipher import BlobCipher, row_identity
from framework.server.tokens import SERVER_SCHEMA

__all__ = ["RUN_EVENTS_CHANNEL", "UNFINISHED", "RunRow", "ServerTables", "ThreadRow"]

_TABLES = (
    """CREATE TABLE IF NOT EXISTS server_threads (
    thread_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, assistant_id TEXT, status TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL,
    metadata {blob} NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS server_runs (
    run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, tenant TEXT NOT NULL,
    assistant_id TEXT NOT NULL, status TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL, arguments {blob} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS server_runs_thread ON server_runs (thread_id, created_at)",
    """CREATE TABLE IF NOT EXISTS server_run_events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL, data {blob} NOT NULL,
    PRIMARY KEY (run_id, seq))""",
)

_ADDED_RUN_COLUMNS = (
    ("worker", "TEXT"),
    ("cancel_requested", "INTEGER NOT NULL DEFAULT 0"),
)
"""Columns added since the first release: the fleet worker executing the run (None: the
server's process), and whether a cancel was asked for."""

_ADDED_THREAD_COLUMNS = (("ttl_minutes", "DOUBLE PRECISION"),)
"""Columns added since the first release: the thread's time to live after its last update
(None: it lives until deleted)."""

RUN_EVENTS_CHANNEL = "cadre_run_events"
"""The PostgreSQL channel told a run's id when the run has new events or ended."""

UNFINISHED = ("pending", "running")
"""Run statuses of a run that has not ended (a server killed meanwhile resumes them)."""

_UNFINISHED_SQL = "(" + ", ".join(f"'{status}'" for status in UNFINISHED) + ")"
"""The statuses of :data:`UNFINISHED` as an SQL list (they are constants)."""


@dataclass(frozen=True, kw_only=True)
class ThreadRow:
    """A thread as the server knows it (its state is in the checkpointer)."""

    thread_id: str
    tenant: str
    assistant_id: str | None
    status: str
    created_at: float
    updated_at: float
    metadata: dict[str, Any] = field(default_factory=dict)
    ttl_minutes: float | None = None
    """Deleted this many minutes after its last update (None: kept until deleted)."""

    @classmethod
    def new(
        cls,
        thread_id: str,
        tenant: str,
        assistant_id: str | None,
        *,
        status: str = "idle",
        metadata: Mapping[str, Any] | None = None,
        ttl_minutes: float | None = None,
    ) -> ThreadRow:
        """A thread made now."""
        now = time.time()
        return cls(
            thread_id=thread_id,
            tenant=tenant,
            assistant_id=assistant_id,
            status=status,
            created_at=now,
            updated_at=now,
            metadata=dict(metadata or {}),
            ttl_minutes=ttl_minutes,
        )


@dataclass(frozen=True, kw_only=True)
class RunRow:
    """A run started over the API: its thread, assistant, status and arguments."""

    run_id: str
    thread_id: str
    tenant: str
    assistant_id: str
    status: str
    created_at: float
    updated_at: float
    arguments: dict[str, Any] = field(default_factory=dict)
    """What the run was asked: input, command, config, metadata, stream modes..."""


class ServerTables:
    """The ``server_threads`` and ``server_runs`` tables of a home.

    Args:
        target: ``server.sqlite`` under the home, or the home's PostgreSQL URL.
        cipher: The home's cipher, which seals metadata and arguments.
    """

    def __init__(self, target: Path | str, cipher: BlobCipher) -> None:
        self.cipher = cipher
        self.db: Database = open_database(target, schema=SERVER_SCHEMA)
        self._lock = threading.RLock()
        try:
            with self._lock, self.db.schema_transaction():
                for statement in _TABLES:
                    self.db.execute(self.db.ddl(statement))
                self.db.add_columns("server_runs", _ADDED_RUN_COLUMNS)
                self.db.add_columns("server_threads", _ADDED_THREAD_COLUMNS)
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self.db.close()

    # -- threads -------------------------------------------------------------------------------

    def add_thread(self, row: ThreadRow) -> bool:
        """Record a new thread; False when its id is taken (by any tenant), which is kept."""
        sealed = self._seal("thread", row.thread_id, row.metadata)
        with self._lock:
            done = self.db.execute(
                "INSERT INTO server_threads (thread_id, tenant, assistant_id, status, created_at,"
                " updated_at, metadata, ttl_minutes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (thread_id) DO NOTHING",
                (
                    row.thread_id,
                    row.tenant,
                    row.assistant_id,
                    row.status,
                    row.created_at,
                    row.updated_at,
                    sealed,
                    row.ttl_minutes,
                ),
            )
            return int(done.rowcount) == 1

    def has_thread(self, thread_id: str) -> bool:
        """Whether any tenant has a thread ``thread_id``."""
        return bool(self._rows("SELECT 1 FROM server_threads WHERE thread_id = ?", (thread_id,)))

    def thread(self, tenant: str, thread_id: str) -> ThreadRow | None:
        """The tenant's thread ``thread_id`` (None: none, or another tenant's)."""
        found = self._rows(
            f"SELECT {_THREAD_COLUMNS} FROM server_threads WHERE thread_id = ? AND tenant = ?",
            (thread_id, tenant),
        )
        return self._thread(found[0]) if found else None

    def threads(self, tenant: str) -> list[ThreadRow]:
        """Every thread of the tenant, the most recently updated first."""
        rows = self._rows(
            f"SELECT {_THREAD_COLUMNS} FROM server_threads WHERE tenant = ?"
            " ORDER BY updated_at DESC, thread_id",
            (tenant,),
        )
        return [self._thread(row) for row in rows]

    def update_thread(
        self,
        thread_id: str,
        *,
        status: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        assistant_id: str | None = None,
        ttl_minutes: float | None = None,
    ) -> None:
        """Change a thread's status, metadata (merged), assistant or time to live, and its
        update time."""
        with self._lock, self.db.write_transaction():
            found = self.db.execute(
                f"SELECT {_THREAD_COLUMNS} FROM server_threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            if found is None:
                return
            row = self._thread(found)
            merged = {**row.metadata, **(metadata or {})}
            self.db.execute(
                "UPDATE server_threads SET status = ?, metadata = ?, assistant_id = ?,"
                " ttl_minutes = ?, updated_at = ? WHERE thread_id = ?",
                (
                    status or row.status,
                    self._seal("thread", thread_id, merged),
                    assistant_id or row.assistant_id,
                    ttl_minutes or row.ttl_minutes,
                    time.time(),
                    thread_id,
                ),
            )

    def expired_threads(self, now: float) -> list[str]:
        """The threads whose time to live since their last update has passed by ``now``."""
        rows = self._rows(
            "SELECT thread_id FROM server_threads WHERE ttl_minutes IS NOT NULL"
            " AND updated_at + ttl_minutes * 60 < ? ORDER BY updated_at",
            (now,),
        )
        return [thread_id for (thread_id,) in rows]

    def delete_thread(self, thread_id: str) -> None:
        """Forget a thread and its runs."""
        with self._lock, self.db.write_transaction():
            self.db.execute(
                "DELETE FROM server_run_events WHERE run_id IN"
                " (SELECT run_id FROM server_runs WHERE thread_id = ?)",
                (thread_id,),
            )
            self.db.execute("DELETE FROM server_runs WHERE thread_id = ?", (thread_id,))
            self.db.execute("DELETE FROM server_threads WHERE thread_id = ?", (thread_id,))

    # -- runs ----------------------------------------------------------------------------------

    def add_run(self, row: RunRow) -> None:
        """Record a new run."""
        with self._lock:
            self.db.execute(
                "INSERT INTO server_runs (run_id, thread_id, tenant, assistant_id, status,"
                " created_at, updated_at, arguments) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.run_id,
                    row.thread_id,
                    row.tenant,
                    row.assistant_id,
                    row.status,
                    row.created_at,
                    row.updated_at,
                    self._seal("run", row.run_id, row.arguments),
                ),
            )

    def run(self, tenant: str, run_id: str) -> RunRow | None:
        """The tenant's run ``run_id`` (None: none, or another tenant's)."""
        found = self._rows(
            f"SELECT {_RUN_COLUMNS} FROM server_runs WHERE run_id = ? AND tenant = ?",
            (run_id, tenant),
        )
        return self._run(found[0]) if found else None

    def runs(self, thread_id: str) -> list[RunRow]:
        """The runs of a thread, the newest first."""
        rows = self._rows(
            f"SELECT {_RUN_COLUMNS} FROM server_runs WHERE thread_id = ?"
            " ORDER BY created_at DESC, run_id",
            (thread_id,),
        )
        return [self._run(row) for row in rows]

    def unfinished_runs(self) -> list[RunRow]:
        """Runs that were pending or running when their server stopped, the oldest first."""
        rows = self._rows(
            f"SELECT {_RUN_COLUMNS} FROM server_runs WHERE status IN {_UNFINISHED_SQL}"
            " ORDER BY created_at, run_id",
            (),
        )
        return [self._run(row) for row in rows]

    def set_run_status(self, run_id: str, status: str) -> None:
        """Record a run's new status."""
        with self._lock:
            self.db.execute(
                "UPDATE server_runs SET status = ?, updated_at = ? WHERE run_id = ?",
                (status, time.time(), run_id),
            )

    def set_statuses(self, run_id: str, status: str, thread_id: str, thread_status: str) -> None:
        """Record a run's new status and its thread's, in one transaction."""
        now = time.time()
        with self._lock, self.db.write_transaction():
            self.db.execute(
                "UPDATE server_runs SET status = ?, updated_at = ? WHERE run_id = ?",
                (status, now, run_id),
            )
            self.db.execute(
                "UPDATE server_threads SET status = ?, updated_at = ? WHERE thread_id = ?",
                (thread_status, now, thread_id),
            )

    def delete_run(self, run_id: str) -> None:
        """Forget a run and its events."""
        with self._lock, self.db.write_transaction():
            self.db.execute("DELETE FROM server_run_events WHERE run_id = ?", (run_id,))
            self.db.execute("DELETE FROM server_runs WHERE run_id = ?", (run_id,))

    # -- runs on the fleet ---------------------------------------------------------------------

    def started_runs(self, thread_id: str) -> list[str]:
        """The thread's runs that have not ended, the oldest first."""
        rows = self._rows(
            f"SELECT run_id FROM server_runs WHERE thread_id = ? AND status IN {_UNFINISHED_SQL}"
            " ORDER BY created_at, run_id",
            (thread_id,),
        )
        return [run_id for (run_id,) in rows]

    def claim_run(self, run_id: str, worker: str) -> RunRow | None:
        """Mark the run executing on ``worker`` (taken from a worker that died, if so); the
        run, or None when it ended already."""
        with self._lock, self.db.write_transaction():
            found = self.db.execute(
                "UPDATE server_runs SET status = 'running', worker = ?, updated_at = ?"
                f" WHERE run_id = ? AND status IN {_UNFINISHED_SQL} RETURNING {_RUN_COLUMNS}",
                (worker, time.time(), run_id),
            ).fetchone()
        return self._run(found) if found is not None else None

    def end_run(self, row: RunRow, worker: str, status: str, thread_status: str) -> bool:
        """Record how the run ended, and its thread's status, if ``worker`` still executes it
        (a worker taken for dead that comes back changes nothing); whether it did."""
        now = time.time()
        with self._lock, self.db.write_transaction():
            done = self.db.execute(
                "UPDATE server_runs SET status = ?, updated_at = ? WHERE run_id = ? AND worker = ?",
                (status, now, row.run_id, worker),
            )
            ended = int(done.rowcount) == 1
            if ended:
                self.db.execute(
                    "UPDATE server_threads SET status = ?, updated_at = ? WHERE thread_id = ?",
                    (thread_status, now, row.thread_id),
                )
            self.db.notify(RUN_EVENTS_CHANNEL, row.run_id)
        return ended

    def running_on(self, worker: str) -> list[str]:
        """The runs ``worker`` claimed that have not ended."""
        rows = self._rows(
            "SELECT run_id FROM server_runs WHERE worker = ? AND status = 'running'", (worker,)
        )
        return [run_id for (run_id,) in rows]

    def request_cancel(self, run_id: str) -> bool:
        """Ask the worker executing a run to stop it; whether the run had not ended."""
        with self._lock:
            done = self.db.execute(
                f"UPDATE server_runs SET cancel_requested = 1 WHERE run_id = ?"
                f" AND status IN {_UNFINISHED_SQL}",
                (run_id,),
            )
        return int(done.rowcount) == 1

    def cancels_asked(self, run_ids: Sequence[str]) -> set[str]:
        """Which of the runs were asked to stop."""
        if not run_ids:
            return set()
        marks = ", ".join("?" for _ in run_ids)
        rows = self._rows(
            f"SELECT run_id FROM server_runs WHERE cancel_requested = 1 AND run_id IN ({marks})",
            tuple(run_ids),
        )
        return {run_id for (run_id,) in rows}

    def run_status(self, run_id: str) -> str | None:
        """The run's status (None: no such run)."""
        found = self._rows("SELECT status FROM server_runs WHERE run_id = ?", (run_id,))
        return str(found[0][0]) if found else None

    def add_event(self, run_id: str, seq: int, name: str, data: Any) -> None:
        """Record event ``seq`` of a run (sealed); an event recorded already is kept."""
        sealed = self._seal("event", f"{run_id}/{seq}", {"name": name, "data": data})
        with self._lock:
            self.db.execute(
                "INSERT INTO server_run_events (run_id, seq, name, data) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (run_id, seq) DO NOTHING",
                (run_id, seq, "", sealed),
            )
            self.db.notify(RUN_EVENTS_CHANNEL, run_id)

    def events(self, run_id: str, after: int) -> list[tuple[int, str, Any]]:
        """The run's events after ``after``, ``(seq, name, data)`` in order."""
        rows = self._rows(
            "SELECT seq, data FROM server_run_events WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, after),
        )
        found = []
        for seq, blob in rows:
            opened = self._open("event", f"{run_id}/{seq}", blob)
            found.append((int(seq), str(opened["name"]), opened["data"]))
        return found

    def last_event(self, run_id: str) -> int:
        """The seq of the run's last event (-1: none)."""
        found = self._rows("SELECT MAX(seq) FROM server_run_events WHERE run_id = ?", (run_id,))
        return -1 if not found or found[0][0] is None else int(found[0][0])

    def prune_events(self, before: float) -> int:
        """Drop the events of runs that ended before ``before``; how many."""
        with self._lock:
            done = self.db.execute(
                "DELETE FROM server_run_events WHERE run_id IN (SELECT run_id FROM server_runs"
                f" WHERE status NOT IN {_UNFINISHED_SQL} AND updated_at < ?)",
                (before,),
            )
        return int(done.rowcount)

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._lock:
            return list(self.db.execute(sql, params).fetchall())

    # -- sealing -------------------------------------------------------------------------------

    def _seal(self, kind: str, row_id: str, value: Mapping[str, Any]) -> bytes:
        plain = json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
        return self.cipher.encrypt(plain, row_identity("server", kind, row_id))

    def _open(self, kind: str, row_id: str, blob: Any) -> dict[str, Any]:
        plain = self.cipher.decrypt(bytes(blob), row_identity("server", kind, row_id))
        opened: dict[str, Any] = json.loads(plain)
        return opened

    def _thread(self, row: Any) -> ThreadRow:
        thread_id, tenant, assistant_id, status, created_at, updated_at, metadata, ttl = row
        return ThreadRow(
            thread_id=thread_id,
            tenant=tenant,
            assistant_id=assistant_id,
            status=status,
            created_at=float(created_at),
            updated_at=float(updated_at),
            metadata=self._open("thread", thread_id, metadata),
            ttl_minutes=None if ttl is None else float(ttl),
        )

    def _run(self, row: Any) -> RunRow:
        run_id, thread_id, tenant, assistant_id, status, created_at, updated_at, arguments = row
        return RunRow(
            run_id=run_id,
            thread_id=thread_id,
            tenant=tenant,
            assistant_id=assistant_id,
            status=status,
            created_at=float(created_at),
            updated_at=float(updated_at),
            arguments=self._open("run", run_id, arguments),
        )


_THREAD_COLUMNS = (
    "thread_id, tenant, assistant_id, status, created_at, updated_at, metadata, ttl_minutes"
)
_RUN_COLUMNS = "run_id, thread_id, tenant, assistant_id, status, created_at, updated_at, arguments"
