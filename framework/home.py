"""The data home: where a run keeps its checkpoints, memory and traces."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DataHome", "resolve_home"]

HOME_VARIABLE = "CADRE_HOME"


@dataclass(frozen=True, kw_only=True)
class DataHome:
    """Paths under one data home. Nothing is created until :meth:`create` is called."""

    root: Path

    @property
    def checkpoints(self) -> Path:
        """The SQLite checkpoint database."""
        return self.root / "checkpoints.sqlite"

    @property
    def memory(self) -> Path:
        """The semantic store: corpus chunks and remembered facts."""
        return self.root / "memory.sqlite"

    @property
    def traces(self) -> Path:
        """The folder of exported spans."""
        return self.root / "traces"

    def create(self) -> DataHome:
        """Create the home folder (private to the user) and return self."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self


def resolve_home(option: Path | None = None) -> DataHome:
    """The home from ``--home``, else ``$CADRE_HOME``, else ``.cadre`` in the working directory."""
    if option is not None:
        return DataHome(root=option)
    if os.environ.get(HOME_VARIABLE):
        return DataHome(root=Path(os.environ[HOME_VARIABLE]))
    return DataHome(root=Path.cwd() / ".cadre")
