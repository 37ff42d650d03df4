"""Two processes, one thread: while ``cadre run`` works on a thread, ``cadre resume`` of the same
thread in another process is refused with "thread ... is busy", and the first run completes
with its state intact; on SQLite (a file lock) and on PostgreSQL (an advisory lock).

The processes are real ``cadre`` commands over one data home (pytest-socket does not reach
them); the team is the crash test's, held (:func:`tests.conftest.write_held_team`): after its
first side effect the first run's workers wait until the test releases them, so the second
process always meets the first at work, however long it takes to start.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.crash import CrashLab, CrashSettings, read_final
from bench.crash_team import read_effects, task_ids
from framework.database.home import DataHome
from tests.conftest import (
    held_run,
    held_run_args,
    wait_for_effects,
)

TASKS = 30
SETTINGS = CrashSettings(tasks=TASKS, max_parallel=2)


def test_a_second_process_is_told_the_thread_is_busy(tmp_path: Path, database: str | None) -> None:
    lab = CrashLab(tmp_path, SETTINGS)
    held = held_run(lab.env, tmp_path, database)
    env, effects, release = held.env, held.effects, held.release
    first = subprocess.Popen(
        held_run_args(lab._run_args("busy")),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_effects(effects, first, timeout=120)
        second = subprocess.run(
            [*lab.cadre, "resume", "busy", "--home", str(lab.home.root)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert first.poll() is None, "the first run ended before the second was refused"
        assert second.returncode == 2, second.stderr  # refused: see docs/cli.md
        assert second.stdout == ""
        assert "error: thread busy is busy: another process is running it" in second.stderr
        release.touch()  # the first run goes on
        _, first_err = first.communicate(timeout=300)
        assert first.returncode == 0, first_err.decode()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    final = read_final(DataHome(root=lab.home.root, database=database), "busy")
    assert sorted(final.results) == sorted(task_ids(TASKS))
    assert all(result.status == "ok" for result in final.results.values())
    assert sorted(effect.task_id for effect in read_effects(effects)) == sorted(task_ids(TASKS))
    assert final.answer
    if database is not None:
        assert not lab.home.checkpoints.exists()
        assert not lab.home.memory.exists()
