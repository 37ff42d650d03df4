"""``cadre retention apply``: remove what the data home's retention rules no longer keep."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from framework.cli.common import HomeOption, one_line
from framework.database.home import resolve_home

__all__ = ["retention_app"]

retention_app = typer.Typer(help="Retention rules per scope: apply them.")


@retention_app.command("apply")
@one_line
def apply(
    rules: Annotated[
        Path | None,
        typer.Option(help="The rules file (default: retention.yaml in the data home)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would go; remove nothing.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Remove memory items, finished threads and trace records older than the rules keep
    them (see docs/memory.md, "Retention"); print what goes."""
    from framework.errors import ConfigError
    from framework.retention.rules import RULES_FILE_NAME, apply_retention, read_rules

    data_home = resolve_home(home)
    path = rules or data_home.root / RULES_FILE_NAME
    if not path.is_file():
        raise ConfigError(f"no retention rules file {path}: write one or pass --rules FILE")
    report = apply_retention(data_home, read_rules(path), dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    counts = ", ".join(f"{count} {what}" for what, count in report.counts.items())
    typer.echo(f"{verb}: {counts or 'nothing'}")
    for thread_id in report.threads:
        typer.echo(f"  finished thread {thread_id}")
