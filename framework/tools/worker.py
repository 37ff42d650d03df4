"""A generic worker: a bounded tool-calling loop over any chat model and any LangChain tools.

Example:
    >>> from langchain_core.tools import tool
    >>> from framework.engine.records import Task
    >>> from framework.engine.runtime import NodeContext
    >>> from framework.testing import CallTools, Reply, ScriptedChatModel
    >>> @tool
    ... def add(a: int, b: int) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> model = ScriptedChatModel([CallTools([("add", {"a": 2, "b": 3})]), Reply("5")])
    >>> task = Task(id="t1", description="add 2 and 3")
    >>> result = ToolWorker(model, [add]).run(task, "2 + 3?", NodeContext(node="w", team="t"))
    >>> result.output, result.evidence[0].text
    ('5', '5')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from framework.engine.records import Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, ModelError
from framework.tools._calls import Answer, Toolbox, ToolLike, as_tool
from framework.tools._evidence import gathered, unit

__all__ = ["TOOL_WORKER_SYSTEM", "ToolLike", "ToolWorker", "as_tool", "task_request"]

TOOL_WORKER_SYSTEM = (
    "You complete one task with the tools you are given. Call them as often as you need "
    "(several at once when the calls do not depend on each other), then answer in a few "
    "sentences using only what the tools returned, naming the source of each fact. If a tool "
    "fails, fix the call or use another tool; if the tools cannot help, say so."
)
"""The default system prompt of a :class:`ToolWorker`."""

Request = Callable[[Task, str], str]
"""Writes the first human message of a task: ``request(task, question) -> text``."""


def task_request(task: Task, question: str) -> str:
    """The default request: the question, the task and its inputs (as JSON), if any."""
    lines = [f"Question: {question}", f"Task {task.id}: {task.description}"]
    if task.inputs:
        inputs = json.dumps(task.inputs, ensure_ascii=False, sort_keys=True, default=str)
        lines.append(f"Inputs: {inputs}")
    return "\n".join(lines)


class _Conversation:
    """One task's messages, the best evidence found per source, and the answer once given."""

    def __init__(self, system: str, request: str) -> None:
        self.messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(request)]
        self.answers: list[Answer] = []
        self.answer: str | None = None
        self.refusal = ""

    def take(self, reply: BaseMessage) -> AIMessage | None:
        """Record the model's reply; return it if it calls tools (None: it has answered)."""
        if not isinstance(reply, AIMessage):
            raise ModelError(f"the model answered a {type(reply).__name__}, not an AIMessage")
        self.messages.append(reply)
        if reply.tool_calls or reply.invalid_tool_calls:
            return reply
        self.answer = reply.text
        self.refusal = str(reply.additional_kwargs.get("refusal") or "")
        return None

    def add(self, answers: Sequence[Answer]) -> None:
        """Record the tools' answers, in the order of the calls."""
        for answer in answers:
            self.messages.append(answer.message)
        self.answers += answers

    def result(self, task: Task, max_steps: int, output_score: float) -> WorkerResult:
        """The answer with the evidence of every answered call, best first (gathered at the
        end, in one pass: cheaper than between model calls); a failed result, its evidence kept,
        when the model gave no answer: the steps ran out, it refused, or it said nothing."""
        evidence = gathered(self.answers, output_score)
        failure = self._failure(max_steps, len(evidence))
        return WorkerResult(
            task_id=task.id,
            status="failed" if failure else "ok",
            output="" if failure else str(self.answer),
            error=failure,
            evidence=evidence,
            confidence=unit(evidence[0]["score"]) if evidence else 0.0,
            attempt=task.attempt,
        )

    def _failure(self, max_steps: int, found: int) -> str | None:
        """Why the task has no answer (None when it has one)."""
        if self.answer is None:
            return (
                f"no final answer after {max_steps} model steps ({found} evidence items were "
                "found): raise the kind's max_steps or narrow the task"
            )
        if self.refusal:
            return f"the model refused to answer: {' '.join(self.refusal.split())[:200]}"
        if not self.answer.strip():
            return "the model answered nothing: try again or use another model"
        return None


