"""A2AWorker: a worker kind that sends each task to an agent over A2A, with ``a2a-sdk``'s
client (JSON-RPC or HTTP+JSON, whichever the agent's card offers first); A2AKind: its kind type,
declared ``a2a: URL`` or ``a2a: {url, token_env, timeout_s}``.

The agent's card is read from ``URL/.well-known/agent-card.json``; the task's description is
sent as one text message, in an A2A context of this task execution's own (the same each time
the execution runs), and the call waits for the agent's answer (no streaming). A task execution
that runs again after its process stopped (killed, or stopped by a signal) first asks the agent
for its tasks in that context (``ListTasks``): the task it sent before is followed to its end
(``GetTask``) and its answer or pause taken, never sent again; only an agent that has none, or
cannot list tasks, is sent a new one. A message,
or a completed task, is the task's result: its text is the answer, and the answer and each text
artifact are cited as evidence (``a2a:URL``, ``a2a:URL#ARTIFACT``). A2A reports no confidence: a
completed answer counts as sure; another ``cadre serve`` gives its passages and confidence in
its answer's data part (``evidence``, ``confidence``), which are taken as they are.

A task the agent leaves ``input-required`` with cadre review requests in its status message
(one data part ``{"id", "value": the typed request}`` each: another ``cadre serve``) pauses
this run with those requests, their path and place under this run's task; an agent that asks
in free text instead pauses it with a question review of what it said (keyed by the id of its
message). This run's review commands list and decide them. When the run is resumed the task
runs again: it sends the decisions made here, keyed by the agent's review ids, as a message on
the same agent task (a question's response as a text message; a rejected question fails the
task with the reason), and follows that task to its answer or its next pause. An A2A client
cannot choose the agent's task id, so the task reads it back from the pauses it left in this
run's checkpoint; each pause's id (LangGraph's form: 32 hex digits) is a digest of this task
execution's A2A context, the agent's task id and its review id, which tells this task's pauses
from any other's. A run without a thread cannot be resumed, so there such a pause fails the
task. A task left ``input-required`` with nothing said, ``auth-required``, failed, rejected or
cancelled fails, naming the state and what the agent said.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, ClassVar

from a2a.client import Client, ClientConfig, create_client
from a2a.helpers import (
    get_artifact_text,
    get_data_parts,
    get_message_text,
    new_data_part,
    new_message,
    new_text_message,
)
from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from a2a.types.a2a_pb2 import Task as A2ATask
from a2a.utils.errors import MethodNotFoundError, UnsupportedOperationError
from langgraph.errors import GraphInterrupt
from langgraph.types import Interrupt
from pydantic import BaseModel, ConfigDict, field_validator

from framework.engine.records import Evidence, Task
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.errors import TaskRefused
from framework.kinds._remote_pause import (
    NO_THREAD,
    question_request,
    remote_request,
    resume_map,
)
from framework.kinds.base import KindSetup
from framework.kinds.remote import RemoteKind, RemoteReply, RemoteWorker, http_client
from framework.kinds.remote_specs import RemoteSpec, a2a_spec
from framework.policy.usage import usage_totals
from framework.review import check_decision, parse_decision
from framework.review.records import QuestionReview

__all__ = ["A2AKeys", "A2AKind", "A2AWorker"]

BINDINGS = ["JSONRPC", "HTTP+JSON"]
"""The A2A bindings the client speaks (gRPC needs ``a2a-sdk[grpc]``)."""
USER = Role.ROLE_USER
"""The role of every message this kind sends."""
UNANSWERED = {TaskState.TASK_STATE_AUTH_REQUIRED: "answering it is not supported yet"}
"""Why a task left in a state that asks for something fails."""
WORKING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
"""The states of a task the agent is still on."""
FOLLOW_FIRST_S = 0.2
FOLLOW_MOST_S = 2.0
"""How often an earlier task still working is asked about: from the first, doubling, to the
most."""
LOCAL_FIELDS = ("request_id", "reviewer")
"""What a decision made here names of this run only (the agent's review id is the key of its
decision; its reviewer is the caller its token names)."""


class A2AWorker(RemoteWorker):
    """Sends each task to the agent ``spec`` names (see the module)."""

    protocol: ClassVar[str] = "a2a"
    token_header: ClassVar[tuple[str, str]] = ("Authorization", "Bearer ")

    async def ask(
        self, question: str, task: Task, context: NodeContext, paused: list[Interrupt]
    ) -> RemoteReply:
        """Send ``question`` to the agent (or, after its pause, the decisions made here); its
        answer, its pause as this run's, or the failure that names its state."""
        conversation = self.task_thread(task, context)
        mine = [pause for pause in paused if _pause_of(pause, conversation)]
        async with self._client() as client:
            if mine:
                message = self._resumed(mine, conversation)
            else:
                earlier = await _earlier_task(client, conversation)
                if earlier is not None:  # this execution sent it before its process stopped
                    return self._a2a_task_reply(await _followed(client, earlier), task, context)
                message = new_text_message(question, context_id=conversation, role=USER)
            sent = client.send_message(SendMessageRequest(message=message))
            responses: list[StreamResponse] = [response async for response in sent]
        last = responses[-1] if responses else None
        if last is not None and last.HasField("message"):
            return self._reply(get_message_text(last.message), [])
        if last is None or not last.HasField("task"):
            raise self.failed("the agent sent neither a message nor a task")
        return self._a2a_task_reply(last.task, task, context)

    @asynccontextmanager
    async def _client(self) -> AsyncIterator[Client]:
        """An A2A client of the agent for one task execution's calls."""
        async with http_client(self.spec, self.headers()) as http:
            config = ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=BINDINGS
            )
            client = await create_client(self.spec.url, config)
            try:
                yield client
            finally:
                await client.close()

    def _a2a_task_reply(self, a2a_task: A2ATask, task: Task, context: NodeContext) -> RemoteReply:
        status = a2a_task.status
        if status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            self._pause(a2a_task, task, context)
        asked = get_message_text(status.message) if status.HasField("message") else ""
        if status.state != TaskState.TASK_STATE_COMPLETED:
            state = TaskState.Name(status.state).removeprefix("TASK_STATE_").lower()
            said = f": {asked}" if asked else ""
            why = f" ({UNANSWERED[status.state]})" if status.state in UNANSWERED else ""
            raise self.failed(f"the agent left the task {state.replace('_', '-')}{said}{why}")
        artifacts = [
            (artifact.name or artifact.artifact_id, text)
            for artifact in a2a_task.artifacts
            if (text := get_artifact_text(artifact))
        ]
        answer = asked or "\n\n".join(text for _, text in artifacts)
        reply = self._reply(answer, artifacts)
        cited = _cited(a2a_task)
        if cited is not None:  # a cadre agent: its own sources (if it cited any), its confidence
            evidence, confidence = cited
            reply = replace(reply, evidence=evidence or reply.evidence, confidence=confidence)
        return replace(reply, usage=_reported_usage(a2a_task))

    def _pause(self, a2a_task: A2ATask, task: Task, context: NodeContext) -> None:
        """Pause this run with what the agent's task waits for, if it says (a run without a
        thread fails the task)."""
        conversation = self.task_thread(task, context)
        pauses = [
            Interrupt(value=request, id=_pause_id(conversation, request))
            for request in self._requests(a2a_task, task, context)
        ]
        if pauses and conversation is None:
            raise self.failed(f"the agent {NO_THREAD}")
        if pauses:
            raise GraphInterrupt(pauses)

    def _requests(
        self, a2a_task: A2ATask, task: Task, context: NodeContext
    ) -> list[dict[str, Any]]:
        """The requests the agent's task waits for, each keyed by the agent's task and its
        review id: the cadre review requests in its status message, else its question in free
        text (keyed by the message's id), else none."""
        message = a2a_task.status.message
        keyed = []
        for part in get_data_parts(message.parts):
            value = part.get("value") if isinstance(part, Mapping) else None
            request = remote_request(value, context, task, self.where())
            if request is not None and "id" in part:
                keyed.append((str(part["id"]), request))
        asked = get_message_text(message)
        if not keyed and asked:
            keyed.append(
                (message.message_id or asked, question_request(asked, context, task, self.where()))
            )
        return [{**request, "id": key, "thread_id": a2a_task.id} for key, request in keyed]

    def _resumed(self, paused: list[Interrupt], conversation: str | None) -> Message:
        """What the agent's task is sent when this run resumes its pause: the response to its
        question as text, or the decisions made here keyed by its review ids; the same pause
        again when none of its requests was decided.

        Raises:
            RemoteAgentError: Its question was rejected (with the reviewer's reason).
        """
        resume = resume_map()
        decided = [(pause, resume[pause.id]) for pause in paused if pause.id in resume]
        if not decided:
            raise GraphInterrupt(paused)
        a2a_task = str(paused[0].value["thread_id"])
        pause, value = decided[0]
        if pause.value.get("kind") == "question":
            text = self._response(pause, value)
            return new_text_message(text, context_id=conversation, task_id=a2a_task, role=USER)
        part = new_data_part({str(p.value["id"]): _for_agent(d) for p, d in decided})
        return new_message([part], context_id=conversation, task_id=a2a_task, role=USER)

    def _response(self, pause: Interrupt, value: Any) -> str:
        """The text responding to the agent's question (``pause``) that the run was resumed
        with (``value``); a rejection fails the task with the reviewer's reason."""
        decision = parse_decision(value)
        check_decision(QuestionReview.model_validate({**pause.value, "id": pause.id}), decision)
        if decision.response is None:
            why = f": {decision.reason}" if decision.reason else ""
            raise TaskRefused(f"{decision.reviewer} rejected the question of {self.where()}{why}")
        return decision.response

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


