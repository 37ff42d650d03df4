"""A data home under attack or shared by accident: ``cadre run`` fails (exit 1, one line) when
its semantic store was tampered with, on SQLite and PostgreSQL, and a home is private to its
user (folders 0700, files 0600, a warning once for a home others could read)."""

from __future__ import annotations

import logging
import sqlite3
import stat
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database import DATABASE_VARIABLE
from framework.database.home import DataHome
from framework.memory import MiniLMEmbedder
from framework.persistence.keys import KEYS_VARIABLE
from tests.conftest import as_default_database, write_corpus

runner = CliRunner()

DOCS = {
    "bees.md": "# Bees\n\nBees make honey from the nectar they gather from flowers.\n",
    "ferries.md": "# Ferries\n\nFerries cross the bay every hour from the north pier.\n",
}
QUESTION = "What do bees make? How often do ferries cross the bay?"


@pytest.fixture
def database(database: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The shared fixture's database, as the default of every data home (``$CADRE_DB``)."""
    return as_default_database(database, monkeypatch)


def _run(home: Path, corpus: Path, thread: str) -> Any:
    args = ["run", QUESTION, "--corpus", str(corpus), "--home", str(home), "--thread", thread]
    return runner.invoke(app, [*args, "--no-trace"])


def _flip_first_text(home: Path, database: str | None) -> None:
    """Flip the last byte of one corpus text in the home's store."""
    select = "SELECT key, text FROM items WHERE namespace = 'corpus' ORDER BY key"
    update = "UPDATE items SET text = ? WHERE namespace = 'corpus' AND key = ?"
    if database is None:
        with sqlite3.connect(home / "memory.sqlite") as conn:
            key, text = conn.execute(select).fetchone()
            conn.execute(update, (text[:-1] + bytes([text[-1] ^ 1]), key))
        return
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("SET search_path TO cadre_memory")
        key, text = conn.execute(select).fetchone()
        conn.execute(update.replace("?", "%s"), (text[:-1] + bytes([text[-1] ^ 1]), key))


def test_a_run_on_a_tampered_store_fails_in_one_line(
    tmp_path: Path, database: str | None, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(tmp_path / "docs", DOCS)
    home = tmp_path / "home"
    first = _run(home, corpus, "t1")
    assert first.exit_code == 0, first.stderr
    _flip_first_text(home, database)
    done = _run(home, corpus, "t2")
    assert done.exit_code == 1, done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("error: ") and "namespace 'corpus'" in lines[-1], done.stderr
    assert "failed authentication" in lines[-1]
    assert "Search failed" not in done.stdout


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_an_open_home_is_made_private_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, umask_022: None
) -> None:
    root = tmp_path / "home"
    (root / "traces").mkdir(parents=True)
    spans = root / "traces" / "spans.jsonl"
    spans.write_text("")
    for path, mode in ((root, 0o755), (root / "traces", 0o775), (spans, 0o644)):
        path.chmod(mode)
    with caplog.at_level(logging.WARNING, logger="cadre.home"):
        DataHome(root=root).create()
        root.chmod(0o750)
        DataHome(root=root).create()
    warnings = [r.getMessage() for r in caplog.records if r.name == "cadre.home"]
    assert len(warnings) == 1 and "0755" in warnings[0] and str(root) in warnings[0]
    assert _mode(root) == _mode(root / "traces") == 0o700
    assert _mode(spans) == 0o600
    assert _mode(root / "checkpoints.sqlite") == _mode(root / "memory.sqlite") == 0o600


def test_what_a_run_writes_is_private_to_its_user(
    tmp_path: Path, embedder: MiniLMEmbedder, umask_022: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    monkeypatch.delenv(DATABASE_VARIABLE, raising=False)
    corpus = write_corpus(tmp_path / "docs", DOCS)
    home = tmp_path / "home"
    args = ["run", "What do bees make?", "--corpus", str(corpus), "--home", str(home)]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.stderr
    modes = {path.relative_to(home).as_posix(): _mode(path) for path in home.rglob("*")}
    folders = {name: mode for name, mode in modes.items() if (home / name).is_dir()}
    files = {name: mode for name, mode in modes.items() if name not in folders}
    assert {"keys.json", "checkpoints.sqlite", "memory.sqlite", "traces/spans.jsonl"} <= set(files)
    assert "traces/runs.sqlite" in files and any(name.startswith("locks/") for name in files)
    assert set(files.values()) == {0o600}, files
    assert _mode(home) == 0o700 and set(folders.values()) == {0o700}, folders


def test_a_process_that_started_before_the_keys_existed_reads_what_another_sealed(
    tmp_path: Path,
) -> None:
    from framework.runs.stores import home_cipher

    home = DataHome(root=tmp_path / "home").create()
    early, late = home_cipher(home), home_cipher(home)  # two processes on a new home
    assert early is not late and not (home.root / "keys.json").exists()
    blob = late.encrypt(b"sealed", b"row")  # the first seal saves the keys
    assert early.decrypt(blob, b"row") == b"sealed"  # the other takes them up
