"""The team engine, exercised through compiled graphs in sync and async runs."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

from framework.engine.builder import (
    NODES,
    PLANNER_ROUTES,
    REVIEWER_ROUTES,
    TeamSettings,
    build_team,
    compile_team,
)
from framework.engine.middleware import NodeCall
from framework.engine.nodes.aggregator import SUMMARY_LIMIT, roll_summary
from framework.engine.nodes.dispatcher import route_to_workers
from framework.engine.records import MemoryFact, Plan, Provenance, ReviewVerdict, Task, WorkerResult
from framework.engine.roles import Roles
from framework.engine.state import TaskReplacement
from framework.errors import (
    ConfigError,
    OutageError,
    StorageFullError,
    TransientError,
    WorkerError,
)
from policies.reflection import ConfidenceReached, NoProgress
from policies.retry import transient_retry
from tests.roles import CountingPlanner, FailFirst, ProgrammableWorker, ScriptedReviewer, make_roles

QUESTION = "what is cadre?"
Graph = CompiledStateGraph[Any, Any, Any, Any]


def team(roles: Roles, **settings: Any) -> Graph:
    return compile_team(build_team(roles, TeamSettings(**settings)))


def run(graph: Graph, mode: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run a team once, with ``invoke`` or ``ainvoke``."""
    inputs = {"question": QUESTION}
    if mode == "sync":
        return graph.invoke(inputs, config)  # type: ignore[no-any-return]
    return asyncio.run(graph.ainvoke(inputs, config))  # type: ignore[no-any-return]


def collect(
    graph: Graph, mode: str, stream_mode: Any, config: dict[str, Any] | None = None
) -> list[Any]:
    """Every chunk a run streams, with ``stream`` or ``astream``."""
    inputs = {"question": QUESTION}
    if mode == "sync":
        return list(graph.stream(inputs, config, stream_mode=stream_mode))

    async def gather() -> list[Any]:
        return [chunk async for chunk in graph.astream(inputs, config, stream_mode=stream_mode)]

    return asyncio.run(gather())


def nodes_run(graph: Graph, mode: str) -> list[str]:
    """The nodes of a run, in the order their updates arrived."""
    return [node for chunk in collect(graph, mode, "updates") for node in chunk]


def retry(*task_ids: str, **inputs: dict[str, Any]) -> ReviewVerdict:
    return ReviewVerdict(
        decision="retry_workers", retry_task_ids=list(task_ids), retry_inputs=inputs
    )


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- routing --------------------------------------------------------------------------------


def test_planner_answer_goes_straight_to_the_formatter(mode: str) -> None:
    worker, reviewer = ProgrammableWorker(), ScriptedReviewer()
    roles = make_roles(CountingPlanner(n=3, direct_answer="42"), worker, reviewer)
    graph = team(roles)
    assert nodes_run(graph, mode) == ["planner", "formatter"]
    out = run(graph, mode)
    assert out["control_signal"] == "answer"
    assert out["final_answer"] == "ANSWER\n42"
    assert out["tasks"] == {}
    assert "worker_results" not in out or out["worker_results"] == {}
    assert worker.calls == []
    assert reviewer.seen == []


def test_planner_dispatch_runs_workers_then_review_and_closing(mode: str) -> None:
    worker = ProgrammableWorker()
    graph = team(make_roles(CountingPlanner(n=3), worker))
    assert nodes_run(graph, mode) == [
        "planner",
        "dispatcher",
        "worker",
        "worker",
        "worker",
        "aggregator",
        "reviewer",
        "memory_curator",
        "formatter",
    ]
    worker.calls.clear()
    out = run(graph, mode)
    assert sorted(worker.calls) == ["t0", "t1", "t2"]
    assert {t.status for t in out["tasks"].values()} == {"done"}
    assert out["consolidated"] == "t0:task 0\nt1:task 1\nt2:task 2"
    assert out["final_answer"] == "ANSWER\n" + out["consolidated"]
    assert out["reflection"].decision == "finish"
    assert out["iteration"] == 1
    assert [f.subject for f in out["memory_writes"]] == ["t0", "t1", "t2"]
    assert out["metrics"]["dispatches"] == 1
    assert out["metrics"]["tasks_ok"] == 3
    assert out["metrics"]["review_rounds"] == 1


def test_reviewer_dispatch_adds_and_runs_new_tasks(mode: str) -> None:
    worker = ProgrammableWorker()
    new = [Task(id="extra", description="dig deeper", status="done")]
    reviewer = ScriptedReviewer([ReviewVerdict(decision="dispatch", new_tasks=new)])
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer)), mode)
    assert sorted(worker.calls[:2]) == ["t0", "t1"]
    assert worker.calls[2:] == ["extra"], "only the new task runs in the second dispatch"
    assert sorted(out["tasks"]) == ["extra", "t0", "t1"]
    assert {t.status for t in out["tasks"].values()} == {"done"}
    assert out["worker_results"]["extra"].output == "extra:dig deeper"
    assert out["metrics"]["dispatches"] == 2
    assert out["iteration"] == 2
    assert reviewer.seen[1]["last_changes"] == ["extra"]


