"""``cadre memory``: list, search, show, why and sweep over a home a run wrote to, and the
provenance every item records."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import resolve_home
from framework.memory import MiniLMEmbedder, StoreItem
from framework.policy.records import policy_version
from framework.runs.stores import home_cipher, home_store
from tests.conftest import SMALL_CORPUS, as_default_database, one_line_error, write_corpus

runner = CliRunner()

POLICY = "principal: {user: ana, tenant: acme}\n"


def _cadre(home: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def home(
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    database: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """A home where one governed research run finished (on SQLite or PostgreSQL)."""
    as_default_database(database, monkeypatch)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    home = tmp_path / "home"
    args = ["run", "How do workers retry?", "--corpus", str(corpus), "--thread", "t1"]
    _cadre(home, *args, "--policy", str(policy), "--no-trace")
    return home


def test_every_item_says_which_run_wrote_it_and_why_walks_to_the_evidence(home: Path) -> None:
    listed = _cadre(home, "memory", "list")
    assert re.search(r"^corpus  \d+ item\(s\)$", listed, re.M)
    evidence_space = next(
        line.split()[0]
        for line in listed.splitlines()
        if line.endswith("item(s)") and "evidence" in line
    )
    first = _cadre(home, "memory", "list", "-n", evidence_space, "--limit", "1").splitlines()[0]
    item = first.split()[0]

    shown = _cadre(home, "memory", "show", item)
    assert "thread: t1" in shown and "team: meta" in shown and "node: worker" in shown
    assert re.search(r"^subgraph: research_team:[0-9a-f-]{36}$", shown, re.M)
    assert re.search(r"^task: [0-9a-f-]{36}$", shown, re.M)
    assert re.search(r"^checkpoint: [0-9a-f-]{36}$", shown, re.M)
    assert f"policy version: {policy_version(POLICY)}" in shown
    assert re.search(r"^source: docs/\w+\.md:\d+$", shown, re.M)

    why = _cadre(home, "memory", "why", item)
    assert "run: thread t1 of team meta, memory scope default" in why
    assert "checkpoint kept: step " in why
    assert re.search(r"^evidence: corpus#[0-9a-f]+ \(docs/\w+\.md:\d+-\d+\): ", why, re.M)

    passage = _cadre(home, "memory", "list", "-n", "corpus", "--limit", "1").split()[0]
    indexed = _cadre(home, "memory", "show", passage)
    assert "run: none (written outside a run" in indexed
    assert re.search(r"^source: docs/\w+\.md:\d+$", indexed, re.M)

    assert "namespace nope holds no items" in _cadre(home, "memory", "list", "-n", "nope")
    assert "nothing in namespace nope" in _cadre(home, "memory", "search", "x", "-n", "nope")
    hits = _cadre(home, "memory", "search", "retry with backoff", "-n", "corpus", "--limit", "2")
    assert len(hits.splitlines()) == 2 and hits.splitlines()[0].split()[1].startswith("corpus#")


def test_sweep_deletes_expired_items_and_show_refuses_what_is_gone(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_home = resolve_home(home)
    with home_store(data_home, home_cipher(data_home)) as store:
        store.put(("scratch",), StoreItem(key="note", text="short lived", ttl_minutes=1))
        assert store.count(("scratch",)) == 1
    monkeypatch.setattr("framework.memory._clock.now", Later(120).time)
    assert "swept 1 expired item(s)" in _cadre(home, "memory", "sweep")
    gone = runner.invoke(app, ["memory", "show", "scratch#note", "--home", str(home)])
    assert gone.exit_code == 2
    assert "no item scratch#note (deleted, expired, or never written)" in one_line_error(gone)


class Later:
    """A clock ``seconds`` ahead of the real one."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def time(self) -> float:
        return time.time() + self.seconds


def test_a_home_without_memory_is_refused_in_one_line(tmp_path: Path) -> None:
    empty = runner.invoke(app, ["memory", "list", "--home", str(tmp_path / "none")])
    assert empty.exit_code == 2 and "no memory under" in one_line_error(empty)
