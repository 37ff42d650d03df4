"""Group commit for the async path: the writes of concurrent coroutines share one transaction.

A fan-out of a thousand async tasks ends with a thousand ``aput_writes`` calls at once. Sent to a
thread one by one, each pays a thread round trip and a transaction; here each call queues its
rows on its event loop and one drain task commits everything queued so far in one transaction
on a worker thread, then wakes the callers. A call returns only once its rows are committed.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["AsyncGroupCommit"]

T = TypeVar("T")


@dataclass
class _Queue(Generic[T]):
    pending: list[tuple[T, asyncio.Future[None]]] = field(default_factory=list)
    drain: asyncio.Task[None] | None = None


class AsyncGroupCommit(Generic[T]):
    """Commits items queued by coroutines in batches, one ``commit(batch)`` call per batch.

    Args:
        commit: Writes a batch in one transaction; runs on a worker thread. If it raises, every
            caller of that batch gets the exception.
    """

    def __init__(self, commit: Callable[[list[T]], None]) -> None:
        self._commit = commit
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue[T]] = (
            weakref.WeakKeyDictionary()
        )

    async def submit(self, item: T) -> None:
        """Queue ``item`` and return once the batch holding it is committed."""
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues[loop] = _Queue()
        done: asyncio.Future[None] = loop.create_future()
        queue.pending.append((item, done))
        if queue.drain is None or queue.drain.done():
            queue.drain = loop.create_task(self._drain(queue))
        await done

    async def _drain(self, queue: _Queue[T]) -> None:
        batch: list[tuple[T, asyncio.Future[None]]] = []
        try:
            while queue.pending:
                batch, queue.pending = queue.pending, []
                try:
                    await asyncio.to_thread(self._commit, [item for item, _ in batch])
                except Exception as exc:
                    _settle(batch, exc)
                else:
                    _settle(batch, None)
                batch = []
        except BaseException as exc:  # cancelled with the loop: nobody waits forever
            _settle(batch + queue.pending, exc)
            queue.pending = []
            raise


def _settle(
    batch: Sequence[tuple[object, asyncio.Future[None]]], error: BaseException | None
) -> None:
    for _, done in batch:
        if done.done():
            continue
        if error is None:
            done.set_result(None)
        elif isinstance(error, asyncio.CancelledError):
            done.cancel()
        else:
            done.set_exception(error)