async def _earlier_task(client: Client, conversation: str | None) -> A2ATask | None:
    """The agent's latest task in this task execution's context, when an earlier process sent
    it one (None: none, no thread to name the context, or an agent that cannot list tasks)."""
    if conversation is None:
        return None
    request = ListTasksRequest(context_id=conversation, page_size=1, include_artifacts=True)
    try:
        listed = await client.list_tasks(request)
    except (UnsupportedOperationError, MethodNotFoundError):
        return None  # it cannot say: a new task is the only way on
    return max(listed.tasks, key=lambda found: found.status.timestamp.ToDatetime(), default=None)


async def _followed(client: Client, a2a_task: A2ATask) -> A2ATask:
    """``a2a_task`` once it no longer works (asked again at a growing interval; the kind's
    ``timeout_s`` bounds the wait)."""
    wait = FOLLOW_FIRST_S
    while a2a_task.status.state in WORKING:
        await asyncio.sleep(wait)
        wait = min(FOLLOW_MOST_S, wait * 2)
        a2a_task = await client.get_task(GetTaskRequest(id=a2a_task.id))
    return a2a_task


def _pause_id(conversation: str | None, request: Mapping[str, Any]) -> str:
    """The id of this run's pause for the agent's ``request`` (its ``thread_id`` the agent's
    task, its ``id`` the agent's review id), in this task execution's A2A context."""
    key = "\x1f".join(str(part) for part in (conversation, request["thread_id"], request["id"]))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _pause_of(pause: Interrupt, conversation: str | None) -> bool:
    """Whether ``pause`` is one this task execution made of the agent's review request."""
    value = pause.value
    if not isinstance(value, Mapping) or not {"thread_id", "id"} <= value.keys():
        return False
    return pause.id == _pause_id(conversation, value)


