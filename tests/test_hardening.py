"""Hardening of runs: a run whose every task failed is a failed run, not an answer."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli._edits import read_answer
from framework.cli.app import app
from framework.engine.records import WorkerResult
from framework.errors import ConfigError, ReviewError
from framework.memory import Corpus
from framework.review import ReviewLimits
from framework.runs.runner import RunResult
from tests.conftest import SMALL_CORPUS, write_corpus

runner = CliRunner()


def _result(task_id: str, status: str) -> WorkerResult:
    if status == "refused":  # a person or a policy refused it: a decision, not a fault
        return WorkerResult(task_id=task_id, status="failed", error="not this", refused=True)
    error = "OSError: disk gone" if status == "failed" else None
    return WorkerResult(task_id=task_id, status=status, error=error)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("statuses", "paused", "failed"),
    [
        (("failed", "failed"), (), True),
        (("failed", "ok"), (), False),
        ((), (), False),
        (("failed",), ("plan_review",), False),
        (("refused",), (), False),
        (("refused", "failed"), (), True),
    ],
)
def test_a_run_fails_only_when_every_task_it_ran_failed(
    statuses: tuple[str, ...], paused: tuple[str, ...], failed: bool
) -> None:
    results = {f"q{i}": _result(f"q{i}", status) for i, status in enumerate(statuses)}
    outcome = RunResult(thread_id="t", state={"worker_results": results}, paused_before=paused)
    failure = outcome.failure()
    assert (failure is not None) == failed
    if failure is not None:
        assert f"all {len(results)} task(s) failed" in str(failure)
        assert "OSError: disk gone" in str(failure)


def test_a_run_whose_every_search_failed_exits_1_with_the_cause(
    tmp_path: Path, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)

    def broken(*_: object, **__: object) -> list[object]:
        raise OSError("the index file is unreadable")

    monkeypatch.setattr(Corpus, "search", broken)
    monkeypatch.setattr(Corpus, "search_many", broken)  # the worker's several queries at once
    result = runner.invoke(
        app,
        [
            "run", "How are runs checkpointed?", "--team", "research", "--corpus", str(corpus),
            "--home", str(tmp_path / "home"), "--thread", "t1", "--no-trace",
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    [line] = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert "thread t1: all 1 task(s) failed, so the answer has no evidence" in line
    assert "the index file is unreadable" in line
    listed = runner.invoke(app, ["threads", "--home", str(tmp_path / "home")])
    [row] = [row for row in listed.stdout.splitlines() if row.startswith("t1 ")]
    assert " failed " in f"{row} " and " done " not in f"{row} "  # as the run ended: exit 1


def _paused_on_plan(tmp_path: Path) -> tuple[list[str], Path]:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = ["--home", str(tmp_path / "home")]
    started = runner.invoke(
        app,
        ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--review", "plan",
         "--thread", "t1", "--no-trace", *home],
    )  # fmt: skip
    assert started.exit_code == 0, started.output
    return home, tmp_path


def _row_counts(database: Path) -> list[int]:
    with closing(sqlite3.connect(database)) as db:
        tables = ("cadre_checkpoints", "cadre_blobs", "cadre_writes")
        return [db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in tables]


def _plan_file(path: Path, tasks: int, description: str = "Look it up") -> Path:
    plan = {
        "goal": "g",
        "tasks": [{"id": f"q{i}", "description": f"{description} {i}"} for i in range(tasks)],
    }
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("tasks", "description", "words"),
    [
        (4000, "Look it up", "has 4000 tasks, over the limit of 64 ($CADRE_REVIEW_MAX_TASKS)"),
        (1, "x" * 100_000, "over the limit of 4,000 ($CADRE_REVIEW_MAX_TEXT)"),
    ],
)
def test_an_oversized_plan_edit_is_refused_with_the_limit_and_changes_nothing(
    tmp_path: Path, embedder: object, tasks: int, description: str, words: str
) -> None:
    home, root = _paused_on_plan(tmp_path)
    database = root / "home" / "checkpoints.sqlite"
    rows = _row_counts(database)
    before = runner.invoke(app, ["show", "t1", *home]).stdout
    plan = _plan_file(root / "plan.json", tasks, description)
    edited = runner.invoke(app, ["edit", "t1", "--plan", str(plan), "--reviewer", "r", *home])
    assert edited.exit_code == 2, edited.output
    assert words in edited.stderr
    assert runner.invoke(app, ["show", "t1", *home]).stdout == before
    assert _row_counts(database) == rows


def test_the_limits_are_configurable(
    tmp_path: Path, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, root = _paused_on_plan(tmp_path)
    monkeypatch.setenv("CADRE_REVIEW_MAX_TASKS", "2")
    plan = _plan_file(root / "plan.json", 3)
    edited = runner.invoke(app, ["edit", "t1", "--plan", str(plan), "--reviewer", "r", *home])
    assert "has 3 tasks, over the limit of 2" in edited.stderr
    monkeypatch.setenv("CADRE_REVIEW_MAX_TASKS", "3")
    edited = runner.invoke(app, ["edit", "t1", "--plan", str(plan), "--reviewer", "r", *home])
    assert edited.exit_code == 0, edited.output
    monkeypatch.setenv("CADRE_REVIEW_MAX_TASKS", "many")
    with pytest.raises(ConfigError, match="CADRE_REVIEW_MAX_TASKS must be a whole number"):
        ReviewLimits.from_environment()


def test_an_edit_file_too_large_to_be_an_edit_is_not_read(tmp_path: Path) -> None:
    big = tmp_path / "answer.txt"
    big.write_bytes(b"a" * (ReviewLimits().max_file_bytes + 1))
    with pytest.raises(ReviewError, match="has more than"):
        read_answer(big)


def _two_threads(tmp_path: Path) -> Path:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    for thread in ("good", "bad"):
        ran = runner.invoke(
            app,
            ["run", "How are runs checkpointed?", "--team", "research", "--corpus", str(corpus),
             "--home", str(home), "--thread", thread, "--no-trace"],
        )  # fmt: skip
        assert ran.exit_code == 0, ran.output
    return home


def _flip_last_byte(body: bytes, _other: bytes) -> bytes:
    return body[:-1] + bytes([body[-1] ^ 1])


def _newest(thread: str) -> str:
    return (
        f"WHERE thread_id = '{thread}' AND checkpoint_ns = '' AND checkpoint_id = (SELECT "
        f"max(checkpoint_id) FROM cadre_checkpoints WHERE thread_id = '{thread}' AND "
        "checkpoint_ns = '')"
    )


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (_flip_last_byte, "TamperError: checkpoint row (thread bad"),
        (lambda _body, _other: b"", "the blob is empty (0 bytes)"),
        (lambda _body, other: other, "it does not belong at this row (copied from"),  # moved
    ],
)
def test_threads_lists_the_readable_threads_and_names_the_damaged_row(
    tmp_path: Path, embedder: object, damage: Callable[[bytes, bytes], bytes], words: str
) -> None:
    """A blob altered, emptied or moved from another thread's row."""
    home = _two_threads(tmp_path)
    with closing(sqlite3.connect(home / "checkpoints.sqlite")) as db, db:
        (body,) = db.execute(f"SELECT body FROM cadre_checkpoints {_newest('bad')}").fetchone()
        (other,) = db.execute(f"SELECT body FROM cadre_checkpoints {_newest('good')}").fetchone()
        db.execute(
            f"UPDATE cadre_checkpoints SET body = ? {_newest('bad')}", (damage(body, other),)
        )
    listed = runner.invoke(app, ["threads", "--home", str(home)])
    assert listed.exit_code == 1, listed.output
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert "done" in rows["good"] and "UNREADABLE" in rows["bad"]
    [line] = listed.stderr.splitlines()
    assert line.startswith("error: thread bad cannot be read: ")
    assert words in line and "namespace top, checkpoint " in line
