"""The supervisor: the offline rule or a model's structured choice, and the router after it.

A model's choice is validated twice: by the :class:`RouteDecision` schema (one of the three
steps, a reason) and by :func:`teams.supervisor.rules.unfit` (the step can run now). An
invalid answer, malformed output or a failed call makes the rule decide, and the decision
records why.
"""

from __future__ import annotations

from typing import Any, Protocol, cast, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.errors import GraphBubbleUp

from framework.engine.routing import read_step
from framework.engine.runtime import NodeContext
from framework.errors import brief
from teams.research.schemas import StructuredCall
from teams.supervisor.decision import RouteDecision
from teams.supervisor.prompts import SUPERVISOR_SYSTEM, supervisor_request
from teams.supervisor.rules import next_step_by_rule, step_bound, unfit
from teams.supervisor.state import STEPS, DecisionRecord, Step, SupervisorState

__all__ = ["ModelSupervisor", "Supervisor", "route_next", "supervisor_body"]


@runtime_checkable
class Supervisor(Protocol):
    """Chooses the next step; ``rule`` is what the routing rule would choose."""

    def decide(
        self, state: SupervisorState, rule: DecisionRecord, context: NodeContext
    ) -> DecisionRecord:
        """Return the next step and why."""
        ...


class ModelSupervisor:
    """Asks the model for the next step; the rule decides when the answer is unusable.

    Args:
        model: Any chat model with ``with_structured_output``.
        system: The system prompt (the registry's current ``supervisor`` prompt).
    """

    def __init__(self, model: BaseChatModel, system: str = SUPERVISOR_SYSTEM) -> None:
        self._ask = StructuredCall(model, RouteDecision, system)

    def decide(
        self, state: SupervisorState, rule: DecisionRecord, context: NodeContext
    ) -> DecisionRecord:
        """The model's step, or the rule's with the reason the model's was not taken."""
        try:
            answer = self._ask(supervisor_request(state, rule))
        except GraphBubbleUp:
            raise
        except Exception as error:  # invalid or malformed output, a failed call: the rule decides
            return DecisionRecord(step=rule["step"], reason=rule["reason"], fallback=brief(error))
        why_not = unfit(state, answer.step)
        if why_not is not None:
            return DecisionRecord(step=rule["step"], reason=rule["reason"], fallback=why_not)
        reason = " ".join(answer.reason.split()) or "no reason given"
        return DecisionRecord(step=answer.step, reason=reason, fallback=None)


def supervisor_body(supervisor: Supervisor, max_steps: int) -> Any:
    """The body of the supervisor node: the rule at the step bound, else ``supervisor``."""

    def body(state: SupervisorState, context: NodeContext) -> dict[str, Any]:
        rule = next_step_by_rule(state, max_steps)
        steps = state.get("steps", 0)
        at_bound = steps >= step_bound(state, max_steps)
        decision = rule if at_bound else supervisor.decide(state, rule, context)
        note = f"{decision['step']} ({decision['reason']})"
        if decision["fallback"]:
            note += f"; the rule decided because {decision['fallback']}"
        context.emit("next_step", **decision)
        return {
            "next_step": decision["step"],
            "steps": steps + 1,
            "decisions": [decision],
            "messages": [AIMessage(note, name="supervisor")],
        }

    return body


def route_next(state: SupervisorState) -> Step:
    """The step the supervisor chose (ConfigError when a node upstream wrote another)."""
    return cast(Step, read_step(state, STEPS))
