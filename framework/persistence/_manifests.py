"""Checkpoint manifests: what must exist beside a checkpoint, sealed so a deleted row is seen.

A sealed blob proves its own bytes, not that its neighbours are still there. Each checkpoint
written under schema 2 says so in its sealed body, and gets one sealed ``cadre_manifests`` row
naming:

* its parent: the nearest earlier checkpoint that exists (the one it was written on, or, after
  cadre itself deleted checkpoints, the nearest one kept; None when there is none);
* its writes: every ``(task, index)`` of a pending write stored on it, recorded in the
  transaction that stores them.

Its channel values need no list: the sealed body names every channel's version already. On
read (:class:`Checker`), a checkpoint whose body promises a manifest must have one, its parent
must exist, and its writes must be exactly those recorded; otherwise
:class:`IncompleteCheckpointError` names the thread, the checkpoint and what is missing.

Reading a namespace's latest checkpoint also checks that no newer manifest remains
(:func:`check_head`): deleting only the newest checkpoint rows would roll the thread back.

Not detected (an external anchor would be needed, see docs/persistence.md): deleting a thread's
newest checkpoints together with everything beside them, deleting a whole thread, and putting
back an older copy of a row or of the whole database.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

import orjson

from framework.database import Database
from framework.errors import IncompleteCheckpointError, TamperError
from framework.persistence._rows import TABLES, RowCodec, manifest_ad, upsert_into

__all__ = ["Checker", "Manifest", "check_head", "create", "record_writes", "relink"]

_TYPE = "json"
_MANIFESTS = next(table for table in TABLES if table.name == "cadre_manifests")
_INSERT = upsert_into(_MANIFESTS, replace=False)
_UPDATE = (
    "UPDATE cadre_manifests SET value = ? "
    "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
)
_SELECT = (
    "SELECT value FROM cadre_manifests "
    "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
)

CheckpointKey = tuple[str, str, str]
"""(thread id, namespace, checkpoint id)."""


@dataclass(slots=True)
class Manifest:
    """What must exist beside one checkpoint."""

    parent: str | None
    writes: dict[str, set[int]] = field(default_factory=dict)
    """Task id -> the indexes of its writes stored on the checkpoint."""

    def seal(self, codec: RowCodec, key: CheckpointKey) -> bytes:
        """The stored form of this manifest at checkpoint ``key``."""
        data = {
            "parent": self.parent,
            "writes": {task: sorted(idx) for task, idx in sorted(self.writes.items())},
        }
        return codec.seal((_TYPE, orjson.dumps(data)), manifest_ad(*key))

    @classmethod
    def open(cls, codec: RowCodec, key: CheckpointKey, blob: bytes) -> Manifest:
        """The manifest sealed at checkpoint ``key``.

        Raises:
            CryptoError: The row is tampered, moved, plaintext or under an unknown key.
        """
        type_, data = codec.open(blob, manifest_ad(*key))
        try:
            if type_ != _TYPE:
                raise ValueError(f"type {type_!r}")
            decoded = orjson.loads(data)
            writes = {str(task): {int(i) for i in idx} for task, idx in decoded["writes"].items()}
            parent = decoded["parent"]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise TamperError(f"{_where(key)}: its manifest does not decode ({exc})") from None
        return cls(parent=None if parent is None else str(parent), writes=writes)


def _where(key: CheckpointKey) -> str:
    thread_id, checkpoint_ns, checkpoint_id = key
    return f"checkpoint {checkpoint_id} of thread {thread_id} (namespace {checkpoint_ns or 'top'})"


def _load(db: Database, codec: RowCodec, key: CheckpointKey) -> Manifest | None:
    row = db.execute(_SELECT, key).fetchone()
    return None if row is None else Manifest.open(codec, key, bytes(row[0]))


def _exists(db: Database, key: CheckpointKey) -> bool:
    found = db.execute(
        "SELECT 1 FROM cadre_checkpoints "
        "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
        key,
    ).fetchone()
    return found is not None


def create(db: Database, codec: RowCodec, key: CheckpointKey, parent_id: str | None) -> None:
    """Give a new checkpoint its manifest (inside the transaction that stores it), with the
    writes already stored on it (LangGraph may store a task's writes before the checkpoint
    itself); a manifest already there (the same checkpoint stored again) is kept. The parent
    is recorded only when it exists."""
    thread_id, checkpoint_ns, _ = key
    if parent_id is not None and not _exists(db, (thread_id, checkpoint_ns, parent_id)):
        parent_id = None
    manifest = Manifest(parent_id)
    for task_id, idx in db.execute(
        "SELECT task_id, idx FROM cadre_writes "
        "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
        key,
    ):
        manifest.writes.setdefault(str(task_id), set()).add(int(idx))
    db.execute(_INSERT, (*key, manifest.seal(codec, key)))


def record_writes(
    db: Database, codec: RowCodec, written: Mapping[CheckpointKey, Iterable[tuple[str, int]]]
) -> None:
    """Add stored writes, ``(task, index)`` by checkpoint, to their checkpoints' manifests
    (inside the transaction that stores them). A checkpoint without a manifest (not stored
    yet, or written under schema 1) is left as it is."""
    for key, pairs in written.items():
        manifest = _load(db, codec, key)
        if manifest is None:
            continue
        before = sum(len(idx) for idx in manifest.writes.values())
        for task_id, idx in pairs:
            manifest.writes.setdefault(task_id, set()).add(idx)
        if sum(len(idx) for idx in manifest.writes.values()) != before:
            db.execute(_UPDATE, (manifest.seal(codec, key), *key))


def relink(
    db: Database, codec: RowCodec, thread_id: str, checkpoint_ns: str, deleted: Collection[str]
) -> None:
    """Before cadre deletes these checkpoints of a namespace: point every checkpoint that
    stays, and whose parent goes, at its nearest ancestor that stays (None when none does)."""
    gone = set(deleted)
    parents: dict[str, str | None] = {}
    manifests: dict[str, Manifest] = {}
    for checkpoint_id, parent_id, blob in db.execute(
        "SELECT c.checkpoint_id, c.parent_id, m.value FROM cadre_checkpoints c "
        "LEFT JOIN cadre_manifests m ON m.thread_id = c.thread_id "
        "AND m.checkpoint_ns = c.checkpoint_ns AND m.checkpoint_id = c.checkpoint_id "
        "WHERE c.thread_id = ? AND c.checkpoint_ns = ?",
        (thread_id, checkpoint_ns),
    ).fetchall():
        parents[checkpoint_id] = parent_id
        if blob is not None:
            key = (thread_id, checkpoint_ns, checkpoint_id)
            manifest = manifests[checkpoint_id] = Manifest.open(codec, key, bytes(blob))
            parents[checkpoint_id] = manifest.parent
    for checkpoint_id, manifest in manifests.items():
        if checkpoint_id in gone or manifest.parent not in gone:
            continue
        ancestor: str | None = manifest.parent
        seen: set[str] = set()
        while ancestor is not None and ancestor in gone and ancestor not in seen:
            seen.add(ancestor)
            ancestor = parents.get(ancestor)
        manifest.parent = None if ancestor in gone else ancestor
        key = (thread_id, checkpoint_ns, checkpoint_id)
        db.execute(_UPDATE, (manifest.seal(codec, key), *key))


def check_head(db: Database, thread_id: str, checkpoint_ns: str, head: str | None) -> None:
    """Refuse a namespace whose newest checkpoint (``head``, None: none) is older than the
    newest manifest: a manifest is written and deleted with its checkpoint, so one without
    it means the newest checkpoints were deleted, which would roll the thread back.

    Raises:
        IncompleteCheckpointError: A newer checkpoint's manifest remains without it.
    """
    orphan = db.execute(
        "SELECT checkpoint_id FROM cadre_manifests WHERE thread_id = ? AND checkpoint_ns = ? "
        "AND checkpoint_id > ? ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id, checkpoint_ns, head or ""),
    ).fetchone()
    if orphan is not None:
        raise IncompleteCheckpointError(
            f"{_where((thread_id, checkpoint_ns, str(orphan[0])))} is missing, though its "
            f"manifest remains: the thread's newest checkpoints were deleted outside cadre, "
            f"which would roll it back to {head or 'nothing'}; restore the database from a "
            "backup"
        )


class Checker:
    """Checks what a checkpoint's manifest promises, on one reader's connection."""

    def __init__(self, db: Database, codec: RowCodec) -> None:
        self.db = db
        self.codec = codec

    def manifest(self, key: CheckpointKey) -> Manifest:
        """The checkpoint's manifest, its parent checked.

        Raises:
            IncompleteCheckpointError: The manifest or the parent it names is missing.
        """
        manifest = _load(self.db, self.codec, key)
        if manifest is None:
            raise _missing(key, "its manifest is")
        thread_id, checkpoint_ns, _ = key
        if manifest.parent is not None and not _exists(
            self.db, (thread_id, checkpoint_ns, manifest.parent)
        ):
            raise _missing(key, f"its parent checkpoint {manifest.parent} is")
        return manifest

    @staticmethod
    def writes(key: CheckpointKey, manifest: Manifest, stored: Iterable[tuple[str, int]]) -> None:
        """Check the writes stored on the checkpoint are exactly those its manifest recorded.

        Raises:
            IncompleteCheckpointError: A recorded write is missing, or one was never recorded.
        """
        found: dict[str, set[int]] = {}
        for task_id, idx in stored:
            found.setdefault(task_id, set()).add(idx)
        lost = {
            task: sorted(idx - found.get(task, set()))
            for task, idx in manifest.writes.items()
            if idx - found.get(task, set())
        }
        if lost:
            named = "; ".join(
                f"task {task}: {len(idx)} of {len(manifest.writes[task])} writes"
                for task, idx in sorted(lost.items())
            )
            raise _missing(key, f"writes it recorded are ({named})")
        recorded = manifest.writes
        extra = sorted(task for task, idx in found.items() if idx - recorded.get(task, set()))
        if extra:
            raise IncompleteCheckpointError(
                f"{_where(key)} has writes its manifest never recorded (tasks "
                f"{', '.join(extra)}): an older copy of its manifest was put back; the database "
                "was altered"
            )


def _missing(key: CheckpointKey, what: str) -> IncompleteCheckpointError:
    return IncompleteCheckpointError(
        f"{_where(key)} is incomplete: {what} missing; rows were deleted from the database "
        "outside cadre (restore it from a backup)"
    )
