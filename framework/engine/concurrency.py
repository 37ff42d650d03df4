"""Per-dispatch concurrency caps, enforced in sync (threads) and async (tasks) runs alike."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Hashable, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
    nullcontext,
)
from typing import Any

from framework.errors import ConfigError

__all__ = ["DispatchLimiter"]

_UNBOUNDED: nullcontext[None] = nullcontext()
"""The slot of an unbounded dispatch: nothing to hold (reusable, sync and async)."""
_WAIT_POLL_S = 0.1
"""How often a worker waiting for a slot calls the limiter's ``on_wait`` (a stop may end the
wait)."""


class _Gates:
    """Semaphores by key, each dropped when its last holder leaves (so none leak)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._gates: dict[Hashable, list[Any]] = {}

    def enter(self, key: Hashable) -> Any:
        with self._lock:
            entry = self._gates.setdefault(key, [self._make(), 0])
            entry[1] += 1
            return entry[0]

    def leave(self, key: Hashable) -> None:
        with self._lock:
            entry = self._gates[key]
            entry[1] -= 1
            if entry[1] == 0:
                del self._gates[key]

    def __len__(self) -> int:
        return len(self._gates)


class DispatchLimiter:
    """Caps how many workers of one dispatch run at once.

    Each dispatch has its own id and so its own semaphore: the cap is per dispatch, and the
    time a worker waits for a slot is not part of its execution. A waiting worker calls
    ``on_wait`` every :data:`_WAIT_POLL_S` (a draining process's refusal ends its wait), keeping
    its place in the queue.
    """

    def __init__(
        self, max_parallel: int | None, on_wait: Callable[[], None] = lambda: None
    ) -> None:
        if max_parallel is not None and max_parallel < 1:
            raise ConfigError(f"max_parallel must be >= 1 or None (unbounded), got {max_parallel}")
        self.max_parallel = max_parallel
        self._on_wait = on_wait
        cap = max_parallel or 1
        self._threads = _Gates(lambda: threading.BoundedSemaphore(cap))
        self._tasks = _Gates(lambda: asyncio.Semaphore(cap))

    @property
    def open_dispatches(self) -> int:
        """How many dispatches hold or wait for slots now."""
        return len(self._threads) + len(self._tasks)

    def slot(self, dispatch_id: str) -> AbstractContextManager[None]:
        """Hold one of the dispatch's slots while a sync worker runs."""
        return _UNBOUNDED if self.max_parallel is None else self._slot(dispatch_id)

    def aslot(self, dispatch_id: str) -> AbstractAsyncContextManager[None]:
        """Hold one of the dispatch's slots while an async worker runs."""
        return _UNBOUNDED if self.max_parallel is None else self._aslot(dispatch_id)

    @contextmanager
    def _slot(self, dispatch_id: str) -> Iterator[None]:
        semaphore = self._threads.enter(dispatch_id)
        try:
            while not semaphore.acquire(timeout=_WAIT_POLL_S):
                self._on_wait()
            try:
                yield
            finally:
                semaphore.release()
        finally:
            self._threads.leave(dispatch_id)

    @asynccontextmanager
    async def _aslot(self, dispatch_id: str) -> AsyncIterator[None]:
        key = (dispatch_id, id(asyncio.get_running_loop()))
        semaphore = self._tasks.enter(key)
        try:
            await self._acquire(semaphore)
            try:
                yield
            finally:
                semaphore.release()
        finally:
            self._tasks.leave(key)

    async def _acquire(self, semaphore: asyncio.Semaphore) -> None:
        """Take one of ``semaphore``'s places, calling ``on_wait`` while waiting in its queue."""
        if not semaphore.locked():
            await semaphore.acquire()
            return
        acquiring = asyncio.ensure_future(semaphore.acquire())
        try:
            while not (await asyncio.wait((acquiring,), timeout=_WAIT_POLL_S))[0]:
                self._on_wait()
        except BaseException:
            if not acquiring.cancel() and not acquiring.cancelled():
                semaphore.release()  # taken as the wait ended: given back
            raise
