"""A PostgreSQL server whose disk is full, for real (a small tmpfs, see :mod:`tests.small_disk`):
a run ends in the one line of docs/persistence.md's fault table, naming the server and what to
do, and ``cadre resume`` finishes it once space is freed.

The server runs inside the script's namespaces as an unprivileged user of a nested user
namespace (it refuses root). Two disks full: the data files' (a table cannot grow: the
statement fails with SQLSTATE 53100 and the server goes on) and the write-ahead log's (a new
log file cannot be made: the server PANICs, answers 53100 too, and stays down, its recovery
finding no room either; the next command reads as an outage).
"""

from __future__ import annotations

import functools
import os
import pwd
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.a2a_agents import free_port
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.postgres_server import REQUIRE_VARIABLE, find_bin_dir
from tests.small_disk import Step, on_a_small_disk, why_no_small_disk


def _server_ids() -> tuple[int, int] | None:
    """The uid and gid the server runs as: the user's own, or for root an unprivileged
    user's (the server looks its user up by uid)."""
    if os.getuid() != 0:
        return os.getuid(), os.getgid()
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        return user.pw_uid, user.pw_gid
    return None


@functools.cache
def _why_skipped() -> str | None:
    if (no_disk := why_no_small_disk()) is not None:
        return no_disk
    if find_bin_dir() is None and os.environ.get(REQUIRE_VARIABLE) != "1":
        return "PostgreSQL is not installed (Debian: apt-get install postgresql)"
    if (ids := _server_ids()) is None:
        return "no unprivileged user (postgres or nobody) for the server to run as"
    nested = ["unshare", f"--map-user={ids[0]}", f"--map-group={ids[1]}", "true"]
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", *nested],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"no nested user namespace for the server's user: {probe.stderr.strip()}"
    return None


pytestmark = pytest.mark.skipif(_why_skipped() is not None, reason=str(_why_skipped()))

_LOG_ROOM_KIB = 48
"""How much of its last log file the server has left (up to 8 KiB more) when its log's disk is
filled: a run on the small corpus writes some 140 KiB of log, its first checkpoints far less."""

_SETTINGS = "-c fsync=off -c checkpoint_timeout=1d -c autovacuum=off -c wal_writer_delay=10s"
"""No checkpoint (it makes the next log file ahead) and no vacuum during the steps, and a log
writer seldom awake: the one to need a new log file is a statement of the run."""

_SCRIPT = """
server() { unshare --user --map-user="$SERVER_UID" --map-group="$SERVER_GID" "$@"; }
start() {  # DATA PORT
    server "$PG/pg_ctl" -D "$1" -w -t 60 -l "$OUT/$(basename "$1").log" -o \
        "-c listen_addresses=127.0.0.1 -p $2 -k $SOCKETS $SETTINGS" \
        start > /dev/null || exit 94
}
stop() { server "$PG/pg_ctl" -D "$1" -m immediate stop > /dev/null 2>&1; }
Q="How are runs checkpointed?"
T="How are checkpoints encrypted?"

server "$PG/initdb" -D "$DISK/tables" -X "$ROOT/tables_log" -U cadre -A trust > /dev/null \
    || exit 95
start "$DISK/tables" "$TABLES_PORT"
export CADRE_DB="postgresql://cadre@127.0.0.1:$TABLES_PORT/postgres"
cadre run "$Q" --corpus "$DOCS" --home "$ROOT/tables_home" --thread done > /dev/null 2>&1 || exit 91
fill 0; step tables_run run "$T" --corpus "$DOCS" --home "$ROOT/tables_home" --thread t1
unfill; step tables_resumed resume t1 --home "$ROOT/tables_home"
stop "$DISK/tables"

server "$PG/initdb" -D "$ROOT/log" -X "$DISK/log" --wal-segsize=1 -U cadre -A trust > /dev/null \
    || exit 96
start "$ROOT/log" "$LOG_PORT"
export CADRE_DB="postgresql://cadre@127.0.0.1:$LOG_PORT/postgres"
cadre run "$Q" --corpus "$DOCS" --home "$ROOT/log_home" --thread done > /dev/null 2>&1 || exit 92
"$PYTHON" - <<'PY' || exit 93
import os, psycopg
segment, room = 1 << 20, int(os.environ["LOG_ROOM_KIB"]) << 10
files = [name for name in os.listdir(os.environ["DISK"] + "/log") if len(name) == 24]
last = max(int(name[8:16], 16) * ((1 << 32) // segment) + int(name[16:], 16) for name in files)
end = (last + 1) * segment  # the end of the last log file made: the next one needs room
where = "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint"
with psycopg.connect(os.environ["CADRE_DB"], autocommit=True) as conn:
    while (left := end - conn.execute(where).fetchone()[0]) > room + (8 << 10):
        pad = min(left - room, 1 << 18)
        conn.execute("SELECT pg_logical_emit_message(false, 'pad', repeat('x', %s))", (pad,))
PY
fill 0; step log_run run "$T" --corpus "$DOCS" --home "$ROOT/log_home" --thread t1
step log_down resume t1 --home "$ROOT/log_home"
unfill; start "$ROOT/log" "$LOG_PORT"; step log_resumed resume t1 --home "$ROOT/log_home"
stop "$ROOT/log"
"""


