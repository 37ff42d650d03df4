"""What a run is told about its model calls: what a call waits for, and that it is still
running (heartbeats from one daemon thread of the process)."""

from __future__ import annotations

import contextvars
import itertools
import threading
import time
from collections.abc import Callable
from contextlib import suppress

from langchain_core.runnables.config import var_child_runnable_config
from langgraph.config import get_stream_writer

__all__ = ["HEARTBEATS", "Heartbeats", "Teller", "run_teller", "untold"]

Teller = Callable[[str, float, str], None]
"""Tells a run an event about a model call: its name (``waiting``, ``running``), its seconds,
and why."""


def untold(event: str, seconds: float, reason: str) -> None:
    """Tells no one (a call outside a run)."""


def run_teller() -> Teller | None:
    """The current run's teller: call events on its event stream (``cadre run``'s
    progress, a client following the run); None outside a graph run."""
    if var_child_runnable_config.get() is None:
        return None  # outside any runnable: no run to tell (asked without raising, per call)
    try:
        writer = get_stream_writer()
    except (RuntimeError, KeyError):  # not inside a graph run
        return None
    run = contextvars.copy_context()  # the writer reads the run's config: heartbeats need it

    def tell(event: str, seconds: float, reason: str) -> None:
        event_data = {"event": event, "seconds": round(seconds, 1), "reason": reason}
        run.copy().run(writer, event_data)

    return tell


class Heartbeats:
    """Tells each run, every so often, which of its model calls are still running: one daemon
    thread for the process, started with the first call it watches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, tuple[Teller, str, float, float]] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, tell: Teller, label: str, every_s: float) -> int:
        """Watch a call from now; its key, for :meth:`unwatch`."""
        key, now = next(self._ids), time.monotonic()
        with self._lock:
            self._calls[key] = (tell, label, now, every_s)
            if self._thread is None:
                self._thread = threading.Thread(target=self._beat, daemon=True, name="heartbeat")
                self._thread.start()
        return key

    def unwatch(self, key: int) -> None:
        """Stop watching the call ``key``."""
        with self._lock:
            del self._calls[key]

    def _beat(self) -> None:
        told: dict[int, int] = {}
        while True:
            time.sleep(_TICK_S)
            now = time.monotonic()
            with self._lock:
                calls = list(self._calls.items())
            for key, (tell, label, started, every_s) in calls:
                beats = int((now - started) // every_s)
                if beats > told.get(key, 0):
                    told[key] = beats
                    with suppress(Exception):  # a run that has just ended: nobody to tell
                        tell("running", now - started, f"call to {label}")
            told = {key: told[key] for key, _ in calls if key in told}


_TICK_S = 0.5
"""How often the heartbeat thread looks at the calls it watches."""

HEARTBEATS = Heartbeats()
"""The process's heartbeats."""