def test_reviewer_dispatch_of_known_tasks_only_finishes() -> None:
    worker = ProgrammableWorker()
    known = [Task(id="t0", description="again")]
    reviewer = ScriptedReviewer([ReviewVerdict(decision="dispatch", new_tasks=known)])
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer)), "sync")
    assert sorted(worker.calls) == ["t0", "t1"]
    assert out["reflection"].decision == "finish"
    assert "no new task to dispatch" in out["reflection"].reasons
    assert out["final_answer"].startswith("ANSWER")


def test_reviewer_retry_reruns_only_the_named_tasks(mode: str) -> None:
    worker = ProgrammableWorker()
    reviewer = ScriptedReviewer([retry("t1", t1={"query": "sharper"}, t2={"query": "ignored"})])
    out = run(team(make_roles(CountingPlanner(n=3), worker, reviewer)), mode)
    assert Counter(worker.calls) == {"t0": 1, "t1": 2, "t2": 1}
    first = reviewer.seen[0]["worker_results"]
    results = out["worker_results"]
    assert set(results) == {"t0", "t1", "t2"}
    assert results["t0"] == first["t0"]
    assert results["t2"] == first["t2"]
    assert results["t1"].output == "t1:sharper"
    assert results["t1"].attempt == 1
    assert out["tasks"]["t1"].attempt == 1
    assert out["tasks"]["t1"].inputs == {"query": "sharper"}
    assert out["tasks"]["t1"].status == "done"
    assert out["tasks"]["t2"].attempt == 0
    assert out["tasks"]["t2"].inputs == {}
    assert out["metrics"]["tasks_dispatched"] == 4


def test_reviewer_revise_plan_runs_the_planner_again(mode: str) -> None:
    planner, worker = CountingPlanner(n=2, replan_n=3), ProgrammableWorker()
    reviewer = ScriptedReviewer([ReviewVerdict(decision="revise_plan", reasons=["too narrow"])])
    out = run(team(make_roles(planner, worker, reviewer)), mode)
    assert planner.calls == 2
    assert sorted(out["tasks"]) == ["r2-0", "r2-1", "r2-2"], "the re-plan replaced the tasks"
    assert {t.status for t in out["tasks"].values()} == {"done"}
    assert sorted(worker.calls) == ["r2-0", "r2-1", "r2-2", "t0", "t1"]
    assert [t.id for t in out["plan"].tasks] == ["r2-0", "r2-1", "r2-2"]
    assert reviewer.seen[1]["last_changes"] == ["r2-0", "r2-1", "r2-2"]
    assert out["iteration"] == 2


def test_reviewer_finish_curates_then_formats(mode: str) -> None:
    reviewer = ScriptedReviewer([ReviewVerdict(decision="finish", confidence=0.7)])
    out = run(team(make_roles(CountingPlanner(n=2), reviewer=reviewer), name="research"), mode)
    assert len(reviewer.seen) == 1
    assert out["reflection"].confidence == 0.7
    assert out["reflection"].forced_by is None
    assert out["control_signal"] == "finish"
    assert [f.object for f in out["memory_writes"]] == ["t0:task 0", "t1:task 1"]
    assert out["metrics"]["facts_written"] == 2
    assert out["messages"][-1].content == out["final_answer"]
    assert out["messages"][-1].name == "formatter"


def test_the_answer_is_spoken_in_chunks_to_whoever_follows_the_messages(mode: str) -> None:
    graph = team(make_roles(CountingPlanner(n=2)), name="research")
    chunks = collect(graph, mode, ["messages", "values"])
    streamed = [c[1][0] for c in chunks if c[0] == "messages"]
    final = [c[1] for c in chunks if c[0] == "values"][-1]
    answer = final["messages"][-1]
    pieces = [m.content for m in streamed if isinstance(m, AIMessageChunk) and m.id == answer.id]
    assert len(pieces) > 1 and "".join(pieces) == final["final_answer"] == answer.content
    assert answer.name == "formatter"
    assert run(graph, mode)["messages"][-1].content == final["final_answer"]  # unfollowed


