"""The terminal trace view: read exported spans back, rebuild their tree, draw a waterfall.

The JSON-lines exporter appends every span of every run to one file. This module reads that
file back for one thread, rebuilds the span tree (the parts of a paused and resumed run come
out as one picture) and renders it: one row per span, indented by depth, with its duration and a
bar on a time axis shared by all rows, so parallel worker tasks show side by side.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from framework.database.home import DataHome
from telemetry._waterfall import draw_waterfall
from telemetry.export import SPANS_FILE_NAME
from telemetry.span_records import SpanEvent, SpanLink, SpanRecord

__all__ = [
    "SpanEvent",
    "SpanFile",
    "SpanLink",
    "SpanNode",
    "SpanRecord",
    "build_tree",
    "load_spans",
    "read_span_file",
    "render_waterfall",
    "thread_trees",
    "tree_to_json",
]

"""The file, under the data home's ``traces`` folder, that the JSON-lines exporter appends to."""


@dataclass(frozen=True, kw_only=True)
class SpanFile:
    """The spans of one thread read from a spans file, and how many lines could not be read."""

    spans: tuple[SpanRecord, ...]
    skipped_lines: int


@dataclass(frozen=True, kw_only=True)
class SpanNode:
    """A span and its children, sorted by start time."""

    span: SpanRecord
    children: tuple[SpanNode, ...] = ()

    def walk(self, depth: int = 0) -> Iterator[tuple[int, SpanNode]]:
        """Yield ``(depth, node)`` for this node and its descendants, depth first."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


# -- reading ---------------------------------------------------------------------------------


def read_span_file(path: Path, thread_id: str) -> SpanFile:
    """Read the spans of one thread from a JSON-lines spans file.

    The whole file is read; lines that are not a JSON span object (a line cut short by a crash
    mid-write) are skipped and counted. A span without ``cadre.thread_id`` is kept when it
    belongs to a trace of the thread. A span exported twice is kept once (the last line wins).

    Args:
        path: The spans file; a missing file reads as no spans.
        thread_id: The thread whose spans to keep.

    Returns:
        The thread's spans in file order, and the number of skipped lines in the whole file.
    """
    try:
        lines = path.read_bytes().splitlines()
    except FileNotFoundError:
        return SpanFile(spans=(), skipped_lines=0)
    kept: dict[tuple[str, str], SpanRecord] = {}
    unowned: list[SpanRecord] = []
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            span = _parse_span(json.loads(line))
        except (ValueError, TypeError, KeyError):
            skipped += 1
            continue
        if span.thread_id == thread_id:
            kept[span.trace_id, span.span_id] = span
        elif span.thread_id is None:
            unowned.append(span)
    traces = {trace_id for trace_id, _ in kept}
    for span in unowned:
        if span.trace_id in traces:
            kept[span.trace_id, span.span_id] = span
    return SpanFile(spans=tuple(kept.values()), skipped_lines=skipped)


def load_spans(path: Path, thread_id: str) -> list[SpanRecord]:
    """The spans of one thread in a JSON-lines spans file (see :func:`read_span_file`).

    Args:
        path: The spans file; a missing file reads as no spans.
        thread_id: The thread whose spans to keep.

    Returns:
        The thread's spans, in file order.
    """
    return list(read_span_file(path, thread_id).spans)


def _parse_span(data: object) -> SpanRecord:
    """A span from one decoded line; raises ValueError, TypeError or KeyError if malformed."""
    if not isinstance(data, dict):
        raise TypeError("a span line must hold a JSON object")
    start = _integer(data["start_time_unix_nano"])
    end = data.get("end_time_unix_nano")
    status = data.get("status") or {}
    if not isinstance(status, dict):
        raise TypeError("status must be an object")
    parent = data.get("parent_span_id")
    scope = data.get("scope")
    return SpanRecord(
        trace_id=_text(data["trace_id"]),
        span_id=_text(data["span_id"]),
        parent_span_id=_text(parent) if parent else None,
        name=_text(data["name"]),
        kind=str(data.get("kind") or "INTERNAL"),
        start_time_unix_nano=start,
        end_time_unix_nano=start if end is None else _integer(end),
        status_code=str(status.get("code") or "UNSET").upper().removeprefix("STATUSCODE."),
        status_description=_optional_text(status.get("description")),
        attributes=_mapping(data.get("attributes")),
        events=tuple(
            SpanEvent(
                name=_text(event["name"]),
                time_unix_nano=_integer(event.get("time_unix_nano", start)),
                attributes=_mapping(event.get("attributes")),
            )
            for event in _list(data.get("events"))
        ),
        links=tuple(
            SpanLink(
                trace_id=_text(link["trace_id"]),
                span_id=_text(link["span_id"]),
                attributes=_mapping(link.get("attributes")),
            )
            for link in _list(data.get("links"))
        ),
        resource=_mapping(data.get("resource")),
        scope=_optional_text(scope),
    )


def _text(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("expected a non-empty string")
    return value


def _optional_text(value: object) -> str | None:
    return None if value is None else str(value)


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("expected an integer")
    return value


def _mapping(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError("expected an object")
    return value


def _list(value: object) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise TypeError("expected a list of objects")
    return value


# -- the tree --------------------------------------------------------------------------------


def build_tree(spans: Iterable[SpanRecord]) -> list[SpanNode]:
    """Rebuild the span tree of one thread.

    Roots are the spans whose parent is not among ``spans`` (a run span, or spans whose parent
    was never exported because the process died). Roots and every node's children are sorted by
    start time, so the trace parts of one thread (a paused run part, then the part that resumed
    it under the same trace id) follow each other in time order; a resumed part whose parent is
    the part it continues comes out nested under it.

    Args:
        spans: The spans of one thread, in any order.

    Returns:
        The root nodes, earliest first.
    """
    by_key = {(span.trace_id, span.span_id): span for span in spans}
    children: dict[tuple[str, str], list[SpanRecord]] = {}
    roots: list[SpanRecord] = []
    for span in by_key.values():
        parent = (span.trace_id, span.parent_span_id) if span.parent_span_id else None
        if parent is not None and parent in by_key:
            children.setdefault(parent, []).append(span)
        else:
            roots.append(span)
    visited: set[tuple[str, str]] = set()
    tree = [_grow(root, children, visited) for root in sorted(roots, key=_order)]
    # Spans on a parent cycle (a corrupt file) are reachable from no root: show them anyway.
    while len(visited) < len(by_key):
        orphan = min((s for k, s in by_key.items() if k not in visited), key=_order)
        tree.append(_grow(orphan, children, visited))
    return sorted(tree, key=lambda node: _order(node.span))


def _grow(
    span: SpanRecord,
    children: Mapping[tuple[str, str], list[SpanRecord]],
    visited: set[tuple[str, str]],
) -> SpanNode:
    visited.add((span.trace_id, span.span_id))
    grown: list[SpanNode] = []
    for child in sorted(children.get((span.trace_id, span.span_id), ()), key=_order):
        if (child.trace_id, child.span_id) not in visited:
            grown.append(_grow(child, children, visited))
    return SpanNode(span=span, children=tuple(grown))


def _order(span: SpanRecord) -> tuple[int, int, str]:
    return span.start_time_unix_nano, -span.end_time_unix_nano, span.span_id


# -- output ----------------------------------------------------------------------------------


def render_waterfall(
    tree: Sequence[SpanNode],
    console: Console,
    width: int | None = None,
    *,
    skipped_lines: int = 0,
) -> None:
    """Print the span tree as a waterfall.

    A header names the thread, its trace ids, the wall time from the first span start to the
    last span end, and the span count. Each span gets a row: its name indented by depth, its
    duration, and a bar on the shared time axis (idle gaps between run parts, such as a pause
    for a human, are shrunk and drawn ``┆``). Failed spans are red with their error below,
    paused run parts say what they paused before, resumed parts say which part they continue.
    A footer counts failures, tokens and the skipped lines of the file.

    Args:
        tree: Root nodes from :func:`build_tree`.
        console: Where to print.
        width: Columns to use; the console's width when left out.
        skipped_lines: Unreadable lines of the spans file, reported in the footer.
    """
    rows = [row for root in tree for row in root.walk()]
    draw_waterfall(
        [(depth, node.span) for depth, node in rows],
        console,
        width or console.width,
        skipped_lines=skipped_lines,
    )


def tree_to_json(tree: Sequence[SpanNode]) -> list[dict[str, Any]]:
    """The span tree as plain JSON-ready data (for ``cadre trace --json``).

    Args:
        tree: Root nodes from :func:`build_tree`.

    Returns:
        One dict per root: ``name``, ``kind``, ``trace_id``, ``span_id``, ``parent_span_id``,
        ``start_ms`` (from the first span start of the tree), ``duration_ms``, ``status``,
        ``error``, ``attributes`` and ``children`` (the same shape, nested).
    """
    starts = [node.span.start_time_unix_nano for root in tree for _, node in root.walk()]
    origin = min(starts, default=0)
    return [_node_json(root, origin) for root in tree]


def _node_json(node: SpanNode, origin: int) -> dict[str, Any]:
    span = node.span
    return {
        "name": span.name,
        "kind": span.kind,
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "parent_span_id": span.parent_span_id,
        "start_ms": round((span.start_time_unix_nano - origin) / 1e6, 3),
        "duration_ms": round(span.duration_ns / 1e6, 3),
        "status": span.status_code,
        "error": span.error,
        "attributes": dict(span.attributes),
        "children": [_node_json(child, origin) for child in node.children],
    }


def thread_trees(home: DataHome, thread_id: str) -> list[dict[str, Any]]:
    """The span trees of a thread under ``home`` as JSON (:func:`tree_to_json`): the
    ``cadre.trace_trees`` entry point the reviewer console draws its waterfall from."""
    return tree_to_json(build_tree(load_spans(home.traces / SPANS_FILE_NAME, thread_id)))
