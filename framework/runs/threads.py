"""What a ``cadre run`` thread was started with, so that another process can rebuild its app.

``cadre run`` records a :class:`ThreadInfo` in its run config metadata under :data:`METADATA_KEY`
(as one JSON string: LangGraph copies only string, number and boolean metadata values into the
checkpoint metadata). Every checkpoint that run writes carries it, so the review commands can
find the team, corpus, model and review points of a thread and compile the same app again
with :func:`framework.runs.launch.relaunch`. Like every metadata value outside the allowlist (step,
source, parents, run id), it is sealed in the encrypted checkpoint body, not in the plaintext
metadata column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from framework.database.home import DataHome
from framework.engine.records import Record
from framework.errors import ConfigError, ReviewError
from framework.policy.records import Principal, policy_version
from framework.runs.observe import ObserverOptions
from framework.runs.stores import open_checkpointer

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver


__all__ = [
    "METADATA_KEY",
    "ThreadInfo",
    "read_thread_info",
    "refuse_existing_thread",
    "thread_info",
]

METADATA_KEY = "cadre"
"""The run config metadata key under which ``cadre run`` records its :class:`ThreadInfo`."""


class ThreadInfo(Record):
    """The settings a thread was run with: enough to compile its app again (a versioned
    record, since it is persisted with the thread's checkpoints).

    Attributes:
        team: The team name (a ``cadre.teams`` entry point).
        corpus: The corpus folder, absolute; None when the run indexed none (its inputs are
            in its checkpoints, as for ``cadre extract`` and ``cadre ask``).
        model: The chat model as ``provider:name``; None ran offline.
        review: The review points turned on (``plan``, ``tasks``, ``answer``).
        memory_scope: Whose research memory the run reads and extends.
        max_parallel: The cap on workers per dispatch; None keeps the team's default.
        observe: How the run was observed (None: ``--no-trace``); later parts keep it.
        roles: The role prompt versions the team was built with, as sorted (name, version)
            pairs; later parts are built with the same versions.
        policy: The text of the policy file the run is governed by (None: no policies);
            later parts keep it unless told otherwise (``cadre resume --policy``).
        principal: Who the run acts for (None: the policy file's default).
    """

    team: str
    corpus: str | None = None
    model: str | None = None
    review: tuple[str, ...] = ()
    memory_scope: tuple[str, ...] = ("default",)
    max_parallel: int | None = None
    observe: ObserverOptions | None = ObserverOptions()
    roles: tuple[tuple[str, int], ...] = ()
    policy: str | None = None
    principal: Principal | None = None

    @property
    def policy_version(self) -> str | None:
        """The digest of the policy text the thread runs under (None: no policies)."""
        return None if self.policy is None else policy_version(self.policy)

    def metadata(self) -> dict[str, str]:
        """The run config metadata recording this info (one JSON string under ``cadre``)."""
        return {METADATA_KEY: self.model_dump_json()}

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> ThreadInfo | None:
        """The info recorded in a checkpoint's metadata; None when it holds none (or a bad one)."""
        raw = metadata.get(METADATA_KEY)
        if not isinstance(raw, str):
            return None
        try:
            return cls.model_validate_json(raw)
        except ValidationError:
            return None


def thread_info(
    checkpointer: BaseCheckpointSaver[Any], thread_id: str, *, where: str = ""
) -> ThreadInfo:
    """The :class:`ThreadInfo` recorded by the run that started ``thread_id``.

    Checkpoints are read newest first; resumed parts of a run (review decisions) record
    nothing, so the newest checkpoint that carries the info wins.

    Args:
        checkpointer: The checkpointer holding the thread.
        thread_id: The thread to look up.
        where: Where the checkpointer lives (a data home), named in the error.

    Raises:
        ReviewError: No checkpoint of ``thread_id``, or none recorded by ``cadre run``.
    """
    suffix = f" under {where}" if where else ""
    found = False
    for saved in checkpointer.list({"configurable": {"thread_id": thread_id}}):
        found = True
        info = ThreadInfo.from_metadata(saved.metadata)
        if info is not None:
            return info
    if not found:
        raise ReviewError(f"unknown thread {thread_id!r}{suffix}: see `cadre reviews`")
    raise ReviewError(
        f"thread {thread_id!r}{suffix} was not started by `cadre run`, so its team is not "
        "recorded: review it through framework.review with the app that ran it"
    )


def read_thread_info(home: DataHome, thread_id: str) -> ThreadInfo:
    """The :class:`ThreadInfo` of ``thread_id`` under ``home`` (see :func:`thread_info`)."""
    with open_checkpointer(home) as checkpointer:
        return thread_info(checkpointer, thread_id, where=str(home.root))


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
