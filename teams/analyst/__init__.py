"""The analyst team: research over a corpus with two kinds of worker, passages from its text
files (``search``) and rows from its CSV files (``table``)."""

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.analyst.app import *
    from teams.analyst.planning import *
    from teams.analyst.tables import *

__getattr__, __dir__ = lazy_exports(__name__)