class Servers(NamedTuple):
    """What the script left: the folder of its steps, and each server's URL."""

    out: Path
    tables_url: str
    log_url: str

    def step(self, name: str) -> Step:
        """The step called ``name``."""
        return Step(self.out, name)

    def server_log(self, server: str) -> str:
        """The log of the server ``tables`` or ``log``."""
        return (self.out / f"{server}.log").read_text()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Servers:
    """The steps of both servers, each with its disk full under a run, then freed."""
    bin_dir, ids = find_bin_dir(), _server_ids()
    if bin_dir is None:  # only when PostgreSQL is required: fail, do not skip
        pytest.fail("PostgreSQL is required but not installed (apt-get install postgresql)")
    assert ids is not None
    root = tmp_path_factory.mktemp("pg_small_disk")
    docs = write_corpus(root / "docs", SMALL_CORPUS)
    (root / "sockets").mkdir()
    ports = {"TABLES_PORT": free_port(), "LOG_PORT": free_port()}
    variables = {
        "PG": bin_dir,
        "SERVER_UID": ids[0],
        "SERVER_GID": ids[1],
        "ROOT": root,
        "DOCS": docs,
        "SOCKETS": root / "sockets",
        "LOG_ROOM_KIB": _LOG_ROOM_KIB,
        "SETTINGS": _SETTINGS,
        **ports,
    }
    exports = "".join(f"export {name}='{value}'\n" for name, value in variables.items())
    out = on_a_small_disk(exports + _SCRIPT, root, size_mib=64)
    url = "postgresql://cadre@127.0.0.1:{}/postgres"
    return Servers(out, url.format(ports["TABLES_PORT"]), url.format(ports["LOG_PORT"]))


def _assert_the_line(step: Step, url: str, home: Path, cause: str) -> None:
    """The run's last line, its only one to tell an error (no task failed of it, no warning of
    the driver), names the server, the cause (a pattern) and what to do."""
    assert step.code == 1, step.lines
    assert [line for line in step.lines if "error" in line.lower()] == [step.last], step.lines
    said = (
        f"error: the database server at {url} ran out of disk space (SQLSTATE 53100: CAUSE): "
        "free space on that server and try again (what was committed is kept); then "
        f"`cadre resume t1 --home {home}` goes on from its last checkpoint"
    )
    assert re.fullmatch(re.escape(said).replace("CAUSE", cause), step.last), step.lines


def _assert_finished(step: Step) -> None:
    assert step.code == 0, step.lines
    assert step.printed.startswith("thread t1 finished; its answer:"), step.lines


def test_a_table_that_cannot_grow_ends_the_run_in_one_line(servers: Servers) -> None:
    home = servers.out.parent / "tables_home"
    cause = r'could not extend file "base/\d+/\d+(_fsm|_vm)?": [^()]+'
    _assert_the_line(servers.step("tables_run"), servers.tables_url, home, cause)
    log = servers.server_log("tables")
    assert "ERROR:  could not extend file" in log and "PANIC" not in log, log


def test_space_freed_the_run_goes_on_with_resume(servers: Servers) -> None:
    _assert_finished(servers.step("tables_resumed"))


def test_a_log_that_cannot_grow_ends_the_run_in_one_line_and_the_server(servers: Servers) -> None:
    home = servers.out.parent / "log_home"
    cause = r'could not write to file "pg_wal/xlogtemp\.\d+": No space left on device'
    _assert_the_line(servers.step("log_run"), servers.log_url, home, cause)
    log = servers.server_log("log")
    assert "PANIC:  could not write to file" in log, log


def test_the_server_down_after_its_panic_reads_as_an_outage(servers: Servers) -> None:
    down = servers.step("log_down")
    assert down.code == 2, down.lines
    assert down.lines == [down.last], down.lines
    assert down.last.startswith(f"error: cannot connect to {servers.log_url}: "), down.lines


def test_space_freed_and_the_server_started_the_run_goes_on_with_resume(servers: Servers) -> None:
    _assert_finished(servers.step("log_resumed"))