@pytest.mark.parametrize(
    "stop",
    [
        OutageError("the provider gave up after 3 attempts: continue with resume"),
        StorageFullError("the database server at URL ran out of disk space (SQLSTATE 53100)"),
    ],
    ids=["outage", "full disk"],
)
def test_an_outage_stops_the_run_keeping_finished_tasks_and_resume_runs_what_failed(
    mode: str, stop: Exception
) -> None:
    outages: list[str] = []

    def fail(task: Task) -> BaseException | None:
        if task.id == "t1" and not outages:
            outages.append(task.id)
            return stop
        return None

    def after_siblings(worker: ProgrammableWorker, task: Task) -> bool:
        return task.id != "t1" or (len(worker.calls) >= 3 and worker.active == 1)

    worker = ProgrammableWorker(fail=fail, until=after_siblings)
    roles = make_roles(CountingPlanner(n=3), worker)
    graph = compile_team(build_team(roles, TeamSettings()), checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": f"outage-{mode}"}}
    with pytest.raises(type(stop), match=re.escape(str(stop))):
        run(graph, mode, config)
    stopped = graph.get_state(config)
    assert stopped.next == ("worker",)  # it stopped at the workers, not at an answer
    assert "final_answer" not in stopped.values
    resumed = (
        graph.invoke(None, config) if mode == "sync" else asyncio.run(graph.ainvoke(None, config))
    )
    assert sorted(worker.calls) == ["t0", "t1", "t1", "t2"]  # only the task that failed again
    assert {r.status for r in resumed["worker_results"].values()} == {"ok"}
    assert resumed["final_answer"]
    assert not worker.gave_up


def test_retry_naming_no_finished_task_falls_back_to_finish() -> None:
    worker = ProgrammableWorker()
    reviewer = ScriptedReviewer([retry("ghost"), retry("t0")])
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer)), "sync")
    assert len(reviewer.seen) == 1
    assert sorted(worker.calls) == ["t0", "t1"]
    verdict = out["reflection"]
    assert verdict.decision == "finish"
    assert verdict.retry_task_ids == ["ghost"]
    assert "no finished task among those named to retry" in verdict.reasons
    assert out["final_answer"].startswith("ANSWER")


def test_dispatcher_with_nothing_to_run_goes_to_the_aggregator() -> None:
    route = route_to_workers("worker", "aggregator")
    done = Task(id="a", description="d", status="done")
    assert route({"tasks": {"a": done}}, {}) == "aggregator"
    sends = route({"tasks": {"a": done.model_copy(update={"status": "running"})}}, {})
    assert [send.node for send in sends] == ["worker"]


# --- fan-out --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 10, 100])
def test_fan_out_gives_every_task_exactly_one_result(mode: str, n: int) -> None:
    worker = ProgrammableWorker()
    out = run(team(make_roles(CountingPlanner(n=n), worker)), mode)
    ids = {f"t{i}" for i in range(n)}
    assert Counter(worker.calls) == dict.fromkeys(ids, 1)
    assert set(out["worker_results"]) == ids
    assert all(r.task_id == t and r.status == "ok" for t, r in out["worker_results"].items())
    assert {t.status for t in out["tasks"].values()} == {"done"}
    assert out["metrics"]["tasks_dispatched"] == n
    assert out["metrics"]["tasks_ok"] == n
    assert len(out["consolidated"].splitlines()) == n


# --- concurrency caps -----------------------------------------------------------------------


@pytest.mark.parametrize("cap", [1, 3])
def test_max_parallel_caps_the_workers(mode: str, cap: int) -> None:
    # Each task waits until `cap` run at once: reaching the cap does not depend on how soon
    # the machine schedules the siblings; the short delay after gives an excess a chance.
    worker = ProgrammableWorker(delay=0.02, until=lambda w, _: w.peak >= cap)
    graph = team(make_roles(CountingPlanner(n=8), worker), max_parallel=cap)
    out = run(graph, mode, {"max_concurrency": 16})
    assert worker.gave_up == []
    assert worker.peak == cap
    assert len(out["worker_results"]) == 8


def test_max_parallel_none_is_unbounded(mode: str) -> None:
    worker = ProgrammableWorker(until=lambda w, _: w.peak >= 10)  # all ten at once, or none
    graph = team(make_roles(CountingPlanner(n=10), worker), max_parallel=None)
    run(graph, mode, {"max_concurrency": 16})
    assert worker.gave_up == []
    assert worker.peak == 10


def test_max_parallel_applies_per_dispatch_again_on_retry(mode: str) -> None:
    # A task waits until two tasks of its dispatch (its attempt) have run at once: both
    # dispatches reach the cap whatever the machine's load; the short delay after gives an
    # excess a chance to show.
    reached: dict[int, int] = {}
    lock = threading.Lock()

    def until(w: ProgrammableWorker, task: Task) -> bool:
        with lock:
            reached[task.attempt] = max(reached.get(task.attempt, 0), w.active)
            return reached[task.attempt] >= 2

    worker = ProgrammableWorker(delay=0.02, until=until)
    reviewer = ScriptedReviewer([retry("t0", "t1", "t2", "t3")])
    graph = team(make_roles(CountingPlanner(n=4), worker, reviewer), max_parallel=2)
    out = run(graph, mode, {"max_concurrency": 16})
    assert worker.gave_up == []
    assert worker.peak == 2
    assert reached == {0: 2, 1: 2}
    assert len(worker.calls) == 8
    assert {r.attempt for r in out["worker_results"].values()} == {1}


