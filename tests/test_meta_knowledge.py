"""The knowledge teams as MetaCoordinator phases (``--team meta-knowledge``), and the graph they
leave behind for ``cadre ask``, offline over a small corpus written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.errors import ConfigError
from framework.memory import MiniLMEmbedder
from teams.meta import CitationCompliance, EvidenceRisk, build_phased_coordinator
from tests.conftest import write_corpus

runner = CliRunner()

CORPUS = {
    "chain.md": "# Scheduling\n\nThe dispatcher uses the scheduler. The scheduler reads the "
    "clock.\n",
    "storage.md": "# Storage\n\nThe tracer exports spans to the collector.\n",
}
"""Two documents; their sentences start at line 3."""
PATH_QUESTION = "How is the dispatcher linked to the clock?"
PATH_ANSWER = (
    "Dispatcher reaches clock in 2 step(s): the dispatcher uses the scheduler "
    "(`docs/chain.md:3`); then the scheduler reads the clock (`docs/chain.md:3`)."
)


@pytest.fixture
def corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Path:
    return write_corpus(tmp_path / "docs", CORPUS)


def _cadre(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_meta_knowledge_extracts_then_answers_citing_the_corpus(
    corpus: Path, tmp_path: Path
) -> None:
    home = str(tmp_path / "home")
    code, out, err = _cadre(
        "run", PATH_QUESTION, "--corpus", str(corpus), "--team", "meta-knowledge",
        "--home", home, "--json", "--no-trace",
    )  # fmt: skip
    assert code == 0, err
    state = json.loads(out)
    assert state["final_answer"].startswith(f"# {PATH_QUESTION}\n")
    assert PATH_ANSWER in state["final_answer"]
    assert [e["source"] for e in state["evidence"]] == ["docs/chain.md:3"]
    assert set(state["findings"]) == {"intake", "risk_assessment", "compliance_check"}
    assert [f["message"] for f in state["findings"]["compliance_check"]] == [
        "all 1 claims cite their sources"
    ]
    assert "\nsupervisor next query_memory" in err  # the nested team's progress, by its name
    code, out, err = _cadre("ask", "What does the tracer do?", "--home", home, "--no-trace")
    assert code == 0, err  # the graph the run extracted stays in the home
    assert '- The tracer exports spans: "The tracer exports spans to the collector." (' in out


def test_extract_then_ask_answers_from_the_same_home(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # documents are cited by the paths given to extract
    home = str(tmp_path / "home")
    code, out, err = _cadre("extract", "docs", "--home", home, "--no-trace")
    assert code == 0, err
    assert "relations: 3" in out
    code, out, err = _cadre("ask", PATH_QUESTION, "--home", home, "--no-trace")
    assert code == 0, err
    assert PATH_ANSWER in out
    assert '- `docs/chain.md:3`: "The dispatcher uses the scheduler."' in out


def test_phases_are_checked_when_the_coordinator_is_built() -> None:
    checks = (EvidenceRisk(), CitationCompliance())
    with pytest.raises(ConfigError, match="at least one"):
        build_phased_coordinator([], *checks)
    with pytest.raises(ConfigError, match="unique names"):
        build_phased_coordinator([("intake", object())], *checks)  # type: ignore[list-item]
