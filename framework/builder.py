"""``build_team``: a planner-workers-reviewer team as an uncompiled ``StateGraph``.

The application compiles once (:func:`compile_team`) with the checkpointer, store and
interrupts it chose. Wiring mistakes are refused here, before anything runs, with the fix.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from framework.concurrency import DispatchLimiter
from framework.errors import ConfigError
from framework.middleware import Middleware, check_middleware
from framework.nodes._node import TeamNode
from framework.nodes.aggregator import aggregator_body
from framework.nodes.closing import curator_body, formatter_body
from framework.nodes.dispatcher import WorkerInput, dispatcher_body, route_to_workers
from framework.nodes.planner import planner_body
from framework.nodes.reviewer import reviewer_body
from framework.nodes.worker import WorkerBodies
from framework.retrying import RetryPolicy
from framework.roles import Roles
from framework.routing import ControlSignal, read_signal
from framework.state import TeamState
from framework.stopping import IterationBound, StopRule

__all__ = [
    "NODES",
    "PLANNER_ROUTES",
    "REVIEWER_ROUTES",
    "TeamSettings",
    "build_team",
    "compile_team",
]

NODES = (
    "planner",
    "dispatcher",
    "worker",
    "aggregator",
    "reviewer",
    "memory_curator",
    "formatter",
)
PLANNER_ROUTES: Mapping[ControlSignal, str] = {"dispatch": "dispatcher", "answer": "formatter"}
REVIEWER_ROUTES: Mapping[ControlSignal, str] = {
    "dispatch": "dispatcher",
    "retry_workers": "dispatcher",
    "revise_plan": "planner",
    "finish": "memory_curator",
}


@dataclass(frozen=True, kw_only=True)
class TeamSettings:
    """How a team runs: its name, caps, retries, stop rules, middleware and routes."""

    name: str = "team"
    max_parallel: int | None = None
    max_iterations: int = 3
    retry: RetryPolicy | None = None
    stop_rules: tuple[StopRule, ...] = ()
    middleware: tuple[Middleware, ...] = ()
    planner_routes: Mapping[ControlSignal, str] = field(default_factory=lambda: PLANNER_ROUTES)
    reviewer_routes: Mapping[ControlSignal, str] = field(default_factory=lambda: REVIEWER_ROUTES)

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise ConfigError(f"max_iterations must be >= 1, got {self.max_iterations}")
        _check_routes("planner", self.planner_routes, PLANNER_ROUTES)
        _check_routes("reviewer", self.reviewer_routes, REVIEWER_ROUTES)
        for rule in self.stop_rules:
            if not isinstance(rule, StopRule):
                raise ConfigError(
                    f"stop rule {rule!r} has no name/check(state, verdict, iteration): "
                    "implement framework.stopping.StopRule"
                )
        check_middleware(self.middleware)


def _check_routes(
    router: str, routes: Mapping[ControlSignal, str], defaults: Mapping[ControlSignal, str]
) -> None:
    unknown_signals = sorted(set(routes) - set(defaults))
    if unknown_signals:
        raise ConfigError(
            f"{router} routes name signals {unknown_signals} it never emits; "
            f"use only {sorted(defaults)}"
        )
    missing = sorted(set(defaults) - set(routes))
    if missing:
        raise ConfigError(f"{router} routes lack targets for {missing}: map every signal to a node")
    for signal, target in routes.items():
        if target == "worker":
            raise ConfigError(
                f"{router} route {signal!r} -> 'worker': workers are reached only through the "
                "dispatcher's Send; route to 'dispatcher' instead"
            )
        if target not in NODES:
            raise ConfigError(
                f"{router} route {signal!r} -> {target!r}: unknown node; "
                f"choose one of {list(NODES)}"
            )


def build_team(
    roles: Roles,
    settings: TeamSettings | None = None,
    state_schema: type[Any] = TeamState,
) -> StateGraph[Any, Any, Any, Any]:
    """Build a team's graph from its roles; compile it with :func:`compile_team`."""
    if not isinstance(roles, Roles):
        raise ConfigError(f"build_team needs a Roles object, got {type(roles).__name__}")
    settings = settings or TeamSettings()
    team, chain = settings.name, settings.middleware
    workers = WorkerBodies(roles.worker, settings.retry)
    gate = (DispatchLimiter(settings.max_parallel), _dispatch_of)
    rules = (IterationBound(settings.max_iterations), *settings.stop_rules)
    bodies = {
        "planner": planner_body(roles.planner),
        "dispatcher": dispatcher_body,
        "aggregator": aggregator_body(roles.aggregator),
        "reviewer": reviewer_body(roles.reviewer, rules),
        "memory_curator": curator_body(roles.curator),
        "formatter": formatter_body(roles.formatter),
    }
    graph = StateGraph(state_schema)
    for name, body in bodies.items():
        graph.add_node(name, TeamNode(name, team, body, middleware=chain))
    graph.add_node(
        "worker", TeamNode("worker", team, workers.run, workers.arun, middleware=chain, gate=gate)
    )
    graph.add_edge(START, "planner")
    graph.add_conditional_edges(
        "planner", _router(("dispatch", "answer")), _path_map(settings.planner_routes)
    )
    graph.add_conditional_edges(
        "dispatcher", route_to_workers("worker", "aggregator"), ["worker", "aggregator"]
    )
    graph.add_edge("worker", "aggregator")
    graph.add_edge("aggregator", "reviewer")
    graph.add_conditional_edges(
        "reviewer",
        _router(("dispatch", "retry_workers", "revise_plan", "finish")),
        _path_map(settings.reviewer_routes),
    )
    graph.add_edge("memory_curator", "formatter")
    graph.add_edge("formatter", END)
    return graph


def _dispatch_of(payload: WorkerInput) -> str:
    return payload["dispatch_id"]


def _path_map(routes: Mapping[ControlSignal, str]) -> dict[Hashable, str]:
    return {signal: target for signal, target in routes.items()}


def _router(allowed: tuple[ControlSignal, ...]) -> Any:
    def route(state: Mapping[str, Any]) -> ControlSignal:
        return read_signal(state, allowed)

    return route


def compile_team(
    graph: StateGraph[Any, Any, Any, Any],
    *,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    store: BaseStore | None = None,
    interrupt_before: Iterable[str] = (),
    interrupt_after: Iterable[str] = (),
    name: str | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile a team graph, refusing interrupt points that name no node of the graph."""
    before, after = list(interrupt_before), list(interrupt_after)
    unknown = sorted(set(before + after) - set(graph.nodes))
    if unknown:
        raise ConfigError(
            f"interrupt points {unknown} name no node of this graph; "
            f"choose from {sorted(graph.nodes)}"
        )
    return graph.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=before or None,
        interrupt_after=after or None,
        name=name,
    )
