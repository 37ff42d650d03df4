"""Compiled teams shared by the server's runs and reads: one per distinct launch (team, review
points, principal, policy...), kept while in use and a while after."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from framework.runs.launch import Launched, LaunchRequest, launch

__all__ = ["TeamApps"]


class TeamApps:
    """Launched apps by what they were launched with; the least recently used idle ones are
    closed beyond ``capacity``.

    Args:
        capacity: How many idle apps to keep open.
    """

    def __init__(self, capacity: int = 32) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._apps: OrderedDict[str, Launched] = OrderedDict()
        self._users: dict[str, int] = {}
        self._launching: dict[str, threading.Lock] = {}

    @contextmanager
    def use(self, request: LaunchRequest) -> Iterator[Launched]:
        """The app ``request`` launches (compiled once, then shared) for the block.

        Raises:
            CadreError: As :func:`framework.runs.launch.launch`.
        """
        key = f"{request.spec.model_dump_json()}|{request.read_only}"
        with self._lock:
            launched = self._apps.get(key)
            if launched is not None:
                self._apps.move_to_end(key)
            self._users[key] = self._users.get(key, 0) + 1
        try:
            if launched is None:
                launched = self._opened(key, request)
            yield launched
        finally:
            self._release(key)

    def _opened(self, key: str, request: LaunchRequest) -> Launched:
        """Launch once per key: callers asking for the same app at once wait for the first
        (each launch opens its own database connections)."""
        with self._lock:
            launching = self._launching.setdefault(key, threading.Lock())
        with launching:
            with self._lock:
                found = self._apps.get(key)
            if found is not None:
                return found
            made = launch(request)
            with self._lock:
                self._apps[key] = made
                self._launching.pop(key, None)
            return made

    def _release(self, key: str) -> None:
        idle: list[Launched] = []
        with self._lock:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key]
            for name in list(self._apps):
                if len(self._apps) <= self.capacity:
                    break
                if name not in self._users:
                    idle.append(self._apps.pop(name))
        for launched in idle:
            launched.close()

    def close(self) -> None:
        """Close every app (the server stops)."""
        with self._lock:
            apps = list(self._apps.values())
            self._apps.clear()
        for launched in apps:
            launched.close()
