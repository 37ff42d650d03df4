"""Keys and the data they seal: a key is made only for a home with no sealed data, a keyring
that lacks the data's keys is refused up front, and key changes never leave a blob under a key
the keyring no longer holds (a saver follows the key file; retire and reencrypt respect threads
held by other processes). On SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database import DATABASE_VARIABLE
from framework.database.home import DataHome
from framework.errors import ConfigError
from framework.persistence.keys import KEYS_VARIABLE, FileKeyProvider
from framework.persistence.saver import CadreSaver, key_usage
from framework.runs.stores import home_checkpointer
from tests.conftest import as_default_database, one_line_error

runner = CliRunner()


@pytest.fixture
def database(database: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The shared fixture's database, as the default of every data home (``$CADRE_DB``)."""
    return as_default_database(database, monkeypatch)


def _home(root: Path, database: str | None) -> DataHome:
    return DataHome(root=root, database=database).create()


def _config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


KEYS_PER_THREAD = 1
"""What a thread seals under the keyring: its own data key (its checkpoints, values and
manifests are sealed under that, and key usage counts the key)."""


def _put(saver: CadreSaver, thread: str, step: int) -> None:
    """One checkpoint of ``thread`` with one channel value."""
    checkpoint_id = f"1ef00000-0000-6000-8000-{step:012d}"
    saver.put(
        _config(thread),
        {
            "v": 4,
            "id": checkpoint_id,
            "ts": "2026-11-22T00:00:00+00:00",
            "channel_values": {"answer": f"{thread} at {step}"},
            "channel_versions": {"answer": f"{step:032d}.0"},
            "versions_seen": {},
        },
        {"source": "loop", "step": step, "parents": {}},
        {"answer": f"{step:032d}.0"},
    )


def _write_thread(home: DataHome, thread: str) -> None:
    with home_checkpointer(home) as saver:
        _put(saver, thread, 1)


def _cli(home: DataHome, *args: str) -> Any:
    return runner.invoke(app, [*args, "--home", str(home.root)])


def _key_ids(home: DataHome) -> list[str]:
    return list(json.loads((home.root / "keys.json").read_text())["keys"])


def _usage(home: DataHome) -> dict[str, int]:
    with home_checkpointer(home) as saver:
        return key_usage(saver)


# -- a missing or foreign key file --------------------------------------------------------------


def test_a_home_whose_key_file_is_gone_is_refused_and_no_key_is_made(
    tmp_path: Path, database: str | None
) -> None:
    home = _home(tmp_path / "home", database)
    _write_thread(home, "t1")
    [key_id] = _key_ids(home)
    (home.root / "keys.json").unlink()
    for args in (["threads"], ["show", "t1"], ["run", "Why?", "--team", "research"]):
        line = one_line_error(_cli(home, *args))
        assert key_id in line and "keys.json" in line and KEYS_VARIABLE in line, line
        assert not (home.root / "keys.json").exists(), args


def test_a_foreign_key_file_or_variable_is_refused_naming_the_missing_key(
    tmp_path: Path, database: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path / "home", database)
    _write_thread(home, "t1")
    [key_id] = _key_ids(home)
    (home.root / "keys.json").unlink()
    foreign = FileKeyProvider(tmp_path / "other" / "keys.json").load()
    shutil.copy(tmp_path / "other" / "keys.json", home.root / "keys.json")
    for args in (["threads"], ["run", "Why?", "--team", "research", "--thread", "t2"]):
        line = one_line_error(_cli(home, *args))
        assert f"lacks key {key_id!r}" in line, line
    assert _key_ids(home) == [foreign.primary]  # untouched
    monkeypatch.setenv(KEYS_VARIABLE, f"k9:{'A' * 43}=")
    line = one_line_error(_cli(home, "threads"))
    assert f"lacks key {key_id!r}" in line and KEYS_VARIABLE in line, line


