"""Retention: what the threads under a data home are doing, and pruning their old checkpoints.

:func:`thread_statuses` lists every thread of a home's checkpoint database with its status,
last step, last update, checkpoint count and size, without compiling any team (so a thread
whose corpus is gone, or one that ``cadre run`` did not start, is listed too).
:func:`prune` keeps the last K checkpoints of each namespace of every (or one) thread and
never removes one that resuming or forking needs:

* the latest checkpoint of each namespace (the latest state; the checkpoint a paused or
  failed thread resumes from, with its pending writes, and the latest state of every nested
  subgraph);
* every checkpoint a kept one names in its ``parents`` metadata (the parent graph's
  checkpoint a subgraph ran under), transitively, so that a kept subgraph checkpoint can
  still be resumed and forked.

Resuming reads the latest checkpoint of each namespace and its pending writes, never the
older ones; the channel values a kept checkpoint reads (deltas and their bases included) are
kept by :meth:`CadreSaver.delete_checkpoints`. A fork (:func:`framework.review.fork`)
writes copies of the checkpoint it starts from and of its ancestors into the new thread (ids,
metadata, values and the kept pending writes), so a fork does not depend on any row of the
thread it came from, and pruning either thread never breaks the other.

Statuses are read from what LangGraph stores (see :class:`ThreadStatus`): a node's pending
trigger (a ``branch:to:NODE`` channel newer than what the node has seen), the ``Send``
packets of the last step, and the pending writes of the latest checkpoint (``__interrupt__``
for a pause, ``__error__`` for a node that raised). These are LangGraph 1.x storage
conventions, not an API; the tests check them against ``get_state()`` for every status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.database.home import DataHome
from framework.errors import ConfigError, CryptoError
from framework.persistence.steps import next_nodes
from framework.retention._pending import ThreadState, pending_state
from framework.retention._rows import row_sizes, thread_rows
from framework.runs.stores import open_checkpointer, open_reader
from framework.runs.threads import thread_team

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import CheckpointTuple

    from framework.persistence.reader import CheckpointReader
    from framework.persistence.saver import CadreSaver

__all__ = [
    "STATUS_LABELS",
    "PruneReport",
    "ThreadPrune",
    "ThreadState",
    "ThreadStatus",
    "next_nodes",
    "prune",
    "prune_threads",
    "statuses_of",
    "thread_statuses",
]

STATUS_LABELS: Mapping[ThreadState, str] = {
    "interrupted": "interrupted",
    "paused": "paused at review",
    "failed": "failed",
    "done": "done",
    "unreadable": "UNREADABLE",
}
"""How ``cadre threads`` names each state."""


@dataclass(frozen=True, kw_only=True)
class ThreadStatus:
    """One thread of a checkpoint database: what it is doing and what it takes.

    The status is read from the latest top-level checkpoint and its pending writes:

    * ``failed``: a node of the last run part raised (LangGraph stored an ``__error__`` write
      for its task; a node raising inside a subgraph fails the subgraph's task too). Resuming
      runs the failed nodes again.
    * ``paused``: a node is waiting for a human (pending ``interrupt()`` writes: a review
      point); ``cadre approve``, ``edit`` or ``reject`` continue it.
    * ``interrupted``: nodes are due to run and nothing waits for a human. This is a thread
      whose process crashed or was killed, one stopped at a static breakpoint
      (``interrupt_before``/``interrupt_after``), *or one that is running right now*: a
      running process cannot be told apart cheaply from a dead one, so check before
      ``cadre resume``.
    * ``done``: no node is due to run.
    * ``unreadable``: its latest checkpoint cannot be opened (tampered, truncated, or sealed
      under a key the keyring lacks); ``error`` says which row and why. The other threads are
      listed all the same.

    Attributes:
        thread_id: The thread.
        team: The team ``cadre run`` recorded for it; None for a thread it did not start.
        status: One of the states above.
        step: The step of the latest top-level checkpoint (-1: only the input was saved).
        updated_at: When its newest checkpoint (in any namespace) was written, ISO 8601 UTC.
        checkpoints: How many checkpoints it has, in every namespace.
        size_bytes: The bytes of its rows (ids, plaintext metadata and the sealed checkpoint
            bodies, channel values and pending writes); indexes and free pages are not
            counted.
        next_nodes: The nodes due to run from the latest top-level checkpoint (one entry per
            ``Send``).
        interrupts: How many interrupts are pending (``paused`` only).
        error: What the failed node raised (``failed``), or why the thread cannot be read
            (``unreadable``).
    """

    thread_id: str
    team: str | None
    status: ThreadState
    step: int
    updated_at: str
    checkpoints: int
    size_bytes: int
    next_nodes: tuple[str, ...] = ()
    interrupts: int = 0
    error: str | None = None

    @property
    def label(self) -> str:
        """The status as ``cadre threads`` prints it."""
        return STATUS_LABELS[self.status]


@dataclass(frozen=True, kw_only=True)
class ThreadPrune:
    """What pruning did to one thread.

    Attributes:
        thread_id: The thread.
        removed: Checkpoints deleted (with their pending writes).
        kept: Checkpoints left, in every namespace.
        pinned: Of those kept, how many are older than the last K of their namespace and
            were kept because a kept checkpoint runs under them (its ``parents``).
        bytes_freed: How much smaller its rows are (values no kept checkpoint reads went
            too); the file shrinks only after a VACUUM.
    """

    thread_id: str
    removed: int
    kept: int
    pinned: int
    bytes_freed: int


@dataclass(frozen=True, kw_only=True)
class PruneReport:
    """What :func:`prune` did.

    Attributes:
        keep_last: The K it kept per namespace.
        threads: One entry per thread it looked at, most recently updated first.
        file_bytes_before: The database file's size (with its WAL) before, when vacuumed.
        file_bytes_after: The same after the VACUUM, when vacuumed.
    """

    keep_last: int
    threads: tuple[ThreadPrune, ...]
    file_bytes_before: int | None = None
    file_bytes_after: int | None = None

    @property
    def removed(self) -> int:
        """Checkpoints deleted in all threads."""
        return sum(thread.removed for thread in self.threads)

    @property
    def bytes_freed(self) -> int:
        """Bytes of rows deleted in all threads."""
        return sum(thread.bytes_freed for thread in self.threads)


# -- opening and measuring ---------------------------------------------------------------------


# -- statuses ----------------------------------------------------------------------------------


def _config(thread_id: str, checkpoint_ns: str = "", checkpoint_id: str = "") -> RunnableConfig:
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def statuses_of(saver: CheckpointReader, thread_id: str | None = None) -> list[ThreadStatus]:
    """The status of every thread of ``saver`` (a saver or a reader; or of one thread), most
    recently updated first.

    A thread whose latest checkpoint cannot be opened is listed as ``unreadable`` with the
    reason, and the others as they are.

    Raises:
        ConfigError: ``thread_id`` is given and the database does not hold it.
    """
    sizes = row_sizes(saver, thread_id)
    found = [row for row in thread_rows(saver) if thread_id in (None, row.thread_id)]
    if thread_id is not None and not found:
        raise ConfigError(f"unknown thread {thread_id!r} in {saver.db.label}: see `cadre threads`")
    statuses = []
    for tid, count, newest_ns, newest_id in found:
        try:
            newest = saver.get_tuple(_config(tid, newest_ns, newest_id))
            if newest is None:  # deleted meanwhile
                continue
            top = saver.get_tuple(_config(tid)) or newest  # a thread of subgraph checkpoints
        except CryptoError as error:
            statuses.append(_unreadable(tid, count, sizes.get(tid, 0), error))
            continue
        pending = pending_state(top, newest)
        statuses.append(
            ThreadStatus(
                thread_id=tid,
                team=thread_team(saver, tid),
                status=pending.state,
                step=int(top.metadata.get("step", -1)),
                updated_at=str(newest.checkpoint["ts"]),
                checkpoints=count,
                size_bytes=sizes.get(tid, 0),
                next_nodes=pending.next_nodes,
                interrupts=pending.interrupts,
                error=pending.error,
            )
        )
    return statuses


def _unreadable(thread_id: str, count: int, size: int, error: CryptoError) -> ThreadStatus:
    return ThreadStatus(
        thread_id=thread_id,
        team=None,
        status="unreadable",
        step=-1,
        updated_at="-",
        checkpoints=count,
        size_bytes=size,
        error=f"{type(error).__name__}: {error}",
    )


def thread_statuses(home: DataHome) -> list[ThreadStatus]:
    """The status of every thread under ``home``, most recently updated first (none when no
    thread ran there).

    Raises:
        CryptoError: A blob cannot be opened with the home's keys.
    """
    if not home.has_checkpoints():
        return []
    with open_reader(home, records=False) as reader:  # statuses read records' fields alone
        return statuses_of(reader)


# -- pruning -----------------------------------------------------------------------------------

Key = tuple[str, str]
"""(checkpoint namespace, checkpoint id)."""


def _kept(saved: Sequence[CheckpointTuple], keep_last: int) -> tuple[set[Key], int]:
    """The checkpoints of one thread to keep: the last ``keep_last`` of each namespace, and
    the parents those run under (transitively); how many of them are only parents."""
    by_ns: dict[str, list[str]] = {}
    parents: dict[Key, dict[str, str]] = {}
    for item in saved:
        configurable = item.config["configurable"]
        key = (str(configurable.get("checkpoint_ns", "")), str(configurable["checkpoint_id"]))
        by_ns.setdefault(key[0], []).append(key[1])
        parents[key] = dict(item.metadata.get("parents") or {})
    last = {
        (namespace, checkpoint_id)
        for namespace, ids in by_ns.items()
        for checkpoint_id in sorted(ids, reverse=True)[:keep_last]
    }
    kept, todo = set(last), list(last)
    while todo:
        for parent in parents.get(todo.pop(), {}).items():
            if parent in parents and parent not in kept:
                kept.add(parent)
                todo.append(parent)
    return kept, len(kept - last)


def _check_keep_last(keep_last: int) -> None:
    if keep_last < 1:
        raise ConfigError(
            f"--keep-last must be at least 1, got {keep_last}: the latest checkpoint of each "
            "namespace is the thread's state, and is always kept"
        )


def _prune_thread(saver: CadreSaver, thread_id: str, keep_last: int) -> ThreadPrune:
    before = row_sizes(saver, thread_id).get(thread_id, 0)
    saved = list(saver.list({"configurable": {"thread_id": thread_id}}))
    kept, pinned = _kept(saved, keep_last)
    doomed: dict[str, list[str]] = {}
    for item in saved:
        configurable = item.config["configurable"]
        key = (str(configurable.get("checkpoint_ns", "")), str(configurable["checkpoint_id"]))
        if key not in kept:
            doomed.setdefault(key[0], []).append(key[1])
    for namespace, ids in doomed.items():
        saver.delete_checkpoints(thread_id, namespace, ids)
    after = row_sizes(saver, thread_id).get(thread_id, 0)
    removed = sum(len(ids) for ids in doomed.values())
    return ThreadPrune(
        thread_id=thread_id,
        removed=removed,
        kept=len(saved) - removed,
        pinned=pinned,
        bytes_freed=max(before - after, 0),
    )


def prune_threads(
    saver: CadreSaver, keep_last: int, thread_id: str | None = None
) -> list[ThreadPrune]:
    """Prune the threads of ``saver`` (or one); see :func:`prune`.

    A process running one of the threads meanwhile is safe: only checkpoints older than the
    last ``keep_last`` of a namespace at the time it is read are deleted, each namespace in
    one transaction, and a value is deleted only when no checkpoint left reads it.

    Raises:
        ConfigError: ``keep_last`` is below 1, or ``thread_id`` is unknown.
        CryptoError: A blob cannot be opened with the saver's keys.
    """
    _check_keep_last(keep_last)
    threads = [row.thread_id for row in thread_rows(saver)]
    if thread_id is not None:
        if thread_id not in threads:
            raise ConfigError(
                f"unknown thread {thread_id!r} in {saver.db.label}: see `cadre threads`"
            )
        threads = [thread_id]
    return [_prune_thread(saver, tid, keep_last) for tid in threads]


def prune(
    home: DataHome, keep_last: int, thread_id: str | None = None, *, vacuum: bool = False
) -> PruneReport:
    """Delete the old checkpoints of every thread under ``home`` (or of one).

    Each namespace of each thread keeps its last ``keep_last`` checkpoints, and every
    checkpoint a kept one runs under (see the module docstring): the latest state, the
    checkpoint a paused or failed thread resumes from, and each subgraph's latest state are
    never deleted, and forks, which hold copies, are unaffected by pruning their source.
    Deleted checkpoints take their pending writes along, and the channel values no
    remaining checkpoint reads.

    Deleted rows leave free pages in the file, which later checkpoints reuse; with
    ``vacuum`` the file is rewritten to give them back to the file system (this needs a
    moment without writers and as much free disk as the file).

    Args:
        home: The data home.
        keep_last: Checkpoints to keep per namespace, at least 1.
        thread_id: Prune only this thread.
        vacuum: VACUUM the database afterwards, and report the file's size before and after.

    Raises:
        ConfigError: ``keep_last`` is below 1, ``thread_id`` is unknown, or the home has no
            checkpoint database.
        CryptoError: A blob cannot be opened with the home's keys.
    """
    _check_keep_last(keep_last)
    with open_checkpointer(home) as saver:
        pruned = prune_threads(saver, keep_last, thread_id)
        if not vacuum:
            return PruneReport(keep_last=keep_last, threads=tuple(pruned))
        before = saver.db.size_bytes()
        with saver.lock:
            saver.compact()
    return PruneReport(
        keep_last=keep_last,
        threads=tuple(pruned),
        file_bytes_before=before,
        file_bytes_after=saver.db.size_bytes(),
    )
