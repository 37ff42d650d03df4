"""Key changes while ``cadre run`` works in another process: rotation is harmless, re-encryption
leaves the running thread alone, retirement is refused while the thread is held, and once the
run finished both go through and every thread stays readable; on SQLite and on PostgreSQL.

The run is the held team of :mod:`tests.conftest` (its workers wait for a release file), a real
``cadre run`` process; the key commands are real ``cadre keys`` processes over the same home.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench.crash import CrashLab, CrashSettings, read_final
from bench.crash_team import task_ids
from framework.database.home import DataHome
from framework.persistence.keys import KEYS_VARIABLE
from framework.persistence.saver import key_usage
from framework.runs.stores import home_checkpointer
from tests.conftest import (
    held_run,
    held_run_args,
    wait_for_effects,
)

TASKS = 12
SETTINGS = CrashSettings(tasks=TASKS, max_parallel=2)


def _key_ids(home: Path) -> list[str]:
    return list(json.loads((home / "keys.json").read_text())["keys"])


def test_key_changes_wait_for_a_running_thread(
    tmp_path: Path, database: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    lab = CrashLab(tmp_path, SETTINGS)
    held = held_run(lab.env, tmp_path, database)
    env, effects, release = held.env, held.effects, held.release
    home = lab.home.root

    def keys(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*lab.cadre, "keys", *args, "--home", str(home)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    first = subprocess.Popen(
        held_run_args(lab._run_args("busy")),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_effects(effects, first, timeout=120)
        [old] = _key_ids(home)
        rotated = keys("rotate")
        assert rotated.returncode == 0, rotated.stderr
        [new] = [key_id for key_id in _key_ids(home) if key_id != old]
        moved = keys("reencrypt")
        assert moved.returncode == 0, moved.stderr
        assert "skipped 1 busy thread(s): busy" in moved.stdout
        refused = keys("retire", old)
        assert refused.returncode == 2, refused.stderr
        assert refused.stdout == ""
        [line] = refused.stderr.strip().splitlines()
        assert line.startswith("error: ") and "busy" in line and old in line
        assert old in _key_ids(home)
        assert first.poll() is None, "the run ended before the key changes were tried"
        release.touch()
        _, first_err = first.communicate(timeout=300)
        assert first.returncode == 0, first_err.decode()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    data_home = DataHome(root=home, database=database)
    with home_checkpointer(data_home) as saver:
        usage = key_usage(saver)
    assert set(usage) == {new}, usage  # the busy thread's data key was rewrapped all the same
    moved = keys("reencrypt")
    assert moved.returncode == 0, moved.stderr
    retired = keys("retire", old)
    assert retired.returncode == 0, retired.stderr
    assert old not in _key_ids(home)
    final = read_final(data_home, "busy")
    assert sorted(final.results) == sorted(task_ids(TASKS))
    assert all(result.status == "ok" for result in final.results.values())
    status = keys("status")
    assert status.returncode == 0, status.stderr
    assert old not in status.stdout