def test_separate_homes_on_one_postgres_database_do_not_each_make_a_key(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    monkeypatch.setenv(DATABASE_VARIABLE, postgres_url)
    first = _home(tmp_path / "first", postgres_url)
    _write_thread(first, "t1")
    [key_id] = _key_ids(first)
    second = _home(tmp_path / "second", postgres_url)
    for args in (["threads"], ["run", "Why?", "--team", "research", "--thread", "t2"]):
        line = one_line_error(_cli(second, *args))
        assert key_id in line, line
        assert not (second.root / "keys.json").exists()
    with pytest.raises(ConfigError, match=key_id):
        _write_thread(second, "t3")
    assert not (second.root / "keys.json").exists()
    shutil.copy(first.root / "keys.json", second.root / "keys.json")
    listed = _cli(second, "threads")
    assert listed.exit_code == 0, listed.stderr
    assert "t1" in listed.stdout


def test_two_new_homes_on_one_postgres_database_cannot_both_make_a_key(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    first = _home(tmp_path / "first", postgres_url)
    second = _home(tmp_path / "second", postgres_url)
    with home_checkpointer(first) as one, home_checkpointer(second) as other:  # both keyless
        _put(one, "t1", 1)  # the first blob makes the first home's key
        [key_id] = _key_ids(first)
        with pytest.raises(ConfigError, match=key_id):
            _put(other, "t2", 1)
    assert not (second.root / "keys.json").exists()
    assert _usage(first) == {key_id: KEYS_PER_THREAD}


def test_read_only_commands_never_make_a_key_file(tmp_path: Path, database: str | None) -> None:
    home = _home(tmp_path / "home", database)
    with home_checkpointer(home):  # an empty checkpoint database: nothing sealed yet
        pass
    assert not (home.root / "keys.json").exists()
    listed = _cli(home, "threads")
    assert listed.exit_code == 0, listed.stderr
    shown = _cli(home, "show", "nothing")
    assert shown.exit_code == 2
    assert not (home.root / "keys.json").exists()
    _write_thread(home, "t1")  # the first blob makes the key
    assert len(_key_ids(home)) == 1
    assert _usage(home) == {_key_ids(home)[0]: KEYS_PER_THREAD}


def test_a_home_from_before_the_key_record_is_checked_from_its_blobs(
    tmp_path: Path, database: str | None
) -> None:
    home = _home(tmp_path / "home", database)
    _write_thread(home, "t1")
    [key_id] = _key_ids(home)
    forget = "DELETE FROM cadre_meta WHERE key LIKE 'key%'"
    if database is None:
        import sqlite3

        with sqlite3.connect(home.checkpoints) as conn:
            conn.execute(forget)
    else:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(f"SET search_path TO cadre_checkpoints; {forget}")
    (home.root / "keys.json").unlink()
    line = one_line_error(_cli(home, "threads"))
    assert key_id in line
    assert not (home.root / "keys.json").exists()


# -- key changes while another process runs ----------------------------------------------------


def test_a_saver_with_the_old_keyring_never_writes_under_a_retired_key(
    tmp_path: Path, database: str | None
) -> None:
    home = _home(tmp_path / "home", database)
    with home_checkpointer(home) as running:  # a process that loaded the first keyring
        _put(running, "t1", 1)
        [old] = _key_ids(home)
        for args in (["keys", "rotate"], ["keys", "reencrypt"], ["keys", "retire", old]):
            done = _cli(home, *args)
            assert done.exit_code == 0, (args, done.stderr)
        assert old not in _key_ids(home)
        assert running.get_tuple(_config("t1")) is not None  # rewritten under the new key
        _put(running, "t1", 2)
        _put(running, "t2", 3)
    usage = _usage(home)
    assert old not in usage and sum(usage.values()) == 2 * KEYS_PER_THREAD, usage
    listed = _cli(home, "threads")
    assert listed.exit_code == 0, listed.stderr
    assert "t1" in listed.stdout and "t2" in listed.stdout


def test_retire_is_refused_while_a_thread_is_held(tmp_path: Path, database: str | None) -> None:
    home = _home(tmp_path / "home", database)
    _write_thread(home, "t1")
    [old] = _key_ids(home)
    for args in (["keys", "rotate"], ["keys", "reencrypt"]):
        assert _cli(home, *args).exit_code == 0
    with home_checkpointer(home) as other, other.hold_thread("t1"):
        line = one_line_error(_cli(home, "keys", "retire", old))
        assert "t1" in line and "busy" in line, line
        assert old in _key_ids(home)
    done = _cli(home, "keys", "retire", old)
    assert done.exit_code == 0, done.stderr
    assert old not in _key_ids(home)


def test_reencrypt_leaves_threads_held_elsewhere_alone(
    tmp_path: Path, database: str | None
) -> None:
    home = _home(tmp_path / "home", database)
    _write_thread(home, "held")
    _write_thread(home, "idle")
    [old] = _key_ids(home)
    assert _cli(home, "keys", "rotate").exit_code == 0
    with home_checkpointer(home) as other, other.hold_thread("held"):
        done = _cli(home, "keys", "reencrypt")
        assert done.exit_code == 0, done.stderr
        assert "skipped 1 busy thread(s): held" in done.stdout
        assert old not in _usage(home)  # a held thread's data key is rewrapped all the same
    again = _cli(home, "keys", "reencrypt")
    assert again.exit_code == 0, again.stderr
    assert old not in {key for key, count in _usage(home).items() if count}


def test_a_write_after_the_key_file_was_removed_fails_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    monkeypatch.delenv(DATABASE_VARIABLE, raising=False)
    home = _home(tmp_path / "home", None)
    with home_checkpointer(home) as running:
        _put(running, "t1", 1)
        (home.root / "keys.json").unlink()
        with pytest.raises(ConfigError, match=r"keys\.json"):
            _put(running, "t1", 2)  # never under a key no file holds
    assert _usage_without_keys(home) == KEYS_PER_THREAD


def _usage_without_keys(home: DataHome) -> int:
    done = _cli(home, "keys", "status")
    assert done.exit_code == 0, done.stderr
    return sum(int(line.split()[1]) for line in done.stdout.splitlines() if line.strip())


def test_the_memory_schema_named_for_old_homes_is_the_stores() -> None:
    from framework.memory._tables import PG_SCHEMA
    from framework.persistence.home_keys import MEMORY_SCHEMA

    assert MEMORY_SCHEMA == PG_SCHEMA


def test_a_write_of_a_process_holding_no_thread_holds_off_rotation_until_it_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blob sealed under the old key and not yet committed cannot outlive the key: the
    rotation waits for the commit (both hold the key-file lock), then reencrypt moves the blob
    and retire is safe, with no thread held anywhere."""
    monkeypatch.delenv(KEYS_VARIABLE, raising=False)
    monkeypatch.delenv(DATABASE_VARIABLE, raising=False)
    home = _home(tmp_path / "home", None)
    cadre = [sys.executable, "-c", "from framework.cli.main import main; main()"]
    with home_checkpointer(home) as saver:
        _put(saver, "outside", 1)
        [old] = _key_ids(home)
        sealed, release = threading.Event(), threading.Event()
        commit = saver._writer.commit_writes

        def held_commit(batch: Any) -> None:
            sealed.set()
            assert release.wait(60)
            commit(batch)

        monkeypatch.setattr(saver._writer, "commit_writes", held_commit)
        at = _config("outside")
        at["configurable"]["checkpoint_id"] = "1ef00000-0000-6000-8000-000000000001"
        writer = threading.Thread(target=saver.put_writes, args=(at, [("x", 7)], "task-a"))
        writer.start()
        assert sealed.wait(60)
        rotation = subprocess.Popen(
            [*cadre, "keys", "rotate", "--home", str(home.root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        with pytest.raises(subprocess.TimeoutExpired):  # it waits for the sealed write
            rotation.wait(timeout=2)
        release.set()
        writer.join(60)
        assert rotation.wait(timeout=120) == 0, rotation.stderr.read() if rotation.stderr else ""
    assert _cli(home, "keys", "reencrypt").exit_code == 0
    retired = _cli(home, "keys", "retire", old)
    assert retired.exit_code == 0, retired.stderr
    assert old not in _key_ids(home)
    with home_checkpointer(home) as reopened:
        [(task, channel, value)] = reopened.get_tuple(at).pending_writes  # type: ignore[union-attr]
    assert (task, channel, value) == ("task-a", "x", 7)
