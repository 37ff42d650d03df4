"""Batched dispatch: a large dispatch's tasks run several to a worker execution, each saved as it
ends, and a resume runs only the tasks no batch saved."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Send

from framework.engine.batching import batches
from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.engine.ledger import LEDGER_CHANNEL
from framework.engine.nodes.dispatcher import route_to_workers
from framework.engine.nodes.team_node import TeamNode
from framework.engine.records import Task
from framework.errors import ConfigError, OutageError
from framework.persistence.saver import CadreSaver
from framework.policy.frame import current_frame
from framework.policy.middleware import PolicyMiddleware
from framework.retention.snapshot import thread_snapshot
from framework.runs.runner import arun_team, run_team
from framework.testing import Reply, ScriptedChatModel
from policies.approval import NodeApproval
from policies.rate_limits import RateLimit
from tests.roles import CountingPlanner, ProgrammableWorker, make_roles
from tests.test_telemetry import Recorder

QUESTION = "what is cadre?"
MODES = ["sync", "async"]


@dataclass
class BatchableWorker(ProgrammableWorker):
    """A worker that says it never pauses, so its tasks may run in batches."""

    def may_pause(self, task: Task) -> bool:
        return False


def _app(worker: ProgrammableWorker, n: int, checkpointer: Any = None, **settings: Any) -> Any:
    roles = make_roles(planner=CountingPlanner(n=n), worker=worker)
    return compile_team(build_team(roles, TeamSettings(**settings)), checkpointer=checkpointer)


def _invoke(app: Any, mode: str, inputs: Any, config: Any = None) -> Any:
    if mode == "sync":
        return app.invoke(inputs, config)
    return asyncio.run(app.ainvoke(inputs, config))


def _worker_executions(app: Any, mode: str) -> int:
    """How many worker executions (Pregel tasks) a run had, from its ``tasks`` stream."""
    inputs = {"question": QUESTION}
    if mode == "sync":
        chunks = list(app.stream(inputs, stream_mode="tasks"))
    else:

        async def gather() -> list[Any]:
            return [chunk async for chunk in app.astream(inputs, stream_mode="tasks")]

        chunks = asyncio.run(gather())
    return sum(1 for chunk in chunks if chunk["name"] == "worker" and "result" in chunk)


def test_batches_are_as_few_as_hold_the_tasks_and_even() -> None:
    tasks = [Task(id=f"t{i}", description="d") for i in range(10)]
    cut = batches(tasks, 4)
    assert [len(batch) for batch in cut] == [4, 3, 3]
    assert [task.id for batch in cut for task in batch] == [task.id for task in tasks]
    assert batches(tasks[:4], 4) == [tasks[:4]]


def test_a_batch_size_below_one_is_refused() -> None:
    with pytest.raises(ConfigError, match="dispatch_batch must be >= 1, got 0"):
        TeamSettings(dispatch_batch=0)


def test_only_a_dispatch_larger_than_the_batch_is_batched_and_pausing_tasks_go_alone() -> None:
    route = route_to_workers("worker", "aggregator", 3, lambda task: task.kind != "remote")
    running = {
        f"t{i}": Task(id=f"t{i}", description="d", status="running", kind=kind)
        for i, kind in enumerate(["local"] * 7 + ["remote"])
    }
    sends = route({"tasks": running, "question": "q", "dispatch_id": "d"}, {})
    assert isinstance(sends, list) and all(isinstance(send, Send) for send in sends)
    alone = [send.arg["task"].id for send in sends if "task" in send.arg]
    grouped = [[task.id for task in send.arg["batch"]] for send in sends if "batch" in send.arg]
    assert alone == ["t7"]
    assert grouped == [["t0", "t1", "t2"], ["t3", "t4"], ["t5", "t6"]]
    few = {key: running[key] for key in ("t0", "t1", "t2")}
    sends = route({"tasks": few, "question": "q", "dispatch_id": "d"}, {})
    assert [send.arg["task"].id for send in sends] == ["t0", "t1", "t2"]


@pytest.mark.parametrize("mode", MODES)
def test_a_large_dispatch_runs_in_batches_with_every_result(mode: str) -> None:
    worker = BatchableWorker()
    app = _app(worker, 20, dispatch_batch=8)
    assert _worker_executions(app, mode) == 3
    out = _invoke(app, mode, {"question": QUESTION})
    assert sorted(out["worker_results"]) == sorted(f"t{i}" for i in range(20))
    assert all(result.status == "ok" for result in out["worker_results"].values())
    assert out["metrics"]["tasks_ok"] == 20
    assert Counter(worker.calls) == Counter({f"t{i}": 2 for i in range(20)})  # two runs


@pytest.mark.parametrize("mode", MODES)
def test_a_worker_that_may_pause_is_never_batched(mode: str) -> None:
    app = _app(ProgrammableWorker(), 20, dispatch_batch=8)
    assert _worker_executions(app, mode) == 20


@pytest.mark.parametrize("mode", MODES)
def test_the_dispatch_cap_holds_across_the_tasks_of_every_batch(mode: str) -> None:
    worker = BatchableWorker(delay=0.02)
    out = _invoke(_app(worker, 24, dispatch_batch=6, max_parallel=3), mode, {"question": QUESTION})
    assert len(out["worker_results"]) == 24
    assert worker.peak == 3


def test_a_policy_that_may_ask_a_human_keeps_tasks_out_of_batches() -> None:
    node = TeamNode("worker", "team", lambda payload, context: {}, role=BatchableWorker())
    task = Task(id="t0", description="d")
    assert node.batchable(task)
    node.middleware = (PolicyMiddleware([RateLimit({})]),)
    assert node.batchable(task)
    node.middleware = (PolicyMiddleware([RateLimit({}), NodeApproval(nodes=("worker",))]),)
    assert not node.batchable(task)
    node.middleware = (object(),)  # a middleware that does not say it never pauses
    assert not node.batchable(task)


def _outage_once(failed: set[str]) -> Any:
    def fail(task: Task) -> BaseException | None:
        if task.id == "t5" and task.id not in failed:
            failed.add(task.id)
            return OutageError("the provider is down")
        return None

    return fail


@pytest.mark.parametrize("mode", MODES)
def test_a_resumed_batch_runs_only_the_tasks_it_had_not_saved(mode: str) -> None:
    worker = BatchableWorker(fail=_outage_once(set()))
    app = _app(worker, 12, InMemorySaver(), dispatch_batch=6)
    config = {"configurable": {"thread_id": f"resume-{mode}"}}
    with pytest.raises(OutageError):
        _invoke(app, mode, {"question": QUESTION}, config)
    assert sorted(worker.calls) == sorted(f"t{i}" for i in range(12))
    out = _invoke(app, mode, None, config)
    assert Counter(worker.calls) == Counter({**{f"t{i}": 1 for i in range(12)}, "t5": 2})
    assert sorted(out["worker_results"]) == sorted(f"t{i}" for i in range(12))
    assert out["metrics"]["tasks_ok"] == 12


def test_a_batch_cut_short_shows_its_tasks_saved_but_no_ledger_task(tmp_path: Path) -> None:
    saver = CadreSaver(tmp_path / "checkpoints.db")
    app = _app(BatchableWorker(fail=_outage_once(set())), 12, saver, dispatch_batch=6)
    with pytest.raises(OutageError):
        app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "cut"}})
    saved = saver.get_tuple({"configurable": {"thread_id": "cut"}})
    assert saved is not None
    writes = saved.pending_writes or ()
    held = {task for _, channel, entry in writes if channel == LEDGER_CHANNEL for task in entry}
    assert held == {f"t{i}" for i in range(12)} - {"t5"}
    snapshot = thread_snapshot(saver, "cut")
    assert all("/" not in task.id for task in snapshot.tasks)
    assert {task.name for task in snapshot.tasks} <= {"worker"}


@pytest.mark.parametrize("mode", MODES)
def test_every_task_of_a_batch_has_its_own_span_under_the_step(mode: str) -> None:
    recorder = Recorder()
    try:
        roles = make_roles(CountingPlanner(n=6), BatchableWorker())
        settings = TeamSettings(
            name="research", dispatch_batch=2, middleware=recorder.telemetry.middleware
        )
        app = compile_team(build_team(roles, settings))
        if mode == "sync":
            run_team(app, {"question": "q"}, f"spans-{mode}", observer=recorder.telemetry)
        else:
            run = arun_team(app, {"question": "q"}, f"spans-{mode}", observer=recorder.telemetry)
            asyncio.run(run)
        tasks = [s for s in recorder.finished() if s.name.startswith("cadre.task")]
        assert sorted(str(s.attributes["cadre.task.id"]) for s in tasks) == [
            f"t{i}" for i in range(6)
        ]
        assert len({s.parent.span_id for s in tasks if s.parent is not None}) == 1
    finally:
        recorder.telemetry.close()


@pytest.mark.parametrize("mode", MODES)
def test_langgraphs_max_concurrency_still_caps_tasks_by_sending_each_alone(mode: str) -> None:
    worker = BatchableWorker(delay=0.02)
    app = _app(worker, 24, dispatch_batch=6)
    out = _invoke(app, mode, {"question": QUESTION}, {"max_concurrency": 2})
    assert len(out["worker_results"]) == 24
    assert worker.peak == 2


def test_each_task_of_a_batch_files_its_own_usage_record() -> None:
    class Counting(BatchableWorker):
        def run(self, task: Task, question: str, context: Any) -> Any:
            current_frame().usage["model_calls"] = 1
            return super().run(task, question, context)

    middleware = (PolicyMiddleware([RateLimit({})]),)
    app = _app(Counting(), 12, dispatch_batch=4, middleware=middleware)
    out = _invoke(app, "sync", {"question": QUESTION})
    records = out["usage"].values()
    assert sorted(record.task_id for record in records) == sorted(f"t{i}" for i in range(12))
    assert sum(record.counts["model_calls"] for record in records) == 12


def test_a_ledger_save_that_fails_is_logged_and_loses_no_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class FailingWrites(InMemorySaver):
        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            if any(channel == LEDGER_CHANNEL for channel, _ in writes):
                raise OSError("disk full")
            super().put_writes(config, writes, task_id, task_path)

    app = _app(BatchableWorker(), 12, FailingWrites(), dispatch_batch=4)
    out = app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "failing"}})
    assert len(out["worker_results"]) == 12
    assert "were not saved as they ended (OSError: disk full)" in caplog.text


@dataclass
class ChattingWorker(BatchableWorker):
    """A batchable worker whose every task asks a chat model first."""

    model: ScriptedChatModel | None = None

    def run(self, task: Task, question: str, context: Any) -> Any:
        assert self.model is not None
        self.model.invoke(f"about {task.id}")
        return super().run(task, question, context)

    async def arun(self, task: Task, question: str, context: Any) -> Any:
        assert self.model is not None
        await self.model.ainvoke(f"about {task.id}")
        return await super().arun(task, question, context)


@pytest.mark.parametrize("mode", MODES)
def test_each_batched_tasks_model_call_is_a_span_under_its_own_task(mode: str) -> None:
    recorder = Recorder()
    model = ScriptedChatModel([Reply(f"on t{index}", match=f"t{index}") for index in range(5)])
    worker = ChattingWorker(model=model)
    app = _app(worker, 5, dispatch_batch=2, middleware=recorder.telemetry.middleware)
    _invoke(app, mode, {"question": QUESTION})
    model.assert_complete()
    spans = recorder.finished()
    tasks = {s.context.span_id: s.name for s in spans if s.name.startswith("cadre.task ")}
    chats = [s for s in spans if s.name == "chat scripted"]
    assert len(tasks) == 5 and len(chats) == 5
    parents = {tasks.get(s.parent.span_id) for s in chats if s.parent}
    assert parents == set(tasks.values())  # one call under each task, none under another's
    recorder.telemetry.close()
