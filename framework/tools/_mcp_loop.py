"""A background event loop on a thread of its own: where a toolbox's MCP sessions live.

MCP sessions are async and tied to the loop that opened them, while tools are called from sync
code (a graph run with ``invoke``, often on LangGraph's worker threads) and from any number of
other loops. So every session lives on one dedicated loop, and both kinds of callers hand it
coroutines: :meth:`LoopThread.run` blocks the calling thread, :meth:`LoopThread.arun` awaits
from the caller's loop without blocking it. Every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LoopStopped", "LoopThread"]

T = TypeVar("T")
_log = logging.getLogger(__name__)
_DRAIN_S = 5.0
"""How long the stopping loop waits for its leftover tasks once cancelled."""


class LoopStopped(RuntimeError):  # noqa: N818 - names the state, like asyncio's CancelledError
    """The loop is not running (not started, or stopped), or stopped before the call ended."""


class LoopThread:
    """An asyncio loop running forever on a daemon thread, until :meth:`stop`."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """Whether the loop takes work now (started and not stopped)."""
        return self._loop is not None and self._loop.is_running() and not self._loop.is_closed()

    @property
    def thread(self) -> threading.Thread | None:
        """The loop's thread while started."""
        return self._thread

    def start(self) -> None:
        """Start the loop's thread and return once the loop runs."""
        if self._thread is not None:
            raise RuntimeError(f"{self._name} was started already")
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        thread = threading.Thread(target=self._main, args=(loop, ready), name=self._name)
        thread.daemon = True
        self._loop, self._thread = loop, thread
        thread.start()
        ready.wait()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``coro`` on the loop and block until it ends (at most ``timeout`` seconds).

        Raises:
            TimeoutError: No result within ``timeout`` (the coroutine is cancelled).
            LoopStopped: The loop is not running, or stopped before the call ended.
            RuntimeError: This is the loop's own thread.
        """
        loop = self._checked(coro)
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError(f"a blocking call on {self._name}'s own thread would deadlock")
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer from {self._name} within {timeout:g} s") from None
        except concurrent.futures.CancelledError:
            raise LoopStopped(f"{self._name} stopped before the call ended") from None

    async def arun(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        """Await ``coro`` run on the loop, from any other loop (or this one), within ``timeout``.

        Cancelling the caller cancels the coroutine. Raises like :meth:`run`.
        """
        loop = self._checked(coro)
        if asyncio.get_running_loop() is loop:
            return await asyncio.wait_for(coro, timeout)
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            raise TimeoutError(f"no answer from {self._name} within {timeout:g} s") from None
        except asyncio.CancelledError:
            if future.cancelled() and not _current_task_cancelling():
                raise LoopStopped(f"{self._name} stopped before the call ended") from None
            raise

    def stop(self, timeout: float) -> None:
        """Stop the loop (its leftover tasks cancelled), close it and join its thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # closed already
            loop.call_soon_threadsafe(loop.stop)
        if thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                _log.warning("%s did not stop within %g s; left as a daemon", self._name, timeout)

    def _checked(self, coro: Coroutine[Any, Any, Any]) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or not self.running:
            coro.close()
            raise LoopStopped(f"{self._name} is not running")
        return loop

    def _main(self, loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        try:
            loop.run_forever()
        finally:
            try:
                _drain(loop)
            finally:
                asyncio.set_event_loop(None)
                loop.close()


def _drain(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on a stopped loop, wait for it (bounded), shut its executor down."""
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.wait(tasks, timeout=_DRAIN_S))
        for task in tasks:
            if not task.done():
                _log.warning("task %r did not end when the MCP loop stopped", task)
            elif not task.cancelled() and task.exception() is not None:
                _log.debug("task %r ended with %r", task, task.exception())
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.run_until_complete(loop.shutdown_default_executor())


def _current_task_cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
