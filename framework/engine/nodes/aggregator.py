"""The aggregator node: closes the dispatch, consolidates, and keeps the rolling summary.

The planner and reviewer read the rolling summary and the last changes, not the message log,
so a long review loop does not grow their input.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from framework.engine.records import Task, UsageRecord, WorkerResult
from framework.engine.roles import Aggregator
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState

__all__ = ["SUMMARY_LIMIT", "aggregator_body", "roll_summary"]

SUMMARY_LIMIT = 4000
"""Characters of rolling summary kept; the oldest rounds fall off first."""


def roll_summary(previous: str, note: str, limit: int = SUMMARY_LIMIT) -> str:
    """Append one round's note to the summary, dropping whole old lines past ``limit``."""
    lines = [*(previous.splitlines() if previous else []), note]
    while len(lines) > 1 and sum(len(line) + 1 for line in lines) > limit:
        lines.pop(0)
    return "\n".join(lines)[-limit:]


def _outcomes(ok: int, failed: int) -> dict[str, float]:
    """The dispatch's outcome counters, leaving out the zero ones."""
    return {name: count for name, count in (("tasks_ok", ok), ("tasks_failed", failed)) if count}


def _carried_usage(results: Iterable[WorkerResult | None]) -> dict[str, UsageRecord]:
    """The usage records the dispatch's results carry, filed in the team's ``usage`` so that
    a retry replacing a result keeps what the first attempt used."""
    return {key: record for result in results if result for key, record in result.usage.items()}


def aggregator_body(role: Aggregator) -> Any:
    """Return the body of the aggregator node for ``role``."""

    def body(state: TeamState, context: NodeContext) -> dict[str, Any]:
        results = state.get("worker_results") or {}
        closed: dict[str, Task] = {}
        for task_id, task in (state.get("tasks") or {}).items():
            if task.status != "running":
                continue
            result = results.get(task_id)
            status = "done" if result is not None and result.status == "ok" else "failed"
            closed[task_id] = task.model_copy(update={"status": status})
        merged: TeamState = {**state, "tasks": {**(state.get("tasks") or {}), **closed}}
        consolidated = role.consolidate(merged, context)
        unchanged = consolidated == state.get("consolidated")
        failed = sorted(t for t, task in closed.items() if task.status == "failed")
        note = (
            f"round {state.get('iteration', 0) + 1}: {len(closed) - len(failed)} tasks ok"
            + (f", failed: {', '.join(failed)}" if failed else "")
            + ("; findings unchanged" if unchanged else "; findings changed")
        )
        context.emit("aggregated", changed=sorted(closed), failed=failed, unchanged=unchanged)
        update: dict[str, Any] = {
            "tasks": closed,
            "consolidated": consolidated,
            "rolling_summary": roll_summary(state.get("rolling_summary", ""), note),
            "last_changes": sorted(closed),
            "stable_rounds": state.get("stable_rounds", 0) + 1 if unchanged else 0,
            "metrics": _outcomes(len(closed) - len(failed), len(failed)),
        }
        usage = _carried_usage(results.get(task_id) for task_id in closed)
        if usage:
            update["usage"] = usage
        return update

    return body
