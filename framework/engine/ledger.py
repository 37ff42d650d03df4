"""The ledger of a batch of worker tasks: each task's update saved as the task ends.

A batch (:mod:`framework.engine.batching`) saves its tasks' updates in the checkpointer as pending
writes of the step it runs in, on the :data:`LEDGER_CHANNEL`, under ids
``<batch task>/<entry>``. LangGraph applies no write whose task id is not one of the step's, so
the ledger changes no state; it is sealed, checked, copied, pruned and deleted with its thread as
every pending write is. Only a run that resumes in the step reads it back. This module imports
nothing of LangGraph's runtime (a thread's snapshot reads the channel's name).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.engine.nesting import step_of

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver

__all__ = ["LEDGER_CHANNEL", "TaskLedger"]

logger = logging.getLogger("cadre.engine")

LEDGER_CHANNEL = "__cadre_task_done__"
"""The channel of a batched task's saved update (no channel of the graph: never applied)."""

_CHECKPOINTER = "__pregel_checkpointer"
_DURABILITY = "__pregel_durability"
_RESUMING = "__pregel_resuming"
"""LangGraph's run config keys: the saver, when steps are saved, and whether this step resumes
an earlier run (only then can a ledger hold anything)."""


@dataclass(frozen=True, slots=True)
class TaskLedger:
    """Where a batch's tasks are saved as they end: pending writes of the step it runs in.

    ``saver`` is None when nothing is saved (no checkpointer, or a run saved only at its exit).
    """

    saver: BaseCheckpointSaver[Any] | None
    step: RunnableConfig
    batch_id: str
    resuming: bool

    @classmethod
    def of(cls, config: RunnableConfig) -> TaskLedger:
        """The ledger of the batch that runs with ``config`` (a Pregel task's run config)."""
        configurable = config.get("configurable") or {}
        saver = configurable.get(_CHECKPOINTER)
        if configurable.get(_DURABILITY) == "exit":
            saver = None
        graph_ns, checkpoint_id = step_of(configurable)
        batch_id = str(configurable.get("checkpoint_ns", "")).rpartition("|")[2]
        if checkpoint_id is None:
            saver = None
        step: RunnableConfig = {
            "configurable": {
                "thread_id": configurable.get("thread_id"),
                "checkpoint_ns": graph_ns,
                "checkpoint_id": checkpoint_id,
            }
        }
        return cls(saver, step, batch_id, bool(configurable.get(_RESUMING)))

    def _held(self, writes: Any) -> dict[str, Any]:
        prefix = f"{self.batch_id}/"
        held: dict[str, Any] = {}
        for entry, channel, value in writes or ():
            if channel == LEDGER_CHANNEL and entry.startswith(prefix):
                held.update(value)
        return held

    def done(self) -> dict[str, Any]:
        """The updates of the batch's tasks saved before this run resumed, by task id."""
        if self.saver is None or not self.resuming:
            return {}
        saved = self.saver.get_tuple(self.step)
        return self._held(saved.pending_writes if saved is not None else None)

    async def adone(self) -> dict[str, Any]:
        """:meth:`done` in an async run."""
        if self.saver is None or not self.resuming:
            return {}
        saved = await self.saver.aget_tuple(self.step)
        return self._held(saved.pending_writes if saved is not None else None)

    def save(self, updates: Mapping[str, Any]) -> None:
        """Save the updates of tasks that ended (by task id) as one entry. A save that fails
        is said in the log and loses nothing but the entry: the batch still returns those
        updates, and a resume in this step runs the tasks again."""
        if self.saver is None:
            return
        try:
            self.saver.put_writes(self.step, [(LEDGER_CHANNEL, dict(updates))], self._new_entry())
        except Exception as error:
            _unsaved(updates, error)

    async def asave(self, updates: Mapping[str, Any]) -> None:
        """:meth:`save` in an async run."""
        if self.saver is None:
            return
        try:
            await self.saver.aput_writes(
                self.step, [(LEDGER_CHANNEL, dict(updates))], self._new_entry()
            )
        except Exception as error:
            _unsaved(updates, error)

    def _new_entry(self) -> str:
        return f"{self.batch_id}/{uuid.uuid4().hex}"


def _unsaved(updates: Mapping[str, Any], error: Exception) -> None:
    logger.warning(
        "cadre: %d finished task(s) of a batch were not saved as they ended (%s: %s); the batch "
        "keeps them, but if the run stops before the batch ends they run again on resume",
        len(updates),
        type(error).__name__,
        error,
    )
