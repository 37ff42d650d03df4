"""A served team's A2A requests: a2a-sdk's request handler, with cadre's run started (or its
review answered) through the gate before the SDK takes the task over, so a refusal or an
invalid decision is an A2A error and changes nothing; the executor then follows that run and
reports it on the task.

A message without a task id asks the team a question on a new thread (the task's id); a
message on a task that waits for review answers it (the caller is the reviewer the audit
names); a message on a task in any other state is refused. Cancelling a task cancels its
thread's run (a task waiting for review is answered, not cancelled).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from a2a.helpers import new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import Event, EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, validate_request_params
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    Message,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from a2a.utils.task import validate_history_length

from framework.errors import brief
from framework.runs.gate import admit
from framework.server._requests import StreamModeName
from framework.server.protocols._base import (
    ServedTeam,
    answer_words,
    ask,
    decide,
    events,
    outcome,
)
from framework.server.protocols.a2a._calls import caller_in, gate_errors, keep_run, run_in
from framework.server.protocols.a2a._report import (
    ANSWER_ARTIFACT,
    question_of,
    report_of,
    resume_value,
)
from framework.server.protocols.a2a._tasks import ThreadTasks

__all__ = ["RunFollower", "TeamHandler"]

logger = logging.getLogger("cadre.server")

_MODES: tuple[StreamModeName, ...] = ("updates", "messages-tuple")
"""The run events followed: each node's update names the node; the messages as they are
written (the answer, streamed to the task's artifact)."""

_PARKED_S = 600.0
"""How long the SDK keeps a task waiting for review in memory (a reply after that finds it
again from its thread)."""


class RunFollower(AgentExecutor):
    """Reports the run a call started on its task: a working status per node the run goes
    through, the answer's words appended to the ``answer`` artifact as the team's formatter
    speaks them, then how it ended (the whole answer replacing them, its reviews, or its
    error)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Follow the call's run until it ends; a failure of cadre's own fails the task with
        one line (the log has one line too), never the exception's text."""
        task_id, context_id = str(context.task_id), str(context.context_id)
        updater = TaskUpdater(event_queue, task_id, context_id)
        try:
            await self._follow(context, updater, task_id, context_id)
        except Exception as error:
            logger.error("a2a task %s: following its run failed: %s", task_id, brief(error))
            said = "the server failed to follow the run; its log says why"
            await updater.failed(updater.new_agent_message([new_text_part(said)]))

    async def _follow(
        self, context: RequestContext, updater: TaskUpdater, task_id: str, context_id: str
    ) -> None:
        server, _ = caller_in(context.call_context)
        row = run_in(context.call_context)
        started = f"run {row.run_id} started"
        await updater.start_work(_working(updater, started, runId=row.run_id))
        spoken: str | None = None
        async for mode, data in events(server, row):
            for node in _nodes(mode, data):
                await updater.start_work(_working(updater, f"running {node}", node=node))
            words = answer_words(mode, data)
            if words is not None and spoken in (None, words[0]) and words[1]:
                part = new_text_part(words[1], media_type="text/markdown")
                appended = spoken is not None
                await updater.add_artifact(
                    [part], ANSWER_ARTIFACT, ANSWER_ARTIFACT, append=appended
                )
                spoken = words[0]
        report = report_of(await outcome(server, row))
        if report.artifact is not None:
            artifact = report.artifact
            parts = list(artifact.parts)
            await updater.add_artifact(parts, artifact.artifact_id, artifact.name, last_chunk=True)
        await updater.update_status(report.state, report.message(task_id, context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Nothing more to do: :meth:`TeamHandler.on_cancel_task` cancelled the run, and the
        SDK marks the task cancelled."""


def _working(updater: TaskUpdater, text: str, **metadata: str) -> Message:
    return updater.new_agent_message([new_text_part(text)], metadata=metadata)


def _nodes(mode: str, data: Any) -> list[str]:
    """The nodes an ``updates`` event names (interrupts and other markers left out)."""
    if mode != "updates" or not isinstance(data, Mapping):
        return []
    return [str(node) for node in data if not str(node).startswith("__")]


class TeamHandler(DefaultRequestHandler):
    """The A2A requests of one served team (see the module).

    Args:
        team: The team.
        card: Its agent card (the capabilities the SDK checks).
    """

    def __init__(self, team: ServedTeam, card: AgentCard) -> None:
        self.team = team
        self.a2a_tasks = ThreadTasks(team)
        super().__init__(
            agent_executor=RunFollower(),
            task_store=self.a2a_tasks,
            agent_card=card,
            interrupted_task_timeout=_PARKED_S,
        )

    @validate_request_params
    async def on_message_send(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> Message | Task:
        """Start the run the message asks for, then answer with its task once it ends or
        waits for review."""
        await self._begin(params, context)
        result: Message | Task = await super().on_message_send(params, context)
        return result

    @validate_request_params
    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        """Start the run the message asks for, then stream its task and the task's updates."""
        yield await self._begin(params, context)
        async for event in super().on_message_send_stream(params, context):
            yield event

    @validate_request_params
    async def on_cancel_task(
        self, params: CancelTaskRequest, context: ServerCallContext
    ) -> Task | None:
        """Cancel the task's run (as the gate admits the caller), then mark it cancelled."""
        server, caller = caller_in(context)
        a2a_task = await self._a2a_task(params.id, context)
        with gate_errors():
            admit(caller, "cancel_run")
        if a2a_task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            raise TaskNotCancelableError(
                f"task {a2a_task.id} waits for review: answer it (a decision may reject its tasks)"
            )
        running = server.runs.active_run(a2a_task.id)
        if running is not None:
            server.runs.cancel(running)
        cancelled: Task | None = await super().on_cancel_task(params, context)
        return cancelled

    async def _begin(self, params: SendMessageRequest, context: ServerCallContext) -> Task:
        """Start what ``params``' message asks through the gate: a question on a new thread,
        or the answer to its task's reviews; the task, working on that run."""
        validate_history_length(params.configuration)  # checked before anything starts
        server, caller = caller_in(context)
        message = params.message
        if message.task_id:
            a2a_task = await self._waiting(message.task_id, message.context_id, context)
            message.context_id = a2a_task.context_id
            decision = resume_value(message)
            async with self.a2a_tasks.following(a2a_task.id):
                with gate_errors():
                    row = await decide(
                        server, caller, self.team, a2a_task.id, decision, modes=_MODES
                    )
        else:
            question = question_of(message)
            message.task_id = str(uuid.uuid4())
            message.context_id = message.context_id or str(uuid.uuid4())
            a2a_task = Task(id=message.task_id, context_id=message.context_id, history=[message])
            async with self.a2a_tasks.following(a2a_task.id):
                with gate_errors():
                    row = await ask(
                        server, caller, self.team, question, thread_id=a2a_task.id, modes=_MODES
                    )
                await self.a2a_tasks.opened(server, a2a_task)
        keep_run(context, row)
        return self.a2a_tasks.working(a2a_task)

    async def _waiting(self, task_id: str, context_id: str, context: ServerCallContext) -> Task:
        """Task ``task_id``, when it waits for review (in context ``context_id``, if named).

        Raises:
            TaskNotFoundError: No such task for the caller.
            InvalidParamsError: The task is in another context.
            UnsupportedOperationError: The task does not wait for review.
        """
        a2a_task = await self._a2a_task(task_id, context)
        if context_id and context_id != a2a_task.context_id:
            raise InvalidParamsError(f"task {task_id} is not in context {context_id}")
        if a2a_task.status.state != TaskState.TASK_STATE_INPUT_REQUIRED:
            state = TaskState.Name(a2a_task.status.state).removeprefix("TASK_STATE_").lower()
            raise UnsupportedOperationError(
                f"task {task_id} is {state.replace('_', '-')}: only a task waiting for review "
                "takes a message (a new question is a message without a task id)"
            )
        return a2a_task

    async def _a2a_task(self, task_id: str, context: ServerCallContext) -> Task:
        a2a_task = await self.a2a_tasks.get(task_id, context)
        if a2a_task is None:
            raise TaskNotFoundError(f"task {task_id} not found")
        return a2a_task
