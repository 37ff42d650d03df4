"""How ``cadre serve`` stops: its first SIGTERM (or Ctrl-C) stops taking requests and drains
the process's runs (:mod:`framework.engine.draining`): the tasks going on finish, each saved, and
every run stops at its next node with a ``ServerStopping`` event on its stream; the next start
resumes them from their checkpoints, running no finished task again."""

from __future__ import annotations

import threading
from types import FrameType
from typing import Any

import uvicorn
from sse_starlette.sse import AppStatus

from framework.engine.draining import DRAIN

__all__ = ["STOPPING", "serve_until_stopped"]

STOPPING = "the server is stopping"
_CLOSE_GRACE_S = 5.0
"""How long open streams get, after the drain's deadline, to send their last event."""


class _DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, drain_s: float) -> None:
        super().__init__(config)
        self.drain_s = drain_s

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Drain the runs, then let uvicorn stop (a second Ctrl-C still quits at once).

        The server-sent event streams of the agent protocols (``sse-starlette``'s) are not cut
        at the signal: a stream that follows a run ends by itself with the run's last event
        once the drain stopped it; one still open at the drain's deadline is closed then."""
        AppStatus.enable_automatic_graceful_drain = False
        DRAIN.start(self.drain_s, STOPPING)
        close = threading.Timer(self.drain_s + _CLOSE_GRACE_S / 2, _close_event_streams)
        close.daemon = True
        close.start()
        super().handle_exit(sig, frame)


def _close_event_streams() -> None:
    AppStatus.should_exit = True


def serve_until_stopped(app: Any, *, drain_s: float, **options: Any) -> None:
    """Serve ``app`` with uvicorn (``options`` are ``uvicorn.Config``'s) until a signal; the
    runs going on then get ``drain_s`` seconds to finish their tasks."""
    config = uvicorn.Config(
        app, timeout_graceful_shutdown=round(drain_s + _CLOSE_GRACE_S), **options
    )
    _DrainingServer(config, drain_s).run()
