"""Starting a run on a thread, the one way every door starts one (LangGraph's API, the agent
protocols): a ``RemoteGraph`` node's resume read as cadre's own, the gate's admission of the
run's action, the input completed (a chat front end's messages, cadre's question) and checked
against the team's schema, the thread made on demand and
claimed for the caller, then the run recorded and dispatched."""

from __future__ import annotations

from starlette.exceptions import HTTPException

from framework.runs.gate import Caller, admit, run_action
from framework.server._graph_ids import name_graph
from framework.server._http import Server, blocking
from framework.server._requests import THREAD_ID_MAX, RunBody
from framework.server._schemas import checked_input
from framework.server._served import team_of
from framework.server._tables import RunRow, ThreadRow
from framework.server.run_path._remote_node import as_node_call
from framework.server.run_path.owners import add_owned_thread

__all__ = ["start_on_thread"]


async def start_on_thread(
    server: Server, caller: Caller, thread_id: str, body: RunBody
) -> tuple[Server, RunRow, RunBody]:
    """Record and start the run ``body`` asks for on ``thread_id``, as the gate admits it
    (the thread made on demand with ``if_not_exists: create``); what was started."""
    body = await as_node_call(server, caller, thread_id, body)
    admit(caller, run_action(body.command))
    team = team_of(body.assistant_id)
    if body.command is None:
        values = await checked_input(server, team, caller, thread_id, body.input)
        body = body.model_copy(update={"input": values})
    if not 0 < len(thread_id) <= THREAD_ID_MAX:
        raise HTTPException(422, f"thread_id must be 1 to {THREAD_ID_MAX} characters")
    if server.tables.thread(caller.tenant, thread_id) is None:
        if body.if_not_exists != "create":
            raise HTTPException(404, f"thread {thread_id} not found")
        admit(caller, "create_thread")
        await server.runs.admit(caller, thread_id, body)  # refused before the thread is made
        made = ThreadRow.new(thread_id, caller.tenant, body.assistant_id)
        add_owned_thread(server.tables, server.runs, caller, made)
    row = await server.runs.start(caller, thread_id, team, body)
    await blocking(name_graph, server, caller.tenant, thread_id, team)
    return server, row, body
