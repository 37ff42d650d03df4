"""One small interface over the two databases cadre stores in: SQLite (a file, the default) and
PostgreSQL (a URL, for many processes).

Statements are written once, in the SQL both accept (``INSERT ... ON CONFLICT``, row values,
``?`` placeholders); a :class:`Database` runs them on its backend and supplies the few things
that differ: transactions, JSON field access, table listing, compaction and per-thread locks.

Storage's lowest floor: it imports only :mod:`framework.errors` (and the home's layout,
:mod:`framework.database.home`, imports only this package).
"""

from framework._lazy import lazy_exports
from framework.database._base import *
from framework.database._files import out_of_space as out_of_space
from framework.database.backends import *

__getattr__, __dir__ = lazy_exports(__name__)
