"""Reusable daemon threads for sync tool calls.

A thread per call costs about 100 µs to start; handing a job to an idle thread costs about
10. The threads are daemons, so a tool that hangs past its timeout keeps its thread busy but
never blocks the interpreter's exit; a thread idle for ``idle_s`` seconds ends.

Private to :mod:`framework.tools`.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

__all__ = ["POOL", "DaemonPool"]

Job = Callable[[], None]
"""A job catches its own errors: one that raises ends its thread."""


class DaemonPool:
    """Runs jobs on daemon threads, reusing idle ones and starting more when none is idle."""

    def __init__(self, idle_s: float = 30.0, name: str = "cadre-tool") -> None:
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        """Threads waiting for a job that no submitted job is meant for yet."""
        self._idle_s = idle_s
        self._name = name

    def submit(self, job: Job) -> None:
        """Run ``job`` on an idle thread, or on a new one."""
        with self._lock:
            reuse = self._idle > 0
            if reuse:
                self._idle -= 1
        if reuse:
            self._jobs.put(job)
        else:
            threading.Thread(target=self._serve, args=(job,), name=self._name, daemon=True).start()

    def _serve(self, job: Job) -> None:
        while True:
            job()
            with self._lock:
                self._idle += 1
            next_job = self._next()
            if next_job is None:
                return
            job = next_job

    def _next(self) -> Job | None:
        """The next job, or None when idle too long (and no job is on its way to this thread)."""
        while True:
            try:
                return self._jobs.get(timeout=self._idle_s)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:
                        self._idle -= 1
                        return None
                # every waiting thread has a job coming: one is for this thread


POOL = DaemonPool()
"""The pool every tool worker's sync calls run on."""
