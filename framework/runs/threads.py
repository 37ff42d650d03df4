"""A thread's recorded :class:`~framework.runs.spec.RunSpec`, read back from its checkpoints,
and the refusal to start a run on a thread that exists."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.database.home import DataHome
from framework.errors import ConfigError, ReviewError
from framework.runs.recorded import recorded_team
from framework.runs.stores import open_checkpointer

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from framework.persistence.reader import CheckpointReader
    from framework.runs.spec import RunSpec


__all__ = [
    "read_thread_spec",
    "refuse_existing_thread",
    "thread_spec",
    "thread_team",
]


def thread_spec(
    checkpointer: BaseCheckpointSaver[Any] | CheckpointReader, thread_id: str, *, where: str = ""
) -> RunSpec:
    """The :class:`RunSpec` recorded by the run that started ``thread_id``.

    Checkpoints are read newest first; resumed parts of a run (review decisions) record
    nothing, so the newest checkpoint that carries the info wins.

    Args:
        checkpointer: The checkpointer (or the reader) holding the thread.
        thread_id: The thread to look up.
        where: Where the checkpointer lives (a data home), named in the error.

    Raises:
        ReviewError: No checkpoint of ``thread_id``, or none recorded by ``cadre run``.
    """
    from framework.runs.spec import RunSpec  # noqa: PLC0415 - pydantic: not for thread_team

    suffix = f" under {where}" if where else ""
    found = False
    for saved in checkpointer.list({"configurable": {"thread_id": thread_id}}):
        found = True
        info = RunSpec.from_metadata(saved.metadata)
        if info is not None:
            return info
    if not found:
        raise ReviewError(f"unknown thread {thread_id!r}{suffix}: see `cadre reviews`")
    raise ReviewError(
        f"thread {thread_id!r}{suffix} was not started by `cadre run`, so its team is not "
        "recorded: review it through framework.review with the app that ran it"
    )


def thread_team(
    checkpointer: BaseCheckpointSaver[Any] | CheckpointReader, thread_id: str
) -> str | None:
    """The team of the run that started ``thread_id`` (as :func:`thread_spec` finds it, the
    spec's other fields not read); None when ``cadre run`` did not start it."""
    for saved in checkpointer.list({"configurable": {"thread_id": thread_id}}):
        team = recorded_team(saved.metadata)
        if team is not None:
            return team
    return None


def read_thread_spec(home: DataHome, thread_id: str) -> RunSpec:
    """The :class:`RunSpec` of ``thread_id`` under ``home`` (see :func:`thread_info`)."""
    with open_checkpointer(home) as checkpointer:
        return thread_spec(checkpointer, thread_id, where=str(home.root))


def refuse_existing_thread(home: DataHome, thread_id: str) -> None:
    """Refuse to start a run on a thread that already exists under ``home``: a run never
    replaces a thread's question, settings or pending reviews.

    Raises:
        ConfigError: ``thread_id`` has checkpoints; the message says how to go on with it.
    """
    if not home.has_checkpoints():
        return
    with open_checkpointer(home) as checkpointer:
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        if next(iter(checkpointer.list(config, limit=1)), None) is None:
            return
    raise ConfigError(
        f"thread {thread_id!r} already exists under {home.describe()}: a run never replaces a "
        f"thread; see it with `cadre show {thread_id}`, continue it with `cadre resume "
        f"{thread_id}` (or approve, edit or reject when it waits for review), or pass another "
        "--thread"
    )