# --- partial failure ------------------------------------------------------------------------


def test_partial_failure_keeps_every_sibling(mode: str) -> None:
    # t2 fails once all five tasks run; its siblings finish only after it failed. Conditions,
    # not sleeps, order them, so the failure comes while every sibling is running.
    active_at_failure: list[int] = []

    def fail(task: Task) -> BaseException | None:
        if task.id != "t2":
            return None
        active_at_failure.append(worker.active)
        return RuntimeError("boom")

    def until(w: ProgrammableWorker, task: Task) -> bool:
        return w.active == 5 if task.id == "t2" else bool(active_at_failure)

    worker = ProgrammableWorker(fail=fail, until=until)
    graph = team(make_roles(CountingPlanner(n=5), worker))
    chunks = collect(graph, mode, ["custom", "values"], {"max_concurrency": 16})
    events = [data["event"] for kind, data in chunks if kind == "custom"]
    out = [data for kind, data in chunks if kind == "values"][-1]

    assert worker.gave_up == []
    assert active_at_failure == [5], "t2 failed while its four siblings were running"
    finished = [e for e in events if e in ("task_done", "task_failed")]
    assert Counter(finished) == {"task_done": 4, "task_failed": 1}
    results = out["worker_results"]
    assert set(results) == {"t0", "t1", "t2", "t3", "t4"}
    failed = results["t2"]
    assert isinstance(failed, WorkerResult)
    assert failed.status == "failed"
    assert failed.error == "RuntimeError: boom"
    assert failed.output == ""
    assert {t: r.status for t, r in results.items() if t != "t2"} == dict.fromkeys(
        ["t0", "t1", "t3", "t4"], "ok"
    )
    assert out["tasks"]["t2"].status == "failed"
    assert out["metrics"]["tasks_failed"] == 1
    assert out["metrics"]["tasks_ok"] == 4
    assert "failed: t2" in out["rolling_summary"]
    assert out["final_answer"] == "ANSWER\nt0:task 0\nt1:task 1\nt3:task 3\nt4:task 4"


@dataclass
class SloppyWorker(ProgrammableWorker):
    """Answers t0 with a result that fails validation, like a model's malformed output."""

    def _result(self, task: Task) -> WorkerResult:
        if task.id == "t0":
            return {"task_id": "t0", "status": "maybe", "confidence": 3}  # type: ignore[return-value]
        return super()._result(task)


def test_an_invalid_worker_result_fails_only_its_task(mode: str) -> None:
    worker = SloppyWorker(delay=lambda t: 0.0 if t.id == "t0" else 0.05)
    out = run(team(make_roles(CountingPlanner(n=3), worker)), mode)
    assert out["worker_results"]["t0"].status == "failed"
    assert out["worker_results"]["t0"].error.startswith("ValidationError: 2 validation errors")
    assert [out["worker_results"][t].status for t in ("t1", "t2")] == ["ok", "ok"]
    assert out["final_answer"] == "ANSWER\nt1:task 1\nt2:task 2"


def test_a_reviewer_retry_replaces_a_failed_result(mode: str) -> None:
    flaky = FailFirst(lambda: WorkerError("flaky source"), times=1, task_ids=frozenset({"t1"}))
    worker = ProgrammableWorker(fail=flaky)
    reviewer = ScriptedReviewer([retry("t1")])
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer)), mode)
    assert reviewer.seen[0]["worker_results"]["t1"].status == "failed"
    assert out["worker_results"]["t1"].status == "ok"
    assert out["worker_results"]["t1"].error is None
    assert out["worker_results"]["t1"].attempt == 1
    assert out["tasks"]["t1"].status == "done"
    assert len(out["worker_results"]) == 2
    assert out["metrics"]["tasks_failed"] == 1
    assert out["metrics"]["tasks_ok"] == 2


# --- transient retries ----------------------------------------------------------------------

FAST_RETRY = transient_retry(initial_interval=0.001, jitter=False)


@pytest.mark.parametrize(
    "error", [lambda: TransientError("rate limited"), lambda: ConnectionError("reset")]
)
def test_transient_errors_are_retried(mode: str, error: Callable[[], BaseException]) -> None:
    flaky = FailFirst(error, times=2, task_ids=frozenset({"t1"}))
    worker = ProgrammableWorker(fail=flaky)
    out = run(team(make_roles(CountingPlanner(n=3), worker), retry=FAST_RETRY), mode)
    assert Counter(worker.calls) == {"t0": 1, "t1": 3, "t2": 1}
    assert out["worker_results"]["t1"].status == "ok"
    assert out["worker_results"]["t1"].attempt == 0, "a retry is not a new task attempt"
    assert out["metrics"]["retries"] == 2
    assert out["metrics"]["tasks_ok"] == 3
    assert "tasks_failed" not in out["metrics"]


