"""The fleet on a real PostgreSQL with real ``cadre worker`` processes: runs spread over the
workers, a worker killed with SIGKILL has its runs taken over and finished with no task done
twice, a stopped worker drains, and a provider rate limit holds across four workers."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from bench.fleet_lab import FleetLab, peak_in_window
from framework.database import DATABASE_VARIABLE
from framework.database.home import DataHome
from framework.errors import ConfigError
from framework.fleet.queue import fleet_database
from tests.served import CADRE

RATE = 240.0
"""Model calls per minute the rate-limit test allows (one every 0.25 s)."""


@pytest.fixture
def lab(tmp_path: Path, postgres_url: str) -> FleetLab:
    made = FleetLab(tmp_path / "fleet", postgres_url, tasks=8, delay=0.5, max_parallel=2)
    yield made
    made.close()


def test_a_killed_workers_runs_are_finished_by_the_others_with_no_task_done_twice(
    lab: FleetLab,
) -> None:
    workers = [lab.start_worker(concurrency=3, dead_after=4.0) for _ in range(3)]
    lab.submit(18, tenants=("acme", "globex"))
    victim = workers[0]
    deadline = time.monotonic() + 120
    while not any(call.pid == victim.process.pid for call in lab.calls()):
        assert time.monotonic() < deadline, "the first worker never took a run"
        time.sleep(0.05)
    time.sleep(0.25)  # mid-call: the results of the calls that ended are saved
    lab.kill(victim)  # it holds runs whose tasks are part done
    statuses = lab.wait_all(timeout=240)
    assert statuses == {"success": 18}, statuses
    calls = lab.calls()
    assert lab.duplicates() == 0  # a task whose result was saved never ran again
    assert len({(call.thread_id, call.task_id) for call in calls}) == 18 * 8
    taken_over = [call for call in calls if call.started > (victim.killed_at or 0)]
    assert taken_over, "nothing ran after the kill"
    assert {call.pid for call in calls} >= {w.process.pid for w in workers[1:]}
    pids_by_thread: dict[str, set[int]] = {}
    for call in calls:
        pids_by_thread.setdefault(call.thread_id, set()).add(call.pid)
    resumed = [
        t for t, pids in pids_by_thread.items() if victim.process.pid in pids and len(pids) > 1
    ]
    assert resumed, "no run of the killed worker went on elsewhere from its checkpoints"
    logs = "".join(w.log.read_text() for w in workers[1:])
    assert "was silent for 4 s" in logs
    listed = lab.cadre_command("workers")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count(" live,") == 2 and "queue: empty" in listed.stdout
    assert lab.stop_all() == [None, 0, 0]  # drained: nothing was running


def test_four_workers_share_one_provider_rate_limit(tmp_path: Path, postgres_url: str) -> None:
    policy = f'rate_limits:\n  "model:scripted:*": {{requests_per_minute: {RATE:g}}}\n'
    lab = FleetLab(tmp_path / "fleet", postgres_url, tasks=4, delay=0.05, policy=policy)
    try:
        for _ in range(4):
            lab.start_worker(concurrency=2)
        lab.submit(10)
        assert lab.wait_all(timeout=240) == {"success": 10}
        calls = lab.calls()
        assert len(calls) == 40 and len({call.pid for call in calls}) >= 2
        starts = [call.started for call in calls]
        interval = 60.0 / RATE
        for slots in (4, 8, 20):  # calls leave within a timer's jitter of their slot
            assert peak_in_window(starts, slots * interval) <= slots + 1
        assert (max(starts) - min(starts)) >= (len(starts) - 1) * interval * 0.95
    finally:
        lab.close()


def test_the_fleet_needs_postgresql(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PostgreSQL"):
        fleet_database(DataHome(root=tmp_path / "home"))
    for command in (["worker"], ["workers"], ["serve", "--no-auth", "--queue"]):
        done = subprocess.run(
            [*CADRE, *command, "--home", str(tmp_path / "home")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={k: v for k, v in os.environ.items() if k != DATABASE_VARIABLE},
        )
        assert done.returncode == 2 and "PostgreSQL" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_priority_out_of_range_is_refused_before_anything_is_queued() -> None:
    from framework.fleet.queue import RunQueue

    queue = RunQueue("postgresql://nobody@127.0.0.1:1/none")  # never reached
    for priority in (0, 1_000_001, "high", True):
        with pytest.raises(ConfigError, match="priority"):
            queue.enqueue("run", "tenant", priority)  # type: ignore[arg-type]


def _wait_for_a_call(lab: FleetLab, pid: int) -> None:
    deadline = time.monotonic() + 120
    while not any(call.pid == pid for call in lab.calls()):
        assert time.monotonic() < deadline, "the worker never took a run"
        time.sleep(0.05)


def test_a_stopped_worker_finishes_its_segment_and_takes_no_new_one(
    tmp_path: Path, postgres_url: str
) -> None:
    lab = FleetLab(tmp_path / "fleet", postgres_url, tasks=4, delay=0.5, max_parallel=1)
    try:
        first = lab.start_worker(concurrency=1)
        lab.submit(3)
        _wait_for_a_call(lab, first.process.pid)
        first.process.terminate()  # SIGTERM: drain
        assert first.process.wait(timeout=60) == 0
        assert lab.statuses() == {"success": 1, "pending": 2}  # the rest stayed queued
        assert "stopped" in first.log.read_text()
        lab.start_worker(concurrency=2)
        assert lab.wait_all(timeout=120) == {"success": 3}
        assert lab.redone() == 0
    finally:
        lab.close()


def test_a_worker_stopped_past_its_drain_time_leaves_its_run_to_another_at_once(
    tmp_path: Path, postgres_url: str
) -> None:
    lab = FleetLab(tmp_path / "fleet", postgres_url, tasks=8, delay=0.5, max_parallel=1)
    try:
        first = lab.start_worker(concurrency=1, extra=["--drain", "1"])
        [run] = lab.submit(1)
        _wait_for_a_call(lab, first.process.pid)
        first.process.terminate()
        assert first.process.wait(timeout=60) == 0
        stopped = time.time()
        assert lab.tables.run_status(run.run_id) == "running"  # left, not ended
        second = lab.start_worker(concurrency=1, dead_after=30.0)  # long: no timeout involved
        assert lab.wait_all(timeout=120) == {"success": 1}
        calls = lab.calls()
        assert {call.pid for call in calls} == {first.process.pid, second.process.pid}
        resumed = min(call.started for call in calls if call.pid == second.process.pid)
        assert resumed - stopped < 25.0  # taken over without waiting out --dead-after
        assert lab.redone() <= 1  # only the call that ended as the drain time ran out
    finally:
        lab.close()


def test_priorities_go_first_and_a_tenants_backlog_does_not_starve_another(
    tmp_path: Path, postgres_url: str
) -> None:
    lab = FleetLab(tmp_path / "fleet", postgres_url, tasks=2, delay=0.3)
    try:
        busy = lab.submit(10, tenants=("acme",))
        [urgent] = lab.submit(1, tenants=("acme",), priority=1)
        [other] = lab.submit(1, tenants=("globex",))
        lab.start_worker(concurrency=2, extra=["--tenant-concurrency", "1"])
        assert lab.wait_all(timeout=180) == {"success": 12}
        order = lab.start_order()
        # acme's first pick is its urgent run; globex's run has the slot acme cannot take
        assert set(order[:2]) == {urgent.run_id, other.run_id}
        assert {row.run_id for row in busy} <= set(order)
    finally:
        lab.close()


def test_submit_claims_no_thread_that_is_another_principals(
    tmp_path: Path, postgres_url: str
) -> None:
    from framework.errors import UnknownThread
    from framework.fleet.submit import Submitter
    from framework.policy import Principal

    home = DataHome(root=tmp_path / "home", database=postgres_url)
    made = subprocess.run(
        [*CADRE, "run", "When?", "--thread", "nightly", "--no-trace", "--home", str(home.root)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, DATABASE_VARIABLE: postgres_url},
    )
    assert made.returncode == 0, made.stderr
    acme = Principal(user="ada", tenant="acme", scopes=frozenset({"run"}))
    globex = Principal(user="eve", tenant="globex", scopes=frozenset({"run"}))
    with Submitter(home) as submitter:
        with pytest.raises(UnknownThread, match="nightly not found"):
            submitter.submit("meta", {"question": "q"}, principal=acme, thread_id="nightly")
        submitter.submit("meta", {"question": "q"}, principal=acme, thread_id="acme-1")
        with pytest.raises(UnknownThread, match="acme-1 not found"):
            submitter.submit("meta", {"question": "q"}, principal=globex, thread_id="acme-1")
        assert submitter.tables.thread("acme", "nightly") is None
