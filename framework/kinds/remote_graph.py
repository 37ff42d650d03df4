"""RemoteGraphWorker: a worker kind that runs each task on a LangGraph-API graph (another
``cadre serve``, or any server of LangGraph's API) through LangGraph's own ``RemoteGraph``;
RemoteGraphKind: its kind type, declared ``remote_graph: {url, assistant, token_env,
timeout_s}``.

The task's description is the graph's ``question``; its final state comes back as a nested
team's does (:func:`~framework.engine.team_worker.team_result`): the answer, the evidence its
workers cited (sources as the remote gave them) and its reviewer's confidence. What the remote
used (its usage records) is counted in this run's usage and charged to its budget.

Each task runs on a remote thread of its own, named from this run's thread and the task, so a
task that runs again after a pause reaches the same remote thread. A review the remote pauses
for pauses this run: LangGraph's ``RemoteGraph`` raises the remote's interrupt (its id and
request as the remote made them, its path under the kind's name, what the server adds for
other clients left out), this run's review commands list and decide it, and the
decision reaches the remote when the task runs again (``RemoteGraph`` passes the resume on;
``cadre serve`` resumes the remote thread with it). A run without a thread cannot be resumed,
so there a remote pause fails the task, naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphInterrupt
from langgraph.pregel.remote import RemoteGraph
from langgraph.types import Interrupt
from langgraph_sdk.client import LangGraphClient
from pydantic import BaseModel, ConfigDict

from framework.engine.records import Task
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.engine.team_worker import team_result
from framework.kinds._remote_pause import (
    INTERRUPT,
    NO_THREAD,
    RESUME_KEYS,
    node_configurable,
    remote_request,
)
from framework.kinds.base import KindSetup
from framework.kinds.remote import RemoteKind, RemoteReply, RemoteWorker, http_client
from framework.kinds.remote_specs import RemoteGraphSpec
from framework.policy.usage import usage_totals

__all__ = ["RemoteGraphKeys", "RemoteGraphKind", "RemoteGraphWorker"]


class RemoteGraphWorker(RemoteWorker):
    """Runs each task on the graph ``spec`` names (see the module)."""

    protocol: ClassVar[str] = "remote_graph"
    token_header: ClassVar[tuple[str, str]] = ("x-api-key", "")
    spec: RemoteGraphSpec

    def __init__(self, kind: str, spec: RemoteGraphSpec, description: str) -> None:
        super().__init__(kind, spec, description)

    def where(self) -> str:
        """``remote_graph URL, assistant ID``."""
        return f"{super().where()}, assistant {self.spec.assistant}"

    async def ask(
        self, question: str, task: Task, context: NodeContext, paused: list[Interrupt]
    ) -> RemoteReply:
        """Run the graph on ``question``; its answer, or the failure that names its pause
        (``paused`` is not read: ``RemoteGraph`` passes this run's decisions on itself)."""
        client = LangGraphClient(http_client(self.spec, self.headers()))
        remote = RemoteGraph(self.spec.assistant, client=client, name=self.kind)
        try:
            final = await remote.ainvoke({"question": question}, self._config(task, context))
        except GraphInterrupt as pause:
            raise GraphInterrupt([self._request(i, task, context) for i in pause.args[0]]) from None
        finally:
            await client.aclose()
        if not isinstance(final, Mapping):
            raise self.failed("the graph ended without a state")
        if final.get(INTERRUPT):
            raise self.failed(f"the graph {NO_THREAD}")
        result = team_result(task, self.spec.assistant, final)
        if result.status == "failed":
            raise self.failed(result.error or "the graph failed")
        usage = usage_totals(record.counts for record in result.usage.values())
        return RemoteReply(result.output, result.evidence, result.confidence, usage=usage)

    def _request(self, interrupt: Interrupt, task: Task, context: NodeContext) -> Interrupt:
        """A remote pause as this run shows it: a cadre review request keeps its own fields,
        its path and place under this run's task (``team top > kind pricing (task q0) >
        remote_graph URL, assistant research > team research``), its id the remote's; any
        other value is left as it is."""
        request = remote_request(interrupt.value, context, task, self.where())
        return interrupt if request is None else Interrupt(value=request, id=interrupt.id)

    def _config(self, task: Task, context: NodeContext) -> RunnableConfig | None:
        """The remote run's config: the task's remote thread, and this node's namespace (so
        ``RemoteGraph`` raises a remote pause as this run's) and resume, if any; nothing else
        of this run's config goes to the remote."""
        thread = self.task_thread(task, context)
        if thread is None:
            return None  # a run without a thread: the remote's thread is its own
        configurable: dict[str, Any] = {"thread_id": thread}
        node = node_configurable()
        configurable["checkpoint_ns"] = node.get("checkpoint_ns") or context.node
        configurable.update({key: node[key] for key in RESUME_KEYS if key in node})
        return {"configurable": configurable}


class RemoteGraphKeys(BaseModel):
    """How a team file declares a remote graph kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    remote_graph: RemoteGraphSpec | None = None
    """A LangGraph-API graph (another ``cadre serve``): each task runs it remotely."""


class RemoteGraphKind(RemoteKind[RemoteGraphKeys]):
    """``remote_graph:`` kinds: a :class:`RemoteGraphWorker` each."""

    key = "remote_graph"
    spec = RemoteGraphKeys
    wanted = "a remote_graph"

    def remote(self, spec: RemoteGraphKeys) -> RemoteGraphSpec:
        """The graph a kind declares."""
        assert spec.remote_graph is not None  # declared
        return spec.remote_graph

    def description(self, spec: RemoteGraphKeys) -> str:
        """A question for the graph."""
        return f"a question for the remote graph {self.remote(spec).assistant}"

    def worker(self, spec: RemoteGraphKeys, setup: KindSetup) -> Worker:
        """Asks the graph."""
        return RemoteGraphWorker(setup.name, self.remote(spec), setup.description)