def test_transient_errors_past_max_attempts_become_a_failed_result(mode: str) -> None:
    flaky = FailFirst(lambda: ConnectionError("reset"), times=10, task_ids=frozenset({"t0"}))
    worker = ProgrammableWorker(fail=flaky)
    out = run(team(make_roles(CountingPlanner(n=2), worker), retry=FAST_RETRY), mode)
    assert Counter(worker.calls) == {"t0": 3, "t1": 1}
    assert out["worker_results"]["t0"].status == "failed"
    assert out["worker_results"]["t0"].error == "ConnectionError: reset"
    assert out["metrics"]["retries"] == 2
    assert out["metrics"]["tasks_failed"] == 1


def test_value_error_is_not_retried(mode: str) -> None:
    flaky = FailFirst(lambda: ValueError("bad input"), times=1, task_ids=frozenset({"t0"}))
    worker = ProgrammableWorker(fail=flaky)
    out = run(team(make_roles(CountingPlanner(n=2), worker), retry=FAST_RETRY), mode)
    assert Counter(worker.calls) == {"t0": 1, "t1": 1}
    assert out["worker_results"]["t0"].status == "failed"
    assert out["worker_results"]["t0"].error == "ValueError: bad input"
    assert "retries" not in out["metrics"]


def test_without_a_policy_nothing_is_retried(mode: str) -> None:
    flaky = FailFirst(lambda: TransientError("later"), times=1, task_ids=frozenset({"t0"}))
    worker = ProgrammableWorker(fail=flaky)
    out = run(team(make_roles(CountingPlanner(n=2), worker)), mode)
    assert Counter(worker.calls) == {"t0": 1, "t1": 1}
    assert out["worker_results"]["t0"].status == "failed"
    assert out["worker_results"]["t0"].error == "TransientError: later"
    assert "retries" not in out["metrics"]


# --- stop rules -----------------------------------------------------------------------------


def test_iteration_bound_forces_finish(mode: str) -> None:
    worker = ProgrammableWorker()
    reviewer = ScriptedReviewer([retry("t0", t0={"query": f"q{i}"}) for i in range(10)])
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer), max_iterations=2), mode)
    assert len(reviewer.seen) == 2
    assert out["iteration"] == 2
    verdict = out["reflection"]
    assert verdict.decision == "finish"
    assert verdict.forced_by == "iteration_bound"
    assert "reached the bound of 2 review rounds" in verdict.reasons
    assert Counter(worker.calls) == {"t0": 2, "t1": 1}
    assert out["final_answer"].startswith("ANSWER")


def test_confidence_reached_forces_finish() -> None:
    worker = ProgrammableWorker()
    verdict = retry("t0").model_copy(update={"confidence": 0.95})
    reviewer = ScriptedReviewer([verdict])
    rules = (ConfidenceReached(0.9),)
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer), stop_rules=rules), "sync")
    assert out["reflection"].decision == "finish"
    assert out["reflection"].forced_by == "confidence_threshold"
    assert "confidence 0.95 reached the threshold 0.90" in out["reflection"].reasons
    assert Counter(worker.calls) == {"t0": 1, "t1": 1}


def test_confidence_below_the_threshold_goes_on() -> None:
    worker = ProgrammableWorker()
    verdict = retry("t0").model_copy(update={"confidence": 0.5})
    reviewer = ScriptedReviewer([verdict])
    rules = (ConfidenceReached(0.9),)
    out = run(team(make_roles(CountingPlanner(n=2), worker, reviewer), stop_rules=rules), "sync")
    assert Counter(worker.calls) == {"t0": 2, "t1": 1}
    assert out["reflection"].forced_by is None
    assert len(reviewer.seen) == 2


def test_no_progress_finishes_after_unchanged_rounds(mode: str) -> None:
    worker = ProgrammableWorker()
    reviewer = ScriptedReviewer([retry("t0") for _ in range(10)])
    roles = make_roles(CountingPlanner(n=2), worker, reviewer)
    out = run(team(roles, max_iterations=10, stop_rules=(NoProgress(2),)), mode)
    assert [s.get("stable_rounds") for s in reviewer.seen] == [0, 1, 2]
    assert out["iteration"] == 3
    assert out["reflection"].forced_by == "no_progress"
    assert "findings unchanged for 2 rounds" in out["reflection"].reasons
    assert Counter(worker.calls) == {"t0": 3, "t1": 1}


