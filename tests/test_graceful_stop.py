"""A graceful stop (SIGTERM, Ctrl-C) keeps finished work: the tasks going on finish and are
saved, no new one starts, and a resume (or the server's next start) runs none of them again.

In process: :class:`framework.engine.draining.Drain` itself and a team's fan-out stopped by it
(sync and async). With real signals: ``cadre run`` (the crash lab of ``bench/crash.py`` with
SIGTERM or SIGINT instead of SIGKILL) and ``cadre serve`` (SQLite and PostgreSQL), each stopped
during a fan-out whose workers are held by a condition, not timed by sleeps.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver

from bench.crash import CrashReport, CrashSettings
from bench.crash_team import EFFECTS_VARIABLE, read_effects, write_crash_team
from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.engine.concurrency import DispatchLimiter
from framework.engine.draining import DRAIN, Drain
from framework.engine.records import Task
from framework.errors import RunStopped
from tests.conftest import HOLD_AFTER_VARIABLE, RELEASE_VARIABLE, HeldLab, write_held_team
from tests.roles import CountingPlanner, ProgrammableWorker, make_roles
from tests.served import Served, start

TASKS = 8
WAIT_S = 120.0


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


# -- the drain itself --------------------------------------------------------------------------


def test_a_node_asking_to_start_waits_for_the_nodes_going_on_then_is_refused() -> None:
    drain = Drain()
    release = threading.Event()
    refused: list[BaseException] = []

    def going_on() -> None:
        with drain.admitted():
            release.wait(WAIT_S)

    def asking() -> None:
        try:
            with drain.admitted():
                pytest.fail("a node started while the process drained")
        except RunStopped as error:
            refused.append(error)

    first = threading.Thread(target=going_on)
    first.start()
    _until(lambda: drain.going_on == 1, "the first node")
    drain.start(WAIT_S, "stopping for the test")
    second = threading.Thread(target=asking)
    second.start()
    second.join(0.2)
    assert second.is_alive() and not refused  # it waits: refusing now would cancel the first
    release.set()
    first.join(WAIT_S)
    second.join(WAIT_S)
    assert [str(error) for error in refused] == [
        "stopping for the test: the run stopped once the tasks going on had finished, each one "
        "saved"
    ]
    assert drain.going_on == 0


def test_a_node_running_a_nested_team_is_not_waited_for_as_work_of_its_own() -> None:
    drain = Drain()
    with drain.admitted():  # a worker whose role runs a nested team
        assert drain.going_on == 1
        drain.start(WAIT_S, "stopping")
        with pytest.raises(RunStopped), drain.admitted():  # the inner team's next node
            pytest.fail("a nested node started while the process drained")
        assert drain.going_on == 1  # its inner team refused: the worker is a leaf again
    assert drain.going_on == 0


def test_past_its_deadline_a_drain_refuses_though_a_node_is_still_going_on() -> None:
    drain = Drain()

    async def scenario() -> None:
        release = asyncio.Event()

        async def hung() -> None:
            async with drain.admitted():
                await release.wait()

        going = asyncio.create_task(hung())
        while drain.going_on == 0:
            await asyncio.sleep(0.01)
        drain.start(0.05, "stopping")
        started = time.monotonic()
        with pytest.raises(RunStopped, match=r"after 0.05 s with 1 step\(s\) still going on"):
            async with drain.admitted():
                pytest.fail("a node started while the process drained")
        assert time.monotonic() - started >= 0.04
        release.set()
        await going

    asyncio.run(scenario())


def test_a_worker_waiting_for_a_slot_is_refused_once_the_drain_has_ended() -> None:
    drain = Drain()
    limiter = DispatchLimiter(1, drain.refuse_waiting)
    release = threading.Event()

    def going_on() -> None:
        with limiter.slot("d"), drain.admitted():
            release.wait(WAIT_S)

    first = threading.Thread(target=going_on)
    first.start()
    _until(lambda: drain.going_on == 1, "the first node")
    drain.start(0.05, "stopping")
    try:
        with pytest.raises(RunStopped, match="cut off"), limiter.slot("d"):
            pytest.fail("a waiting worker started while the process drained")
    finally:
        release.set()
        first.join(WAIT_S)
    assert limiter.open_dispatches == 0  # no slot kept by a refused waiter


def test_an_async_worker_waiting_for_a_slot_is_refused_once_the_drain_has_ended() -> None:
    drain = Drain()
    limiter = DispatchLimiter(1, drain.refuse_waiting)

    async def scenario() -> None:
        release = asyncio.Event()

        async def going_on() -> None:
            async with limiter.aslot("d"), drain.admitted():
                await release.wait()

        first = asyncio.create_task(going_on())
        while drain.going_on == 0:
            await asyncio.sleep(0.01)
        drain.start(0.05, "stopping")
        with pytest.raises(RunStopped, match="cut off"):
            async with limiter.aslot("d"):
                pytest.fail("a waiting worker started while the process drained")
        release.set()
        await first

    asyncio.run(scenario())
    assert limiter.open_dispatches == 0  # no slot kept by a refused waiter


# -- a team's fan-out, in process --------------------------------------------------------------


@pytest.fixture
def drain() -> Any:
    """The process's drain, admitting again after the test."""
    try:
        yield DRAIN
    finally:
        DRAIN.reopen()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_drained_fan_out_keeps_the_tasks_going_on_and_resumes_the_rest(
    mode: str, drain: Drain
) -> None:
    def stop_once_two_are_in(worker: ProgrammableWorker, task: Task) -> bool:
        if worker.active == 2 and not drain.started:
            drain.start(WAIT_S, "stopped for the test")
        return drain.started

    worker = ProgrammableWorker(until=stop_once_two_are_in)
    roles = make_roles(CountingPlanner(n=5), worker)
    graph = compile_team(
        build_team(roles, TeamSettings(max_parallel=2)), checkpointer=InMemorySaver()
    )
    config: Any = {"configurable": {"thread_id": f"drained-{mode}"}}
    inputs = {"question": "what?"}
    with pytest.raises(RunStopped, match="stopped for the test"):
        if mode == "sync":
            graph.invoke(inputs, config)
        else:
            asyncio.run(graph.ainvoke(inputs, config))
    assert len(worker.calls) == 2 and not worker.gave_up  # the two going on, nothing more
    stopped = graph.get_state(config)
    assert set(stopped.next) == {"worker"} and "final_answer" not in stopped.values
    drain.reopen()
    worker.until = None
    resumed = graph.invoke if mode == "sync" else lambda *a: asyncio.run(graph.ainvoke(*a))
    done = resumed(None, config)
    ran = Counter(worker.calls)
    if mode == "async":  # as cadre run and cadre serve run teams: each task ran once
        assert ran == Counter({f"t{i}": 1 for i in range(5)})
    else:  # LangGraph's sync runner may raise before a finished task's writes are committed
        assert set(ran) == {f"t{i}" for i in range(5)} and max(ran.values()) <= 2
    assert {result.status for result in done["worker_results"].values()} == {"ok"}
    assert done["final_answer"]


