"""How a command's run stops on SIGTERM or Ctrl-C: the first signal drains it
(:mod:`framework.engine.draining`: no node starts, the tasks going on get :data:`DRAIN_S` to
finish and are saved, then the run stops with :class:`~framework.errors.RunStopped` and
``cadre resume`` goes on without running them again); a second signal, or the deadline passing
with a task still going on, stops it at once (Ctrl-C's ``interrupted``)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from framework.engine.draining import DRAIN

__all__ = ["DRAIN_S", "stoppable"]

DRAIN_S = 8.0
"""How long the tasks going on get to finish after the first signal."""
_LATE_S = 2.0
"""How long after the deadline the run may take to stop at its next node before it is cut."""
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stoppable() -> Iterator[None]:
    """Around a run: its signals drain it (see the module); outside the main thread, where
    signals cannot be handled, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if DRAIN.started:  # a second signal, or the deadline's alarm: stop at once
            raise KeyboardInterrupt
        name = signal.Signals(signum).name
        DRAIN.start(DRAIN_S, f"{name} received")
        signal.setitimer(signal.ITIMER_REAL, DRAIN_S + _LATE_S)
        said = (
            f"stopping ({name}): {DRAIN.going_on} step(s) going on get up to {DRAIN_S:.0f} s to "
            "finish; press Ctrl-C again to stop at once\n"
        )
        os.write(2, said.encode())  # not through sys.stderr: its writer may be mid-write

    handled = (*_SIGNALS, signal.SIGALRM)
    previous = {signum: signal.signal(signum, on_signal) for signum in handled}
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        DRAIN.reopen()
