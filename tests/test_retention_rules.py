"""``cadre retention apply``: rules per scope for memory items, finished threads and traces."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import resolve_home
from framework.memory import MiniLMEmbedder
from framework.runs.stores import home_cipher, home_store
from tests.conftest import as_default_database, one_line_error
from tests.test_purge import ALICE_CORPUS, BOB_CORPUS, _everything, _run, holding

runner = CliRunner()

RULES = """\
default:
  memory: 1d
  checkpoints: 1d
  traces: 1d
scopes:
  user:bob:
    memory: forever
    checkpoints: 30d
    traces: forever
"""


class Later:
    """The real clock, ``days`` ahead."""

    def __init__(self, days: float) -> None:
        self.days = days

    def time(self) -> float:
        return time.time() + self.days * 86_400


@pytest.fixture
def home(tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch) -> Path:
    as_default_database(None, monkeypatch)
    home = tmp_path / "home"
    _run(home, tmp_path, "alice", ALICE_CORPUS, "When does the ferry sail?")
    _run(home, tmp_path, "bob", BOB_CORPUS, "Where are the bees?")
    (home / "retention.yaml").write_text(RULES, encoding="utf-8")
    return home


def _data(home: Path) -> dict[str, Any]:
    """What the home holds: the rows of its SQLite files (their bytes change when a reader
    folds a log in), the bytes of its other files."""
    found: dict[str, Any] = {}
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        if path.suffix == ".sqlite":
            with closing(sqlite3.connect(path)) as conn:
                found[path.name] = list(conn.iterdump())
        elif not path.name.endswith(("-shm", "-wal")):
            found[path.name] = path.read_bytes()
    return found


def _apply(home: Path, *args: str) -> str:
    result = runner.invoke(app, ["retention", "apply", *args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_rules_remove_what_they_no_longer_keep_per_scope(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _apply(home).startswith("removed: 0 finished threads, 0 memory items, 0 spans")
    monkeypatch.setattr("framework.retention.rules.time", Later(2))
    before = _data(home)
    dry = _apply(home, "--dry-run")
    assert dry.startswith("would remove: 1 finished threads, ")
    assert "  finished thread alice-thread-1" in dry
    assert _data(home) == before  # nothing changed

    done = _apply(home)
    assert done.replace("removed", "would remove") == dry
    after = _everything(home, None)
    assert holding(after, b"alice-thread-1") == []  # checkpoints, spans, run index entries
    assert holding(after, b"bob-thread-1")
    data_home = resolve_home(home)
    with home_store(data_home, home_cipher(data_home)) as store:
        spaces = store.namespaces()
        assert ("user", "alice", "prefs") not in spaces  # the default keeps memory 1 day
        assert ("user", "bob", "prefs") in spaces and ("corpus",) in spaces
    assert _apply(home).startswith("removed: 0 finished threads, 0 memory items, 0 spans")

    monkeypatch.setattr("framework.retention.rules.time", Later(31))
    assert "  finished thread bob-thread-1" in _apply(home)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("default:\n  memory: 10 days\n", ":2: default.memory: an age is a positive number"),
        ("default:\n  memory: 0d\n", ":2: default.memory: an age is a positive number"),
        ("default:\n  kept: 1d\n", ":2: default.kept: Extra inputs are not permitted"),
        ("scopes:\n  alice:\n    memory: 1d\n", "scope 'alice': write KIND:NAME"),
    ],
)
def test_a_bad_rules_file_is_refused_with_its_line_and_nothing_removed(
    home: Path, text: str, message: str
) -> None:
    (home / "retention.yaml").write_text(text, encoding="utf-8")
    before = _data(home)
    refused = runner.invoke(app, ["retention", "apply", "--home", str(home)])
    assert refused.exit_code == 2 and message in one_line_error(refused)
    assert _data(home) == before


def test_without_a_rules_file_nothing_is_removed(tmp_path: Path) -> None:
    refused = runner.invoke(app, ["retention", "apply", "--home", str(tmp_path)])
    assert refused.exit_code == 2 and "no retention rules file" in one_line_error(refused)
