"""Erasing the traces of threads: their spans (whole traces), their run index entries, and
metrics lines that name them, under the data home's trace folder.

Files are rewritten, not edited in place: the kept lines go to a new private file that
replaces the old one, and the run index is vacuumed, so no erased line stays in the files.
Appends from running processes wait meanwhile (:func:`~telemetry.export.traces_locked`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import orjson

from framework.home import DataHome, private_file
from telemetry.export import METRICS_FILE_NAME, SPANS_FILE_NAME, traces_locked

__all__ = ["erase_threads"]

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
    conn = sqlite3.connect(path)
    try:
        marks = ",".join("?" * len(threads))
        rows = conn.execute(
            f"SELECT trace_id FROM run_parts WHERE thread_id IN ({marks})", tuple(threads)
        ).fetchall()
        conn.execute("PRAGMA secure_delete=ON")
        with conn:
            conn.execute(f"DELETE FROM run_parts WHERE thread_id IN ({marks})", tuple(threads))
        conn.execute("VACUUM")
    finally:
        conn.close()
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


def _rewrite(path: Path, erased: Callable[[Any], bool]) -> int:
    """Rewrite ``path`` without the lines ``erased`` accepts; how many went."""
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
    if not gone:
        return 0
    fresh = path.with_name(f".{path.name}.erasing")
    fresh.unlink(missing_ok=True)
    with private_file(fresh).open("wb") as file:
        file.writelines(kept)
        file.flush()
        os.fsync(file.fileno())
    os.replace(fresh, path)
    return gone
