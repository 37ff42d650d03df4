"""What the ``cadre`` commands share: options, exit codes, one-line failures.

Light to import: ``cadre --help`` loads every command module to list them, so command modules
import their work (teams, LangGraph, models, embeddings) inside the command, when it runs.
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn, ParamSpec

import typer

from framework.database import DATABASE_VARIABLE
from framework.database.home import checked_database_url
from framework.errors import (
    CadreError,
    ConfigError,
    CorpusError,
    InvalidUpdate,
    OutageError,
    ReviewError,
    RunStopped,
    StorageFullError,
    ThreadBusyError,
)

__all__ = [
    "DEBUG_VARIABLE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_STOPPED",
    "REVIEWER_VARIABLE",
    "DatabaseOption",
    "HomeOption",
    "ReviewerOption",
    "announce_thread",
    "announced_thread",
    "debugging",
    "exit_code",
    "fail",
    "one_line",
    "resume_hint",
    "reviewer_name",
    "use_database",
]

EXIT_OK = 0
"""The command did what it was asked (an empty list is an answer; a pause for review too)."""
EXIT_FAILED = 1
"""A run or a read failed: a model or provider, a worker, the store, keys that do not open the
data. What was saved is kept; the message says what to do."""
EXIT_REFUSED = 2
"""The command was refused before it changed anything: bad input or options, an unknown
thread or request, an invalid edit, a thread busy in another process."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C); a run goes on from its last checkpoint with ``cadre resume``."""
EXIT_STOPPED = 143
"""A run stopped by SIGTERM or Ctrl-C after the tasks going on finished, each saved
(:class:`~framework.errors.RunStopped`); ``cadre resume`` goes on without running them again."""

DEBUG_VARIABLE = "CADRE_DEBUG"
"""Set to 1 (or pass ``--debug``) for full tracebacks instead of one-line errors."""

REVIEWER_VARIABLE = "CADRE_REVIEWER"

P = ParamSpec("P")

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


def exit_code(error: CadreError) -> int:
    """The exit code of a command that stopped on ``error`` (see docs/cli.md)."""
    refused = ConfigError | CorpusError | ReviewError | InvalidUpdate | ThreadBusyError
    if isinstance(error, RunStopped):
        return EXIT_STOPPED
    return EXIT_REFUSED if isinstance(error, refused) else EXIT_FAILED


def fail(error: CadreError) -> NoReturn:
    """One line on stderr (``stopped:`` for a run a signal stopped, else ``error:``), and the
    exit code of :func:`exit_code`."""
    label = "stopped" if isinstance(error, RunStopped) else "error"
    typer.echo(f"{label}: {' '.join(_told(error).split())}", err=True)
    raise typer.Exit(exit_code(error))


def _told(error: CadreError) -> str:
    """The message of ``error``; under a run, its advice to resume names the thread, and a full
    disk or an outage adds how the run goes on."""
    resume, said = announced_thread(), str(error)
    if resume is None:
        return said
    if "`cadre resume`" in said:
        return said.replace("`cadre resume`", f"`{resume}`")
    if isinstance(error, StorageFullError | OutageError):
        return f"{said}; then `{resume}` goes on from its last checkpoint"
    return said


def one_line(command: Callable[P, None]) -> Callable[P, None]:
    """Turn every cadre error of ``command`` into a one-line failure."""

    @functools.wraps(command)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except CadreError as error:
            fail(error)

    return wrapped


def debugging() -> bool:
    """Whether full tracebacks were asked for (``--debug`` or ``$CADRE_DEBUG``)."""
    return os.environ.get(DEBUG_VARIABLE, "").lower() in {"1", "true", "yes"}


_announced: list[str] = []


def announce_thread(thread_id: str, home: Path | None) -> None:
    """Record the thread this process is about to run, for the line an interruption prints."""
    _announced[:] = [resume_hint(thread_id, home)]


def announced_thread() -> str | None:
    """The ``cadre resume`` command of the thread this process runs, if any."""
    return _announced[0] if _announced else None


def resume_hint(thread_id: str, home: Path | None) -> str:
    """The command line that resumes a thread: ``cadre resume THREAD`` (with ``--home`` when one
    was given)."""
    suffix = f" --home {shlex.quote(str(home))}" if home is not None else ""
    return f"cadre resume {shlex.quote(thread_id)}{suffix}"


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
