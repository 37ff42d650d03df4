"""Erasure of a scope (``cadre purge --scope user:alice``): its memory, its threads' checkpoints
and pending writes (with the review audit trail they hold), its traces and run index entries.

A scope is ``KIND:NAME`` with KIND ``user``, ``project`` or ``tenant``. It owns:

* the threads run for it: memory scope ``KIND/NAME`` (``cadre run --memory-scope user/alice``),
  or a principal whose user (``user:``) or tenant (``tenant:``) is NAME;
* the store namespaces whose first scope kind is KIND, followed by NAME
  (``("research", "user", "alice", "evidence")``, ``("user", "alice", "prefs")``), with the
  scope's data key: their values are sealed under it, so a copy made elsewhere (a backup)
  cannot be opened after the purge either;
* every memory item those threads wrote elsewhere (found by its provenance);
* the corpus passages of the folders its threads indexed (``cadre run --corpus``), unless a
  thread of another scope indexed a folder of the same name (passages are named by folder).

The order makes a killed purge safe to run again: a tombstone is written first (who, when; the
scope only as a keyed digest), then the memory, the traces, and the checkpoints last (they say
which threads the scope has), then the tombstone gets its counts. Every owned thread is held
for the whole purge, so one that is running refuses it before anything is deleted. SQLite files
are rewritten afterwards (and zero deleted rows as they go), so nothing erased stays in them;
on PostgreSQL rows are deleted and vacuumed (``docs/memory.md`` says what that guarantees).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import PurePath
from typing import TYPE_CHECKING

from framework.database.home import DataHome
from framework.errors import ConfigError, CryptoError, ReviewError
from framework.memory import SCOPE_KINDS, scope_of
from framework.memory.corpus import CORPUS_NAMESPACE
from framework.retention._rows import thread_rows
from framework.runs.spec import RunSpec
from framework.runs.stores import home_cipher, home_store, open_checkpointer
from framework.runs.threads import thread_spec

if TYPE_CHECKING:
    from framework.memory.store import SemanticStore
    from framework.persistence.saver import CadreSaver

__all__ = ["ERASER_GROUP", "SCOPE_KINDS", "DataScope", "PurgeReport", "purge"]

ERASER_GROUP = "cadre.erasers"
"""Other packages' erasers of thread records (telemetry's traces):
``(home, thread_ids) -> {what: count}``."""

Eraser = Callable[[DataHome, Collection[str]], dict[str, int]]


@dataclass(frozen=True)
class DataScope:
    """Whose data to erase: ``KIND:NAME``."""

    kind: str
    name: str

    @classmethod
    def parse(cls, text: str) -> DataScope:
        """The scope ``text`` names.

        Raises:
            ConfigError: It is not ``KIND:NAME`` with a known kind and a name without ``/``.
        """
        kind, mark, name = text.partition(":")
        if not mark or kind not in SCOPE_KINDS or not name.strip() or "/" in name:
            raise ConfigError(
                f"scope {text!r}: write KIND:NAME with KIND one of {', '.join(SCOPE_KINDS)} "
                "and a name without '/', e.g. user:alice"
            )
        return cls(kind, name)

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    def owns_thread(self, info: RunSpec) -> bool:
        """Whether the thread recorded with ``info`` was run for this scope."""
        if tuple(info.memory_scope) == (self.kind, self.name):
            return True
        principal = info.principal
        if principal is None:
            return False
        return (self.kind, self.name) in (("user", principal.user), ("tenant", principal.tenant))

    def owns_namespace(self, namespace: tuple[str, ...]) -> bool:
        """Whether ``namespace`` is this scope's: its first scope kind is followed by this
        scope's name (see :func:`~framework.memory.scope_of`)."""
        return scope_of(namespace) == str(self)


