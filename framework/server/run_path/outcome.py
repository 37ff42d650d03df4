"""How a run ended, as every door reads it: the thread's final values (its open interrupts
under ``__interrupt__``), or the error the run logged."""

from __future__ import annotations

from typing import Any

from framework.engine.state import to_jsonable
from framework.review.api import thread_config
from framework.server._http import Server
from framework.server._shapes import interrupts_json
from framework.server._tables import RunRow
from framework.server._thread_ops import with_thread_app
from framework.server.run_path.run_log import RunLog

__all__ = ["final_values", "run_error"]


def run_error(log: RunLog | None) -> dict[str, Any]:
    """The error a failed run logged (``{"error": kind, "message": ...}``)."""
    for name, data in reversed(log.events if log is not None else []):
        if name == "error":
            return dict(data)
    return {"error": "RunError", "message": "the run failed"}


def final_values(server: Server, row: RunRow) -> dict[str, Any]:
    """The thread's values after the run, with its open interrupts under ``__interrupt__``."""

    def read(app: Any) -> dict[str, Any]:
        if app is None:
            return {}
        snapshot = app.get_state(thread_config(row.thread_id), subgraphs=True)
        values: dict[str, Any] = to_jsonable(dict(snapshot.values))
        interrupts = interrupts_json(snapshot)
        if interrupts:
            values["__interrupt__"] = interrupts
        return values

    found: dict[str, Any] = with_thread_app(server, row.thread_id, read)
    return found
