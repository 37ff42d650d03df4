"""The memory supervisor team: a supervisor routing between querying the knowledge graph and
drafting an answer from what it found, citing the documents.

Its names load on first use, so that importing one of its modules (a command) imports
nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.supervisor.draft_content import Drafted, ModelWriter, TemplateWriter, Writer
    from teams.supervisor.graph import (
        NODES,
        SupervisorRoles,
        SupervisorSettings,
        build_supervisor_team,
        model_roles,
        offline_roles,
    )
    from teams.supervisor.query_memory import MemoryQuery
    from teams.supervisor.rules import RuleSupervisor, next_step_by_rule
    from teams.supervisor.state import STEPS, Step, SupervisorState
    from teams.supervisor.supervisor import ModelSupervisor, Supervisor

__all__ = [
    "NODES",
    "STEPS",
    "Drafted",
    "MemoryQuery",
    "ModelSupervisor",
    "ModelWriter",
    "RuleSupervisor",
    "Step",
    "Supervisor",
    "SupervisorRoles",
    "SupervisorSettings",
    "SupervisorState",
    "TemplateWriter",
    "Writer",
    "build_supervisor_team",
    "model_roles",
    "next_step_by_rule",
    "offline_roles",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "teams.supervisor.draft_content": (
            "Drafted",
            "ModelWriter",
            "TemplateWriter",
            "Writer",
        ),
        "teams.supervisor.graph": (
            "NODES",
            "SupervisorRoles",
            "SupervisorSettings",
            "build_supervisor_team",
            "model_roles",
            "offline_roles",
        ),
        "teams.supervisor.query_memory": ("MemoryQuery",),
        "teams.supervisor.rules": (
            "RuleSupervisor",
            "next_step_by_rule",
        ),
        "teams.supervisor.state": (
            "STEPS",
            "Step",
            "SupervisorState",
        ),
        "teams.supervisor.supervisor": (
            "ModelSupervisor",
            "Supervisor",
        ),
    },
)
