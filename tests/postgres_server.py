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

__all__ = ["REQUIRE_VARIABLE", "find_bin_dir", "postgres_server"]

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


@contextmanager
def postgres_server(bin_dir: Path) -> Iterator[str]:
    """Start a server; yield the URL of its ``postgres`` database; stop it afterwards."""
    prefix, uid = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="cadre-pg-"))
    data = root / "data"
    if uid is not None:
        os.chown(root, uid, -1)
    port = _free_port()
    subprocess.run(
        [*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "cadre", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off"
    subprocess.run(
        [
            *prefix,
            str(bin_dir / "pg_ctl"),
            *("-D", str(data), "-o", options, "-w", "-t", str(START_TIMEOUT_S)),
            *("-l", str(root / "server.log"), "start"),
        ],
        check=True,
        capture_output=True,
    )
    try:
        _wait_ready(port)
        yield f"postgresql://cadre@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


def _wait_ready(port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"PostgreSQL did not accept connections on port {port}")
