"""A small disk of its own for a test's commands, full for real without root.

A tmpfs of a few MiB is mounted in a user and mount namespace of the script's own
(``unshare --user --map-root-user --mount``): the kernel answers ``ENOSPC`` to every writer on
it (SQLite, key files, traces, a database server) and ``statvfs`` tells its true free space, and
nothing outside the script sees it. The script is the first process of a process namespace of
its own too (``--pid --fork --kill-child``), so whatever it started (a server) ends with it,
even when it is killed. The script gets ``$DISK`` (the mount), ``$OUT`` (a folder outside it
for what the test reads), and the shell functions ``cadre ARGS`` (the CLI of this tree),
``fill KIB`` (leave only KIB KiB free on the disk), ``unfill`` (free it again) and
``step NAME ARGS`` (``cadre ARGS`` with its stderr in ``$OUT/NAME.err`` and its exit code in
``$OUT/NAME.rc``).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from framework.database import DATABASE_VARIABLE
from framework.persistence.keys import KEYS_VARIABLE

__all__ = ["SMALL_DISK_MIB", "Step", "on_a_small_disk", "why_no_small_disk"]

SMALL_DISK_MIB = 32
"""The size of the disk, unless the test asks for another."""

_PRELUDE = """
set -u
mount -t tmpfs -o "size=${DISK_MIB}m" tmpfs "$DISK" || exit 90
cadre() { "$PYTHON" -c 'from framework.cli.main import main; main()' "$@"; }
unfill() { rm -f "$DISK/.filler"; }
fill() {
    unfill
    dd if=/dev/zero of="$DISK/.filler" bs=64k 2>/dev/null
    truncate -s "-$1K" "$DISK/.filler"
}
step() {
    local name=$1; shift
    cadre "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
    echo $? > "$OUT/$name.rc"
}
"""

_NAMESPACES = ["--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child"]


_HOME_CHOOSERS = (DATABASE_VARIABLE, KEYS_VARIABLE)
"""Variables that would put the commands' data elsewhere than the home the script names."""


class Step:
    """What one ``step`` of the script left: its exit code, the lines it wrote to stderr and
    what it printed."""

    def __init__(self, out: Path, name: str) -> None:
        self.code = int((out / f"{name}.rc").read_text())
        self.lines = (out / f"{name}.err").read_text().strip().splitlines()
        self.printed = (out / f"{name}.out").read_text()

    @property
    def last(self) -> str:
        """The line the user reads last (the error, when it failed)."""
        return self.lines[-1] if self.lines else ""


@functools.cache
def why_no_small_disk() -> str | None:
    """Why a small disk cannot be mounted here (None: it can)."""
    if shutil.which("unshare") is None:
        return "no unshare(1) on this machine"
    probe = subprocess.run(
        ["unshare", *_NAMESPACES, "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        return f"no user and mount namespaces here: {probe.stderr.strip()}"
    return None


def on_a_small_disk(
    script: str, root: Path, *, size_mib: int = SMALL_DISK_MIB, timeout_s: float = 600
) -> Path:
    """Run ``script`` (bash) with a small disk of ``size_mib`` MiB at ``root/disk``; the folder
    of its steps."""
    disk, out = root / "disk", root / "out"
    disk.mkdir()
    out.mkdir()
    env = {
        **{name: value for name, value in os.environ.items() if name not in _HOME_CHOOSERS},
        "DISK": str(disk),
        "DISK_MIB": str(size_mib),
        "OUT": str(out),
        "PYTHON": sys.executable,
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        ["unshare", *_NAMESPACES, "bash", "-c", _PRELUDE + script],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stdout}{done.stderr}"
    return out
