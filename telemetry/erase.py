"""Erasing the traces of threads (their spans, whole traces; their run index entries; metrics
lines that name them) and expiring old trace records, under the data home's trace folder.

Files are rewritten, not edited in place: the kept lines go to a new private file that
replaces the old one, and the run index is vacuumed, so no erased line stays in the files.
Appends from running processes wait meanwhile (:func:`~telemetry.export.traces_locked`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import orjson

from framework.database import open_database
from framework.database.home import DataHome, private_file
from telemetry.export import METRICS_FILE_NAME, SPANS_FILE_NAME, traces_locked

__all__ = ["erase_threads", "expire_traces"]

RUN_INDEX_FILE_NAME = "runs.sqlite"


def erase_threads(home: DataHome, thread_ids: Collection[str]) -> dict[str, int]:
    """Remove every trace record of ``thread_ids`` from ``home``'s trace folder; how many
    spans, run index entries and metrics lines went. Running it again removes nothing more."""
    folder = home.traces
    threads = set(thread_ids)
    if not threads or not folder.is_dir():
        return {"spans": 0, "run index entries": 0, "metrics lines": 0}
    with traces_locked(folder):
        traces, entries = _erase_run_index(folder / RUN_INDEX_FILE_NAME, threads)
        spans = _rewrite(folder / SPANS_FILE_NAME, lambda span: _of(span, threads, traces))
        metrics = _rewrite(folder / METRICS_FILE_NAME, lambda line: _names(line, threads))
    return {"spans": spans, "run index entries": entries, "metrics lines": metrics}


def _erase_run_index(path: Path, threads: set[str]) -> tuple[set[str], int]:
    """The trace ids of the threads' run parts, and how many parts were deleted."""
    if not path.is_file():
        return set(), 0
    db = open_database(path, schema="run_index")
    try:
        marks = ",".join("?" * len(threads))
        rows = db.execute(
            f"SELECT trace_id FROM run_parts WHERE thread_id IN ({marks})", tuple(threads)
        ).fetchall()
        with db.write_transaction():
            db.execute(f"DELETE FROM run_parts WHERE thread_id IN ({marks})", tuple(threads))
        db.compact()
    finally:
        db.close()
    return {str(trace_id) for (trace_id,) in rows}, len(rows)


def _of(span: Any, threads: set[str], traces: set[str]) -> bool:
    """Whether a span belongs to one of the threads (its attribute, or its trace)."""
    if not isinstance(span, dict):
        return False
    attributes = span.get("attributes") or {}
    return span.get("trace_id") in traces or attributes.get("cadre.thread_id") in threads


def _names(line: Any, threads: set[str]) -> bool:
    """Whether a metrics line names one of the threads anywhere."""
    text = orjson.dumps(line).decode("utf-8")
    return any(f'"{thread}"' in text for thread in threads)


def _rewrite(path: Path, erased: Callable[[Any], bool], *, dry_run: bool = False) -> int:
    """Rewrite ``path`` without the lines ``erased`` accepts; how many went (or, with
    ``dry_run``, would go: nothing is written)."""
    if not path.is_file():
        return 0
    kept: list[bytes] = []
    gone = 0
    with path.open("rb") as file:
        for line in file:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                record = None  # a torn last line: kept as it is
            if record is not None and erased(record):
                gone += 1
            else:
                kept.append(line)
    if not gone or dry_run:
        return gone
    fresh = path.with_name(f".{path.name}.erasing")
    fresh.unlink(missing_ok=True)
    with private_file(fresh).open("wb") as file:
        file.writelines(kept)
        file.flush()
        os.fsync(file.fileno())
    os.replace(fresh, path)
    return gone


def expire_traces(
    home: DataHome, cutoff_of: Callable[[str | None], float | None], dry_run: bool
) -> dict[str, int]:
    """Remove (or, ``dry_run``, count) the trace records older than their thread's cutoff:
    spans (a trace goes by its thread), run index entries, and metrics lines (by the cutoff of
    no thread)."""
    folder = home.traces
    if not folder.is_dir():
        return {"spans": 0, "run index entries": 0, "metrics lines": 0}
    with traces_locked(folder):
        spans_path = folder / SPANS_FILE_NAME
        threads = _trace_threads(spans_path)

        def old_span(span: Any) -> bool:
            cutoff = cutoff_of(threads.get(str(span.get("trace_id"))))
            ended = span.get("end_time_unix_nano") or span.get("start_time_unix_nano") or 0
            return cutoff is not None and ended / 1e9 < cutoff

        default = cutoff_of(None)
        spans = _rewrite(spans_path, old_span, dry_run=dry_run)
        entries = _expire_run_index(folder / RUN_INDEX_FILE_NAME, cutoff_of, dry_run)
        metrics = _rewrite(
            folder / METRICS_FILE_NAME,
            lambda line: default is not None and _latest(line) / 1e9 < default,
            dry_run=dry_run,
        )
    return {"spans": spans, "run index entries": entries, "metrics lines": metrics}


def _trace_threads(path: Path) -> dict[str, str]:
    """The thread of each trace, from the spans that name one."""
    found: dict[str, str] = {}
    if not path.is_file():
        return found
    with path.open("rb") as file:
        for line in file:
            try:
                span = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            thread = (span.get("attributes") or {}).get("cadre.thread_id")
            if isinstance(thread, str):
                found.setdefault(str(span.get("trace_id")), thread)
    return found


def _expire_run_index(
    path: Path, cutoff_of: Callable[[str | None], float | None], dry_run: bool
) -> int:
    if not path.is_file():
        return 0
    db = open_database(path, schema="run_index")
    try:
        rows = db.execute("SELECT rowid, thread_id, ended_at FROM run_parts").fetchall()
        old = []
        for rowid, thread, ended in rows:
            cutoff = cutoff_of(thread)
            if cutoff is not None and ended is not None and ended < cutoff:
                old.append((rowid,))
        if old and not dry_run:
            with db.write_transaction():
                db.executemany("DELETE FROM run_parts WHERE rowid = ?", old)
            db.compact()
    finally:
        db.close()
    return len(old)


def _latest(record: Any) -> float:
    """The latest ``time_unix_nano`` (or ``timeUnixNano``) anywhere in a metrics line."""
    if isinstance(record, dict):
        own = [v for k, v in record.items() if k in ("time_unix_nano", "timeUnixNano")]
        nested = [_latest(v) for v in record.values() if isinstance(v, dict | list)]
        return max(
            [float(v) for v in own if isinstance(v, int | float | str) and str(v).isdigit()]
            + nested
            + [0.0]
        )
    if isinstance(record, list):
        return max([_latest(v) for v in record] + [0.0])
    return 0.0
