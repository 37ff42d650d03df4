"""A real, throwaway PostgreSQL server for the tests, from the system's PostgreSQL packages.

The server lives in a temporary folder, listens on loopback on a free port, and is stopped at
the end of the session. As root it runs as the ``postgres`` user (the server refuses root).
When no PostgreSQL binaries are installed the tests that need one are skipped, unless
``CADRE_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "REQUIRE_VARIABLE",
    "PostgresServer",
    "find_bin_dir",
    "postgres_server",
    "started_server",
]

REQUIRE_VARIABLE = "CADRE_REQUIRE_POSTGRES"
START_TIMEOUT_S = 60


def find_bin_dir() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (newest installed major version), or None."""
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=_major, reverse=True)
    return versions[0].parent if versions else None


def _major(initdb: Path) -> int:
    name = initdb.parent.parent.name
    return int(name) if name.isdigit() else 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user() -> tuple[list[str], int | None]:
    """The command prefix and uid the server runs under (``postgres`` when we are root)."""
    if os.geteuid() != 0:
        return [], None
    user = pwd.getpwnam("postgres")
    return ["runuser", "-u", "postgres", "--"], user.pw_uid


class PostgresServer:
    """A server in a folder of its own that can be stopped and started again (same data,
    same port), as an outage does."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.prefix, uid = _as_server_user()
        self.root = Path(tempfile.mkdtemp(prefix="cadre-pg-"))
        self.data = self.root / "data"
        if uid is not None:
            os.chown(self.root, uid, -1)
        self.port = _free_port()
        self.url = f"postgresql://cadre@127.0.0.1:{self.port}/postgres"
        """The URL of its ``postgres`` database."""
        initdb = [str(bin_dir / "initdb"), "-D", str(self.data), "-U", "cadre", "-A", "trust"]
        subprocess.run([*self.prefix, *initdb], check=True, capture_output=True)

    def _pg_ctl(self, *args: str) -> None:
        command = [*self.prefix, str(self.bin_dir / "pg_ctl"), "-D", str(self.data), *args]
        subprocess.run(command, check=False, capture_output=True)

    def start(self) -> None:
        """Start it and wait until it takes connections."""
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off"
        log = str(self.root / "server.log")
        self._pg_ctl("-o", options, "-w", "-t", str(START_TIMEOUT_S), "-l", log, "start")
        _wait_ready(self.port)

    def stop(self) -> None:
        """Stop it at once (every connection ends)."""
        self._pg_ctl("-m", "immediate", "stop")

    def remove(self) -> None:
        """Stop it and delete its folder."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def postgres_server(bin_dir: Path) -> Iterator[str]:
    """Start a server; yield the URL of its ``postgres`` database; stop it afterwards."""
    with started_server(bin_dir) as server:
        yield server.url


@contextmanager
def started_server(bin_dir: Path) -> Iterator[PostgresServer]:
    """A new server, started; removed afterwards."""
    server = PostgresServer(bin_dir)
    try:
        server.start()
        yield server
    finally:
        server.remove()


def _wait_ready(port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"PostgreSQL did not accept connections on port {port}")
