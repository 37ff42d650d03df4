"""A lost PostgreSQL connection (the backend ended, as by a server restart or a failover):
what was running on it fails, the next transaction opens a new one, and the advisory locks it
held are taken back, or refused while another process holds them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack

import psycopg
import pytest

from framework.database import open_database
from framework.database._postgres import PostgresDatabase
from framework.errors import ConfigError, ThreadBusyError

SCHEMA = "reconnect"
GONE_WITHIN_S = 30.0


@pytest.fixture
def db(postgres_url: str) -> Iterator[PostgresDatabase]:
    database = open_database(postgres_url, schema=SCHEMA)
    assert isinstance(database, PostgresDatabase)
    with database.lock, database.write_transaction():
        database.execute("CREATE TABLE items (name TEXT PRIMARY KEY)")
    yield database
    database.close()


def _end_backend(url: str, db: PostgresDatabase) -> int:
    """End the database's server process from another connection; its pid."""
    pid = db.conn.info.backend_pid
    _end(url, pid)
    return pid


def _end(url: str, pid: int) -> None:
    """End a server process and wait until it is gone (it ends when the signal reaches it)."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + GONE_WITHIN_S
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            assert time.monotonic() < deadline, f"server process {pid} did not end"
            time.sleep(0.01)


def _names(db: PostgresDatabase) -> list[str]:
    with db.lock, db.read_transaction():
        return [name for (name,) in db.execute("SELECT name FROM items ORDER BY name")]


def _insert(db: PostgresDatabase, name: str) -> None:
    with db.lock, db.write_transaction():
        db.execute("INSERT INTO items (name) VALUES (?)", (name,))


def test_the_next_transaction_after_a_lost_connection_opens_a_new_one(
    db: PostgresDatabase, postgres_url: str
) -> None:
    _insert(db, "before")
    pid = _end_backend(postgres_url, db)
    _insert(db, "after")  # ended while idle: found before BEGIN, nothing fails
    assert db.conn.info.backend_pid != pid
    assert _names(db) == ["after", "before"]
    _end_backend(postgres_url, db)
    assert db.table_names() == {"items"}  # a statement outside a transaction too


def test_a_statement_the_connection_is_lost_under_fails_and_is_not_run_again(
    db: PostgresDatabase, postgres_url: str
) -> None:
    pid = db.conn.info.backend_pid
    ender = threading.Timer(0.3, _end, (postgres_url, pid))
    ender.start()
    try:
        with pytest.raises(psycopg.OperationalError):
            db.execute("SELECT pg_sleep(10)")  # it may have been applied: not run twice
    finally:
        ender.join()
    assert db.table_names() == {"items"}  # the next one opens a new connection
    assert db.conn.info.backend_pid != pid


def test_a_transaction_cut_short_fails_and_the_next_one_works(
    db: PostgresDatabase, postgres_url: str
) -> None:
    with pytest.raises(psycopg.OperationalError), db.lock, db.write_transaction():
        db.execute("INSERT INTO items (name) VALUES (?)", ("half",))
        _end_backend(postgres_url, db)
        db.execute("INSERT INTO items (name) VALUES (?)", ("never",))
    _insert(db, "next")
    assert _names(db) == ["next"]  # nothing of the cut transaction was committed


def test_a_held_lock_is_taken_back_on_the_new_connection(
    db: PostgresDatabase, postgres_url: str
) -> None:
    other = open_database(postgres_url, schema=SCHEMA)
    try:
        with db.hold("thread:a", "a is busy"):
            _end_backend(postgres_url, db)
            _insert(db, "x")  # reconnects and holds thread:a again
            with (
                pytest.raises(ThreadBusyError, match="b is busy"),
                other.hold("thread:a", "b is busy"),
            ):
                pass
        with other.hold("thread:a", "b is busy"):  # released when the block ended
            pass
    finally:
        other.close()


def test_a_lock_another_process_took_meanwhile_stops_its_holder(
    db: PostgresDatabase, postgres_url: str
) -> None:
    other = open_database(postgres_url, schema=SCHEMA)
    try:
        with ExitStack() as stack:
            stack.enter_context(db.hold("thread:a", "a is busy"))
            _end_backend(postgres_url, db)  # the server lets thread:a go with the session
            with other.hold("thread:a", "b is busy"):  # another worker takes the thread
                with pytest.raises(ThreadBusyError, match="was lost while it held thread:a"):
                    _insert(db, "x")
                with pytest.raises(ThreadBusyError, match="was lost while it held thread:a"):
                    _insert(db, "y")  # still refused: the holder does not write any more
        _insert(db, "z")  # the holder's block ended: the connection serves again
        assert _names(db) == ["z"]
    finally:
        other.close()


def test_a_server_still_down_is_tried_again_at_the_next_use(
    db: PostgresDatabase, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect = PostgresDatabase._connect

    def unreachable(self: PostgresDatabase) -> psycopg.Connection:
        raise ConfigError(f"cannot connect to {self.label}: connection refused")

    monkeypatch.setattr(PostgresDatabase, "_connect", unreachable)
    _end_backend(postgres_url, db)
    for _ in range(2):  # each use tries again
        with pytest.raises(ConfigError, match="cannot connect to"):
            _insert(db, "while down")
    monkeypatch.setattr(PostgresDatabase, "_connect", connect)  # the server is back
    _insert(db, "back")
    assert _names(db) == ["back"]


def test_a_lock_taken_twice_is_taken_back_twice(db: PostgresDatabase, postgres_url: str) -> None:
    other = open_database(postgres_url, schema=SCHEMA)
    try:
        with db.wait_for("memory"):
            with db.wait_for("memory"):  # advisory locks are re-entrant in a session
                _end_backend(postgres_url, db)
                _insert(db, "x")
            with pytest.raises(ThreadBusyError), other.hold("memory", "still held"):
                pass  # the outer block holds it still, on the new connection
        with other.hold("memory", "free again"):
            pass
    finally:
        other.close()