def test_at_its_deadline_a_drain_stops_a_run_whose_next_tasks_wait_for_a_slot(
    drain: Drain,
) -> None:
    # The task going on never finishes and the rest wait for its slot: nothing asks to enter,
    # so the waiters themselves end the run once the deadline has passed (not a hard stop).
    # Async, as cadre run and cadre serve run teams (LangGraph's sync runner waits for the
    # held thread before it raises: the limiter's own test covers sync waiters).
    release = threading.Event()

    def held(worker: ProgrammableWorker, task: Task) -> bool:
        if not drain.started:
            drain.start(0.3, "stopped for the test")
        return release.is_set()

    worker = ProgrammableWorker(until=held)
    roles = make_roles(CountingPlanner(n=4), worker)
    graph = compile_team(
        build_team(roles, TeamSettings(max_parallel=1)), checkpointer=InMemorySaver()
    )
    config: Any = {"configurable": {"thread_id": "slots"}}
    try:
        with pytest.raises(RunStopped, match=r"after 0.3 s with 1 step\(s\) still going on"):
            asyncio.run(graph.ainvoke({"question": "what?"}, config))
    finally:
        release.set()
    assert len(worker.calls) == 1 and not worker.gave_up  # the waiters never started


# -- cadre run, with real signals --------------------------------------------------------------


