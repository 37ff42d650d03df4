"""Workers by task kind: routing, per-kind caps, build-time checks, review of kinds, telemetry."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.engine.records import Plan, Task
from framework.engine.roles import Roles
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.engine.worker_kinds import WorkerKind, WorkerKinds, check_worker_kinds
from framework.errors import ConfigError, ReviewError
from framework.review import Decision, decide, pending
from tests.roles import (
    EchoFormatter,
    JoiningAggregator,
    OutputCurator,
    ProgrammableWorker,
    ScriptedReviewer,
)
from tests.test_telemetry import Recorder


@dataclass
class KindPlanner:
    """Plans one task per kind given, ``t0`` ``t1``..., and declares what it plans."""

    kinds: tuple[str, ...]
    declare: bool = True

    @property
    def task_kinds(self) -> frozenset[str] | None:
        return frozenset(self.kinds) if self.declare else None

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        tasks = [
            Task(id=f"t{i}", description=f"{kind} task", kind=kind)
            for i, kind in enumerate(self.kinds)
        ]
        return Plan(goal=state["question"], tasks=tasks)


def _roles(planner: Any, worker: Any) -> Roles:
    return Roles(
        planner=planner,
        worker=worker,
        aggregator=JoiningAggregator(),
        reviewer=ScriptedReviewer(),
        curator=OutputCurator(),
        formatter=EchoFormatter(),
    )


def _kinds(**workers: ProgrammableWorker) -> WorkerKinds:
    return WorkerKinds(WorkerKind(name=name, worker=w) for name, w in workers.items())


def _run(app: Any, mode: str, inputs: Any, thread: str = "k") -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread}}
    if mode == "sync":
        return app.invoke(inputs, config)  # type: ignore[no-any-return]
    return asyncio.run(app.ainvoke(inputs, config))  # type: ignore[no-any-return]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_each_task_goes_to_the_worker_of_its_kind(mode: str) -> None:
    search, table = ProgrammableWorker(), ProgrammableWorker()
    roles = _roles(KindPlanner(("search", "table", "search")), _kinds(search=search, table=table))
    final = _run(compile_team(build_team(roles)), mode, {"question": "q"})
    assert sorted(search.calls) == ["t0", "t2"]
    assert table.calls == ["t1"]
    assert {r.status for r in final["worker_results"].values()} == {"ok"}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_task_of_an_unknown_kind_fails_alone_naming_the_known_kinds(mode: str) -> None:
    search = ProgrammableWorker()
    planner = KindPlanner(("search", "sql"), declare=False)  # a model's plan: undeclared
    app = compile_team(build_team(_roles(planner, _kinds(search=search))))
    final = _run(app, mode, {"question": "q"})
    results = final["worker_results"]
    assert results["t0"].status == "ok"
    assert results["t1"].status == "failed"
    assert "kind 'sql'" in (results["t1"].error or "")
    assert "known kinds: search" in (results["t1"].error or "")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_kind_caps_its_own_tasks_in_flight(mode: str) -> None:
    slow = ProgrammableWorker(delay=0.02)
    fast = ProgrammableWorker()
    worker = WorkerKinds(
        [
            WorkerKind(name="slow", worker=slow, max_parallel=1),
            WorkerKind(name="fast", worker=fast),
        ]
    )
    planner = KindPlanner(("slow",) * 4 + ("fast",) * 4)
    final = _run(compile_team(build_team(_roles(planner, worker))), mode, {"question": "q"})
    assert len(final["worker_results"]) == 8
    assert slow.peak == 1
    assert len(slow.calls) == 4 and len(fast.calls) == 4


def test_the_dispatch_cap_counts_every_kind_together() -> None:
    """One worker behind two kinds counts the tasks of both: never more than the cap at once
    (the cap itself is proven to allow parallel work in the engine's tests)."""
    shared = ProgrammableWorker(delay=0.02)
    worker = WorkerKinds([WorkerKind(name="a", worker=shared), WorkerKind(name="b", worker=shared)])
    planner = KindPlanner(("a", "b") * 4)
    app = compile_team(build_team(_roles(planner, worker), TeamSettings(max_parallel=2)))
    final = _run(app, "sync", {"question": "q"})
    assert len(final["worker_results"]) == 8
    assert 1 <= shared.peak <= 2


def test_build_refuses_a_planned_kind_without_a_worker() -> None:
    with pytest.raises(ConfigError, match=r"plans tasks of kind table, which no worker takes"):
        build_team(_roles(KindPlanner(("search", "table")), _kinds(search=ProgrammableWorker())))


def test_build_refuses_a_worker_kind_no_planner_reaches() -> None:
    worker = _kinds(search=ProgrammableWorker(), sql=ProgrammableWorker())
    with pytest.raises(ConfigError, match=r"worker kind sql is never planned"):
        build_team(_roles(KindPlanner(("search",)), worker))


def test_a_single_worker_takes_any_kind_unchecked() -> None:
    worker = ProgrammableWorker()
    app = compile_team(build_team(_roles(KindPlanner(("x", "y")), worker)))
    final = _run(app, "sync", {"question": "q"})
    assert sorted(worker.calls) == ["t0", "t1"]
    assert {r.status for r in final["worker_results"].values()} == {"ok"}
    check_worker_kinds(KindPlanner(("x",)), worker)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: WorkerKinds([]), "at least one"),
        (
            lambda: _kinds(a=ProgrammableWorker()).__class__(
                [
                    WorkerKind(name="a", worker=ProgrammableWorker()),
                    WorkerKind(name="a", worker=ProgrammableWorker()),
                ]
            ),
            "more than once: a",
        ),
        (lambda: WorkerKind(name="Bad Kind", worker=ProgrammableWorker()), "not a kind name"),
        (lambda: WorkerKind(name="a", worker=object()), "is not a Worker"),  # type: ignore[arg-type]
        (
            lambda: WorkerKind(name="a", worker=ProgrammableWorker(), max_parallel=0),
            "max_parallel must be >= 1",
        ),
    ],
)
def test_bad_kinds_are_refused(make: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make()


def _edit(plan: Plan, request_id: str) -> Decision:
    return Decision(kind="edit_plan", plan=plan, request_id=request_id, reviewer="ann")


def test_review_shows_kinds_and_refuses_an_edit_to_an_unknown_kind() -> None:
    worker = _kinds(search=ProgrammableWorker(), table=ProgrammableWorker())
    roles = _roles(KindPlanner(("search", "table")), worker)
    app = compile_team(
        build_team(roles, TeamSettings(review=frozenset({"plan"}))), checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "r"}}
    app.invoke({"question": "q"}, config)
    [request] = pending(app, "r")
    assert request.task_kinds == ["search", "table"]
    assert [t.kind for t in request.tasks] == ["search", "table"]  # type: ignore[attr-defined]
    before = app.get_state(config).values
    bad = Plan(goal="q", tasks=[Task(id="t0", description="d", kind="sql")])
    with pytest.raises(ReviewError, match=r"kind 'sql', which no worker of this team takes"):
        decide(
            app, "r", [Decision(kind="edit_plan", plan=bad, request_id=request.id, reviewer="ann")]
        )
    assert app.get_state(config).values == before
    good = Plan(goal="q", tasks=[Task(id="t0", description="d", kind="table")])
    decide(app, "r", [_edit(good, request.id)])
    assert app.get_state(config).values["worker_results"]["t0"].status == "ok"


