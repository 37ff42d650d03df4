"""Files on disk: created private to the user, and a full device (or a database server's full
disk) told as such.

Private: import :func:`private_file` and :func:`write_aside` from
:mod:`framework.database.home` and :func:`out_of_space` from :mod:`framework.database`.
"""

from __future__ import annotations

import errno
import os
import secrets
import sqlite3
from pathlib import Path

from framework.errors import StorageFullError

__all__ = [
    "LOW_SPACE_BYTES",
    "PRIVATE_FILE_MODE",
    "free_bytes",
    "out_of_space",
    "private_file",
    "write_aside",
]

PRIVATE_FILE_MODE = 0o600
"""The mode of every file in the home."""

LOW_SPACE_BYTES = 1 << 20
"""Below this much free space, a disk I/O error on a device is taken for a full one."""

_SQLITE_FULL = 13
_SQLITE_IOERR = 10
_DISK_FULL = "53100"
"""PostgreSQL's SQLSTATE ``disk_full``: the server could not write a file (``ENOSPC``)."""


def private_file(path: Path) -> Path:
    """Create ``path`` empty with mode 0600 unless it exists (whatever the umask); return it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return path
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)
    return path


def write_aside(path: Path, data: bytes) -> Path:
    """Write ``data`` to a new private file beside ``path``, flushed to disk, and return it (the
    caller renames or links it into place, so ``path`` is never left half written).

    Raises:
        StorageFullError: The device holding ``path`` is full (nothing is left behind).
    """
    aside = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)  # whatever the umask
        with os.fdopen(fd, "wb", closefd=False) as file:
            file.write(data)
            file.flush()
            os.fsync(fd)
    except BaseException as error:
        aside.unlink(missing_ok=True)
        if (full := out_of_space(error, path)) is not None:
            raise full from error
        raise
    finally:
        os.close(fd)
    return aside


def free_bytes(path: Path) -> int | None:
    """Free space (for this user) on the device holding ``path``, or its nearest existing
    folder; None when it cannot be told."""
    for place in (path, *path.parents):
        try:
            found = os.statvfs(place)
        except OSError:
            continue
        return found.f_bavail * found.f_frsize
    return None


def out_of_space(error: BaseException, path: Path | str) -> StorageFullError | None:
    """The error to raise instead of ``error`` when it means the device holding ``path`` is
    full (an ``ENOSPC`` or ``EDQUOT`` OSError, SQLite's ``SQLITE_FULL``, or its disk I/O error
    with almost no space left), or, for PostgreSQL's ``disk_full``, that the server at ``path``
    (its URL without the password) is out of disk space; else None."""
    if getattr(error, "sqlstate", None) == _DISK_FULL:  # psycopg's DiskFull
        return StorageFullError(
            f"the database server at {path} ran out of disk space (SQLSTATE {_DISK_FULL}: "
            f"{_cause(error)}): free space on that server and try again (what was committed "
            "is kept)"
        )
    where = Path(path)
    if isinstance(error, OSError):
        return _full(where, error) if error.errno in (errno.ENOSPC, errno.EDQUOT) else None
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    if not isinstance(error, sqlite3.Error) or code not in (_SQLITE_FULL, _SQLITE_IOERR):
        return None
    free = free_bytes(where)
    if free is None or free < LOW_SPACE_BYTES:
        return _full(where, error)
    if code == _SQLITE_IOERR:
        return None
    return StorageFullError(  # room on the device: SQLite's temporary files did not fit
        f"no space left for {where} ({_cause(error)}): its device has {_size(free)} free, so "
        f"SQLite's temporary folder {_sqlite_temp_folder()} ($SQLITE_TMPDIR moves it) is full; "
        "free space there and try again (what was committed is kept)"
    )


def _full(where: Path, error: BaseException) -> StorageFullError:
    """The one line of a full device: the file, what failed, the space left, what to do."""
    free = free_bytes(where)
    left = f"; {_size(free)} free" if free is not None else ""
    return StorageFullError(
        f"no space left on the device holding {where} ({_cause(error)}{left}): free space there"
        " and try again (what was committed is kept)"
    )


def _cause(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if primary := getattr(getattr(error, "diag", None), "message_primary", None):
        return " ".join(str(primary).split())  # a server's error without its hint
    return " ".join(str(error).split()) or type(error).__name__


def _sqlite_temp_folder() -> str:
    """Where SQLite puts its temporary files on Unix: the first writable of these."""
    variables = (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"))
    for folder in (*variables, "/var/tmp", "/usr/tmp", "/tmp"):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return "."


def _size(count: int) -> str:
    value, unit = float(count), "bytes"
    for bigger in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{count} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
