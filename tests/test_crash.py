"""Crash safety, fast: ``cadre run`` killed with SIGKILL during a fan-out, then ``cadre resume``
in a new process (the full 20-run session is ``bench/crash.py``).

Each kill runs through real subprocesses over one data home (pytest-socket does not reach
them; they are offline). After each, the resume completes with one ok result per task, a task
whose result was saved before the kill never runs again, and every other task runs exactly
once more (see :func:`bench.crash._check_effects` for every check).

After a kill of ``cadre run``, or of ``cadre approve`` once its decision is taken, ``cadre
threads``, ``show`` and ``approve`` say what docs/persistence.md's fault table says.

The kills run the ``held`` team (see :func:`tests.conftest.write_held_team`): once the kill's
side effects are written the killed run's other workers wait, so the kill always comes during
the fan-out, never after the run finished, however slow the machine.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from bench.crash import CrashLab, CrashReport, CrashSettings, read_final
from bench.crash_team import EFFECTS_VARIABLE, read_effects
from framework.runs.stores import open_checkpointer
from tests.conftest import HOLD_AFTER_VARIABLE, HeldLab, held_run_args, wait_for_effects

TASKS = 12
SETTINGS = CrashSettings(
    tasks=TASKS, max_parallel=3, start_timeout=60.0, resume_timeout=60.0, resumes=1
)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> CrashLab:
    """The crashy team, a corpus and one data home shared by the kills of this module."""
    return HeldLab(tmp_path_factory.mktemp("crash"), SETTINGS)


@pytest.fixture(scope="module")
def batched_lab(tmp_path_factory: pytest.TempPathFactory) -> CrashLab:
    """The same, its fan-out sent in batches of four tasks."""
    return HeldLab(tmp_path_factory.mktemp("crash-batched"), replace(SETTINGS, batch=4))


def _passed(report: CrashReport) -> CrashReport:
    assert report.passed, report.line(TASKS)
    assert report.killed_pid is not None
    assert report.saved is not None
    assert report.saved.in_fanout, "the kill came after the fan-out"
    assert report.resumes == 1
    return report


def test_kill_at_the_first_side_effect_reruns_what_was_not_saved(lab: CrashLab) -> None:
    report = _passed(lab.crash(1, after_effects=1))
    assert report.ran_before_kill >= 1
    # what ran but was not saved ran again, once
    assert set(report.reexecuted) <= {
        e.task_id for e in read_effects(lab.root / "effects-t1.txt") if e.pid == report.killed_pid
    }


def test_kill_in_the_middle_of_the_fan_out_completes_on_resume(lab: CrashLab) -> None:
    report = _passed(lab.crash(2, after_effects=TASKS // 2, extra_delay=0.01))
    assert TASKS // 2 <= report.ran_before_kill < TASKS


def test_results_saved_before_the_kill_are_not_executed_again(lab: CrashLab) -> None:
    report = _passed(lab.crash(3, after_effects=1, after_saved=True))
    assert report.saved is not None
    saved = report.saved.task_ids
    assert saved, "the kill came after a saved result"
    assert not saved & set(report.reexecuted)
    effects = read_effects(lab.root / "effects-t3.txt")
    assert sorted(e.task_id for e in effects if e.task_id in saved) == sorted(saved)


def test_a_kill_in_a_batched_fan_out_reruns_no_task_a_batch_saved(batched_lab: CrashLab) -> None:
    report = _passed(batched_lab.crash(1, after_effects=TASKS // 2, after_saved=True))
    assert report.saved is not None
    saved = report.saved.task_ids
    assert TASKS // 2 <= len(saved) < TASKS, "the kill came after each ran task was saved"
    assert not saved & set(report.reexecuted)
    effects = read_effects(batched_lab.root / "effects-t1.txt")
    assert sorted(e.task_id for e in effects if e.task_id in saved) == sorted(saved)


def test_the_crashy_team_is_registered_by_a_dist_info_on_the_path(lab: CrashLab) -> None:
    team = Path(lab.env["PYTHONPATH"].split(os.pathsep)[0])
    entry_points = (team / "crashy_team-0.dist-info" / "entry_points.txt").read_text()
    assert entry_points == "[cadre.teams]\ncrashy = crashy_team:team\n"
    assert (team / "crashy_team.py").is_file()
    assert lab.env["HF_HUB_OFFLINE"] == "1"


def test_a_thread_killed_between_a_step_and_its_next_checkpoint_resumes(lab: CrashLab) -> None:
    effects = lab.root / "between.txt"
    env = {**lab.env, "CADRE_CRASH_EFFECTS": str(effects)}
    subprocess.run(lab._run_args("between"), env=env, check=True, capture_output=True, timeout=120)
    with open_checkpointer(lab.home) as saver:
        config = {"configurable": {"thread_id": "between"}}
        later = [c.checkpoint["id"] for c in saver.list(config) if c.metadata["step"] > 4]
        saver.delete_checkpoints("between", "", later)  # as a kill -9 leaves it
    assert not read_final(lab.home, "between").answer
    home = str(lab.home.root)
    done = subprocess.run(
        [*lab.cadre, "resume", "between", "--home", home],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert read_final(lab.home, "between").answer


# -- what a user sees after a kill -------------------------------------------------------------


def _held_run(lab: CrashLab, thread: str) -> list[str]:
    """``cadre run`` of the held team for ``thread`` (without the program's path)."""
    return held_run_args(lab._run_args(thread))[len(lab.cadre) :]


def _kill_once_held(lab: CrashLab, effects: Path, *args: str) -> None:
    """Start ``cadre`` with ``args`` (the held team's workers wait after the first side effect)
    and kill it with SIGKILL then: always mid-run, however slow the machine."""
    held = {**lab.env, EFFECTS_VARIABLE: str(effects), HOLD_AFTER_VARIABLE: "1"}
    process = subprocess.Popen(
        [*lab.cadre, *args], env=held, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_effects(effects, process, timeout=120)
    finally:
        process.kill()
        process.wait()


def _cadre(lab: CrashLab, effects: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**lab.env, EFFECTS_VARIABLE: str(effects)}
    command = [*lab.cadre, *args]
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _interrupted_then_resumed(lab: CrashLab, effects: Path, thread: str) -> None:
    """``cadre threads`` lists ``thread`` interrupted, ``cadre show`` names the command to go
    on, and that command finishes it."""
    home = ("--home", str(lab.home.root))
    listed = _cadre(lab, effects, "threads", *home).stdout
    [row] = [line for line in listed.splitlines() if line.startswith(f"{thread} ")]
    assert "  interrupted  " in row, row
    shown = _cadre(lab, effects, "show", thread, *home).stdout
    [status] = [line.strip() for line in shown.splitlines() if "status:" in line]
    assert status == f"status: interrupted (continue with `cadre resume {thread}`)", shown
    resumed = _cadre(lab, effects, "resume", thread, *home)
    assert f"thread {thread} finished" in resumed.stdout, resumed.stderr


def test_a_killed_run_is_interrupted_in_threads_and_show_names_the_resume(lab: CrashLab) -> None:
    effects = lab.root / "effects-killed.txt"
    _kill_once_held(lab, effects, *_held_run(lab, "killed"))
    _interrupted_then_resumed(lab, effects, "killed")


EDITED_PLAN = """\
goal: Which tasks survive a crash?
tasks:
  - {id: t000, description: the first task edited}
  - {id: t001, description: the second task edited}
  - {id: t002, description: the third task edited}
"""


@pytest.mark.parametrize("decision", ["approve", "reject", "edit"])
def test_a_decision_killed_after_it_was_made_leaves_no_review_pending_and_names_resume(
    lab: CrashLab, decision: str
) -> None:
    """``cadre approve`` (``reject``, ``edit``) killed while the run it let go on works: the
    thread is interrupted, not paused at review, and the same decision again says nothing is
    pending and how to go on."""
    thread = f"decided-{decision}"
    effects = lab.root / f"effects-{thread}.txt"
    paused = _cadre(lab, effects, *_held_run(lab, thread), "--review", "plan")
    assert "paused for review" in paused.stdout, paused.stderr
    plan = lab.root / "edited-plan.yaml"
    plan.write_text(EDITED_PLAN, encoding="utf-8")
    made = {
        "approve": ("approve", thread),
        "reject": ("reject", thread, "t000", "--reason", "not needed"),
        "edit": ("edit", thread, "--plan", str(plan)),
    }[decision]
    home = ("--home", str(lab.home.root))
    _kill_once_held(lab, effects, *made, "--reviewer", "alice", *home)
    refused = _cadre(lab, effects, *made, "--reviewer", "alice", *home)
    assert refused.returncode == 2 and refused.stdout == "", refused
    assert refused.stderr.strip() == (
        f"error: nothing pending on thread '{thread}': it waits for no review; a run that "
        f"stopped after its decision goes on with `cadre resume {thread}` (over the API: a run "
        "with no input)"
    )
    _interrupted_then_resumed(lab, effects, thread)
