"""``build_supervisor_team``: a supervisor routing lookups in the knowledge graph and drafting.

```
START -> intake -> supervisor --query_memory--> query_memory --> supervisor
                     |  ^  \\--draft_content--> draft_content --------^
                     \\--finish--> finish -> END
```

The graph is returned uncompiled; compile it once with
:func:`framework.engine.builder.compile_team`.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from framework.engine.middleware import Middleware, check_middleware
from framework.engine.nodes.team_node import TeamNode
from framework.engine.roles import check_roles
from framework.errors import ConfigError
from framework.knowledge import KnowledgeGraph
from teams.supervisor.answer import finish_body
from teams.supervisor.draft_content import ModelWriter, TemplateWriter, Writer, draft_content_body
from teams.supervisor.prompts import DRAFTER_SYSTEM, SUPERVISOR_SYSTEM
from teams.supervisor.queries import intake_body
from teams.supervisor.query_memory import MemoryQuery, query_memory_body
from teams.supervisor.rules import DEFAULT_MAX_STEPS, RuleSupervisor
from teams.supervisor.state import STEPS, SupervisorState
from teams.supervisor.supervisor import ModelSupervisor, Supervisor, route_next, supervisor_body

__all__ = [
    "NODES",
    "SupervisorRoles",
    "SupervisorSettings",
    "build_supervisor_team",
    "model_roles",
    "offline_roles",
]

NODES = ("intake", "supervisor", "query_memory", "draft_content", "finish")


@dataclass(frozen=True, kw_only=True)
class SupervisorRoles:
    """The lookups and the two deciding roles of a memory supervisor team, checked when made.

    Raises:
        ConfigError: ``memory`` is not a :class:`MemoryQuery`, or a role lacks its method.
    """

    memory: MemoryQuery
    supervisor: Supervisor
    writer: Writer

    def __post_init__(self) -> None:
        if not isinstance(self.memory, MemoryQuery):
            raise ConfigError(
                f"memory is a {type(self.memory).__name__}: pass MemoryQuery(graph=...)"
            )
        check_roles(self, {"supervisor": Supervisor, "writer": Writer})


@dataclass(frozen=True, kw_only=True)
class SupervisorSettings:
    """Settings of a memory supervisor team, checked when made.

    Attributes:
        name: The team's name in events and spans.
        max_steps: Supervisor decisions before the team must finish; a run's input may
            change it with ``max_steps``.
        middleware: Wraps every node (telemetry, policies).
    """

    name: str = "supervisor"
    max_steps: int = DEFAULT_MAX_STEPS
    middleware: tuple[Middleware, ...] = ()

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ConfigError(f"max_steps must be >= 1, got {self.max_steps}")
        check_middleware(self.middleware)


def offline_roles(graph: KnowledgeGraph) -> SupervisorRoles:
    """The routing rule and the template writer over ``graph``: no model."""
    return SupervisorRoles(
        memory=MemoryQuery(graph=graph), supervisor=RuleSupervisor(), writer=TemplateWriter()
    )


def model_roles(
    model: BaseChatModel,
    graph: KnowledgeGraph,
    *,
    supervisor_prompt: str = SUPERVISOR_SYSTEM,
    drafter_prompt: str = DRAFTER_SYSTEM,
) -> SupervisorRoles:
    """The model's routing (the rule standing in when it fails) and drafting over ``graph``."""
    return SupervisorRoles(
        memory=MemoryQuery(graph=graph),
        supervisor=ModelSupervisor(model, supervisor_prompt),
        writer=ModelWriter(model, drafter_prompt),
    )


def build_supervisor_team(
    roles: SupervisorRoles, settings: SupervisorSettings | None = None
) -> StateGraph[SupervisorState, None, SupervisorState, SupervisorState]:
    """The memory supervisor team's graph (uncompiled).

    Raises:
        ConfigError: ``roles`` is not a :class:`SupervisorRoles`.
    """
    if not isinstance(roles, SupervisorRoles):
        raise ConfigError(
            f"build_supervisor_team needs SupervisorRoles, got {type(roles).__name__}: use "
            "offline_roles(graph) or model_roles(model, graph)"
        )
    settings = settings or SupervisorSettings()
    bodies = {
        "intake": intake_body(roles.memory.graph, settings.max_steps),
        "supervisor": supervisor_body(roles.supervisor, settings.max_steps),
        "query_memory": query_memory_body(roles.memory),
        "draft_content": draft_content_body(roles.writer),
        "finish": finish_body(),
    }
    graph = StateGraph(SupervisorState)
    for name, body in bodies.items():
        graph.add_node(name, TeamNode(name, settings.name, body, middleware=settings.middleware))
    graph.add_edge(START, "intake")
    graph.add_edge("intake", "supervisor")
    graph.add_conditional_edges("supervisor", route_next, list(STEPS))
    graph.add_edge("query_memory", "supervisor")
    graph.add_edge("draft_content", "supervisor")
    graph.add_edge("finish", END)
    return graph