def test_task_spans_and_metrics_carry_the_kind() -> None:
    recorder = Recorder()
    worker = _kinds(search=ProgrammableWorker(), table=ProgrammableWorker())
    settings = TeamSettings(middleware=recorder.telemetry.middleware)
    app = compile_team(build_team(_roles(KindPlanner(("search", "table")), worker), settings))
    _run(app, "sync", {"question": "q"})
    kinds = {
        s.attributes["cadre.task.id"]: s.attributes["cadre.task.kind"]
        for s in recorder.finished()
        if s.attributes and "cadre.task.id" in s.attributes
    }
    assert kinds == {"t0": "search", "t1": "table"}
    finished = recorder.metrics()["cadre.tasks.finished"]
    assert sorted(p.attributes["cadre.task.kind"] for p in finished) == ["search", "table"]
    recorder.telemetry.close()


def test_command_resume_with_an_unknown_kind_is_refused_too() -> None:
    """A raw ``Command(resume=...)`` (not through the review API) is checked the same way."""
    worker = _kinds(search=ProgrammableWorker())
    roles = _roles(KindPlanner(("search",)), worker)
    app = compile_team(
        build_team(roles, TeamSettings(review=frozenset({"plan"}))), checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "c"}}
    app.invoke({"question": "q"}, config)
    [request] = pending(app, "c")
    plan = {"goal": "q", "tasks": [{"id": "t0", "description": "d", "kind": "sql"}]}
    resume = {"kind": "edit_plan", "plan": plan, "request_id": request.id, "reviewer": "ann"}
    with pytest.raises(ReviewError, match="kind 'sql'"):
        app.invoke(Command(resume=resume), config)
