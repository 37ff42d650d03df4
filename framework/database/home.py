"""The data home: where a run keeps its checkpoints, memory, keys and traces.

Checkpoints and memory are SQLite files under the home by default; with a PostgreSQL URL
(``--db`` or ``$CADRE_DB``) they live in that database instead, so many processes on many
machines share them, while keys, traces and role prompts stay under the home.

A home is private to its user: :meth:`DataHome.create` makes its folder 0700, tightens what it
already holds (folders 0700, files 0600, with a warning once for a home others could read) and
creates its SQLite files 0600 (their ``-wal`` and ``-shm`` files take the same mode). Every file
cadre makes there is private from the start: the lock files, the run index, the key file.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from framework.database import DATABASE_VARIABLE, is_postgres_url, redact_url
from framework.database._files import PRIVATE_FILE_MODE, private_file, write_aside
from framework.errors import ConfigError

__all__ = [
    "KEYS_DATABASE_VARIABLE",
    "PRIVATE_FILE_MODE",
    "PRIVATE_FOLDER_MODE",
    "DataHome",
    "checked_database_url",
    "private_file",
    "resolve_home",
    "write_aside",
]

HOME_VARIABLE = "CADRE_HOME"

KEYS_DATABASE_VARIABLE = "CADRE_KEYS_DB"
"""A PostgreSQL URL for the data keys of threads and scopes, apart from the data they seal
(by default they are in the home's database, in a schema of their own)."""

PRIVATE_FOLDER_MODE = 0o700
"""The mode of the home and every folder in it."""

logger = logging.getLogger("cadre.home")
_warned: set[Path] = set()
_warned_lock = threading.Lock()


@dataclass(frozen=True, kw_only=True)
class DataHome:
    """Paths under one data home. Nothing is created until :meth:`create` is called."""

    root: Path
    database: str | None = None
    """A PostgreSQL URL holding the checkpoints and memory; None keeps them in SQLite files."""
    keys_database: str | None = None
    """A PostgreSQL URL holding the data keys apart from the data; None keeps them in the
    home's database (schema ``cadre_data_keys``) or, with SQLite, in ``data-keys.sqlite``."""

    @property
    def checkpoints(self) -> Path:
        """The SQLite checkpoint database (unused with a PostgreSQL database)."""
        return self.root / "checkpoints.sqlite"

    @property
    def memory(self) -> Path:
        """The semantic store's SQLite file: corpus chunks and remembered facts."""
        return self.root / "memory.sqlite"

    @property
    def data_keys(self) -> Path:
        """The SQLite key store of the data keys of scopes and threads, apart from the data
        they seal (see :mod:`framework.persistence.data_keys`)."""
        return self.root / "data-keys.sqlite"

    @property
    def data_keys_target(self) -> Path | str:
        """Where the data keys are: their own PostgreSQL database, the home's (a schema of their
        own), or the file."""
        return self.keys_database or self.database or self.data_keys

    @property
    def server(self) -> Path:
        """The SQLite file of the HTTP server's API tokens (see :mod:`framework.server.tokens`)."""
        return self.root / "server.sqlite"

    @property
    def server_target(self) -> Path | str:
        """Where the API tokens are: the PostgreSQL URL (a schema of their own), or the file."""
        return self.database or self.server

    @property
    def checkpoint_target(self) -> Path | str:
        """Where the checkpoints are: the PostgreSQL URL, or the SQLite file."""
        return self.database or self.checkpoints

    @property
    def memory_target(self) -> Path | str:
        """Where the semantic store is: the PostgreSQL URL, or the SQLite file."""
        return self.database or self.memory

    def has_checkpoints(self) -> bool:
        """Whether a run may have written checkpoints (always, for PostgreSQL)."""
        return self.database is not None or self.checkpoints.is_file()

    def has_memory(self) -> bool:
        """Whether anything may be in the semantic store (always, for PostgreSQL)."""
        return self.database is not None or self.memory.is_file()

    def describe(self) -> str:
        """The home, and its database when not the SQLite files under it."""
        if self.database is None:
            return str(self.root)
        return f"{self.root} (database {redact_url(self.database)})"

    @property
    def traces(self) -> Path:
        """The folder of exported spans."""
        return self.root / "traces"

    def create(self) -> DataHome:
        """Create the home folder, private to the user, and return self.

        A home that exists is tightened: folders 0700 and files 0600 (a warning is logged once
        per process when the home itself was open to group or others). Its SQLite files are
        created 0600 when missing (their ``-wal`` and ``-shm`` files follow their mode).
        """
        self.root.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER_MODE)
        _tighten(self.root)
        if self.database is None:
            private_file(self.checkpoints)
            private_file(self.memory)
            private_file(self.data_keys)
            private_file(self.server)
        return self


def _tighten(root: Path) -> None:
    """Make ``root`` and the folders under it 0700, its files 0600; warn once per process
    when ``root`` was open to group or others."""
    mode = stat.S_IMODE(root.lstat().st_mode)
    if mode & 0o077:
        with _warned_lock:
            first = root.resolve() not in _warned
            _warned.add(root.resolve())
        if first:
            logger.warning(
                "cadre: data home %s had mode %04o (group or others could read it); it is now "
                "0700, its files 0600",
                root,
                mode,
            )
    _restrict(root, PRIVATE_FOLDER_MODE)
    for folder, folders, files in os.walk(root):
        for name in folders:
            _restrict(Path(folder, name), PRIVATE_FOLDER_MODE)
        for name in files:
            _restrict(Path(folder, name), PRIVATE_FILE_MODE)


def _restrict(path: Path, mode: int) -> None:
    """Drop the group and other bits of ``path`` (a link is left alone), giving the user at
    least ``mode``."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return
    current = stat.S_IMODE(info.st_mode)
    if current & 0o077:
        try:
            os.chmod(path, (current & 0o700) | mode)
        except OSError as error:
            raise ConfigError(
                f"cannot make {path} private to you ({error.strerror}): make it yours "
                f"(chown) or pick another data home"
            ) from None


def resolve_home(option: Path | None = None, database: str | None = None) -> DataHome:
    """The home from ``--home``, else ``$CADRE_HOME``, else ``.cadre`` in the working directory;
    its database from ``database`` (``--db``), else ``$CADRE_DB``, else its SQLite files.

    Raises:
        ConfigError: The database (or ``$CADRE_KEYS_DB``) is not a PostgreSQL URL.
    """
    if option is not None:
        root = option
    elif os.environ.get(HOME_VARIABLE):
        root = Path(os.environ[HOME_VARIABLE])
    else:
        root = Path.cwd() / ".cadre"
    url = database or os.environ.get(DATABASE_VARIABLE) or None
    keys_url = os.environ.get(KEYS_DATABASE_VARIABLE) or None
    if keys_url is not None and not is_postgres_url(keys_url):
        raise ConfigError(
            f"${KEYS_DATABASE_VARIABLE} takes a postgresql://user@host:port/dbname URL, got "
            f"{redact_url(keys_url)!r}: the data keys of a SQLite home are in data-keys.sqlite"
        )
    return DataHome(
        root=root, database=checked_database_url(url) if url else None, keys_database=keys_url
    )


def checked_database_url(url: str) -> str:
    """``url`` if it is a PostgreSQL URL; ConfigError saying what is accepted otherwise."""
    if not is_postgres_url(url):
        raise ConfigError(
            f"--db / ${DATABASE_VARIABLE} takes a postgresql://user@host:port/dbname URL, got "
            f"{redact_url(url)!r} (SQLite needs no setting: its files live in the data home)"
        )
    return url
