"""The events of one run, kept in memory so any number of clients can stream, join or
reattach (from an event id) while it runs and after it ended."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["KEPT_LOG_BYTES", "LOG_KEPT_S", "EndedLogs", "RunLog"]

LOG_KEPT_S = 600.0
"""How long an ended run's events are kept for joins and reattaching streams."""

KEPT_LOG_BYTES = 64 * 1024 * 1024
"""The most the ended runs' events may hold together (as JSON); beyond it the oldest are
forgotten first (a join then answers with the thread's final values)."""


class RunLog:
    """Events ``(name, data)`` numbered from 0, appended from any thread, followed from the
    server's event loop.

    Args:
        loop: The server's event loop (followers run there).
        epoch: Names the numbering of the events (default: this process's own, apart from
            the logs of the same run in earlier server processes).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, epoch: str | None = None) -> None:
        self.loop = loop
        self.epoch = epoch or f"{time.time_ns():x}"
        self.events: list[tuple[str, Any]] = []
        self.finished = False
        self.unrecorded_error = False
        """Whether the run failed and its row could not say so (its database's disk full)."""
        self._lock = threading.Lock()
        self._wakeup = asyncio.Event()
        self._wake_due = False
        """Whether a wake of the followers is scheduled and has not run yet."""

    def event_id(self, index: int) -> str:
        """The id a client sees for event ``index`` (``Last-Event-ID``)."""
        return f"{self.epoch}-{index}"

    def position(self, last_event_id: str | None) -> int:
        """The index of the event a client last saw: -1 (from the start) for none, or for an id
        of another log (an earlier server process numbered the run's events its own way)."""
        epoch, _, index = (last_event_id or "").strip().partition("-")
        return int(index) if epoch == self.epoch and index.isdigit() else -1

    def add(self, name: str, data: Any) -> None:
        """Append an event (from any thread). The events of a burst share one wake of the
        followers: each wake reads every event appended before it."""
        with self._lock:
            self.events.append((name, data))
            due, self._wake_due = self._wake_due, True
        if not due:
            self.loop.call_soon_threadsafe(self._wake)

    def finish(self) -> None:
        """Mark the run ended: followers stop after the last event."""
        with self._lock:
            self.finished = True
        self.loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        with self._lock:  # an event appended from now on schedules a wake of its own
            self._wake_due = False
        self._wakeup.set()
        self._wakeup = asyncio.Event()

    async def follow(self, after: int = -1) -> AsyncIterator[tuple[int, str, Any]]:
        """The events after id ``after`` as they come, ``(id, name, data)``, until the run
        ended and every event was given."""
        index = after + 1
        while True:
            waiter = self._wakeup  # taken before reading: an event added after still wakes it
            with self._lock:
                batch = self.events[index:]
                done = self.finished
            for name, data in batch:
                yield index, name, data
                index += 1
            if done and not batch:
                return
            if not batch:
                await waiter.wait()

    async def ended(self) -> None:
        """Wait until the run ended."""
        async for _ in self.follow(len(self.events) - 1):
            pass

    def size(self) -> int:
        """About how many bytes the events hold (their JSON)."""
        with self._lock:
            events = list(self.events)
        return sum(len(json.dumps(data, default=str)) for _, data in events)


class EndedLogs:
    """The ended runs' logs kept in ``logs``: each for ``seconds``, and together no more than
    ``max_bytes`` (the oldest forgotten first). ``forgotten`` is told of each run dropped."""

    def __init__(
        self,
        logs: dict[str, RunLog],
        *,
        seconds: float = LOG_KEPT_S,
        max_bytes: int = KEPT_LOG_BYTES,
        forgotten: Callable[[str], None] | None = None,
    ) -> None:
        self.logs = logs
        self.seconds = seconds
        self.max_bytes = max_bytes
        self.forgotten = forgotten
        self._sizes: OrderedDict[str, int] = OrderedDict()
        self.total = 0

    def ended(self, run_id: str) -> None:
        """Keep the ended run's log for a while, within the byte budget (on the event loop)."""
        log = self.logs.get(run_id)
        size = log.size() if log is not None else 0
        self._sizes[run_id] = size
        self.total += size
        while self.total > self.max_bytes and self._sizes:
            self.forget(next(iter(self._sizes)))
        if run_id in self._sizes:
            asyncio.get_running_loop().call_later(self.seconds, self.forget, run_id)

    def forget(self, run_id: str) -> None:
        """Drop an ended run's log now."""
        self.total -= self._sizes.pop(run_id, 0)
        self.logs.pop(run_id, None)
        if self.forgotten is not None:
            self.forgotten(run_id)