def test_no_progress_does_not_fire_while_results_change() -> None:
    worker = ProgrammableWorker()
    reviewer = ScriptedReviewer([retry("t0", t0={"query": f"q{i}"}) for i in range(10)])
    roles = make_roles(CountingPlanner(n=2), worker, reviewer)
    out = run(team(roles, max_iterations=4, stop_rules=(NoProgress(1),)), "sync")
    assert [s.get("stable_rounds") for s in reviewer.seen] == [0, 0, 0, 0]
    assert out["reflection"].forced_by == "iteration_bound"
    assert worker.calls.count("t0") == 4


def test_a_reviewer_finish_is_never_overridden_by_rules() -> None:
    reviewer = ScriptedReviewer([ReviewVerdict(decision="finish", confidence=0.99)])
    rules = (ConfidenceReached(0.5),)
    out = run(team(make_roles(reviewer=reviewer), max_iterations=1, stop_rules=rules), "sync")
    assert out["reflection"].forced_by is None
    assert out["reflection"].reasons == []


def test_stop_rule_thresholds_are_validated() -> None:
    with pytest.raises(ConfigError, match=r"confidence threshold must be in \[0, 1\]"):
        ConfidenceReached(1.5)
    with pytest.raises(ConfigError, match="no-progress rounds must be >= 1"):
        NoProgress(0)


# --- rolling summary ------------------------------------------------------------------------


def test_roll_summary_appends_and_drops_old_lines() -> None:
    assert roll_summary("", "one") == "one"
    summary = ""
    for i in range(10):
        summary = roll_summary(summary, f"line {i:03}", limit=30)
        assert len(summary) <= 30
    assert summary.splitlines() == ["line 007", "line 008", "line 009"]


def test_roll_summary_cuts_a_note_longer_than_the_limit() -> None:
    assert roll_summary("old", "x" * 50, limit=10) == "x" * 10
    assert SUMMARY_LIMIT > 0
    long = roll_summary("", "y" * (SUMMARY_LIMIT * 2))
    assert len(long) == SUMMARY_LIMIT


def test_reviewer_sees_the_rolling_summary_and_last_changes(mode: str) -> None:
    reviewer = ScriptedReviewer([retry("t1", t1={"query": "more"}), retry("t1")])
    run(team(make_roles(CountingPlanner(n=3), reviewer=reviewer)), mode)
    summaries = [s["rolling_summary"] for s in reviewer.seen]
    assert summaries[0] == "round 1: 3 tasks ok; findings changed"
    assert summaries[1] == summaries[0] + "\nround 2: 1 tasks ok; findings changed"
    assert summaries[2] == summaries[1] + "\nround 3: 1 tasks ok; findings unchanged"
    assert [s["last_changes"] for s in reviewer.seen] == [["t0", "t1", "t2"], ["t1"], ["t1"]]


# --- build-time validation ------------------------------------------------------------------


class RunOnlyWorker:
    def run(self, task: Task, question: str, context: Any) -> WorkerResult:
        return WorkerResult(task_id=task.id, status="ok")


def _roles(**override: Any) -> Roles:
    return dataclasses.replace(make_roles(), **override)


BAD_BUILDS: list[tuple[str, Callable[[], Any], str]] = [
    ("missing role", lambda: _roles(reviewer=None), r"role 'reviewer' is missing: pass Roles"),
    (
        "role without methods",
        lambda: _roles(planner=object()),
        r"role 'planner' is a object, which lacks the Planner methods \['plan'\]",
    ),
    (
        "worker without arun",
        lambda: _roles(worker=RunOnlyWorker()),
        r"lacks the Worker methods \['run', 'arun'\]",
    ),
    (
        "not a Roles",
        lambda: build_team(object()),  # type: ignore[arg-type]
        "build_team needs a Roles object, got object",
    ),
    (
        "unknown route target",
        lambda: TeamSettings(reviewer_routes={**REVIEWER_ROUTES, "finish": "archive"}),
        r"reviewer route 'finish' -> 'archive': unknown node; choose one of",
    ),
    (
        "unknown signal",
        lambda: TeamSettings(planner_routes={**PLANNER_ROUTES, "finish": "formatter"}),
        r"planner routes name signals \['finish'\] it never emits",
    ),
    (
        "missing signal",
        lambda: TeamSettings(
            reviewer_routes={k: v for k, v in REVIEWER_ROUTES.items() if k != "revise_plan"}
        ),
        r"reviewer routes lack targets for \['revise_plan'\]: map every signal",
    ),
    (
        "bad interrupt point",
        lambda: compile_team(build_team(make_roles()), interrupt_before=["reveiwer"]),
        r"interrupt points \['reveiwer'\] name no node of this graph; choose from",
    ),
    (
        "bad interrupt_after point",
        lambda: compile_team(build_team(make_roles()), interrupt_after=["ghost"]),
        r"interrupt points \['ghost'\]",
    ),
    (
        "max_parallel=0",
        lambda: build_team(make_roles(), TeamSettings(max_parallel=0)),
        r"max_parallel must be >= 1 or None \(unbounded\), got 0",
    ),
    (
        "max_iterations=0",
        lambda: TeamSettings(max_iterations=0),
        "max_iterations must be >= 1, got 0",
    ),
    (
        "not a stop rule",
        lambda: TeamSettings(stop_rules=(object(),)),  # type: ignore[arg-type]
        r"implement framework\.engine\.stopping\.StopRule",
    ),
    (
        "not a middleware",
        lambda: TeamSettings(middleware=(object(),)),  # type: ignore[arg-type]
        r"lacks wrap\(\)/awrap\(\): implement framework\.engine\.middleware\.Middleware",
    ),
]


