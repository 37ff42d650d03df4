"""``cadre run``: the report, ``--json``, and one-line failures that write nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.cli.progress import AnswerPrinter
from framework.memory import Corpus, MiniLMEmbedder
from framework.runs.teams import TeamSetup
from teams.research import DEFAULT_SETTINGS
from teams.research.app import research_team
from tests.conftest import SMALL_CORPUS, write_corpus

runner = CliRunner()


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs", SMALL_CORPUS)


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["run", *args])
    return result.exit_code, result.stdout, result.stderr


def test_run_prints_a_cited_report_and_progress(
    corpus_dir: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = tmp_path / "home"
    code, out, err = _run(
        "How do workers retry transient errors?", "--corpus", str(corpus_dir), "--home", str(home)
    )
    assert code == 0, err
    assert out.startswith("# How do workers retry transient errors?")
    assert "(`docs/retries.md:3`)" in out
    for progress in ("plan", "dispatch", "done q0", "review 1"):
        assert progress in err
    assert "compliance check" in err
    assert (home / "checkpoints.sqlite").stat().st_size > 0
    assert (home / "memory.sqlite").stat().st_size > 0


def test_run_stream_prints_the_answer_as_it_is_written_and_only_once(
    corpus_dir: Path, tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "How do workers retry transient errors?"
    written: list[str] = []
    monkeypatch.setattr(AnswerPrinter, "__call__", _spying(AnswerPrinter.__call__, written))
    args = [question, "--corpus", str(corpus_dir)]
    code, streamed, err = _run(*args, "--home", str(tmp_path / "a"), "--stream")
    assert code == 0, err
    code, plain, err = _run(*args, "--home", str(tmp_path / "b"))
    assert code == 0, err
    assert streamed == plain  # the same answer, printed once
    assert len(written) > 3 and "".join(written) == plain.removesuffix("\n")


def _spying(call: Any, written: list[str]) -> Any:
    """``AnswerPrinter.__call__``, noting each piece of the answer it printed."""

    def spy(self: AnswerPrinter, namespace: tuple[str, ...], mode: str, payload: Any) -> None:
        before = self.printed
        call(self, namespace, mode, payload)
        if self.printed != before:
            written.append(self.printed.removeprefix(before))

    return spy


def test_run_json_has_answer_tasks_results_and_findings(
    corpus_dir: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = tmp_path / "home"
    args = ["How are runs checkpointed?", "--corpus", str(corpus_dir), "--home", str(home)]
    code, out, err = _run(*args, "--json", "--thread", "t-json", "--max-parallel", "2")
    assert code == 0, err
    state = json.loads(out)
    assert state["thread_id"] == "t-json"
    assert "docs/checkpoints.md:3" in state["final_answer"]
    assert state["tasks"]["q0"]["status"] == "done"
    assert state["worker_results"]["q0"]["evidence"][0]["source"].startswith("docs/")
    assert set(state["findings"]) == {"intake", "risk_assessment", "compliance_check"}
    code, _, err = _run(*args, "--team", "research")
    assert code == 0
    assert "3 unchanged" in err  # the corpus is not indexed twice


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--corpus", "{missing}"], "does not exist"),
        (
            ["--team", "nope"],
            "unknown team 'nope': choose one of analyst, extraction, hypothesis, meta, "
            "meta-hypothesis, meta-knowledge, research, supervisor",
        ),
        (["--model", "gpt4"], "bad model spec 'gpt4'"),
        (["--model", "anthropic:claude"], "pip install langchain-anthropic"),
        (["--max-parallel", "0"], "--max-parallel must be at least 1"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line_and_writes_nothing(
    args: list[str], reason: str, corpus_dir: Path, tmp_path: Path
) -> None:
    if "anthropic:claude" in args and _installed("langchain_anthropic"):
        pytest.skip("langchain-anthropic is installed here")
    home = tmp_path / "home"
    args = [a.replace("{missing}", str(tmp_path / "missing")) for a in args]
    if "--corpus" not in args:
        args += ["--corpus", str(corpus_dir)]
    code, out, err = _run("a question", "--home", str(home), *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert reason in err
    assert not home.exists()


def _installed(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def test_console_script_reports_a_missing_corpus(tmp_path: Path) -> None:
    cadre = Path(sys.executable).with_name("cadre")
    env = {**os.environ, "CADRE_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [str(cadre), "run", "why?", "--corpus", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: corpus folder")
    assert not (tmp_path / "home").exists()


def test_research_team_keeps_its_default_cap_unless_told(small_corpus: Corpus) -> None:
    def cap(max_parallel: int | None) -> int | None:
        setup = TeamSetup(corpus=small_corpus, store=small_corpus.store, max_parallel=max_parallel)
        worker = research_team(setup).nodes["worker"].runnable
        return worker.slots[0].max_parallel  # type: ignore[attr-defined, no-any-return]

    assert cap(None) == DEFAULT_SETTINGS.max_parallel == 8
    assert cap(2) == 2


def test_meta_hypothesis_runs_the_hypothesis_team_inside_the_coordinator(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    code, out, err = _run(
        "How do workers retry transient errors?",
        "--corpus",
        str(corpus),
        "--home",
        str(tmp_path / "home"),
        "--team",
        "meta-hypothesis",
        "--json",
    )
    assert code == 0, err
    state = json.loads(out)
    assert "docs/retries.md:3" in state["final_answer"]
    assert set(state["findings"]) == {"intake", "risk_assessment", "compliance_check"}
    assert [f["severity"] for f in state["findings"]["compliance_check"]] == ["info"]
    assert "hypothesis" in err  # the hypothesis team's progress, nested under the coordinator


def test_nothing_a_run_wrote_is_readable_in_the_home_files(
    corpus_dir: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = tmp_path / "home"
    question = "How are runs checkpointed? zebra-quartz-secret"
    code, _, err = _run(question, "--corpus", str(corpus_dir), "--home", str(home), "--no-trace")
    assert code == 0, err
    assert oct((home / "keys.json").stat().st_mode & 0o777) == "0o600"
    secrets = [
        b"zebra-quartz-secret",  # the question (state, configurable values)
        b"encrypted at rest with AES in OCB mode",  # a corpus chunk and a worker's evidence
        b"docs/checkpoints.md:3",  # a citation (state, facts, evidence)
        str(corpus_dir).encode(),  # the thread's recorded settings
    ]  # the ingest index keeps file paths and content hashes in plain text, to skip unchanged files
    for name in (
        "checkpoints.sqlite",
        "checkpoints.sqlite-wal",
        "memory.sqlite",
        "memory.sqlite-wal",
    ):
        path = home / name
        if path.exists():
            data = path.read_bytes()
            assert not [s for s in secrets if s in data], name
