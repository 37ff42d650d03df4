"""A2AWorker: a worker kind that sends each task to an agent over A2A, with ``a2a-sdk``'s
client (JSON-RPC or HTTP+JSON, whichever the agent's card offers first).

The agent's card is read from ``URL/.well-known/agent-card.json``; the task's description is
sent as one text message and the call waits for the agent's answer (no streaming). A message,
or a completed task, is the task's result: its text is the answer, and the answer and each text
artifact are cited as evidence (``a2a:URL``, ``a2a:URL#ARTIFACT``). A2A reports no confidence: a
completed answer counts as sure. A task the agent leaves ``input-required`` or
``auth-required`` fails, naming the state and what the agent asked (answering it is not
supported yet), as does one it failed, rejected or cancelled.
"""

from __future__ import annotations

from typing import ClassVar

from a2a.client import ClientConfig, create_client
from a2a.helpers import get_artifact_text, get_message_text, new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, StreamResponse, TaskState
from a2a.types.a2a_pb2 import Task as A2ATask

from framework.engine.records import Evidence, Task
from framework.engine.runtime import NodeContext
from framework.tools.remote import RemoteReply, RemoteWorker, http_client

__all__ = ["A2AWorker"]

BINDINGS = ["JSONRPC", "HTTP+JSON"]
"""The A2A bindings the client speaks (gRPC needs ``a2a-sdk[grpc]``)."""


class A2AWorker(RemoteWorker):
    """Sends each task to the agent ``spec`` names (see the module)."""

    protocol: ClassVar[str] = "a2a"
    token_header: ClassVar[tuple[str, str]] = ("Authorization", "Bearer ")

    async def ask(self, question: str, task: Task, context: NodeContext) -> RemoteReply:
        """Send ``question`` to the agent; its answer, or the failure that names its state."""
        message = new_text_message(question, role=Role.ROLE_USER)
        async with http_client(self.spec, self.headers()) as http:
            config = ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=BINDINGS
            )
            client = await create_client(self.spec.url, config)
            try:
                sent = client.send_message(SendMessageRequest(message=message))
                responses: list[StreamResponse] = [response async for response in sent]
            finally:
                await client.close()
        last = responses[-1] if responses else None
        if last is not None and last.HasField("message"):
            return self._reply(get_message_text(last.message), [])
        if last is None or not last.HasField("task"):
            raise self.failed("the agent sent neither a message nor a task")
        return self._task_reply(last.task)

    def _task_reply(self, task: A2ATask) -> RemoteReply:
        status = task.status
        asked = get_message_text(status.message) if status.HasField("message") else ""
        if status.state != TaskState.TASK_STATE_COMPLETED:
            state = TaskState.Name(status.state).removeprefix("TASK_STATE_").lower()
            said = f": {asked}" if asked else ""
            if state.endswith("_required"):
                said += " (answering it is not supported yet)"
            raise self.failed(f"the agent left the task {state.replace('_', '-')}{said}")
        artifacts = [
            (artifact.name or artifact.artifact_id, text)
            for artifact in task.artifacts
            if (text := get_artifact_text(artifact))
        ]
        answer = asked or "\n\n".join(text for _, text in artifacts)
        return self._reply(answer, artifacts)

    def _reply(self, answer: str, artifacts: list[tuple[str, str]]) -> RemoteReply:
        if not answer.strip():
            raise self.failed("the agent answered no text")
        source = self.source
        evidence = [Evidence(source=source, text=answer, score=1.0)]
        evidence += [
            Evidence(source=f"{source}#{name}", text=text, score=1.0)
            for name, text in artifacts
            if text != answer
        ]
        return RemoteReply(answer, evidence, confidence=1.0)
