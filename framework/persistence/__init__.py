"""Storage of checkpoints: cadre's encrypted saver and its read side alone (the reader, light
to import), their serializers, the cipher and keys.

It may import the engine's records and the database layer; never runs, the server or the CLI
(the key commands that open a data home live in :mod:`framework.persistence.home_keys`).
Names load on first use."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.persistence._rows import TABLES as TABLES

__getattr__, __dir__ = lazy_exports(__name__)
