"""``cadre threads`` and ``cadre prune``: what the home's threads are doing, and retention.

Both read the home's checkpoint database only (no team is compiled, no corpus read). Bad
input (a K below 1, an unknown thread, a home without threads) exits 2 with one line on
stderr and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli._teams import shown_team
from framework.cli.common import EXIT_FAILED, HomeOption, fail
from framework.database.home import resolve_home
from framework.errors import CadreError

if TYPE_CHECKING:
    from framework.retention.pruning import PruneReport, ThreadPrune, ThreadStatus

__all__ = ["human_bytes", "list_threads", "prune_checkpoints", "prune_lines", "thread_table"]

_HEADERS = ("thread", "team", "status", "last step", "updated (UTC)", "checkpoints", "size")
_RIGHT = frozenset({"last step", "checkpoints", "size"})
"""Columns of numbers, aligned right."""


def human_bytes(count: int) -> str:
    """A byte count as people read it: ``812 B``, ``14.2 KiB``, ``3.0 MiB``."""
    if count < 1024:
        return f"{count} B"
    size = float(count)
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            break
    return f"{size:.1f} {unit}"


def _when(timestamp: str) -> str:
    """An ISO 8601 timestamp as ``2026-01-31 14:05:09`` in UTC (as stored, when unreadable)."""
    try:
        moment = datetime.fromisoformat(timestamp)
    except ValueError:
        return timestamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _row(status: ThreadStatus) -> tuple[str, ...]:
    return (
        status.thread_id,
        shown_team(status.team) if status.team else "-",
        status.label,
        str(status.step),
        _when(status.updated_at),
        str(status.checkpoints),
        human_bytes(status.size_bytes),
    )


def thread_table(statuses: Sequence[ThreadStatus]) -> list[str]:
    """``cadre threads``: a header, then one line per thread, most recently updated first."""
    rows = [_HEADERS, *(_row(status) for status in statuses)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(_HEADERS))]
    return [
        "  ".join(
            cell.rjust(width) if header in _RIGHT else cell.ljust(width)
            for header, cell, width in zip(_HEADERS, row, widths, strict=True)
        ).rstrip()
        for row in rows
    ]


def _thread_line(pruned: ThreadPrune) -> str:
    pinned = ""
    if pruned.pinned:
        pinned = f" ({pruned.pinned} of them only because a kept subgraph checkpoint runs under it)"
    return (
        f"thread {pruned.thread_id}: removed {pruned.removed} checkpoint(s), kept "
        f"{pruned.kept}{pinned}, freed {human_bytes(pruned.bytes_freed)}"
    )


def prune_lines(report: PruneReport) -> list[str]:
    """``cadre prune``: one line per thread it removed from, a total, and the file's size."""
    lines = [_thread_line(pruned) for pruned in report.threads if pruned.removed]
    lines.append(
        f"removed {report.removed} checkpoint(s) from "
        f"{sum(1 for pruned in report.threads if pruned.removed)} of {len(report.threads)} "
        f"thread(s), freed {human_bytes(report.bytes_freed)} (kept the last "
        f"{report.keep_last} of each namespace and what they need)"
    )
    if report.file_bytes_before is not None and report.file_bytes_after is not None:
        lines.append(
            f"database file: {human_bytes(report.file_bytes_before)} -> "
            f"{human_bytes(report.file_bytes_after)} after VACUUM"
        )
    elif report.removed:
        lines.append("the database file keeps its size (later runs reuse the space): --vacuum")
    return lines


def list_threads(home: HomeOption = None) -> None:
    """List the home's threads: team, status (interrupted, paused at review, failed, done),
    last step, last update, checkpoints and size.

    An interrupted thread has nodes due to run and waits for no review: its process crashed
    or was killed (continue it with `cadre resume`), or it is still running. A thread whose
    latest checkpoint cannot be opened is listed as UNREADABLE, with the reason on stderr
    (exit 1).
    """
    from framework.retention.pruning import thread_statuses

    data_home = resolve_home(home)
    try:
        statuses = thread_statuses(data_home)
    except CadreError as error:
        fail(error)
    if not statuses:
        typer.echo(f"no threads under {data_home.root}")
        return
    typer.echo("\n".join(thread_table(statuses)))
    unreadable = [status for status in statuses if status.status == "unreadable"]
    for status in unreadable:
        typer.echo(f"error: thread {status.thread_id} cannot be read: {status.error}", err=True)
    if unreadable:
        raise typer.Exit(EXIT_FAILED)


def prune_checkpoints(
    keep_last: Annotated[
        int,
        typer.Option(
            "--keep-last",
            metavar="K",
            help="Checkpoints to keep per thread and namespace (at least 1).",
        ),
    ],
    thread: Annotated[
        str | None, typer.Option(help="Prune only this thread (default: every thread).")
    ] = None,
    vacuum: Annotated[
        bool, typer.Option(help="Rewrite the database file afterwards to give space back.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Remove old checkpoints, keeping the last K of each thread and namespace.

    Never removed: a thread's latest state, the checkpoint a paused or failed thread
    resumes from, a subgraph's latest state and the parent checkpoints kept ones run
    under. Forks hold their own copies, so they do not pin the thread they came from.
    """
    from framework.retention.pruning import prune

    try:
        report = prune(resolve_home(home), keep_last, thread, vacuum=vacuum)
    except CadreError as error:
        fail(error)
    typer.echo("\n".join(prune_lines(report)))