@pytest.mark.parametrize(
    ("build", "message"), [(b, m) for _, b, m in BAD_BUILDS], ids=[i for i, _, _ in BAD_BUILDS]
)
def test_wiring_mistakes_are_refused_at_build_time(build: Callable[[], Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build()


def test_valid_custom_routes_and_interrupts_build() -> None:
    routes = {**REVIEWER_ROUTES, "revise_plan": "memory_curator"}
    graph = build_team(make_roles(), TeamSettings(reviewer_routes=routes))
    compiled = compile_team(graph, interrupt_before=["reviewer"], interrupt_after=["planner"])
    assert set(NODES) <= set(compiled.get_graph().nodes)


# --- middleware -----------------------------------------------------------------------------


@dataclass
class Recorder:
    """Logs every node it wraps, the method used, and the update the node returned."""

    label: str
    log: list[tuple[str, str, str]]
    updates: list[tuple[str, Any]] = field(default_factory=list)
    calls: list[NodeCall] = field(default_factory=list)

    def wrap(self, call: NodeCall, proceed: Callable[[], Any]) -> Any:
        self.calls.append(call)
        self.log.append((self.label, "enter sync", call.node))
        update = proceed()
        self.log.append((self.label, "exit", call.node))
        self.updates.append((call.node, update))
        return update

    async def awrap(self, call: NodeCall, proceed: Callable[[], Awaitable[Any]]) -> Any:
        self.calls.append(call)
        self.log.append((self.label, "enter async", call.node))
        update = await proceed()
        self.log.append((self.label, "exit", call.node))
        self.updates.append((call.node, update))
        return update


def _collapse(nodes: list[str]) -> list[str]:
    return [n for i, n in enumerate(nodes) if i == 0 or nodes[i - 1] != n]


def _in_order(updates: list[tuple[str, Any]]) -> tuple[list[Any], list[Any]]:
    """The sequential nodes' updates in run order; the parallel workers' sorted by task id."""
    workers = [u for node, u in updates if node == "worker"]
    return (
        [u for node, u in updates if node != "worker"],
        sorted(workers, key=lambda u: sorted(u["worker_results"])),
    )


def test_middleware_sees_every_node_in_order(mode: str) -> None:
    log: list[tuple[str, str, str]] = []
    outer, inner = Recorder("outer", log), Recorder("inner", log)
    graph = team(make_roles(CountingPlanner(n=3)), name="research", middleware=(outer, inner))
    out = run(graph, mode)

    entered = [node for label, phase, node in log if label == "outer" and phase != "exit"]
    assert _collapse(entered) == list(NODES)
    assert entered.count("worker") == 3
    assert {phase for _, phase, _ in log if phase != "exit"} == {f"enter {mode}"}
    assert [(label, phase) for label, phase, node in log if node == "planner"] == [
        ("outer", f"enter {mode}"),
        ("inner", f"enter {mode}"),
        ("inner", "exit"),
        ("outer", "exit"),
    ]
    # Parallel workers leave the two middlewares interleaved in any order: compare the
    # workers' updates by task id, every other node's in run order.
    assert _in_order(outer.updates) == _in_order(inner.updates)
    assert {c.team for c in outer.calls} == {"research"}
    assert sorted(c.input["task"].id for c in outer.calls if c.node == "worker") == [
        "t0",
        "t1",
        "t2",
    ]

    updates = dict(outer.updates)
    assert updates["planner"]["control_signal"] == "dispatch"
    assert isinstance(updates["planner"]["tasks"], TaskReplacement)
    workers = [u for node, u in outer.updates if node == "worker"]
    assert sorted(k for u in workers for k in u["worker_results"]) == ["t0", "t1", "t2"]
    assert updates["formatter"]["final_answer"] == out["final_answer"]


class Stamp:
    """Rewrites the formatter's update: what a middleware returns is what the graph applies."""

    def wrap(self, call: NodeCall, proceed: Callable[[], Any]) -> Any:
        return self._stamp(call, proceed())

    async def awrap(self, call: NodeCall, proceed: Callable[[], Awaitable[Any]]) -> Any:
        return self._stamp(call, await proceed())

    @staticmethod
    def _stamp(call: NodeCall, update: Any) -> Any:
        if call.node == "formatter":
            return {**update, "final_answer": update["final_answer"] + "\n-- checked"}
        return update


def test_middleware_update_is_the_one_applied(mode: str) -> None:
    out = run(team(make_roles(), middleware=(Stamp(),)), mode)
    assert out["final_answer"].endswith("\n-- checked")
    assert out["final_answer"].startswith("ANSWER\n")


# --- checkpointing --------------------------------------------------------------------------


def _assert_records(values: dict[str, Any], thread_id: str) -> None:
    assert isinstance(values["plan"], Plan)
    assert all(isinstance(t, Task) for t in values["tasks"].values())
    assert sorted(values["tasks"]) == ["t0", "t1", "t2"]
    assert all(isinstance(r, WorkerResult) for r in values["worker_results"].values())
    assert isinstance(values["reflection"], ReviewVerdict)
    assert all(isinstance(f, MemoryFact) for f in values["memory_writes"])
    assert all(isinstance(f.provenance, Provenance) for f in values["memory_writes"])
    assert {f.provenance.thread_id for f in values["memory_writes"]} == {thread_id}


def test_checkpointed_run_reads_back_as_records() -> None:
    graph = compile_team(build_team(make_roles()), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "thread-1"}}
    out = graph.invoke({"question": QUESTION}, config)
    snapshot = graph.get_state(config)
    assert snapshot.next == ()
    _assert_records(snapshot.values, "thread-1")
    assert snapshot.values["worker_results"] == out["worker_results"]
    assert snapshot.values["final_answer"] == out["final_answer"]
    assert graph.get_state({"configurable": {"thread_id": "other"}}).values == {}


async def test_checkpointed_async_run_reads_back_as_records() -> None:
    graph = compile_team(build_team(make_roles()), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "thread-2"}}
    out = await graph.ainvoke({"question": QUESTION}, config)
    snapshot = await graph.aget_state(config)
    _assert_records(snapshot.values, "thread-2")
    assert snapshot.values["tasks"] == out["tasks"]


