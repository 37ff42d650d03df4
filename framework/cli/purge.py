"""``cadre purge``: erase a scope's memory, threads, traces and run index entries."""

from __future__ import annotations

import getpass
from typing import Annotated

import typer

from framework.cli.common import HomeOption, one_line
from framework.database.home import resolve_home

__all__ = ["purge_scope"]


@one_line
def purge_scope(
    scope: Annotated[
        str,
        typer.Option(help="Whose data: user:NAME, project:NAME or tenant:NAME."),
    ],
    by: Annotated[
        str | None,
        typer.Option(help="Who asks, for the tombstone (default: the system user)."),
    ] = None,
    home: HomeOption = None,
) -> None:
    """Erase a scope: its memory namespaces and the items its threads wrote, its threads'
    checkpoints (review audit trail included), traces and run index entries; a tombstone
    records who, when and how much. Safe to run again after an interruption."""
    from framework.retention.purge import DataScope, purge

    report = purge(resolve_home(home), DataScope.parse(scope), requested_by=by or getpass.getuser())
    if report.already:
        typer.echo(f"{report.scope} was purged already (tombstone {report.tombstone})")
        return
    counts = ", ".join(f"{count} {what}" for what, count in report.counts.items())
    typer.echo(f"purged {report.scope}: {counts} (tombstone {report.tombstone})")
    if report.unreadable_threads:
        typer.echo(
            f"not looked at: {len(report.unreadable_threads)} thread(s) whose keys are missing "
            f"({', '.join(report.unreadable_threads)}); their owner is unknown"
        )