def _for_agent(decision: Any) -> Any:
    """A decision made here as the agent takes it: without what names this run only."""
    if not isinstance(decision, Mapping):
        return decision
    return {key: value for key, value in decision.items() if key not in LOCAL_FIELDS}


def _cited(a2a_task: A2ATask) -> tuple[list[Evidence], float] | None:
    """The passages and confidence another ``cadre serve`` gives in its answer's data part
    (``{"evidence": [{"source", "text", "score"}], "confidence"}``); None when it gives none."""
    for artifact in a2a_task.artifacts:
        for part in get_data_parts(artifact.parts):
            if isinstance(part, Mapping) and isinstance(part.get("evidence"), list):
                try:
                    evidence = [Evidence.model_validate(item) for item in part["evidence"]]
                    confidence = float(part.get("confidence", 1.0))
                except (ValueError, TypeError):
                    return None  # not a shape this kind reads: the answer's text stands alone
                return evidence, min(1.0, max(0.0, confidence))
    return None


def _reported_usage(a2a_task: A2ATask) -> dict[str, int]:
    """What the agent says its run used, when it says (another ``cadre serve`` puts
    ``{"usage": {"model_calls": ..., "input_tokens": ...}}`` in its answer's data part)."""
    said = [
        part["usage"]
        for artifact in a2a_task.artifacts
        for part in get_data_parts(artifact.parts)
        if isinstance(part, Mapping) and isinstance(part.get("usage"), Mapping)
    ]
    return usage_totals(said)


class A2AKeys(BaseModel):
    """How a team file declares an A2A agent kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    a2a: RemoteSpec | None = None
    """An agent over A2A (its URL, or ``{url, token_env, timeout_s}``): each task is sent to it."""

    @field_validator("a2a", mode="before")
    @classmethod
    def _a2a_url(cls, value: Any) -> Any:
        return a2a_spec(value)


class A2AKind(RemoteKind[A2AKeys]):
    """``a2a:`` kinds: an :class:`A2AWorker` each."""

    key = "a2a"
    spec = A2AKeys
    wanted = "an a2a agent"

    def remote(self, spec: A2AKeys) -> RemoteSpec:
        """The agent a kind declares."""
        assert spec.a2a is not None  # declared
        return spec.a2a

    def description(self, spec: A2AKeys) -> str:
        """A question for the agent."""
        return f"a question for the agent at {self.remote(spec).url}"

    def worker(self, spec: A2AKeys, setup: KindSetup) -> Worker:
        """Sends each task to the agent."""
        return A2AWorker(setup.name, self.remote(spec), setup.description)
