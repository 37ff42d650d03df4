"""``cadre purge --scope``: a scope's memory, checkpoints, traces and run index entries are
gone from every file of the home (and from a PostgreSQL dump); other scopes are intact; a
running thread refuses it; an interrupted purge finishes when run again."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import resolve_home
from framework.errors import CryptoError
from framework.memory import MiniLMEmbedder
from framework.memory.corpus import CORPUS_NAMESPACE
from framework.memory.langgraph_store import LangGraphStore
from framework.retention.purge import DataScope, purge
from framework.runs.stores import home_cipher, home_store, open_checkpointer
from tests.conftest import as_default_database, one_line_error, write_corpus
from tests.postgres_server import find_bin_dir

runner = CliRunner()

ALICE_CORPUS = {
    "harbour.md": "# Harbour\n\nThe Quillon harbour ferry sails at dawn from pier nine.\n",
}
BOB_CORPUS = {
    "orchard.md": "# Orchard\n\nThe Vellmar orchard keeps bees in the east meadow.\n",
}
ALICE_QUESTION = "When does the Quillon harbour ferry sail?"
BOB_QUESTION = "Where does the Vellmar orchard keep bees?"
ALICE_NOTE = "alice-private-note-zephyrine"
BOB_NOTE = "bob-private-note-marigold"


def _cadre(home: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def _run(home: Path, tmp_path: Path, who: str, corpus: dict[str, str], question: str) -> None:
    folder = write_corpus(tmp_path / f"{who}-docs", corpus)
    args = ["run", question, "--corpus", str(folder), "--thread", f"{who}-thread-1"]
    _cadre(home, *args, "--memory-scope", f"user/{who}", "--trace-content")
    with home_store(resolve_home(home), home_cipher(resolve_home(home))) as store:
        note = ALICE_NOTE if who == "alice" else BOB_NOTE
        LangGraphStore(store).put(("user", who, "prefs"), "note", {"text": note})


@pytest.fixture
def home(
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    database: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """A home where alice and bob each ran a thread and stored a note."""
    as_default_database(database, monkeypatch)
    home = tmp_path / "home"
    _run(home, tmp_path, "alice", ALICE_CORPUS, ALICE_QUESTION)
    _run(home, tmp_path, "bob", BOB_CORPUS, BOB_QUESTION)
    return home


def _everything(home: Path, database: str | None) -> dict[str, bytes]:
    """Every file under the home by its path, and a dump of the PostgreSQL database."""
    found = {
        str(path.relative_to(home)): path.read_bytes() for path in home.rglob("*") if path.is_file()
    }
    if database is None:
        return found
    bin_dir = find_bin_dir()
    assert bin_dir is not None
    dump = subprocess.run(
        [str(bin_dir / "pg_dump"), "--data-only", database],
        check=True,
        capture_output=True,
    )
    return found | {"pg_dump": dump.stdout}


def holding(files: dict[str, bytes], needle: bytes) -> list[str]:
    """The names of the files that hold ``needle``."""
    return sorted(name for name, data in files.items() if needle in data)


ALICE_TRACES = [b"alice-thread-1", b"user/alice", b"Quillon", ALICE_NOTE.encode()]


def test_purge_erases_a_scope_everywhere_and_keeps_the_others(
    home: Path, database: str | None
) -> None:
    before = _everything(home, database)
    for needle in (b"alice-thread-1", b"user/alice", b"Quillon"):
        assert holding(before, needle)  # thread ids, namespaces, and content in spans (asked for)

    done = _cadre(home, "purge", "--scope", "user:alice", "--by", "dpo")
    assert "purged user:alice: 1 threads, " in done
    assert " 0 memory items" not in done and " 0 spans" not in done
    assert ", 1 corpus passages, " in done  # alice's folder: no other scope indexed one so named

    after = _everything(home, database)
    for needle in ALICE_TRACES:
        assert holding(after, needle) == [], needle
    for needle in (b"bob-thread-1", b"user/bob", b"Vellmar"):
        assert holding(after, needle), needle
    shown = _cadre(home, "show", "bob-thread-1")
    assert "orchard.md" in shown
    data_home = resolve_home(home)
    with home_store(data_home, home_cipher(data_home)) as store:
        spaces = store.namespaces()
        assert not [ns for ns in spaces if "alice" in ns]
        assert ("facts",) not in spaces  # facts are kept under each scope
        assert ("research", "user", "bob", "facts") in spaces
        assert [name.split("/")[0] for name in store.sources(CORPUS_NAMESPACE)] == ["bob-docs"]
        note = LangGraphStore(store).get(("user", "bob", "prefs"), "note")
        assert note is not None and note.value == {"text": BOB_NOTE}
        [stone] = store.tombstones.all()
        assert stone.requested_by == "dpo" and stone.counts["threads"] == 1
        assert stone.finished_at is not None and "alice" not in stone.scope_digest
    with open_checkpointer(data_home) as saver:
        assert saver.get_tuple({"configurable": {"thread_id": "alice-thread-1"}}) is None
    digest = hashlib.sha256(b"thread alice-thread-1").hexdigest()[:32]
    assert not list((data_home.root / "locks").glob(f"*{digest}"))  # no trace of the thread

    again = _cadre(home, "purge", "--scope", "user:alice")
    assert "user:alice was purged already" in again


def test_a_backup_taken_before_the_purge_cannot_be_read_after_it(
    home: Path, database: str | None, tmp_path: Path
) -> None:
    if database is not None:
        pytest.skip("a file backup of the SQLite home; PostgreSQL: test_scope_keys")
    data_home = resolve_home(home)
    backups = {
        path: tmp_path / f"backup-{path.name}" for path in (data_home.checkpoints, data_home.memory)
    }
    for path, copy in backups.items():  # SQLite's online backup: the file with its log
        with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(copy)) as target:
            source.backup(target)
    _cadre(home, "purge", "--scope", "user:alice")
    for path, copy in backups.items():  # the checkpoints and memory put back from the backup
        for log in (path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
            log.unlink(missing_ok=True)
        copy.replace(path)
    shown = runner.invoke(app, ["show", "alice-thread-1", "--home", str(home)])
    [line] = shown.stderr.strip().splitlines()  # a run error: one line, exit 1
    assert shown.exit_code == 1 and "thread alice-thread-1" in line and "destroyed" in line
    assert "orchard.md" in _cadre(home, "show", "bob-thread-1")
    with home_store(data_home, home_cipher(data_home)) as store:
        with pytest.raises(CryptoError, match="destroyed"):
            LangGraphStore(store).get(("user", "alice", "prefs"), "note")
        note = LangGraphStore(store).get(("user", "bob", "prefs"), "note")
        assert note is not None and note.value == {"text": BOB_NOTE}


def test_a_running_thread_refuses_the_purge_and_nothing_is_deleted(home: Path) -> None:
    data_home = resolve_home(home)
    with open_checkpointer(data_home) as saver, saver.hold_thread("alice-thread-1"):
        refused = runner.invoke(app, ["purge", "--scope", "user:alice", "--home", str(home)])
        assert refused.exit_code == 2
        assert "thread alice-thread-1 is busy" in one_line_error(refused)
    with home_store(data_home, home_cipher(data_home)) as store:
        assert ("user", "alice", "prefs") in store.namespaces()
        assert store.tombstones.all() == []


def test_an_interrupted_purge_finishes_when_run_again(
    home: Path, database: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*_: object) -> dict[str, int]:
        raise KeyboardInterrupt

    data_home = resolve_home(home)
    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr("framework.retention.purge._erasers", lambda: [killed])
        purge(data_home, DataScope.parse("user:alice"), requested_by="dpo")
    with home_store(data_home, home_cipher(data_home)) as store:
        [stone] = store.tombstones.all()
        assert stone.finished_at is None  # memory went, the threads are still there
        assert not [ns for ns in store.namespaces() if "alice" in ns]
    report = purge(data_home, DataScope.parse("user:alice"), requested_by="dpo")
    assert report.counts["threads"] == 1 and report.counts["spans"] > 0
    with home_store(data_home, home_cipher(data_home)) as store:
        [stone] = store.tombstones.all()
        assert stone.finished_at is not None and stone.id == report.tombstone
    assert holding(_everything(home, database), b"alice-thread-1") == []


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        ("alice", "write KIND:NAME"),
        ("group:alice", "write KIND:NAME"),
        ("user:", "write KIND:NAME"),
        ("user:carol", "unknown scope user:carol"),
    ],
)
def test_a_bad_or_unknown_scope_is_refused_and_nothing_deleted(
    home: Path, database: str | None, scope: str, message: str
) -> None:
    before = _everything(home, database)
    refused = runner.invoke(app, ["purge", "--scope", scope, "--home", str(home)])
    assert refused.exit_code == 2 and message in one_line_error(refused)
    assert holding(_everything(home, database), b"alice-thread-1") and holding(
        before, b"alice-thread-1"
    )  # which file holds it may change: a reader folds SQLite's log into its file
