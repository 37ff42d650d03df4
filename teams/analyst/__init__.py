"""The analyst team: research over a corpus with two kinds of worker, passages from its text
files (``search``) and rows from its CSV files (``table``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.analyst.app import (
        analyst_team,
    )
    from teams.analyst.planning import (
        KINDS,
        KindChoosingPlanner,
    )
    from teams.analyst.tables import (
        TableIndex,
        TableRow,
        TableWorker,
    )

__all__ = [
    "KINDS",
    "KindChoosingPlanner",
    "TableIndex",
    "TableRow",
    "TableWorker",
    "analyst_team",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "teams.analyst.app": ("analyst_team",),
        "teams.analyst.planning": (
            "KINDS",
            "KindChoosingPlanner",
        ),
        "teams.analyst.tables": (
            "TableIndex",
            "TableRow",
            "TableWorker",
        ),
    },
)
