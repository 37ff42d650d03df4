"""``build_team``: a planner-workers-reviewer team as an uncompiled ``StateGraph``.

The application compiles once (:func:`compile_team`) with the checkpointer, store and
interrupts it chose. Wiring mistakes are refused here, before anything runs, with the fix.

A dispatch of more than :attr:`TeamSettings.dispatch_batch` tasks that cannot pause sends them
to the worker node in batches (:mod:`framework.engine.batching`).

Human review points (:attr:`TeamSettings.review`) add nodes that pause the run with a typed
request: ``plan_review`` after the planner on the dispatch route, ``task_review`` once per
pending task before the dispatcher, ``answer_review`` after the formatter. Nodes named in
:attr:`TeamSettings.review_nodes` ask for approval before they run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from framework.engine.concurrency import DispatchLimiter
from framework.engine.draining import DRAIN
from framework.engine.middleware import Middleware, check_middleware
from framework.engine.nodes.aggregator import aggregator_body
from framework.engine.nodes.closing import curator_body, formatter_body
from framework.engine.nodes.dispatcher import WorkerInput, dispatcher_body, route_to_workers
from framework.engine.nodes.planner import planner_body
from framework.engine.nodes.reviewer import reviewer_body
from framework.engine.nodes.team_node import AsyncBody, SyncBody, TeamNode
from framework.engine.nodes.worker import WorkerBodies
from framework.engine.records import Task
from framework.engine.retrying import RetryPolicy
from framework.engine.roles import Roles
from framework.engine.routing import ControlSignal, read_signal
from framework.engine.state import TeamState
from framework.engine.stopping import IterationBound, StopRule
from framework.engine.worker_kinds import check_worker_kinds, task_kinds_of
from framework.errors import ConfigError
from framework.review.points import (
    REVIEW_NODES,
    REVIEW_POINTS,
    answer_review_body,
    areviewed,
    check_review_settings,
    plan_review_body,
    reviewed,
    route_to_task_reviews,
    task_review_body,
)
from framework.review.records import ReviewKind

__all__ = [
    "NODES",
    "PLANNER_ROUTES",
    "REVIEWER_ROUTES",
    "REVIEW_POINTS",
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
_PLANNER_SIGNALS: tuple[ControlSignal, ...] = ("dispatch", "answer")
_REVIEWER_SIGNALS: tuple[ControlSignal, ...] = (
    "dispatch",
    "retry_workers",
    "revise_plan",
    "finish",
)


@dataclass(frozen=True, kw_only=True)
class TeamSettings:
    """How a team runs: its name, caps, retries, stop rules, middleware, routes and reviews.

    ``review`` turns on review points (``plan``, ``tasks``, ``answer``); ``review_nodes`` names
    nodes that ask a human for approval before they run. ``dispatch_batch`` is the most tasks
    one worker execution runs when a dispatch holds more than that many (1: one per task).
    """

    name: str = "team"
    max_parallel: int | None = None
    max_iterations: int = 3
    retry: RetryPolicy | None = None
    stop_rules: tuple[StopRule, ...] = ()
    middleware: tuple[Middleware, ...] = ()
    planner_routes: Mapping[ControlSignal, str] = field(default_factory=lambda: PLANNER_ROUTES)
    reviewer_routes: Mapping[ControlSignal, str] = field(default_factory=lambda: REVIEWER_ROUTES)
    review: frozenset[ReviewKind] = frozenset()
    review_nodes: tuple[str, ...] = ()
    dispatch_batch: int = 32

    def __post_init__(self) -> None:
        check_review_settings(self.review, self.review_nodes, NODES)
        object.__setattr__(self, "review", frozenset(self.review))
        object.__setattr__(self, "review_nodes", tuple(dict.fromkeys(self.review_nodes)))
        if self.max_iterations < 1:
            raise ConfigError(f"max_iterations must be >= 1, got {self.max_iterations}")
        if self.dispatch_batch < 1:
            raise ConfigError(f"dispatch_batch must be >= 1, got {self.dispatch_batch}")
        _check_routes("planner", self.planner_routes, PLANNER_ROUTES)
        _check_routes("reviewer", self.reviewer_routes, REVIEWER_ROUTES)
        for rule in self.stop_rules:
            if not isinstance(rule, StopRule):
                raise ConfigError(
                    f"stop rule {rule!r} has no name/check(state, verdict, iteration): "
                    "implement framework.engine.stopping.StopRule"
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
    check_worker_kinds(roles.planner, roles.worker)
    team, chain = settings.name, settings.middleware
    workers = WorkerBodies(roles.worker, settings.retry)
    kinds = sorted(task_kinds_of(roles.worker) or ())
    slots = (DispatchLimiter(settings.max_parallel, DRAIN.refuse_waiting), _dispatch_of)
    rules = (IterationBound(settings.max_iterations), *settings.stop_rules)
    bodies: dict[str, SyncBody] = {
        "planner": planner_body(roles.planner),
        "dispatcher": dispatcher_body,
        "aggregator": aggregator_body(roles.aggregator),
        "reviewer": reviewer_body(roles.reviewer, rules),
        "memory_curator": curator_body(roles.curator),
        "formatter": formatter_body(roles.formatter),
    }
    bodies.update({REVIEW_NODES[k]: _review_body(k, kinds) for k in sorted(settings.review)})
    run: SyncBody = workers.run
    arun: AsyncBody = workers.arun
    for name in settings.review_nodes:  # approval before the node's body
        if name == "worker":
            run, arun = reviewed(run), areviewed(arun)
        else:
            bodies[name] = reviewed(bodies[name])
    graph = StateGraph(state_schema)
    for name, body in bodies.items():
        graph.add_node(name, TeamNode(name, team, body, middleware=chain))
    worker = TeamNode(
        "worker",
        team,
        run,
        arun,
        middleware=chain,
        slots=slots,
        refusal=workers.refused,
        role=roles.worker,
        batches=True,
    )
    graph.add_node("worker", worker)
    reviews_tasks = "worker" in settings.review_nodes  # an approval per task: never batched
    _wire(graph, settings, None if reviews_tasks else worker.batchable)
    return graph


def _review_body(kind: ReviewKind, task_kinds: list[str]) -> SyncBody:
    """The body of a review point; plan and task reviews know the kinds the workers take."""
    if kind == "plan":
        return partial(plan_review_body, task_kinds=task_kinds)
    if kind == "tasks":
        return partial(task_review_body, task_kinds=task_kinds)
    return answer_review_body


def _wire(
    graph: StateGraph[Any, Any, Any, Any],
    settings: TeamSettings,
    batchable: Callable[[Task], bool] | None,
) -> None:
    """The team's edges, through the review points the settings turn on."""
    plan_review = REVIEW_NODES["plan"] if "plan" in settings.review else None
    task_review = REVIEW_NODES["tasks"] if "tasks" in settings.review else None
    answer_review = REVIEW_NODES["answer"] if "answer" in settings.review else None
    to_task_reviews = route_to_task_reviews(task_review, "dispatcher") if task_review else None
    planner_targets = _targets(settings.planner_routes, task_review)
    graph.add_edge(START, "planner")
    graph.add_conditional_edges(
        "planner",
        _router(_PLANNER_SIGNALS, settings.planner_routes, to_task_reviews, plan_review),
        [plan_review, *planner_targets] if plan_review else planner_targets,
    )
    if plan_review:  # then on as the planner would have gone
        graph.add_conditional_edges(
            plan_review,
            _router(_PLANNER_SIGNALS, settings.planner_routes, to_task_reviews),
            planner_targets,
        )
    if task_review:
        graph.add_edge(task_review, "dispatcher")
    graph.add_conditional_edges(
        "dispatcher",
        route_to_workers("worker", "aggregator", settings.dispatch_batch, batchable),
        ["worker", "aggregator"],
    )
    graph.add_edge("worker", "aggregator")
    graph.add_edge("aggregator", "reviewer")
    graph.add_conditional_edges(
        "reviewer",
        _router(_REVIEWER_SIGNALS, settings.reviewer_routes, to_task_reviews),
        _targets(settings.reviewer_routes, task_review),
    )
    graph.add_edge("memory_curator", "formatter")
    graph.add_edge("formatter", answer_review or END)
    if answer_review:
        graph.add_edge(answer_review, END)


def _dispatch_of(payload: WorkerInput) -> str:
    return payload["dispatch_id"]


def _targets(routes: Mapping[ControlSignal, str], task_review: str | None) -> list[str]:
    """Where a router may go: the route targets, and the task reviews before the dispatcher."""
    targets = list(dict.fromkeys(routes.values()))
    if task_review and "dispatcher" in targets:
        targets.append(task_review)
    return targets


def _router(
    allowed: tuple[ControlSignal, ...],
    routes: Mapping[ControlSignal, str],
    to_task_reviews: Callable[[Any], Any] | None = None,
    plan_review: str | None = None,
) -> Callable[[Mapping[str, Any]], Any]:
    """Route on the control signal. The dispatch signal goes to ``plan_review`` when given;
    the way into the dispatcher passes the task reviews (``to_task_reviews``) when they are on."""

    def route(state: Mapping[str, Any]) -> Any:
        signal = read_signal(state, allowed)
        if plan_review is not None and signal == "dispatch":
            return plan_review
        target = routes[signal]
        return (
            to_task_reviews(state)
            if to_task_reviews is not None and target == "dispatcher"
            else target
        )

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
