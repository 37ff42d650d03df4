"""What the console shows of a thread, read from its state: the question, the plan, the tasks
with their results, the evidence with citations, the answer, the audit trail, the pending
reviews, the policy audit and usage, the history, the trace waterfall (from telemetry, when
installed), and its status in the words of ``cadre threads``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from langgraph.types import StateSnapshot

from framework.database.home import DataHome
from framework.engine.state import to_jsonable
from framework.policy.records import usage_totals
from framework.retention import STATUS_LABELS
from framework.review import decisions_in
from framework.review.api import requests_in
from framework.server._shapes import checkpoint_json

__all__ = [
    "STATUSES",
    "TRACE_ENTRY_POINTS",
    "Bar",
    "ThreadView",
    "thread_status",
    "thread_view",
    "trace_bars",
]

STATUSES: dict[str, str] = {
    "paused": STATUS_LABELS["paused"],
    "running": "running",
    "interrupted": STATUS_LABELS["interrupted"],
    "failed": STATUS_LABELS["failed"],
    "done": STATUS_LABELS["done"],
    "new": "no run yet",
}
"""What a thread is doing, in the words of ``cadre threads`` (``running``: a run of this
server executes it now, which the command line cannot tell from ``interrupted``)."""

TRACE_ENTRY_POINTS = "cadre.trace_trees"
"""Where the span trees of a thread come from (telemetry registers one)."""


@dataclass(frozen=True, kw_only=True)
class Bar:
    """One span of the waterfall: its depth, name, offset and length in percent of the trace."""

    depth: int
    name: str
    start_ms: float
    duration_ms: float
    left: float
    width: float
    failed: bool


@dataclass(frozen=True, kw_only=True)
class ThreadView:
    """A thread as the console shows it."""

    thread_id: str
    question: str = ""
    plan_goal: str = ""
    tasks: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    answer: str = ""
    audit: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    next: list[str] = field(default_factory=list)
    policy_audit: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)
    estimated_calls: float = 0
    started: bool = False


def thread_status(view: ThreadView, *, running: bool, failed: bool) -> str:
    """The key in :data:`STATUSES` of a thread: running here, paused at a review, its last run
    failed, nodes due with nothing to decide (a cancelled run, a static breakpoint), done, or
    no run yet."""
    if running:
        return "running"
    if view.reviews:
        return "paused"
    if failed:
        return "failed"
    if view.next:
        return "interrupted"
    return "done" if view.started else "new"


def thread_view(
    thread_id: str, snapshot: StateSnapshot | None, history: Sequence[StateSnapshot]
) -> ThreadView:
    """The view of a thread from its latest snapshot (with subgraphs) and its history."""
    if snapshot is None:
        return ThreadView(thread_id=thread_id)
    values: dict[str, Any] = to_jsonable(dict(snapshot.values))
    results: Mapping[str, Any] = values.get("worker_results") or {}
    tasks = [
        {**task, "result": results.get(task_id)}
        for task_id, task in (values.get("tasks") or {}).items()
    ]
    evidence = [
        {"task_id": task_id, "number": number, **item}
        for task_id, result in results.items()
        for number, item in enumerate(result.get("evidence") or [], start=1)
    ]
    plan = values.get("plan") or {}
    usage = usage_totals(snapshot.values)
    estimated = usage.pop("estimated_model_calls", 0)
    return ThreadView(
        thread_id=thread_id,
        question=str(values.get("question") or ""),
        plan_goal=str(plan.get("goal") or ""),
        tasks=tasks,
        evidence=evidence,
        answer=str(values.get("final_answer") or ""),
        audit=to_jsonable(decisions_in(snapshot)),
        reviews=[
            {**to_jsonable(request), "place": request.place}
            for request in requests_in(snapshot, thread_id)
        ],
        history=[_step(item) for item in history],
        next=list(snapshot.next),
        policy_audit=sorted(values.get("policy_audit") or [], key=lambda entry: entry["at"]),
        estimated_calls=estimated,
        usage=usage,
        started=snapshot.created_at is not None,
    )


def _step(snapshot: StateSnapshot) -> dict[str, Any]:
    checkpoint = checkpoint_json(snapshot.config) or {}
    metadata = dict(snapshot.metadata or {})
    return {
        "checkpoint_id": checkpoint.get("checkpoint_id"),
        "step": metadata.get("step"),
        "source": metadata.get("source"),
        "next": list(snapshot.next),
        "created_at": snapshot.created_at,
    }


def trace_bars(home: DataHome, thread_id: str) -> list[Bar]:
    """The thread's spans as waterfall bars (none without telemetry or traces)."""
    trees: list[dict[str, Any]] = []
    for point in entry_points(group=TRACE_ENTRY_POINTS):
        trees += point.load()(home, thread_id)
    rows: list[tuple[int, dict[str, Any]]] = []
    _flatten(trees, 0, rows)
    end = max((node["start_ms"] + node["duration_ms"] for _, node in rows), default=0.0) or 1.0
    return [
        Bar(
            depth=depth,
            name=str(node["name"]),
            start_ms=float(node["start_ms"]),
            duration_ms=float(node["duration_ms"]),
            left=100.0 * float(node["start_ms"]) / end,
            width=max(100.0 * float(node["duration_ms"]) / end, 0.3),
            failed=node.get("status") == "ERROR",
        )
        for depth, node in rows
    ]


def _flatten(nodes: Sequence[dict[str, Any]], depth: int, rows: list[tuple[int, Any]]) -> None:
    for node in nodes:
        rows.append((depth, node))
        _flatten(node.get("children") or [], depth + 1, rows)
