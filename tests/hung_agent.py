"""An A2A agent in a process of its own that takes every task and never answers, so a test can
kill it mid-call: ``python -m tests.hung_agent PORT MARKER`` (MARKER is created once a task
arrived)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

from tests.a2a_agents import running_agent


class HungExecutor(AgentExecutor):
    """Says a task arrived (the marker file), then holds it forever."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.marker.touch()
        await asyncio.Event().wait()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Nothing to cancel: it never answers."""


if __name__ == "__main__":
    port, marker = int(sys.argv[1]), Path(sys.argv[2])
    with running_agent(port, HungExecutor(marker), "never answers"):
        asyncio.run(asyncio.Event().wait())