class StoppedLab(HeldLab):
    """Crash runs of the held team stopped by a signal: the workers going on are held until the
    signal is sent, then released, so the stop always meets tasks going on."""

    def crash(self, run: int, *, after_effects: int = 1, **options: Any) -> CrashReport:
        self.env[RELEASE_VARIABLE] = str(self.root / f"release-{run}")
        return super().crash(run, after_effects=after_effects, **options)

    def _signalled(self, report: CrashReport) -> None:
        Path(self.env[RELEASE_VARIABLE]).touch()


@pytest.mark.parametrize(
    ("stop", "moments"), [(signal.SIGTERM, (1, TASKS // 2, TASKS - 1)), (signal.SIGINT, (2,))]
)
def test_cadre_run_stopped_by_a_signal_runs_no_finished_task_again(
    tmp_path: Path, stop: signal.Signals, moments: tuple[int, ...]
) -> None:
    settings = CrashSettings(
        tasks=TASKS,
        max_parallel=3,
        start_timeout=WAIT_S,
        resume_timeout=WAIT_S,
        resumes=1,
        stop_signal=stop,
    )
    lab = StoppedLab(tmp_path, settings)
    for run, after in enumerate(moments, start=1):
        report = lab.crash(run, after_effects=after)
        assert report.passed, report.line(TASKS)
        assert report.reexecuted == []  # nothing that ran before the signal ran again
        assert report.saved is not None and report.ran_before_kill > after  # those going on too
        stderr = (lab.logs / f"t{run}-run.err").read_text(encoding="utf-8")
        assert f"stopping ({stop.name})" in stderr
        said = "the run stopped once the tasks going on had finished, each one saved"
        resume = f"`cadre resume t{run} --home {lab.home.root}`"  # (exit 143: report.passed)
        assert stderr.splitlines()[-1] == (
            f"stopped: {stop.name} received: {said}; then {resume} goes on from its last checkpoint"
        ), stderr


# -- cadre serve, with real signals ------------------------------------------------------------


def test_cadre_serve_stopped_by_sigterm_resumes_its_run_running_no_finished_task_again(
    tmp_path: Path, database: str | None
) -> None:
    env = write_crash_team(tmp_path / "team", tasks=TASKS, delay=(0.0, 0.01))
    write_held_team(env)
    effects, release = tmp_path / "effects.txt", tmp_path / "release"
    env.update(
        {EFFECTS_VARIABLE: str(effects), HOLD_AFTER_VARIABLE: "2", RELEASE_VARIABLE: str(release)}
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    served = Served(url="", home=tmp_path / "home", database=database)
    with start(served, corpus=corpus, env=env, options=["--workers", "2"]) as server:
        assert server.process is not None
        with httpx.Client(base_url=server.url, timeout=WAIT_S) as client:
            thread = client.post("/threads", json={}).json()["thread_id"]
            body = {
                "assistant_id": "held",
                "input": {"question": "go"},
                "stream_mode": ["updates"],
                "config": {"configurable": {"max_parallel": 3}},
            }
            with client.stream("POST", f"/threads/{thread}/runs/stream", json=body) as stream:
                lines = stream.iter_lines()
                _until(lambda: len(read_effects(effects)) >= 2, "two tasks done")
                server.process.send_signal(signal.SIGTERM)
                release.touch()
                said = "\n".join(lines)
        server.process.wait(WAIT_S)
    ran = Counter(effect.task_id for effect in read_effects(effects))
    assert 2 < sum(ran.values()) < TASKS  # the tasks going on finished; the others waited
    [stopping] = [line for line in said.splitlines() if "ServerStopping" in line]
    assert "the server is stopping: the run stopped " in stopping, stopping
    assert "; it goes on from there when the server starts again" in stopping, stopping
    del env[HOLD_AFTER_VARIABLE]
    with start(served, corpus=corpus, env=env) as server, httpx.Client(base_url=server.url) as c:
        _until(lambda: c.get(f"/threads/{thread}").json()["status"] == "idle", "the resumed run")
        values = c.get(f"/threads/{thread}/state").json()["values"]
    assert Counter(effect.task_id for effect in read_effects(effects)) == Counter(
        {f"t{i:03d}": 1 for i in range(TASKS)}
    )
    assert values["final_answer"].startswith("ANSWER")
