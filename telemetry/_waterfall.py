"""Drawing of the trace waterfall: rows of spans with bars on one shared time axis."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from telemetry.span_records import SpanRecord
from telemetry.spans import ATTR, GEN_AI, KIND_RUN

__all__ = ["draw_waterfall", "format_duration"]

_DURATION_COLUMNS = 9
_NOTE_LINES = 3
_GAP_COLUMNS = 3
_BAR = "█"
_GAP = "┆"
_BAR_STYLES = {
    "run": "blue",
    "team": "magenta",
    "node": "cyan",
    "step": "bright_blue",
    "task": "green",
    "model": "yellow",
    "tool": "bright_cyan",
}

Row = tuple[int, SpanRecord]
"""A span and its depth in the tree."""


def format_duration(nanoseconds: int) -> str:
    """A short human duration: ``0.42 ms``, ``12 ms``, ``1.25 s``, ``3m 07s``, ``2h 05m``."""
    ms = nanoseconds / 1e6
    if ms < 10:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, seconds = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


@dataclass(frozen=True, kw_only=True)
class _Axis:
    """Maps times to bar columns, piecewise linear; long idle gaps get a few columns only."""

    times: tuple[int, ...]
    columns: tuple[float, ...]
    gap_marks: frozenset[int]
    shrunk_ns: int

    def column(self, time: int) -> float:
        index = min(max(bisect_right(self.times, time) - 1, 0), len(self.times) - 2)
        t0, t1 = self.times[index], self.times[index + 1]
        c0, c1 = self.columns[index], self.columns[index + 1]
        return c0 if t1 == t0 else c0 + (time - t0) * (c1 - c0) / (t1 - t0)

    def cells(self, start: int, end: int, width: int) -> range:
        """The bar columns of a span from ``start`` to ``end``: at least one."""
        first = min(math.floor(round(self.column(start), 6)), width - 1)
        last = max(math.ceil(round(self.column(end), 6)), first + 1)
        return range(first, min(last, width))


def _idle_gaps(spans: Sequence[SpanRecord]) -> list[tuple[int, int]]:
    """The stretches of time when no span was open."""
    gaps: list[tuple[int, int]] = []
    intervals = sorted((s.start_time_unix_nano, s.end_time_unix_nano) for s in spans)
    reach = intervals[0][1]
    for start, end in intervals[1:]:
        if start > reach:
            gaps.append((reach, start))
        reach = max(reach, end)
    return gaps


def _axis(spans: Sequence[SpanRecord], width: int) -> _Axis:
    origin = min(s.start_time_unix_nano for s in spans)
    last = max([origin + 1, *(s.end_time_unix_nano for s in spans)])
    total = last - origin
    long = [gap for gap in _idle_gaps(spans) if (gap[1] - gap[0]) / total * width > _GAP_COLUMNS]
    long = sorted(sorted(long, key=lambda g: g[0] - g[1])[: width // (2 * _GAP_COLUMNS)])
    shrunk = sum(end - start for start, end in long)
    scale = (width - len(long) * _GAP_COLUMNS) / max(total - shrunk, 1)
    times, columns, marks = [origin], [0.0], set()
    for start, end in long:
        column = columns[-1] + (start - times[-1]) * scale
        times += [start, end]
        columns += [column, column + _GAP_COLUMNS]
        marks.add(math.floor(column + _GAP_COLUMNS / 2))
    times.append(last)
    columns.append(float(width))
    return _Axis(
        times=tuple(times), columns=tuple(columns), gap_marks=frozenset(marks), shrunk_ns=shrunk
    )


def _label(depth: int, span: SpanRecord) -> str:
    label = "  " * depth + span.name
    kind = span.attributes.get(ATTR.TASK_KIND)
    if kind:
        label += f" [{kind}]"
    attempt = span.attributes.get(ATTR.RETRY_ATTEMPT)
    if attempt:  # a reviewer's retry; the first attempt (0) goes unmarked
        label += f" (attempt {attempt})"
    return label + " ✗" if span.failed else label


def _run_parts(rows: Sequence[Row]) -> dict[tuple[str, str], int]:
    """Run spans numbered 1, 2, ... in start order: the parts of a paused and resumed run."""
    runs = sorted(
        (span for _, span in rows if span.cadre_kind == KIND_RUN),
        key=lambda span: span.start_time_unix_nano,
    )
    return {(span.trace_id, span.span_id): n for n, span in enumerate(runs, start=1)}


def _notes(span: SpanRecord, parts: dict[tuple[str, str], int]) -> list[tuple[str, str]]:
    """The lines printed under a span's row, with their styles."""
    notes: list[tuple[str, str]] = []
    link = span.resumed_from
    if link is not None:
        part = parts.get((link.trace_id, link.span_id))
        where = f"part {part}" if part else "a part not in this file"
        notes.append((f"resumed, continues {where}", "cyan"))
    elif span.attributes.get(ATTR.RUN_RESUMED) is True:
        notes.append(("resumed", "cyan"))
    if span.paused_before:
        notes.append((f"paused before {', '.join(span.paused_before)}", "yellow"))
    if span.failed:
        notes.append((f"error: {span.error}", "red"))
    return notes


