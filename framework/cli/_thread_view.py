"""The work of the commands that only read threads, ``cadre show``, ``cadre reviews`` and
``cadre history`` (:mod:`framework.cli.review`), imported when one runs.

They read the thread's checkpoints (:func:`framework.retention.snapshot.thread_snapshot`) through
a reader (:func:`framework.runs.stores.open_reader`) and never compile its graph: no team is
imported, built or compiled, nor LangGraph's runtime or LangChain, so they start about as fast
as ``cadre --help``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import typer

from framework.cli._render import history_lines, request_lines, thread_lines
from framework.cli._teams import declared_team
from framework.database.home import resolve_home
from framework.engine.nesting import nesting_at
from framework.errors import ConfigError, ReviewError
from framework.kinds.team_names import DEFAULT_TEAM_NAME, TEAM_FILE_PREFIX
from framework.retention.pruning import statuses_of
from framework.retention.snapshot import ThreadSnapshot, thread_ids, thread_snapshot
from framework.retention.tree import nested_runs
from framework.review import (
    ReviewKind,
    checkpoint_history,
    decisions_in,
    pending_revision,
    requests_in,
)
from framework.runs.spec import RunSpec
from framework.runs.stores import open_reader
from framework.runs.threads import thread_spec

if TYPE_CHECKING:
    from langgraph.types import StateSnapshot

    from framework.engine.config_file import Where
    from framework.persistence.reader import CheckpointReader

__all__ = [
    "list_reviews",
    "merged_values",
    "nested_review_points",
    "show_history",
    "show_thread",
    "team_review_points",
]

_FILE_POINTS = frozenset(get_args(ReviewKind)) - {"node", "policy", "question"}
"""The review points a team file may turn on (:data:`framework.review.points.REVIEW_POINTS`, not
imported here either)."""


def merged_values(snapshot: StateSnapshot | ThreadSnapshot) -> dict[str, Any]:
    """A thread's values with those of the subgraphs it is paused in laid over them (not a
    team's behind a worker kind: that one is a task's, shown under it), and every decision
    made in its ``audit`` (see :func:`~framework.review.decisions_in`)."""
    values = dict(snapshot.values)
    for task in snapshot.tasks:
        below = task.state
        if isinstance(below, tuple) and not _nested_team(below):  # a snapshot, not a config
            values.update(merged_values(below))
    if decisions := decisions_in(snapshot):
        values["audit"] = decisions
    return values


def _nested_team(snapshot: StateSnapshot | ThreadSnapshot) -> bool:
    namespace = str(snapshot.config["configurable"].get("checkpoint_ns", ""))
    return nesting_at(namespace, snapshot.metadata) is not None


def team_review_points(team: str) -> frozenset[str]:
    """The review points a team turns on itself, besides a run's ``--review``: a team file's
    ``review:``, read from the file (nothing it names is imported); none for an installed team,
    which pauses where ``--review`` says.

    Raises:
        ConfigError: The team file cannot be read, or its ``review:`` names an unknown point.
    """
    if not team.startswith(TEAM_FILE_PREFIX):
        return frozenset()
    return _file_points(*_team_file(Path(team.removeprefix(TEAM_FILE_PREFIX))))


def nested_review_points(team: str) -> list[tuple[str, frozenset[str]]]:
    """The review points of the team files a team file includes (its ``team:`` kinds and
    phases, to any depth), as (team name, points), outermost first; those of files that turn
    none on are left out, and a file included twice is read once.

    Raises:
        ConfigError: A file cannot be read, or its ``review:`` names an unknown point.
    """
    if not team.startswith(TEAM_FILE_PREFIX):
        return []
    from framework.kinds.team_phases import names_file  # pydantic models only

    found: list[tuple[str, frozenset[str]]] = []
    seen: set[Path] = set()

    def walk(path: Path, data: dict[str, Any]) -> None:
        for entry in [*(data.get("kinds") or []), *(data.get("phases") or [])]:
            included = entry.get("team") if isinstance(entry, dict) else None
            if not isinstance(included, str) or not names_file(included):
                continue  # an installed team: it pauses where --review says (top only)
            below = _team_file(path.parent / included)
            if below[0] in seen:
                continue
            seen.add(below[0])
            if points := _file_points(*below):
                found.append((str(below[1].get("name") or DEFAULT_TEAM_NAME), points))
            walk(below[0], below[1])

    top = _team_file(Path(team.removeprefix(TEAM_FILE_PREFIX)))
    seen.add(top[0])
    walk(top[0], top[1])
    return found


def _team_file(path: Path) -> tuple[Path, dict[str, Any], Where]:
    """A team file's resolved path, mapping and line finder (YAML: only for a team file)."""
    from framework.engine.config_file import read_yaml

    resolved, _, data, where = read_yaml(path, "team file")
    return resolved, data, where