def test_interrupt_before_review_pauses_and_resumes() -> None:
    reviewer = ScriptedReviewer()
    graph = compile_team(
        build_team(make_roles(reviewer=reviewer)),
        checkpointer=InMemorySaver(),
        interrupt_before=["reviewer"],
    )
    config = {"configurable": {"thread_id": "paused"}}
    graph.invoke({"question": QUESTION}, config)
    snapshot = graph.get_state(config)
    assert snapshot.next == ("reviewer",)
    assert reviewer.seen == []
    assert "final_answer" not in snapshot.values
    assert {t.status for t in snapshot.values["tasks"].values()} == {"done"}
    out = graph.invoke(None, config)
    assert len(reviewer.seen) == 1
    assert out["final_answer"].startswith("ANSWER")
    assert graph.get_state(config).next == ()


# --- streaming ------------------------------------------------------------------------------


def test_custom_stream_yields_progress_events(mode: str) -> None:
    def fail(task: Task) -> BaseException | None:
        return WorkerError("no source") if task.id == "t1" else None

    worker = ProgrammableWorker(fail=fail)
    graph = team(make_roles(CountingPlanner(n=3), worker), name="research")
    events = collect(graph, mode, "custom")
    names = [e["event"] for e in events]
    expected = ["plan", "dispatch", "task_done", "aggregated", "review", "memory", "answer"]
    firsts = [names.index(name) for name in expected]
    assert firsts == sorted(firsts), names
    assert names.count("task_started") == 3
    assert names.count("task_done") == 2
    assert names.count("task_failed") == 1
    assert names.index("task_failed") < names.index("aggregated")
    assert all(e["team"] == "research" for e in events)

    by_name = {e["event"]: e for e in events}
    assert [t["id"] for t in by_name["plan"]["tasks"]] == ["t0", "t1", "t2"]
    assert by_name["dispatch"]["node"] == "dispatcher"
    assert sorted(by_name["dispatch"]["task_ids"]) == ["t0", "t1", "t2"]
    assert by_name["task_failed"] == {
        "event": "task_failed",
        "team": "research",
        "node": "worker",
        "task_id": "t1",
        "kind": "search",
        "error": "WorkerError: no source",
    }
    assert by_name["aggregated"]["failed"] == ["t1"]
    assert by_name["review"]["decision"] == "finish"
    assert by_name["review"]["iteration"] == 1
    assert by_name["memory"]["facts"] == 2
    assert by_name["answer"]["node"] == "formatter"
