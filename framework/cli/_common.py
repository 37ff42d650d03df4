"""What the ``cadre`` commands share: options, one-line failures, and how a run part ends."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from framework.cli._render import next_commands, request_lines
from framework.database import DATABASE_VARIABLE
from framework.errors import CadreError, ConfigError, CorpusError, ReviewError
from framework.home import checked_database_url
from framework.review import AnyReviewRequest
from framework.runner import RunResult

__all__ = [
    "REVIEWER_VARIABLE",
    "DatabaseOption",
    "HomeOption",
    "ReviewerOption",
    "fail",
    "report_outcome",
    "reviewer_name",
    "use_database",
]

REVIEWER_VARIABLE = "CADRE_REVIEWER"

HomeOption = Annotated[
    Path | None, typer.Option(help="Data home (default $CADRE_HOME or ./.cadre).")
]
DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar=DATABASE_VARIABLE,
        help="PostgreSQL URL for checkpoints and memory (default: SQLite in the data home).",
    ),
]
ReviewerOption = Annotated[
    str | None,
    typer.Option(envvar=REVIEWER_VARIABLE, help="Who decides (recorded in the audit trail)."),
]


def fail(error: CadreError) -> NoReturn:
    """One line on stderr; exit 2 for bad input, 1 for a run that failed."""
    typer.echo(f"error: {' '.join(str(error).split())}", err=True)
    bad_input = isinstance(error, ConfigError | CorpusError | ReviewError)
    raise typer.Exit(2 if bad_input else 1)


def use_database(database: str | None) -> None:
    """Make ``--db`` the database of every data home this process opens (one-line error and
    exit 2 when it is not a PostgreSQL URL)."""
    if not database:
        return
    try:
        os.environ[DATABASE_VARIABLE] = checked_database_url(database)
    except ConfigError as error:
        fail(error)


def reviewer_name(reviewer: str | None) -> str:
    """The reviewer's name from ``--reviewer`` or ``$CADRE_REVIEWER``; ReviewError if none."""
    name = " ".join((reviewer or "").split())
    if not name:
        raise ReviewError(f"no reviewer: pass --reviewer NAME or set {REVIEWER_VARIABLE}")
    return name


def report_outcome(
    result: RunResult,
    requests: Sequence[AnyReviewRequest],
    home: Path | None,
    *,
    announce: bool = False,
) -> None:
    """Print on stdout how a run part ended: the pending requests and how to continue, or the
    final answer.

    Args:
        result: The run part's result.
        requests: The review requests it paused at (empty when it finished).
        home: The ``--home`` the command was given, repeated in the commands it suggests.
        announce: Say that the thread finished before its answer (the review commands do;
            ``cadre run`` prints the bare answer).
    """
    thread = result.thread_id
    if not requests:
        if announce:
            typer.echo(f"thread {thread} finished; its answer:\n")
        typer.echo(result.state.get("final_answer", ""))
        return
    typer.echo(f"paused for review: thread {thread} has {len(requests)} pending request(s)")
    for request in requests:
        typer.echo("\n".join(f"  {line}" for line in request_lines(request)))
    typer.echo(f"continue with (the reviewer comes from --reviewer or ${REVIEWER_VARIABLE}):")
    typer.echo("\n".join(f"  {command}" for command in next_commands(thread, requests, home)))
