"""The planner node: a plan replaces the task list; a direct answer skips the workers."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from framework.engine.records import Plan
from framework.engine.roles import Planner
from framework.engine.routing import ControlSignal
from framework.engine.runtime import NodeContext
from framework.engine.state import ResultReplacement, TaskReplacement, TeamState

__all__ = ["plan_signal", "planner_body"]


def plan_signal(plan: Plan) -> ControlSignal:
    """Where a plan sends the team: to the workers, or straight to the answer."""
    return "answer" if plan.direct_answer is not None or not plan.tasks else "dispatch"


def planner_body(role: Planner) -> Any:
    """Return the body of the planner node for ``role``."""

    def body(state: TeamState, context: NodeContext) -> dict[str, Any]:
        plan = Plan.model_validate(role.plan(state, context))
        signal = plan_signal(plan)
        tasks = [{"id": t.id, "description": t.description} for t in plan.tasks]
        context.emit("plan", goal=plan.goal, tasks=tasks)
        note = f"plan: {len(plan.tasks)} tasks" if plan.tasks else "plan: answer directly"
        update: dict[str, Any] = {
            "plan": plan,
            "tasks": TaskReplacement(tasks={task.id: task for task in plan.tasks}),
            "control_signal": signal,
            "messages": [AIMessage(note, name="planner")],
        }
        if state.get("worker_results"):
            update["worker_results"] = ResultReplacement(results={})
        if plan.direct_answer is not None:
            update["consolidated"] = plan.direct_answer
        return update

    return body
