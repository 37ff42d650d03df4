"""The data home: where a run keeps its checkpoints, memory, keys and traces.

Checkpoints and memory are SQLite files under the home by default; with a PostgreSQL URL
(``--db`` or ``$CADRE_DB``) they live in that database instead, so many processes on many
machines share them, while keys, traces and role prompts stay under the home.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from framework.database import DATABASE_VARIABLE, is_postgres_url, redact_url
from framework.errors import ConfigError

__all__ = ["DataHome", "checked_database_url", "resolve_home"]

HOME_VARIABLE = "CADRE_HOME"


@dataclass(frozen=True, kw_only=True)
class DataHome:
    """Paths under one data home. Nothing is created until :meth:`create` is called."""

    root: Path
    database: str | None = None
    """A PostgreSQL URL holding the checkpoints and memory; None keeps them in SQLite files."""

    @property
    def checkpoints(self) -> Path:
        """The SQLite checkpoint database (unused with a PostgreSQL database)."""
        return self.root / "checkpoints.sqlite"

    @property
    def memory(self) -> Path:
        """The semantic store's SQLite file: corpus chunks and remembered facts."""
        return self.root / "memory.sqlite"

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
        """Create the home folder (private to the user) and return self."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self


def resolve_home(option: Path | None = None, database: str | None = None) -> DataHome:
    """The home from ``--home``, else ``$CADRE_HOME``, else ``.cadre`` in the working directory;
    its database from ``database`` (``--db``), else ``$CADRE_DB``, else its SQLite files.

    Raises:
        ConfigError: The database is not a PostgreSQL URL.
    """
    if option is not None:
        root = option
    elif os.environ.get(HOME_VARIABLE):
        root = Path(os.environ[HOME_VARIABLE])
    else:
        root = Path.cwd() / ".cadre"
    url = database or os.environ.get(DATABASE_VARIABLE) or None
    return DataHome(root=root, database=checked_database_url(url) if url else None)


def checked_database_url(url: str) -> str:
    """``url`` if it is a PostgreSQL URL; ConfigError saying what is accepted otherwise."""
    if not is_postgres_url(url):
        raise ConfigError(
            f"--db / ${DATABASE_VARIABLE} takes a postgresql://user@host:port/dbname URL, got "
            f"{redact_url(url)!r} (SQLite needs no setting: its files live in the data home)"
        )
    return url
