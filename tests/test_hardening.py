"""Hardening of runs: a run whose every task failed is a failed run, not an answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import Corpus
from framework.records import WorkerResult
from framework.runner import RunResult
from tests.conftest import SMALL_CORPUS, write_corpus

runner = CliRunner()


def _result(task_id: str, status: str) -> WorkerResult:
    error = "OSError: disk gone" if status == "failed" else None
    return WorkerResult(task_id=task_id, status=status, error=error)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("statuses", "paused", "failed"),
    [
        (("failed", "failed"), (), True),
        (("failed", "ok"), (), False),
        ((), (), False),
        (("failed",), ("plan_review",), False),
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
        assert "all 2 task(s) failed" in str(failure) and "OSError: disk gone" in str(failure)


def test_a_run_whose_every_search_failed_exits_1_with_the_cause(
    tmp_path: Path, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)

    def broken(*_: object, **__: object) -> list[object]:
        raise OSError("the index file is unreadable")

    monkeypatch.setattr(Corpus, "search", broken)
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
