"""A graceful stop: once a process drains, no node of any of its runs starts; the nodes going
on finish, each one's writes saved as it ends, and then every run stops at its next node with
:class:`~framework.errors.RunStopped`, to be resumed without repeating finished work.

Every team node (:class:`~framework.engine.nodes.team_node.TeamNode`) enters through
:meth:`Drain.admitted`. A node that runs a nested team is not waited for as work of its own:
while a node of the inner team asks to enter or goes on, the outer node is a container, and the
drain ends when no leaf node (a worker's task, a planner's model call) is going on, or at its
deadline. A refused node is
refused only then, so a fan-out's siblings are never cancelled by the stop while they can finish
(LangGraph cancels the other tasks of a step when one raises).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from framework.errors import RunStopped

__all__ = ["DRAIN", "Drain"]

_POLL_S = 0.02
"""How often an async node refused entry looks again whether the drain has ended."""


@dataclass(eq=False)
class _Entry:
    """A node asking to enter or going on; a leaf (counted) while it runs and no node of a
    team it runs is asking or going on."""

    parent: _Entry | None
    children: int = 0
    leaf: bool = False
    ended: bool = False


_CURRENT: ContextVar[_Entry | None] = ContextVar("cadre_node_entry", default=None)


class Drain:
    """Admits the nodes of a process's runs, until it drains (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._leaves = 0
        self._deadline: float | None = None
        self._why = ""
        self._seconds = 0.0

    @property
    def started(self) -> bool:
        """Whether the process is draining."""
        return self._deadline is not None

    @property
    def going_on(self) -> int:
        """How many leaf nodes are going on now."""
        return self._leaves

    def seconds_left(self) -> float:
        """Seconds until the drain's deadline (0 when past it or not draining)."""
        deadline = self._deadline
        return 0.0 if deadline is None else max(0.0, deadline - time.monotonic())

    def start(self, seconds: float, why: str) -> None:
        """Admit no more nodes; those going on get ``seconds`` to finish (a second call keeps
        the first deadline unless it is sooner). ``why`` starts the refusal's message (``the
        server is stopping``)."""
        with self._lock:
            deadline = time.monotonic() + max(0.0, seconds)
            if self._deadline is None or deadline < self._deadline:
                self._deadline, self._why, self._seconds = deadline, why, max(0.0, seconds)
            self._lock.notify_all()

    def reopen(self) -> None:
        """Admit nodes again (a process that stopped its runs and goes on, as tests do)."""
        with self._lock:
            self._deadline, self._why = None, ""

    @contextmanager
    def admitted(self) -> Iterator[None]:
        """Around a sync node's body; waits while draining, then raises ``RunStopped``."""
        entry = self._ask()
        with self._running(entry):
            with self._lock:
                while not self._admit(entry):
                    self._lock.wait(_POLL_S)
            yield

    @asynccontextmanager
    async def aadmitted(self) -> AsyncIterator[None]:
        """Around an async node's body; waits (without blocking the loop) while draining,
        then raises ``RunStopped``."""
        entry = self._ask()
        with self._running(entry):
            while not self._admit(entry):
                await asyncio.sleep(_POLL_S)
            yield

    @contextmanager
    def _running(self, entry: _Entry) -> Iterator[None]:
        """``entry`` is the node the block runs (nodes it starts are its children); it is done
        when the block ends, admitted or refused."""
        token = _CURRENT.set(entry)
        try:
            yield
        finally:
            _CURRENT.reset(token)
            self._done(entry)

    def _ask(self) -> _Entry:
        """A node asks to enter: the node it runs in (if any) now runs a team."""
        entry = _Entry(parent=_CURRENT.get())
        with self._lock:
            parent = entry.parent
            if parent is not None:
                parent.children += 1
                self._count(parent, leaf=False)
        return entry

    def _admit(self, entry: _Entry) -> bool:
        """Admit ``entry`` (True), or not yet while leaves go on before the deadline (False).

        Raises:
            RunStopped: The drain has ended.
        """
        with self._lock:
            if self._deadline is not None:
                if self._leaves == 0:
                    raise RunStopped(
                        f"{self._why}: the run stopped once the tasks going on had finished, "
                        "each one saved"
                    )
                if time.monotonic() >= self._deadline:
                    raise RunStopped(
                        f"{self._why}: the run stopped after {self._seconds:g} s with "
                        f"{self._leaves} step(s) still going on, cut off (they run again); "
                        "every task that had finished was saved"
                    )
                return False
            self._count(entry, leaf=True)
            return True

    def _done(self, entry: _Entry) -> None:
        """``entry`` ended (or was refused): its parent is a leaf again once no child is left."""
        with self._lock:
            entry.ended = True
            self._count(entry, leaf=False)
            parent = entry.parent
            if parent is not None:
                parent.children -= 1
                if parent.children == 0 and not parent.ended:
                    self._count(parent, leaf=True)

    def _count(self, entry: _Entry, *, leaf: bool) -> None:
        if entry.leaf != leaf:
            entry.leaf = leaf
            self._leaves += 1 if leaf else -1
            self._lock.notify_all()


DRAIN = Drain()
"""The process's drain: started by a stopping ``cadre run``, ``cadre serve`` or fleet worker."""
