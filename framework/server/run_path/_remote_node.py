"""A run a ``RemoteGraph`` asks for as a node of a local graph, read as cadre's own run.

When the local graph resumes, LangGraph runs the node again with the node's state as input
and, in ``config.configurable``, its own ``__pregel_resuming`` flag and, when the local
resume was keyed by interrupt id, ``__pregel_resume_map`` (``{interrupt id: value}``); the
remote review's interrupt id is the one the local graph showed. Such a run:

- resumes the thread's pending reviews the map names (a review decision, checked as any);
- continues the thread as it is otherwise (a pending review is raised again, as LangGraph
  does for an interrupt the resume did not answer);
- is refused (422) when a review is pending and the resume came without ids, whose value
  never reaches the node.

Such a resume first waits for the thread's run to end: the node stopped reading it at the
pause, while the run was still saving it. LangGraph's ``__pregel_*`` keys are never passed on
to the team.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.types import StateSnapshot
from starlette.exceptions import HTTPException

from framework.review.api import thread_config
from framework.runs.gate import Caller
from framework.server._http import Server, blocking
from framework.server._requests import RunBody
from framework.server._shapes import open_interrupts
from framework.server._thread_ops import with_thread_app

__all__ = ["as_node_call"]

RESUMING = "__pregel_resuming"
RESUME_MAP = "__pregel_resume_map"


async def as_node_call(server: Server, caller: Caller, thread_id: str, body: RunBody) -> RunBody:
    """``body`` as cadre's run: unchanged unless LangGraph's node keys are in its config."""
    configurable = dict((body.config or {}).get("configurable") or {})
    internal = {key: configurable.pop(key) for key in list(configurable) if key.startswith("__")}
    if not internal:
        return body
    body = body.model_copy(update={"config": {**(body.config or {}), "configurable": configurable}})
    if internal.get(RESUMING) is not True or body.command is not None:
        return body
    await _settled(server, thread_id)
    snapshot = await blocking(_snapshot, server, caller, thread_id)
    if snapshot is None or snapshot.created_at is None:  # a new thread: a first run
        return body
    pending = {interrupt.id for interrupt in open_interrupts(snapshot)}
    resume_map = internal.get(RESUME_MAP)
    answered = _answered(resume_map, pending)
    if answered:
        return body.model_copy(update={"input": None, "command": {"resume": answered}})
    if pending and resume_map is None:
        raise HTTPException(
            422,
            f"thread {thread_id} waits for a review, and a resume without interrupt ids does "
            "not reach a RemoteGraph node: resume the local graph with "
            "Command(resume={interrupt_id: value})",
        )
    return body.model_copy(update={"input": None})


async def _settled(server: Server, thread_id: str) -> None:
    """Wait until no run of the thread is going on."""
    while (run_id := await blocking(server.runs.active_run, thread_id)) is not None:
        log = server.runs.log_of(run_id)
        if log is None:
            return
        await log.ended()


def _answered(resume_map: Any, pending: set[str]) -> dict[str, Any]:
    if not isinstance(resume_map, Mapping):
        return {}
    return {key: value for key, value in resume_map.items() if key in pending}


def _snapshot(server: Server, caller: Caller, thread_id: str) -> StateSnapshot | None:
    """The caller's thread's state (None: not the caller's, or no run wrote it)."""
    if server.tables.thread(caller.tenant, thread_id) is None:
        return None

    def read(app: Any) -> StateSnapshot | None:
        return None if app is None else app.get_state(thread_config(thread_id), subgraphs=True)

    found: StateSnapshot | None = with_thread_app(server, thread_id, read)
    return found
