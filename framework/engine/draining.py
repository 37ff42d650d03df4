"""A graceful stop: once a process drains, no node of any of its runs starts; the nodes going
on finish, each one's writes saved as it ends, and then every run stops at its next node with
:class:`~framework.errors.RunStopped`, to be resumed without repeating finished work.

Every team node (:class:`~framework.engine.nodes.team_node.TeamNode`) enters through
:meth:`Drain.admitted`. A node that runs a nested team is not waited for as work of its own:
while a node of the inner team asks to enter or goes on, the outer node is a container, and the
drain ends when no leaf node (a worker's task, a planner's model call) is going on, or at its
deadline. A node is refused only then, so a fan-out's siblings are never cancelled by the stop
while they can finish (LangGraph cancels the other tasks of a step when one raises). Outside a
drain, a node's way in and out costs a few microseconds (one lock, a context variable).
"""

from __future__ import annotations

import asyncio
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass

from framework.errors import RunStopped

__all__ = ["DRAIN", "Drain"]

_POLL_S = 0.02
"""How often a node waiting to enter looks again whether the drain has ended."""


@dataclass(eq=False, slots=True)
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
        self._lock = threading.Lock()
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

    def reopen(self) -> None:
        """Admit nodes again (a process that stopped its runs and goes on, as tests do)."""
        with self._lock:
            self._deadline, self._why = None, ""

    def admitted(self) -> _Admission:
        """Around a node's body (``with`` in a sync node, ``async with`` in an async one):
        while draining it waits (polling; without blocking an event loop), then raises
        ``RunStopped``."""
        return _Admission(self)

    def _ask(self) -> _Entry:
        """A node asks to enter: the node it runs in (if any) now runs a team."""
        entry = _Entry(parent=_CURRENT.get())
        parent = entry.parent
        if parent is not None:
            with self._lock:
                parent.children += 1
                self._count(parent, leaf=False)
        return entry

    def refuse_waiting(self) -> None:
        """For a node waiting its turn (a dispatch's slot) before it asks to enter: raise as
        its admission would, once the drain has ended; nothing otherwise.

        Raises:
            RunStopped: The drain has ended.
        """
        with self._lock:
            deadline = self._deadline
            if deadline is not None and (refusal := self._refusal(deadline)) is not None:
                raise refusal

    def _admit(self, entry: _Entry) -> bool:
        """Admit ``entry`` (True), or not yet while leaves go on before the deadline (False).

        Raises:
            RunStopped: The drain has ended.
        """
        with self._lock:
            deadline = self._deadline
            if deadline is not None:
                refusal = self._refusal(deadline)
                if refusal is not None:
                    raise refusal
                return False
            self._count(entry, leaf=True)
            return True

    def _refusal(self, deadline: float) -> RunStopped | None:
        """While draining until ``deadline`` (under the lock): the refusal once the drain has
        ended, else None."""
        if self._leaves == 0:
            return RunStopped(
                f"{self._why}: the run stopped once the tasks going on had finished, each one saved"
            )
        if time.monotonic() >= deadline:
            return RunStopped(
                f"{self._why}: the run stopped after {self._seconds:g} s with {self._leaves} "
                "step(s) still going on, cut off (they run again); every task that had finished "
                "was saved"
            )
        return None

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


class _Admission:
    """One node's way in and out (see :meth:`Drain.admitted`): it is the node the block runs
    (nodes the block starts are its children), done when the block ends, admitted or refused."""

    __slots__ = ("_drain", "_entry", "_token")

    def __init__(self, drain: Drain) -> None:
        self._drain = drain

    def _enter(self) -> _Entry:
        entry = self._entry = self._drain._ask()
        self._token = _CURRENT.set(entry)
        return entry

    def _refused(self) -> None:
        self.__exit__(None, None, None)

    def __enter__(self) -> None:
        entry = self._enter()
        try:
            while not self._drain._admit(entry):
                time.sleep(_POLL_S)
        except BaseException:
            self._refused()
            raise

    def __exit__(self, *_: object) -> None:
        _CURRENT.reset(self._token)
        self._drain._done(self._entry)

    async def __aenter__(self) -> None:
        entry = self._enter()
        try:
            while not self._drain._admit(entry):
                await asyncio.sleep(_POLL_S)
        except BaseException:
            self._refused()
            raise

    async def __aexit__(self, *_: object) -> None:
        self.__exit__()


DRAIN = Drain()
"""The process's drain: started by a stopping ``cadre run``, ``cadre serve`` or fleet worker."""