def _bar_style(span: SpanRecord) -> str:
    if span.failed:
        return "red"
    if span.paused_before:
        return "yellow"
    return _BAR_STYLES.get(span.cadre_kind or "", "white")


def _bar(span: SpanRecord, axis: _Axis, width: int) -> Text:
    cells = axis.cells(span.start_time_unix_nano, span.end_time_unix_nano, width)
    bar = Text()
    for column in range(width):
        if column in cells:
            bar.append(_BAR, style=_bar_style(span))
        else:
            bar.append(_GAP if column in axis.gap_marks else " ", style="dim")
    return bar


def _ruler(total_ns: int, axis: _Axis, width: int) -> Text:
    end = format_duration(total_ns)
    cells = [" "] * width
    for column in axis.gap_marks:
        cells[column] = _GAP
    text = "0" + "".join(cells)[1 : width - len(end)] + end
    return Text(text, style="dim")


def _header(spans: Sequence[SpanRecord], total_ns: int, parts: int) -> Text:
    threads = sorted({span.thread_id for span in spans if span.thread_id})
    traces = sorted({span.trace_id for span in spans})
    header = Text()
    header.append(f"thread {', '.join(threads) or '?'}", style="bold")
    header.append(f"  trace{'s' if len(traces) > 1 else ''} {', '.join(traces)}")
    header.append(f"  wall {format_duration(total_ns)}  {_count(len(spans), 'span')}")
    if parts > 1:
        header.append(f"  {parts} run parts")
    return header


def _footer(spans: Sequence[SpanRecord], axis: _Axis, skipped_lines: int) -> Text:
    failed = sum(span.failed for span in spans)
    footer = Text()
    footer.append(f"{_count(len(spans), 'span')}, ")
    footer.append(f"{failed} failed", style="bold red" if failed else "")
    footer.append(f", {_count(skipped_lines, 'skipped line')}")
    tokens_in = sum(_tokens(span, GEN_AI.INPUT_TOKENS) for span in spans)
    tokens_out = sum(_tokens(span, GEN_AI.OUTPUT_TOKENS) for span in spans)
    if tokens_in or tokens_out:
        footer.append(f", tokens {tokens_in} in / {tokens_out} out")
        estimated = sum(span.attributes.get(ATTR.USAGE_ESTIMATED) is True for span in spans)
        if estimated:  # as `cadre show` says it: the provider reported no usage for these
            footer.append(f" ({_count(estimated, 'model call')} estimated)")
    if axis.shrunk_ns:
        footer.append(f", {format_duration(axis.shrunk_ns)} idle not to scale ({_GAP})")
    return footer


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _tokens(span: SpanRecord, key: str) -> int:
    value = span.attributes.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def draw_waterfall(
    rows: Sequence[Row], console: Console, width: int, *, skipped_lines: int = 0
) -> None:
    """Print a header, one row per span (plus notes), and a footer.

    Args:
        rows: ``(depth, span)`` in tree order.
        console: Where to print.
        width: Columns to use.
        skipped_lines: Unreadable lines of the spans file, for the footer.
    """
    spans = [span for _, span in rows]
    if not spans:
        console.print(Text(f"no spans, {_count(skipped_lines, 'skipped line')}"))
        return
    labels = [_label(depth, span) for depth, span in rows]
    name_width = min(max(map(len, labels)), max(16, width * 2 // 5))
    bar_width = max(10, width - name_width - _DURATION_COLUMNS - 2)
    axis = _axis(spans, bar_width)
    parts = _run_parts(rows)
    origin = min(span.start_time_unix_nano for span in spans)
    total = max(span.end_time_unix_nano for span in spans) - origin

    def emit(text: Text) -> None:
        console.print(text, width=width, no_wrap=True, overflow="ellipsis", crop=False)

    console.print(_header(spans, total, len(parts)), width=width)
    emit(
        Text(f"{'span':<{name_width}} {'duration':>{_DURATION_COLUMNS}} ", style="dim")
        + _ruler(total, axis, bar_width)
    )
    for (depth, span), label in zip(rows, labels, strict=True):
        name = label if len(label) <= name_width else label[: name_width - 1] + "…"
        row = Text(f"{name:<{name_width}} ", style="bold red" if span.failed else "")
        row.append(f"{format_duration(span.duration_ns):>{_DURATION_COLUMNS}} ")
        row.append_text(_bar(span, axis, bar_width))
        row.rstrip()
        emit(row)
        for note, style in _notes(span, parts):
            text = Text(f"↳ {' '.join(note.split())}", style=style)
            indent = 2 * depth + 2
            text.truncate(_NOTE_LINES * (width - indent), overflow="ellipsis")
            console.print(Padding(text, (0, 0, 0, indent), expand=False), width=width)
    emit(_footer(spans, axis, skipped_lines))