def _file_points(path: Path, data: dict[str, Any], where: Where) -> frozenset[str]:
    points = data.get("review") or []
    if not isinstance(points, list) or not set(points) <= _FILE_POINTS:
        known = ", ".join(sorted(_FILE_POINTS))
        raise ConfigError(
            f"team file {path} is invalid: {where.at(['review'], f'review points are {known}')}"
        )
    return frozenset(points)


def _thread_groups(
    saver: CheckpointReader, where: str, thread: str | None
) -> dict[RunSpec, list[str]]:
    """The threads to list, grouped by what they were run with.

    A thread given by name must be known; when listing every thread, one that ``cadre run``
    did not start is skipped with a note on stderr.
    """
    groups: dict[RunSpec, list[str]] = {}
    for tid in [thread] if thread is not None else thread_ids(saver):
        try:
            info = thread_spec(saver, tid, where=where)
        except ReviewError as error:
            if thread is not None:
                raise
            typer.echo(f"skipped: {error}", err=True)
            continue
        groups.setdefault(info, []).append(tid)
    return groups


def list_reviews(thread: str | None, home: Path | None) -> None:
    """``cadre reviews``: the pending requests of every thread under ``home``, or of one."""
    data_home = resolve_home(home)
    found = 0
    if thread is not None or data_home.has_checkpoints():
        with open_reader(data_home) as saver:
            for info, members in _thread_groups(saver, str(data_home.root), thread).items():
                for tid in members:
                    requests = requests_in(thread_snapshot(saver, tid, values=False), tid)
                    found += len(requests)
                    if requests:
                        typer.echo(
                            f"thread {tid} (team {info.team}): {len(requests)} pending "
                            f"(revision {pending_revision(requests)})"
                        )
                        typer.echo(
                            "\n".join(f"  {line}" for r in requests for line in request_lines(r))
                        )
    if not found:
        scope = f"thread {thread}" if thread is not None else str(data_home.root)
        typer.echo(f"no pending reviews in {scope}")


def show_thread(thread: str, home: Path | None) -> None:
    """``cadre show``: the thread's settings, status, plan, tasks, requests, audit, answer."""
    data_home = resolve_home(home)
    with open_reader(data_home) as saver:
        info = thread_spec(saver, thread, where=str(data_home.root))
        snapshot = thread_snapshot(saver, thread)
        [status] = statuses_of(saver, thread)
        nested = nested_runs(saver, thread)
    points = team_review_points(info.team)
    requests = requests_in(snapshot, thread)
    values = merged_values(snapshot)
    below = nested_review_points(info.team)
    lines = thread_lines(info, status, values, requests, points, nested, below)
    typer.echo("\n".join(lines))


def show_history(thread: str, home: Path | None) -> None:
    """``cadre history``: the thread's checkpoints, nested ones too, newest first."""
    data_home = resolve_home(home)
    with open_reader(data_home) as saver:
        spec = thread_spec(saver, thread, where=str(data_home.root))
        entries = checkpoint_history(saver, thread, team=declared_team(spec.team))
    typer.echo("\n".join(history_lines(entries)))
