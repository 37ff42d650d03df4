"""Small faults: processes racing on a new home's keys, a full disk, files private from their
creation, ``$CADRE_KEYS`` given a path, every task failed, rows deleted outside cadre, a remote
killed mid-call, ``cadre serve`` stopped with an A2A stream open and connections racing to open
a new SQLite file."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from a2a.client import ClientConfig, create_client
from a2a.helpers import new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState
from typer.testing import CliRunner

from bench.fleet_team import write_fleet_team
from framework.cli.app import app
from framework.database import DATABASE_VARIABLE, out_of_space
from framework.database._sqlite import SqliteDatabase
from framework.errors import ConfigError, StorageFullError
from framework.memory import MiniLMEmbedder
from framework.persistence.keys import (
    KEYS_VARIABLE,
    EnvKeyProvider,
    FileKeyProvider,
    Keyring,
    rotate,
)
from telemetry.runs import RunIndex
from tests.a2a_agents import free_port
from tests.conftest import SMALL_CORPUS, as_default_database, write_corpus
from tests.served import CADRE, Served, start

runner = CliRunner()

# -- processes opening one new home at once --------------------------------------------------

_OPEN_AND_SEAL = r"""
import sys, time
from pathlib import Path
from framework.database.home import resolve_home
from framework.persistence.home_keys import home_cipher
from framework.persistence.keys import FileKeyProvider

role, root, database, ready, go, recorded = sys.argv[1:]
save_new = FileKeyProvider.save_new

def slow_save_new(self, keyring):  # the first process records its key, then writes slowly
    Path(recorded).touch()
    time.sleep(1.5)
    return save_new(self, keyring)

def wait_for(path):
    deadline = time.monotonic() + 60
    while not Path(path).exists():
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.005)

if role == "first":
    FileKeyProvider.save_new = slow_save_new
home = resolve_home(Path(root), database=database or None).create()
Path(ready).touch()
wait_for(go if role == "first" else recorded)
cipher = home_cipher(home)
with cipher.sealing():
    pass
print(cipher.primary_key_id)
"""


def test_processes_opening_a_new_home_at_once_wait_for_the_first_ones_keys(
    tmp_path: Path, database: str | None
) -> None:
    """The others find the first one's key recorded while it is still writing ``keys.json``:
    they wait for the file (they were refused, "key file ... is missing": 3 rounds in 17 of four
    processes left to race, every time here, where the first one writes slowly)."""
    root, go, recorded = tmp_path / "home", tmp_path / "go", tmp_path / "recorded"
    roles = ["first", "other", "other", "other"]
    readies = [tmp_path / f"ready{index}" for index in range(len(roles))]
    processes = [
        _open_and_seal(role, root, database or "", ready, go, recorded)
        for role, ready in zip(roles, readies, strict=True)
    ]
    try:
        _wait_until(lambda: all(ready.exists() for ready in readies), processes)
        go.touch()
        outcomes = [process.communicate(timeout=120) for process in processes]
    finally:
        for process in processes:
            process.kill()
    codes = [process.returncode for process in processes]
    assert codes == [0] * len(roles), [err.strip().splitlines()[-1:] for _, err in outcomes]
    key_ids = {out.strip() for out, _ in outcomes}
    assert key_ids == {FileKeyProvider(root / "keys.json").load().primary}


def _open_and_seal(role: str, *args: Path | str) -> subprocess.Popen[str]:
    """A process running :data:`_OPEN_AND_SEAL` (without ``$CADRE_KEYS`` and ``$CADRE_DB``)."""
    env = {k: v for k, v in os.environ.items() if k not in (KEYS_VARIABLE, DATABASE_VARIABLE)}
    return subprocess.Popen(
        [sys.executable, "-c", _OPEN_AND_SEAL, role, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_until(done: Callable[[], bool], processes: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + 120
    while not done():
        failed = [process for process in processes if process.poll() not in (None, 0)]
        assert not failed, failed[0].communicate()[1]
        assert time.monotonic() < deadline, "the processes never got ready"
        time.sleep(0.01)


# -- a full disk ------------------------------------------------------------------------------


@pytest.fixture
def no_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every device reads as full (what ``statvfs`` tells on a full disk)."""
    monkeypatch.setattr("framework.database._files.free_bytes", lambda path: 0)


