"""Whose thread an id is: the one place a door records a new thread for its caller, through
the gate's :func:`~framework.runs.gate.claim_thread` (the API's routes, ``cadre submit`` and
``cadre run --thread`` all come here)."""

from __future__ import annotations

from typing import Protocol

from framework.runs.gate import LOCAL_CALLER, Caller, claim_thread
from framework.runs.spec import RunSpec
from framework.server._tables import ServerTables, ThreadRow

__all__ = ["RecordedSpecs", "add_owned_thread", "claim_for_local"]


class RecordedSpecs(Protocol):
    """Reads what a thread's first run recorded (None: no run wrote the thread)."""

    def thread_spec(self, thread_id: str) -> RunSpec | None: ...


def add_owned_thread(
    tables: ServerTables, specs: RecordedSpecs, caller: Caller, row: ThreadRow
) -> bool:
    """Record ``row`` as the caller's new thread; False when the caller has it already.

    Raises:
        UnknownThread: The id is another principal's: another tenant's, or a thread that
            ``cadre run`` wrote for the local principal.
    """
    if tables.thread(caller.tenant, row.thread_id) is not None:
        return False
    another_tenants = tables.has_thread(row.thread_id)
    recorded = not another_tenants and specs.thread_spec(row.thread_id) is not None
    claim_thread(
        caller, row.thread_id, another_tenants=another_tenants, recorded_elsewhere=recorded
    )
    if not tables.add_thread(row):  # another tenant took the id meanwhile
        claim_thread(caller, row.thread_id, another_tenants=True, recorded_elsewhere=False)
    return True


def claim_for_local(tables: ServerTables, thread_id: str) -> None:
    """Let the local principal (``cadre run``) write a new thread ``thread_id`` only when no
    tenant has it.

    Raises:
        UnknownThread: A tenant's thread has that id.
    """
    claim_thread(
        LOCAL_CALLER,
        thread_id,
        another_tenants=tables.has_thread(thread_id),
        recorded_elsewhere=False,
    )