class ToolWorker:
    """Runs a task by letting a chat model call tools until it answers.

    The loop makes at most ``max_steps`` model calls. The calls of one reply run concurrently
    (threads in ``run``, ``asyncio.gather`` in ``arun``), each within its timeout; their
    answers go back to the model in the order of the calls. A tool never crashes the task: an
    unknown tool, invalid arguments, a raised error or a timeout is answered with a tool
    message of status "error" naming the tool and the cause, for the model to correct. A tool
    *server* that cannot be started or reached, or died (``ToolServerError``), fails the task
    with the server's name and the cause instead: the model cannot fix that; so does a call a
    policy refused together with its task (``TaskRefused``: a spent budget). An
    output is shown to the model cut to ``max_output_chars`` with a ``[truncated: N of M
    characters]`` note; a non-string output is rendered as JSON where possible (by
    langchain-core, which prefers JSON and falls back to ``str``). Model errors propagate: the
    worker node turns them into failed results and retries the transient ones. A task that runs
    out of steps, or whose model refuses or answers nothing, fails, saying so (what evidence it
    found is kept).

    Every successful call gives evidence, kept best-scored per source and sorted by score then
    source; the confidence is the best score clipped to [0, 1] (0 without evidence). A call's
    evidence is, first rule that applies:

    1. its artifact (``response_format="content_and_artifact"``) is a list or tuple of items
       each naming a ``source`` and a ``text`` (objects with those attributes, such as
       :class:`~framework.memory.Passage` and :class:`~framework.engine.records.Evidence`, or
       mappings with those keys; ``score`` optional): those items (an empty list: none);
    2. its artifact, or its output when that is a JSON object (a tool returning a dict), names
       a non-empty string ``source``: one item with that source, its ``text`` (default: the
       output) and its ``score``;
    3. otherwise: source ``tool:<name>(<digest of the canonical JSON arguments>)``, the
       output as text.

    Texts are whitespace-normalised; a missing score is ``output_score``.

    Args:
        model: A chat model that supports ``bind_tools``.
        tools: LangChain tools (``BaseTool``, ``@tool`` functions, ``StructuredTool``) or plain
            functions with a docstring (made tools with ``@tool``); names must be unique.
        system: The system prompt.
        request: Writes the task's first human message from the task and the question.
        max_steps: Model calls per task.
        tool_timeout_s: Seconds each tool call may take (None: no limit). A timed-out call
            running on a thread is abandoned, not stopped.
        timeouts: Per tool name, a timeout replacing ``tool_timeout_s``.
        max_output_chars: Characters of a tool's output the model is shown.
        output_score: The score of evidence that brings none of its own.

    Raises:
        ConfigError: The model cannot bind tools, a tool name is duplicated, or a setting is
            out of range.
    """

    def __init__(
        self,
        model: BaseChatModel,
        tools: Sequence[ToolLike],
        *,
        system: str = TOOL_WORKER_SYSTEM,
        request: Request = task_request,
        max_steps: int = 4,
        tool_timeout_s: float | None = 30.0,
        timeouts: Mapping[str, float | None] | None = None,
        max_output_chars: int = 16_000,
        output_score: float = 1.0,
    ) -> None:
        if max_steps < 1:
            raise ConfigError(f"max_steps must be >= 1, got {max_steps}")
        if not 0.0 <= output_score <= 1.0:
            raise ConfigError(f"output_score must be in [0, 1], got {output_score}")
        self._toolbox = Toolbox(
            tools,
            timeout_s=tool_timeout_s,
            timeouts=timeouts or {},
            max_output_chars=max_output_chars,
        )
        self.tools: Mapping[str, BaseTool] = MappingProxyType(self._toolbox.tools)
        self.model = _bind(model, list(self.tools.values()))
        self.system = system
        self.request = request
        self.max_steps = max_steps
        self.output_score = output_score

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the loop with ``invoke`` (sync graphs)."""
        talk, toolbox = _Conversation(self.system, self.request(task, question)), self._toolbox
        for _ in range(self.max_steps):
            reply = talk.take(self.model.invoke(talk.messages))
            if reply is None:
                break
            talk.add(toolbox.run(toolbox.plan(reply)))
        return talk.result(task, self.max_steps, self.output_score)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the loop with ``ainvoke`` (async graphs)."""
        talk, toolbox = _Conversation(self.system, self.request(task, question)), self._toolbox
        for _ in range(self.max_steps):
            reply = talk.take(await self.model.ainvoke(talk.messages))
            if reply is None:
                break
            talk.add(await toolbox.arun(toolbox.plan(reply)))
        return talk.result(task, self.max_steps, self.output_score)


def _bind(model: BaseChatModel, tools: list[BaseTool]) -> Runnable[LanguageModelInput, BaseMessage]:
    bind = getattr(model, "bind_tools", None)
    if bind is None:
        raise ConfigError(
            f"{type(model).__name__} has no bind_tools: pass a chat model that supports tool "
            "calling"
        )
    try:
        bound: Runnable[LanguageModelInput, BaseMessage] = bind(tools)
    except NotImplementedError as error:
        raise ConfigError(
            f"{type(model).__name__} cannot bind tools (bind_tools is not implemented): pass a "
            "chat model that supports tool calling"
        ) from error
    return bound
