"""The planner node: a plan replaces the task list; a direct answer skips the workers; a task a
reviewer rejected is not planned again in the same form."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from framework.engine.records import Plan, Task
from framework.engine.roles import Planner
from framework.engine.routing import ControlSignal
from framework.engine.runtime import NodeContext
from framework.engine.state import ResultReplacement, TaskReplacement, TeamState

__all__ = ["plan_signal", "planner_body", "without_rejected"]


def plan_signal(plan: Plan) -> ControlSignal:
    """Where a plan sends the team: to the workers, or straight to the answer."""
    return "answer" if plan.direct_answer is not None or not plan.tasks else "dispatch"


def _same(task: Task) -> tuple[str, str]:
    return task.kind, " ".join(task.description.lower().split())


def without_rejected(plan: Plan, state: TeamState) -> tuple[Plan, list[str]]:
    """``plan`` without the tasks a reviewer rejected in this team before (the same kind and
    description): a decision sticks, a re-plan does not ask it again. Also the ids dropped."""
    rejected = {
        _same(task) for task in (state.get("tasks") or {}).values() if task.status == "rejected"
    }
    if not rejected:
        return plan, []
    kept = [task for task in plan.tasks if _same(task) not in rejected]
    dropped = [task.id for task in plan.tasks if _same(task) in rejected]
    return plan.model_copy(update={"tasks": kept}), dropped


def _rejected(state: TeamState) -> dict[str, Task]:
    """The tasks a reviewer rejected, kept through a re-plan (never dispatched): the planner
    and the report still see them and why, and the plan after this one drops them too."""
    return {
        task_id: task
        for task_id, task in (state.get("tasks") or {}).items()
        if task.status == "rejected"
    }


def planner_body(role: Planner) -> Any:
    """Return the body of the planner node for ``role``."""

    def body(state: TeamState, context: NodeContext) -> dict[str, Any]:
        plan, dropped = without_rejected(Plan.model_validate(role.plan(state, context)), state)
        signal = plan_signal(plan)
        tasks = [{"id": t.id, "description": t.description} for t in plan.tasks]
        context.emit("plan", goal=plan.goal, tasks=tasks, dropped=dropped)
        note = f"plan: {len(plan.tasks)} tasks" if plan.tasks else "plan: answer directly"
        if dropped:
            note += f" ({len(dropped)} dropped: rejected by a reviewer before)"
        update: dict[str, Any] = {
            "plan": plan,
            "tasks": TaskReplacement(tasks={**_rejected(state), **{t.id: t for t in plan.tasks}}),
            "control_signal": signal,
            "messages": [AIMessage(note, name="planner")],
        }
        if state.get("worker_results"):
            update["worker_results"] = ResultReplacement(results={})
        if plan.direct_answer is not None:
            update["consolidated"] = plan.direct_answer
        return update

    return body
