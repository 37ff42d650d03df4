"""The closing nodes: the memory curator and the formatter."""

from __future__ import annotations

from typing import Any

from framework.engine.records import MemoryFact
from framework.engine.roles import Curator, Formatter
from framework.engine.runtime import NodeContext
from framework.engine.spoken import spoken
from framework.engine.state import TeamState

__all__ = ["curator_body", "formatter_body"]


def curator_body(role: Curator) -> Any:
    """Return the body of the memory curator node for ``role``."""

    def body(state: TeamState, context: NodeContext) -> dict[str, Any]:
        facts = [MemoryFact.model_validate(fact) for fact in role.curate(state, context)]
        context.emit("memory", facts=len(facts))
        return {"memory_writes": facts, "metrics": {"facts_written": len(facts)}}

    return body


def formatter_body(role: Formatter) -> Any:
    """Return the body of the formatter node for ``role``."""

    def body(state: TeamState, context: NodeContext) -> dict[str, Any]:
        answer = role.format(state, context)
        context.emit("answer", chars=len(answer))
        message = spoken(answer, name="formatter", answer=not context.within())
        return {"final_answer": answer, "messages": [message]}

    return body