@dataclass(kw_only=True)
class PurgeReport:
    """What a purge removed, and what it could not look at."""

    scope: str
    tombstone: str
    counts: dict[str, int] = field(default_factory=dict)
    unreadable_threads: list[str] = field(default_factory=list)
    """Threads whose owner could not be read (their keys are missing): left as they are."""
    already: bool = False
    """The scope was purged before and nothing of it is left (the tombstone is that one)."""


def purge(home: DataHome, scope: DataScope, *, requested_by: str) -> PurgeReport:
    """Erase ``scope`` from ``home`` (see the module's description).

    Raises:
        ConfigError: The home holds nothing of the scope and was never asked to purge it.
        ThreadBusyError: One of its threads is running in another process ("thread is busy");
            nothing was deleted.
    """

    if not home.has_memory() and not home.has_checkpoints():
        raise ConfigError(f"unknown scope {scope}: nothing is stored under {home.describe()}")
    cipher = home_cipher(home)
    with ExitStack() as stack:
        store = stack.enter_context(home_store(home, cipher))
        saver = stack.enter_context(open_checkpointer(home)) if home.has_checkpoints() else None
        threads, corpora, unreadable = _owned_threads(saver, scope)
        spaces = [ns for ns in store.namespaces() if scope.owns_namespace(ns)]
        earlier = store.tombstones.of(str(scope))
        if not threads and not spaces and earlier and earlier[-1].finished_at is not None:
            return PurgeReport(scope=str(scope), tombstone=earlier[-1].id, already=True)
        if not threads and not spaces and not earlier:
            raise ConfigError(
                f"unknown scope {scope}: no thread and no memory namespace of it under "
                f"{home.describe()}; nothing was deleted"
            )
        if saver is not None:
            for thread_id in threads:  # a running thread refuses the purge now
                stack.enter_context(saver.hold_thread(thread_id))
        stone = store.tombstones.begin(str(scope), requested_by)
        counts = {"threads": len(threads), "checkpoints": sum(threads.values())}
        counts["memory items"] = store.erase(str(scope), threads)
        counts["corpus passages"] = _erase_corpora(store, corpora)
        for eraser in _erasers():
            counts.update(eraser(home, list(threads)))
        if saver is not None and threads:
            saver.delete_threads(list(threads))
            saver.compact()
        store.compact()
        store.tombstones.finish(stone, counts)
    return PurgeReport(
        scope=str(scope), tombstone=stone.id, counts=counts, unreadable_threads=unreadable
    )


def _owned_threads(
    saver: CadreSaver | None, scope: DataScope
) -> tuple[dict[str, int], set[str], list[str]]:
    """The scope's threads with their checkpoint counts, the names of the corpus folders only
    they indexed, and the threads that cannot be read."""
    if saver is None:
        return {}, set(), []
    owned: dict[str, int] = {}
    mine: set[str] = set()
    theirs: set[str] = set()
    unreadable: list[str] = []
    for row in thread_rows(saver):
        try:
            info = thread_spec(saver, row.thread_id)
        except ReviewError:  # not started by `cadre run`: no owner recorded
            continue
        except CryptoError:
            unreadable.append(row.thread_id)
            continue
        corpora = mine if scope.owns_thread(info) else theirs
        if info.corpus is not None:
            corpora.add(PurePath(info.corpus).name)
        if scope.owns_thread(info):
            owned[row.thread_id] = row.checkpoints
    return owned, mine - theirs, unreadable


def _erase_corpora(store: SemanticStore, folders: Collection[str]) -> int:
    """Delete the corpus passages and source records of ``folders``; how many passages."""

    records = store.sources(CORPUS_NAMESPACE)
    doomed = [name for name in records if name.split("/", 1)[0] in folders]
    passages = store.delete_many(
        CORPUS_NAMESPACE, [key for name in doomed for key in records[name].keys]
    )
    store.delete_sources(CORPUS_NAMESPACE, doomed)
    return passages


def _erasers() -> list[Eraser]:
    return [point.load() for point in entry_points(group=ERASER_GROUP)]
