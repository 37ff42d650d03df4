"""The index of run parts per thread, so a resume can link to (and join the trace of) the part
it continues, and the time a paused run waited can be measured."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from framework.database import open_database
from framework.database.home import PRIVATE_FOLDER_MODE

__all__ = ["RunIndex", "RunPartRecord"]


@dataclass(frozen=True, kw_only=True)
class RunPartRecord:
    """One recorded run part: its trace and span, when it ended, and whether it paused."""

    thread_id: str
    trace_id: int
    span_id: int
    root_span_id: int
    ended_at: float | None
    paused: bool


class RunIndex:
    """Run parts by thread, in SQLite at ``path`` (``:memory:`` for a process-local index;
    a file is created 0600, its journal takes the same mode; a full device raises
    StorageFullError naming it)."""

    def __init__(self, path: Path | str = ":memory:") -> None:
        if isinstance(path, Path):
            path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER_MODE)
        self._lock = threading.Lock()
        self._db = open_database(path, schema="run_index")  # a path, never a URL: SQLite
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS run_parts (thread_id TEXT, trace_id TEXT, span_id TEXT,"
            " root_span_id TEXT, started_at REAL, ended_at REAL, paused INTEGER DEFAULT 0)"
        )
        self._db.execute(
            "CREATE INDEX IF NOT EXISTS run_parts_thread ON run_parts (thread_id, started_at)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS run_parts_span ON run_parts (span_id)")

    def last(self, thread_id: str) -> RunPartRecord | None:
        """The latest part of ``thread_id``, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT trace_id, span_id, root_span_id, ended_at, paused FROM run_parts"
                " WHERE thread_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1",
                (thread_id,),
            ).fetchone()
        if row is None:
            return None
        trace_id, span_id, root_span_id, ended_at, paused = row
        return RunPartRecord(
            thread_id=thread_id,
            trace_id=int(trace_id, 16),
            span_id=int(span_id, 16),
            root_span_id=int(root_span_id, 16),
            ended_at=ended_at,
            paused=bool(paused),
        )

    def started(self, thread_id: str, trace_id: int, span_id: int, root_span_id: int) -> None:
        """Record a part that just started."""
        with self._lock, self._db.write_transaction():
            self._db.execute(
                "INSERT INTO run_parts (thread_id, trace_id, span_id, root_span_id, started_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    thread_id,
                    f"{trace_id:032x}",
                    f"{span_id:016x}",
                    f"{root_span_id:016x}",
                    time.time(),
                ),
            )

    def ended(self, span_id: int, paused: bool) -> None:
        """Record that the part with ``span_id`` ended, paused or not."""
        with self._lock, self._db.write_transaction():
            self._db.execute(
                "UPDATE run_parts SET ended_at = ?, paused = ? WHERE span_id = ?",
                (time.time(), int(paused), f"{span_id:016x}"),
            )

    def close(self) -> None:
        """Close the database."""
        self._db.close()