def _fill(db: SqliteDatabase) -> None:
    """Write until SQLite answers ``SQLITE_FULL`` for real (a page limit stands for the disk)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 2}")
    with db.write_transaction():
        for _ in range(16):
            db.execute("INSERT INTO t (b) VALUES (?)", (os.urandom(3000),))


def test_a_full_disk_is_named_with_the_file_and_the_connection_goes_on(
    tmp_path: Path, no_room: None
) -> None:
    path = tmp_path / "store.sqlite"
    db = SqliteDatabase(path)
    db.execute("CREATE TABLE t (b BLOB)")
    with pytest.raises(StorageFullError) as raised:
        _fill(db)
    message = str(raised.value)
    assert message.startswith(f"no space left on the device holding {path} ")
    assert "database or disk is full" in message and "free space" in message
    db.execute("PRAGMA max_page_count = 1000000")  # space freed: the next write succeeds
    with db.write_transaction():
        db.execute("INSERT INTO t (b) VALUES (?)", (b"after",))
    assert db.execute("SELECT b FROM t").fetchall() == [(b"after",)]
    db.close()


def test_sqlite_full_with_room_on_the_device_names_the_temporary_folder(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "store.sqlite")
    db.execute("CREATE TABLE t (b BLOB)")
    with pytest.raises(StorageFullError, match=r"temporary folder .* is full") as raised:
        _fill(db)
    assert f"no space left for {tmp_path / 'store.sqlite'} " in str(raised.value)
    db.close()


def test_enospc_and_an_io_error_on_a_full_device_read_as_no_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "checkpoints.sqlite"
    enospc = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    assert "No space left on device" in str(out_of_space(enospc, path))
    assert out_of_space(OSError(errno.EACCES, "Permission denied"), path) is None
    io_error = sqlite3.OperationalError("disk I/O error")
    io_error.sqlite_errorcode = 778  # type: ignore[attr-defined]  # SQLITE_IOERR_WRITE
    assert out_of_space(io_error, path) is None  # room on the device: not a full disk
    monkeypatch.setattr("framework.database._files.free_bytes", lambda where: 4096)
    full = out_of_space(io_error, path)
    assert str(full).startswith(
        f"no space left on the device holding {path} (disk I/O error; 4.0 KiB free): "
    )


def test_postgres_disk_full_alone_reads_as_the_server_out_of_space() -> None:
    url = "postgresql://cadre@db.example:5432/cadre"
    cause = 'could not extend file "base/5/16399": No space left on device'
    assert str(out_of_space(psycopg.errors.DiskFull(cause), url)) == (
        f"the database server at {url} ran out of disk space (SQLSTATE 53100: {cause}): free "
        "space on that server and try again (what was committed is kept)"
    )
    others = (
        psycopg.errors.InsufficientResources("could not open file: Too many open files"),
        psycopg.errors.OutOfMemory("out of memory"),
        psycopg.errors.TooManyConnections("sorry, too many clients already"),
        psycopg.OperationalError("server closed the connection unexpectedly"),
    )
    assert [out_of_space(error, url) for error in others] == [None] * len(others)


def test_a_run_on_a_full_disk_fails_in_one_line_naming_space_the_file_and_resume(
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    no_room: None,
) -> None:
    as_default_database(None, monkeypatch)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    opened = SqliteDatabase.__init__

    def small_disk(self: SqliteDatabase, path: Path | str) -> None:
        opened(self, path)
        if Path(path).name == "checkpoints.sqlite":
            self.execute("PRAGMA max_page_count = 24")

    monkeypatch.setattr(SqliteDatabase, "__init__", small_disk)
    args = ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--home", str(home)]
    done = runner.invoke(app, [*args, "--thread", "t1", "--no-trace"])
    assert done.exit_code == 1, done.output
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("error: no space left on the device holding "), done.stderr
    assert str(home / "checkpoints.sqlite") in lines[-1]
    assert lines[-1].endswith(
        f"then `cadre resume t1 --home {home}` goes on from its last checkpoint"
    )
    assert "Traceback" not in done.output and "unexpected" not in done.output


# -- files private from their creation ------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_lock_files_database_files_and_the_run_index_are_private_at_once(
    tmp_path: Path, umask_022: None
) -> None:
    db = SqliteDatabase(tmp_path / "checkpoints.sqlite")
    with db.hold("thread:t1", busy="busy"), db.wait_for("key record"):
        pass
    db.execute("CREATE TABLE t (b BLOB)")
    index = RunIndex(tmp_path / "traces" / "runs.sqlite")
    index.started("t1", 1, 2, 2)
    made = {path.relative_to(tmp_path).as_posix(): _mode(path) for path in tmp_path.rglob("*")}
    files = {name: mode for name, mode in made.items() if not (tmp_path / name).is_dir()}
    assert len([name for name in files if name.startswith("locks/")]) == 2, files
    assert {"checkpoints.sqlite-wal", "traces/runs.sqlite"} <= set(files)
    assert set(files.values()) == {0o600}, files
    db.close()


def test_every_file_of_a_first_run_is_private_at_once(
    tmp_path: Path, embedder: MiniLMEmbedder, umask_022: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_default_database(None, monkeypatch)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    done = runner.invoke(
        app, ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--home", str(home)]
    )
    assert done.exit_code == 0, done.stderr
    made = {path.relative_to(home).as_posix(): _mode(path) for path in home.rglob("*")}
    files = {name: mode for name, mode in made.items() if not (home / name).is_dir()}
    assert any(name.startswith("locks/") for name in files), files
    assert {"keys.json", "traces/runs.sqlite", "traces/spans.jsonl"} <= set(files)
    assert set(files.values()) == {0o600}, files


# -- $CADRE_KEYS given a path -----------------------------------------------------------------


def test_cadre_keys_holding_a_path_is_refused_with_how_to_make_the_value(tmp_path: Path) -> None:
    key_file = tmp_path / "keys.json"
    keyring = rotate(Keyring.generate())  # two keys: the primary must come first
    FileKeyProvider(key_file).save(keyring)
    for value in (str(key_file), "/srv/cadre/keys.json"):
        with pytest.raises(ConfigError) as raised:
            EnvKeyProvider(environ={KEYS_VARIABLE: value}).load()
        message = str(raised.value)
        assert message.startswith(f"{KEYS_VARIABLE} holds a path ({value!r}), not keys: ")
        assert "'ID:BASE64KEY[,ID:BASE64KEY...]'" in message
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed: the command the message shows is not run")
    command = str(raised.value).split('="$(', 1)[1].split(')"', 1)[0]
    command = command.replace("/srv/cadre/keys.json", str(key_file))
    printed = subprocess.run(command, shell=True, capture_output=True, text=True, check=True)
    assert EnvKeyProvider(environ={KEYS_VARIABLE: printed.stdout}).load() == keyring


def test_a_stray_enospc_in_any_command_reads_as_no_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An OSError for a full device that no database saw (a key file, a trace) is the same
    one line naming space and the file, not an "unexpected OSError"."""
    from framework.cli.app import run_app
    from framework.retention import pruning

    where = tmp_path / "traces" / "spans.jsonl"

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(where))

    monkeypatch.setattr(pruning, "thread_statuses", full)
    code = run_app(["threads", "--home", str(tmp_path / "home")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1
    assert "no space left" in lines[0] and str(where) in lines[0] and "unexpected" not in lines[0]


# -- every remote task failed -----------------------------------------------------------------


def test_when_every_task_failed_the_review_line_says_so_not_coverage_is_sufficient(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_default_database(None, monkeypatch)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    team = tmp_path / "top.yaml"
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens: every call fails
    team.write_text(
        f"name: top\nkinds:\n  - name: remote\n    remote_graph: {{url: '{down}', "
        "assistant: research}\n",
        encoding="utf-8",
    )
    args = ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--no-trace"]
    home = ["--home", str(tmp_path / "h"), "--thread", "t1"]
    done = runner.invoke(app, [*args, "--team-config", str(team), *home])
    assert done.exit_code == 1, done.output
    [last_review] = [line for line in done.stderr.splitlines() if " finish, " in line]
    assert last_review.endswith("confidence 0.00: every task failed, no attempt left: q0")
    assert "sufficient" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        "error: thread t1: all 1 task(s) failed, so the answer has no evidence ("
    ), done.stderr


# -- a rolled-back head -----------------------------------------------------------------------


def _ran_t1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The home (on SQLite) of a finished run of thread t1."""
    as_default_database(None, monkeypatch)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    args = ["run", "How are runs checkpointed?", "--corpus", str(corpus), "--no-trace"]
    assert runner.invoke(app, [*args, "--thread", "t1", "--home", str(home)]).exit_code == 0
    return home


def test_history_and_resume_of_a_rolled_back_thread_are_refused_as_show_refuses_it(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newest checkpoints deleted outside cadre, their manifests left: `history` would list
    the thread as if it had stopped earlier, `resume` would run its last steps again; both fail
    with the line `show` fails with."""
    home = _ran_t1(tmp_path, monkeypatch)
    with sqlite3.connect(home / "checkpoints.sqlite") as conn:
        newest = conn.execute(
            "SELECT checkpoint_id FROM cadre_checkpoints WHERE thread_id = 't1' AND "
            "checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 3"
        ).fetchall()
        conn.executemany("DELETE FROM cadre_checkpoints WHERE checkpoint_id = ?", newest[:2])
    shown = runner.invoke(app, ["show", "t1", "--home", str(home)])
    listed = runner.invoke(app, ["history", "t1", "--home", str(home)])
    resumed = runner.invoke(app, ["resume", "t1", "--home", str(home)])
    assert shown.exit_code == listed.exit_code == resumed.exit_code == 1, resumed.output
    assert listed.stdout == ""
    [line] = listed.stderr.strip().splitlines()
    assert line == shown.stderr.strip().splitlines()[-1] == resumed.stderr.strip().splitlines()[-1]
    assert f"checkpoint {newest[0][0]} of thread t1" in line and "manifest remains" in line
    assert line.endswith(
        f"which would roll it back to {newest[2][0]}; restore the database from a backup"
    )


def test_a_value_row_deleted_outside_cadre_is_named_by_show_resume_and_threads(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row of a channel's value deleted: ``show`` and ``resume`` fail with the line naming
    the checkpoint, the channel and its version; ``threads`` marks the thread unreadable."""
    home = _ran_t1(tmp_path, monkeypatch)
    with sqlite3.connect(home / "checkpoints.sqlite") as conn:
        version = conn.execute(
            "SELECT max(version) FROM cadre_blobs WHERE thread_id = 't1' AND checkpoint_ns = '' "
            "AND channel = 'final_answer'"
        ).fetchone()[0]
        conn.execute(
            "DELETE FROM cadre_blobs WHERE thread_id = 't1' AND checkpoint_ns = '' AND "
            "channel = 'final_answer' AND version = ?",
            (version,),
        )
    said = f"is incomplete: the value of channel 'final_answer' (version {version}) is missing"
    for command in ("show", "resume"):
        refused = runner.invoke(app, [command, "t1", "--home", str(home)])
        assert refused.exit_code == 1, refused.output
        line = refused.stderr.strip().splitlines()[-1]
        assert line.startswith("error: checkpoint ") and " of thread t1 (namespace top) " in line
        assert line.endswith(
            f"{said}; rows were deleted from the database outside cadre (restore it from a backup)"
        ), line
    listed = runner.invoke(app, ["threads", "--home", str(home)])
    [row] = [row for row in listed.stdout.splitlines() if row.startswith("t1 ")]
    assert "UNREADABLE" in row and said in listed.stderr


# -- a remote killed mid-call -----------------------------------------------------------------


def test_a_remote_killed_mid_call_lost_the_connection_it_had(tmp_path: Path) -> None:
    """An A2A agent process killed while it holds the task: the call had connected, so the
    task fails with "lost the connection mid-call", not "cannot connect" (what the retries,
    sent to no one, then say)."""
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    port, marker = free_port(), tmp_path / "called"
    team = tmp_path / "top.yaml"
    url = f"http://127.0.0.1:{port}"
    team.write_text(f"name: top\nkinds:\n  - name: agent\n    a2a: {{url: '{url}'}}\n")
    env = {k: v for k, v in os.environ.items() if k not in (KEYS_VARIABLE, DATABASE_VARIABLE)}
    env["COLUMNS"] = "500"  # each progress line on one line
    hung = [sys.executable, "-m", "tests.hung_agent", str(port), str(marker)]
    agent = subprocess.Popen(hung, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    question = "How are runs checkpointed?"
    args = ["run", question, "--team-config", str(team), "--corpus", str(corpus), "--no-trace"]
    run = subprocess.Popen(
        [*CADRE, *args, "--home", str(tmp_path / "home")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        _wait_until(marker.exists, [agent, run])
    finally:
        agent.kill()
        agent.wait()
    _, said = run.communicate(timeout=300)
    failures = [line.strip() for line in said.splitlines() if "failed q0: " in line]
    assert failures, said
    assert failures[0].startswith(
        f"failed q0: RemoteAgentError: kind 'agent' (a2a {url}): wait: lost the connection "
        "mid-call (Server disconnected without sending a response.), after "
    ), failures
    retried = f"failed q0: RemoteAgentError: kind 'agent' (a2a {url}): connect: cannot connect ("
    assert failures[1:] and all(line.startswith(retried) for line in failures[1:]), failures


# -- SIGTERM with an open A2A stream ----------------------------------------------------------


def test_sigterm_ends_an_open_a2a_stream_with_how_the_task_goes_on(tmp_path: Path) -> None:
    """The stream of a task whose run the stopping server stops ends cleanly: its last event
    says the server is stopping and how to follow the task, and the server logs no response
    left incomplete."""
    env = write_fleet_team(tmp_path / "team", tmp_path / "calls.txt", tasks=4, delay=0.5)
    served = Served(url="", home=tmp_path / "home", database=None)

    async def streamed() -> list[Any]:
        async with httpx.AsyncClient(timeout=120) as http:
            config = ClientConfig(httpx_client=http, streaming=True)
            client = await create_client(f"{served.url}/a2a/fleety", config)
            message = new_text_message("q", role=Role.ROLE_USER)
            got: list[Any] = []
            async for event in client.send_message(SendMessageRequest(message=message)):
                if not got:
                    assert served.process is not None
                    served.process.send_signal(signal.SIGTERM)
                got.append(event)
            return got

    with start(served, env=env, options=["--no-auth"]):
        events = asyncio.run(streamed())
        assert served.process is not None
        served.process.wait(120)  # (uvicorn raises the signal again once it stopped)
    last = events[-1].status_update.status
    assert last.state == TaskState.TASK_STATE_WORKING, events[-1]
    said = last.message.parts[0].text
    assert "the server is stopping" in said
    assert said.endswith("this task goes on then: follow it with GetTask or SubscribeToTask")
    assert served.log is not None
    assert "without completing response" not in served.log.read_text()


def test_connections_opening_a_new_database_file_together_all_open_it(tmp_path: Path) -> None:
    """The first connections to a new SQLite file race to switch it to WAL; SQLite answers
    "database is locked" at once to the losers (it was one run in twelve of a fleet worker whose
    runs opened the trace index together), so each waits and tries again instead."""
    failed: list[BaseException] = []
    for round_ in range(20):
        path = tmp_path / f"runs-{round_}.sqlite"
        gate = threading.Barrier(8)

        def open_it(path: Path = path, gate: threading.Barrier = gate) -> None:
            gate.wait()
            try:
                database = SqliteDatabase(path)
                database.execute("CREATE TABLE IF NOT EXISTS runs (id TEXT)")
                database.conn.close()
            except sqlite3.Error as error:
                failed.append(error)

        threads = [threading.Thread(target=open_it) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failed == []
