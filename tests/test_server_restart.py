"""A ``cadre serve`` killed (SIGKILL) or stopped (SIGTERM) in the middle of a run resumes the
run when it starts again: from the run's checkpoints, every task done once it was saved, the run
ends well."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from bench.crash import CrashLab, CrashSettings
from bench.crash_team import read_effects, task_ids
from tests.conftest import HELD_TEAM, held_run, wait_for_effects
from tests.served import Served, start

TASKS = 6
ONE_AT_A_TIME = {"configurable": {"max_parallel": 1}}
"""One worker at a time: the held team holds the second task, so the run is mid-way."""


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["killed", "stopped"])
def test_a_stopped_server_resumes_its_run_when_it_starts_again(
    tmp_path: Path, database: str | None, stop: signal.Signals
) -> None:
    lab = CrashLab(tmp_path, CrashSettings(tasks=TASKS, max_parallel=2))
    held = held_run(lab.env, tmp_path, database)
    served = Served(url="", home=tmp_path / "home", database=database)
    with start(served, env=held.env):
        client = served.client()
        thread_id = client.threads.create()["thread_id"]
        run = client.runs.create(
            thread_id, HELD_TEAM, input={"question": "count"}, config=ONE_AT_A_TIME
        )
        assert served.process is not None
        wait_for_effects(held.effects, served.process, timeout=120)  # the run is held now
        assert len(read_effects(held.effects)) == 1
        served.process.send_signal(stop)
        served.process.wait(timeout=60)
    with start(served, env=held.env):  # another process: the hold lets it go on
        client = served.client()
        final = client.runs.join(thread_id, run["run_id"])
        assert client.runs.get(thread_id, run["run_id"])["status"] == "success"
        assert sorted(final["worker_results"]) == sorted(task_ids(TASKS))
        done = [effect.task_id for effect in read_effects(held.effects)]
        assert sorted(set(done)) == sorted(task_ids(TASKS))  # every task ran...
        assert len(done) <= TASKS + 1  # ...once, but the one running at the kill (unsaved)
        assert all(r["status"] == "ok" for r in final["worker_results"].values())
        assert client.threads.get(thread_id)["status"] == "idle"
