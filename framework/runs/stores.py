"""The stores of a data home, opened: its cipher, its semantic store and its checkpointer.

The cipher (:func:`home_cipher`, from :mod:`framework.persistence.home_keys`) refuses keys that
do not open the home's data and makes a key only for a home without sealed data, when its first
blob is sealed.

Light to import (no team, no embedding model, no graph machinery, no LangGraph saver), so that
commands that only read threads start fast: they open the home's checkpoints with
:func:`open_reader`, which reads them without LangGraph's runtime.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from framework.database.home import DataHome
from framework.errors import ReviewError
from framework.persistence.cipher import row_identity
from framework.persistence.data_keys import DataKeys
from framework.persistence.home_keys import home_cipher
from framework.persistence.reader import CheckpointReader, StoredFormSerializer

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.base import SerializerProtocol

    from framework.memory.store import SemanticStore
    from framework.persistence.cipher import BlobCipher
    from framework.persistence.saver import CadreSaver
    from framework.runs.observe import RunObserver

__all__ = ["home_checkpointer", "home_cipher", "home_store", "open_checkpointer", "open_reader"]


def home_store(home: DataHome, cipher: BlobCipher) -> SemanticStore:
    """The home's semantic store, its texts and metadata sealed (the vectors stay searchable)."""
    from framework.memory.store import SemanticStore  # noqa: PLC0415 - numpy: not for reads

    return SemanticStore(
        home.memory_target,
        codec=cipher.bind(row_identity("memory", home.memory.name)),
        data_keys=DataKeys(home.data_keys_target, cipher),
    )


def home_checkpointer(
    home: DataHome, observer: RunObserver | None = None, cipher: BlobCipher | None = None
) -> CadreSaver:
    """The encrypted checkpointer of the runs under ``home``; ``observer`` wraps its serializer.

    The review commands open it too, to read what a thread was run with.
    """
    from framework.persistence.checkpointer import default_serializer  # noqa: PLC0415 - LangGraph
    from framework.persistence.saver import CadreSaver  # noqa: PLC0415 - LangGraph's saver

    serde: SerializerProtocol = default_serializer()
    if observer is not None:
        serde = observer.serializer(serde)
    cipher = cipher or home_cipher(home)
    return CadreSaver(
        home.checkpoint_target,
        cipher,
        serde=serde,
        data_keys=DataKeys(home.data_keys_target, cipher),
    )


@contextmanager
def open_checkpointer(home: DataHome, *, check: bool = True) -> Iterator[CadreSaver]:
    """The home's (encrypted) checkpointer, opened to read or maintain threads, closed after.

    Args:
        home: The data home.
        check: Refuse keys that do not open the home's data (see :func:`home_cipher`).

    Raises:
        ReviewError: The home has no checkpoint database (no thread ran there); nothing is
            created.
        ConfigError: The keys do not open the home's data (with ``check``).
    """
    with home_checkpointer(home, cipher=_checked_cipher(home, check)) as checkpointer:
        yield checkpointer


@contextmanager
def open_reader(home: DataHome, *, records: bool = True) -> Iterator[CheckpointReader]:
    """The home's checkpoints opened to show threads, closed after: read as the checkpointer
    reads them, without LangGraph's runtime (LangChain's messages and LangGraph's types other
    than ``Send`` and ``Interrupt`` stay in their stored form, see
    :mod:`framework.persistence.reader`; with ``records=False`` cadre's records too).

    Raises:
        ReviewError: The home has no checkpoint database (no thread ran there); nothing is
            created.
        ConfigError: The keys do not open the home's data.
    """
    cipher = _checked_cipher(home, check=True)
    data_keys = DataKeys(home.data_keys_target, cipher)
    serde = StoredFormSerializer(records=records)
    with CheckpointReader(
        home.checkpoint_target, cipher, serde=serde, data_keys=data_keys
    ) as reader:
        yield reader


def _checked_cipher(home: DataHome, check: bool) -> BlobCipher:
    """The home's cipher, once the home is known to hold checkpoints."""
    if not home.has_checkpoints():
        raise ReviewError(f"no threads under {home.describe()}: run `cadre run` there first")
    return home_cipher(home, check=check)
