"""The supervisor's structured output: one of the three steps and a reason.

The step is a ``Literal``, so an answer naming any other step fails validation and the
routing rule decides instead (see :class:`teams.supervisor.supervisor.ModelSupervisor`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from teams.supervisor.state import Step

__all__ = ["RouteDecision"]


class RouteDecision(BaseModel):
    """The next step of the memory supervisor team, and why."""

    step: Step = Field(
        description="query_memory (look something up in the knowledge graph), draft_content "
        "(write the answer from what was found) or finish (end with the draft or with nothing)"
    )
    reason: str = Field(description="one line: why this step now")
