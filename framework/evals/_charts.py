"""Inline SVG charts for the HTML report: horizontal rate bars and histograms.

Every chart is drawn here, in Python, as one ``<svg role="img">`` with a ``<title>`` and an
``aria-label`` that says what the bars say; values are written on the chart, so it reads
without hovering. Labels are escaped: they come from datasets and runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["SERIES_COLOURS", "Bar", "Row", "histogram", "rate_chart"]

SERIES_COLOURS = ("#2563eb", "#94a3b8")
"""The first series (this run) and the second (the run compared with)."""
_TEXT = "#334155"
_MUTED_FILL = ' fill="#64748b"'
_GRID = "#e2e8f0"
_AXIS = "#94a3b8"
_WIDTH = 560
_BAR = 18
_GAP = 12
_LABEL_CHARS = 22


@dataclass(frozen=True, kw_only=True)
class Bar:
    """One bar: a rate from 0 to 1 and the text written after it (``3/4 · 75%``)."""

    rate: float
    text: str


@dataclass(frozen=True, kw_only=True)
class Row:
    """One label on the chart's side with a bar per series."""

    label: str
    bars: tuple[Bar, ...]


def _svg(title: str, summary: str, width: int, height: int, body: list[str]) -> str:
    return (
        f'<svg role="img" aria-label="{escape(summary)}" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-size="12" fill="{_TEXT}"><title>{escape(title)}</title>' + "".join(body) + "</svg>"
    )


def _text(x: float, y: float, text: str, *, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _short(label: str) -> str:
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"


def _legend(series: Sequence[str], x: float) -> list[str]:
    parts = []
    for index, name in enumerate(series):
        left = x + index * 170
        parts.append(_rect((left, 4, 12, 12), SERIES_COLOURS[index], name))
        parts.append(_text(left + 18, 14.5, _short(name)))
    return parts


def _rect(box: tuple[float, float, float, float], colour: str, tip: str) -> str:
    """A bar at ``(x, y, width, height)`` whose tooltip repeats what is written beside it."""
    x, y, width, height = box
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" rx="2" '
        f'fill="{colour}"><title>{escape(tip)}</title></rect>'
    )


def _line(x1: float, y1: float, x2: float, y2: float, colour: str) -> str:
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}"/>'


def _axis_labels(
    plot: tuple[float, float, float, float], height: float, x: str, y: str
) -> list[str]:
    """The x axis's label under the plot ``(left, top, width, height)``, the y axis's beside it."""
    left, top, width, tall = plot
    middle = top + tall / 2
    return [
        _text(left + width / 2, height - 6, x, anchor="middle"),
        _text(12, middle, y, anchor="middle", extra=f' transform="rotate(-90 12 {middle:.1f})"'),
    ]


def rate_chart(title: str, axis: str, side: str, rows: Sequence[Row], series: Sequence[str]) -> str:
    """Horizontal bars of rates, one group per row, one bar per series.

    Args:
        title: The chart's title (its ``<title>``).
        axis: The x axis's label (the rate's meaning).
        side: The y axis's label (what the rows are).
        rows: The rows, top to bottom; each has ``len(series)`` bars.
        series: The series' names; a legend is drawn when there are two or more.
    """
    left = 24 + 7 * max(len(_short(row.label)) for row in rows)
    top = 32 if len(series) > 1 else 10
    group = len(series) * _BAR + _GAP
    plot_w, plot_h = _WIDTH - left - 92, len(rows) * group
    height = top + plot_h + 44
    body = _legend(series, left) if len(series) > 1 else []
    for tick in range(0, 101, 25):
        x = left + plot_w * tick / 100
        body.append(_line(x, top, x, top + plot_h, _GRID))
        body.append(_text(x, top + plot_h + 16, f"{tick}%", anchor="middle", extra=_MUTED_FILL))
    body += _axis_labels((left, top, plot_w, plot_h), height, axis, side)
    summary = []
    for index, row in enumerate(rows):
        y = top + index * group + _GAP / 2
        body.append(_text(left - 8, y + group / 2 - 2, _short(row.label), anchor="end"))
        said = []
        for position, (name, bar) in enumerate(zip(series, row.bars, strict=True)):
            width, bar_y = max(plot_w * bar.rate, 1.5), y + position * _BAR
            tip = f"{row.label}, {name}: {bar.text}"
            body.append(_rect((left, bar_y, width, _BAR - 3), SERIES_COLOURS[position], tip))
            body.append(_text(left + width + 6, bar_y + _BAR - 7, bar.text))
            said.append(f"{name} {bar.text}" if len(series) > 1 else bar.text)
        summary.append(f"{row.label}: {', '.join(said)}")
    body.append(_line(left, top, left, top + plot_h, _AXIS))
    return _svg(title, f"{title}. " + "; ".join(summary), _WIDTH, height, body)


def _nice(step: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at least ``step``."""
    power = 10.0 ** math.floor(math.log10(step))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= step * (1 - 1e-9))


def _bins(values: Sequence[float]) -> tuple[float, float, list[int]]:
    """``(start, width, counts)``: round-edged bins, about Sturges' number of them."""
    low, high = min(values), max(values)
    if high == low:
        width = _nice(abs(low) / 4) if low else 1.0
        return low - width / 2, width, [len(values)]
    width = _nice((high - low) / min(10, math.ceil(math.log2(len(values))) + 1))
    start = math.floor(low / width) * width
    counts = [0] * max(1, math.ceil((high - start) / width - 1e-9))
    for value in values:
        counts[min(int((value - start) / width), len(counts) - 1)] += 1
    return start, width, counts


def histogram(title: str, axis: str, values: Sequence[float], fmt: Callable[[float], str]) -> str:
    """A histogram of ``values`` (at least one) counted in round-edged bins.

    Args:
        title: The chart's title (its ``<title>``).
        axis: The x axis's label (what was measured, with its unit).
        values: The values, one per case.
        fmt: Writes a bin edge (``1.5 s``, ``$0.02``).
    """
    start, width, counts = _bins(values)
    left, top, plot_w, plot_h = 48, 18, _WIDTH - 72, 150
    height = top + plot_h + 46
    step = max(1, math.ceil(max(counts) / 4))
    scale = plot_h / (step * math.ceil(max(counts) / step))
    body = []
    for tick in range(0, max(counts) + step, step):
        y = top + plot_h - tick * scale
        body.append(_line(left, y, left + plot_w, y, _GRID))
        body.append(_text(left - 6, y + 4, str(tick), anchor="end", extra=_MUTED_FILL))
    slot = plot_w / len(counts)
    summary = []
    for index, count in enumerate(counts):
        x, bar_h = left + index * slot, count * scale
        low, high = fmt(start + index * width), fmt(start + (index + 1) * width)
        label = f"{count} case{'s' * (count != 1)} from {low} to {high}"
        body.append(_rect((x + 2, top + plot_h - bar_h, slot - 4, bar_h), SERIES_COLOURS[0], label))
        if count:
            body.append(_text(x + slot / 2, top + plot_h - bar_h - 5, str(count), anchor="middle"))
            summary.append(label)
    for index in range(len(counts) + 1):
        edge = fmt(start + index * width)
        body.append(
            _text(left + index * slot, top + plot_h + 16, edge, anchor="middle", extra=_MUTED_FILL)
        )
    body.append(_line(left, top + plot_h, left + plot_w, top + plot_h, _AXIS))
    body += _axis_labels((left, top, plot_w, plot_h), height, axis, "cases")
    return _svg(title, f"{title}. " + "; ".join(summary), _WIDTH, height, body)
