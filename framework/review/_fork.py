"""Forking a thread from any of its checkpoints, a subgraph's included, into a new thread.

The new thread gets copies of the checkpoint and its ancestors (for a subgraph checkpoint, the
parent checkpoint its graph ran under as well), with the checkpoint's own pending writes left
out: what happened after it runs again. The parent's pending writes of the subgraph's task are
left out too, so resuming the new thread re-enters the subgraph at the copied checkpoint. The
original thread is only read. An edited plan is then applied with the same rule as a plan
review edit: unchanged tasks keep their results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import Pregel

from framework.engine.records import Plan
from framework.errors import ReviewError
from framework.review._apply import audit_entry, edited_plan
from framework.review._pending import checkpointer_of, thread_config, unknown_thread
from framework.review._rules import check_plan
from framework.review.points import REVIEW_NODES
from framework.runs.runner import new_thread_id as fresh_thread_id

__all__ = ["fork"]

App = CompiledStateGraph[Any, Any, Any, Any]


def _segments(checkpoint_ns: str) -> list[str]:
    return [part for part in checkpoint_ns.split("|") if part]


def _graph_at(app: App, checkpoint_ns: str) -> Pregel[Any, Any, Any, Any]:
    """The graph whose checkpoints live in ``checkpoint_ns``."""
    if not checkpoint_ns:
        return app
    names = "|".join(part.split(":")[0] for part in _segments(checkpoint_ns))
    for _, graph in app.get_subgraphs(namespace=names, recurse=True):
        if isinstance(graph, Pregel):
            return graph
    raise ReviewError(f"namespace {checkpoint_ns!r} names no subgraph of {app.get_name()!r}")


def _planning_node(graph: Pregel[Any, Any, Any, Any], where: str) -> tuple[str, str]:
    """The node an edited plan is applied as (the plan review if the team has one, else the
    planner, so the plan is routed as if it had just been made and reviewed), and its team."""
    for node in (REVIEW_NODES["plan"], "planner"):
        if node in graph.nodes:
            return node, str(getattr(graph.nodes[node].bound, "team", graph.get_name()))
    raise ReviewError(
        f"{where} is in graph {graph.get_name()!r}, which has no planner: fork from a "
        "checkpoint inside the team that plans (see history) to edit its plan"
    )


def _chain(checkpointer: BaseCheckpointSaver[Any], head: CheckpointTuple) -> list[CheckpointTuple]:
    """``head`` and its ancestors in its namespace, oldest first."""
    chain: list[CheckpointTuple] = [head]
    while chain[-1].parent_config is not None:
        parent = checkpointer.get_tuple(chain[-1].parent_config)
        if parent is None:
            break
        chain.append(parent)
    return chain[::-1]


def _copy_chain(
    checkpointer: BaseCheckpointSaver[Any],
    head: CheckpointTuple,
    target: str,
    keep_head_writes: Callable[[str], bool],
) -> None:
    """Copy ``head`` and its ancestors into thread ``target``; of the head's pending writes
    only those ``keep_head_writes(task_id)`` accepts."""
    namespace = head.config["configurable"].get("checkpoint_ns", "")
    head_id = head.checkpoint["id"]
    for saved in _chain(checkpointer, head):
        parent = saved.parent_config["configurable"] if saved.parent_config else {}
        config = thread_config(target, namespace)
        if parent.get("checkpoint_id"):
            config["configurable"]["checkpoint_id"] = parent["checkpoint_id"]
        versions = saved.checkpoint["channel_versions"]
        stored = checkpointer.put(config, saved.checkpoint, saved.metadata, dict(versions))
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in saved.pending_writes or []:
            if saved.checkpoint["id"] != head_id or keep_head_writes(task_id):
                by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():
            checkpointer.put_writes(stored, writes, task_id)


def _none(task_id: str) -> bool:
    return False


def _all_but(skipped: str) -> Callable[[str], bool]:
    return lambda task_id: task_id != skipped


def _copy(checkpointer: BaseCheckpointSaver[Any], source: CheckpointTuple, target: str) -> None:
    """Copy the source checkpoint (without its pending writes) and, for a subgraph checkpoint,
    each parent checkpoint it ran under (without the writes of the task that ran the child)."""
    thread_id = source.config["configurable"]["thread_id"]
    namespace = source.config["configurable"].get("checkpoint_ns", "")
    _copy_chain(checkpointer, source, target, _none)
    parents: dict[str, str] = dict(source.metadata.get("parents") or {})
    for parent_ns, parent_id in parents.items():
        depth = len(_segments(parent_ns))
        child_task = _segments(namespace)[depth].partition(":")[2]
        parent = checkpointer.get_tuple(
            {
                "configurable": {
                    "thread_id": thread_id,
                    "checkpoint_ns": parent_ns,
                    "checkpoint_id": parent_id,
                }
            }
        )
        if parent is None:
            raise ReviewError(
                f"the parent checkpoint {parent_id!r} of {source.checkpoint['id']!r} is gone"
            )
        _copy_chain(checkpointer, parent, target, _all_but(child_task))


def fork(
    app: App,
    thread_id: str,
    checkpoint_id: str,
    *,
    checkpoint_ns: str = "",
    plan: Plan | None = None,
    new_thread_id: str | None = None,
    reviewer: str = "",
) -> str:
    """Copy a thread's state at one checkpoint into a new thread, optionally with a new plan.

    The checkpoint may be a top-level one or one inside a subgraph (pass its namespace, as
    :func:`history` lists it). The original thread is unchanged. With ``plan``, tasks whose
    description, kind and inputs are unchanged keep their status and results, so continuing
    the new thread (``run_team(app, None, new_thread)``, or :func:`decide` when it pauses)
    reruns only the tasks the edit affects; the edit is recorded in the audit trail.

    Args:
        app: The compiled team the thread ran on, with its checkpointer.
        thread_id: The thread to fork.
        checkpoint_id: The checkpoint to fork from.
        checkpoint_ns: The checkpoint's namespace ("" at the top).
        plan: An edited plan to put in place at the fork.
        new_thread_id: The new thread's id (default: a fresh one).
        reviewer: Who forked, for the audit entry of the plan edit.

    Returns:
        The new thread's id.

    Raises:
        ReviewError: Unknown thread or checkpoint, an existing target thread, an invalid plan,
            or a plan edit at a checkpoint of a graph that does not plan. Nothing is written.
    """
    checkpointer = checkpointer_of(app)
    where = f"checkpoint {checkpoint_id!r} of thread {thread_id!r}"
    source = checkpointer.get_tuple(
        {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": checkpoint_ns,
                "checkpoint_id": checkpoint_id,
            }
        }
    )
    if source is None:
        if checkpointer.get_tuple(thread_config(thread_id)) is None:
            raise unknown_thread(thread_id)
        place = f" in namespace {checkpoint_ns!r}" if checkpoint_ns else ""
        raise ReviewError(f"no {where}{place}: pick one from history({thread_id!r})")
    target = new_thread_id or fresh_thread_id()
    if checkpointer.get_tuple(thread_config(target)) is not None:
        raise ReviewError(f"thread {target!r} already exists: fork into a new thread id")
    planning = None
    if plan is not None:
        plan = check_plan(plan, f"the plan for the fork of {where}")
        planning = _planning_node(_graph_at(app, checkpoint_ns), where)
    _copy(checkpointer, source, target)
    if plan is not None and planning is not None:
        as_node, team = planning
        config = thread_config(target, checkpoint_ns)
        update, diff = edited_plan(app.get_state(config).values, plan)
        path = [*(part.split(":")[0] for part in _segments(checkpoint_ns)), team]
        entry = audit_entry(
            "plan",
            "edit_plan",
            request_id=f"fork:{checkpoint_id}",
            reviewer=reviewer or "unknown",
            path=path,
            diff=diff,
            reason=f"fork of thread {thread_id} at checkpoint {checkpoint_id}",
        )
        app.update_state(config, {**update, "audit": [entry]}, as_node=as_node)
    return target
