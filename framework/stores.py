"""The stores of a data home, opened: its cipher, its semantic store and its checkpointer.

Light to import (no team, no embedding model, no graph machinery), so that commands that only
read threads start fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from framework.errors import ReviewError
from framework.home import DataHome
from framework.persistence.checkpointer import default_serializer
from framework.persistence.cipher import BlobCipher, row_identity
from framework.persistence.keys import default_key_provider
from framework.persistence.saver import CadreSaver

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.base import SerializerProtocol

    from framework.memory.store import SemanticStore
    from framework.observe import RunObserver

__all__ = ["home_checkpointer", "home_cipher", "home_store", "open_checkpointer"]


def home_cipher(home: DataHome) -> BlobCipher:
    """The cipher of everything stored under ``home``: keys from ``$CADRE_KEYS``, else from the
    home's key file (created on first use, mode 0600)."""
    return BlobCipher.from_provider(default_key_provider(home))


def home_store(home: DataHome, cipher: BlobCipher) -> SemanticStore:
    """The home's semantic store, its texts and metadata sealed (the vectors stay searchable)."""
    from framework.memory.store import SemanticStore  # noqa: PLC0415 - numpy: not for reads

    return SemanticStore(
        home.memory_target, codec=cipher.bind(row_identity("memory", home.memory.name))
    )


def home_checkpointer(
    home: DataHome, observer: RunObserver | None = None, cipher: BlobCipher | None = None
) -> CadreSaver:
    """The encrypted checkpointer of the runs under ``home``; ``observer`` wraps its serializer.

    The review commands open it too, to read what a thread was run with.
    """
    serde: SerializerProtocol = default_serializer()
    if observer is not None:
        serde = observer.serializer(serde)
    return CadreSaver(home.checkpoint_target, cipher or home_cipher(home), serde=serde)


@contextmanager
def open_checkpointer(home: DataHome) -> Iterator[CadreSaver]:
    """The home's (encrypted) checkpointer, opened to read or maintain threads, closed after.

    Raises:
        ReviewError: The home has no checkpoint database (no thread ran there); nothing is
            created.
    """
    if not home.has_checkpoints():
        raise ReviewError(f"no threads under {home.describe()}: run `cadre run` there first")
    checkpointer = home_checkpointer(home)
    try:
        yield checkpointer
    finally:
        checkpointer.close()
