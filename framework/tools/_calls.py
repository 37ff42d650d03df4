"""Running a model's tool calls: checking them, running them with timeouts (concurrently when
there are several), and turning every outcome into a capped ``ToolMessage``.

Private to :mod:`framework.tools.worker`.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, TypeAlias

from langchain_core.messages import AIMessage, InvalidToolCall, ToolCall, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, ValidationError

from framework.errors import ConfigError, PolicyDenied, TaskRefused, ToolServerError
from framework.policy.wrappers import GovernedTool, governed_tool_args, governed_tool_output
from framework.tools._threads import POOL

__all__ = ["Answer", "ToolLike", "Toolbox", "as_tool", "cap", "message_text", "render"]

Content: TypeAlias = str | list[str | dict[str, Any]]
"""A message's content: a string or content blocks."""
ToolLike: TypeAlias = BaseTool | Callable[..., Any]
"""A LangChain tool, or a plain function (with a docstring) to make one of."""


@dataclass(slots=True)
class Answer:
    """One tool call of the model and the message that answers it (status "error" if refused
    or failed), with the tool's whole output as text (the message's may be cut)."""

    name: str
    args: Mapping[str, Any]
    message: ToolMessage
    output: str = ""


@dataclass(slots=True)
class _Ready:
    """A checked call, ready to run."""

    call: ToolCall
    tool: BaseTool
    timeout_s: float | None
    call_id: int = 0
    """The policy layer's id of the call (0: ungoverned)."""


_Planned: TypeAlias = _Ready | Answer
"""A call to run, or one already answered (refused)."""


class _TimedOut:
    """The outcome of a call that did not finish within its timeout."""


_TIMED_OUT: Final = _TimedOut()


def as_tool(item: ToolLike) -> BaseTool:
    """``item`` as a LangChain tool; a plain function becomes one with ``@tool``; a governed
    tool is unwrapped (the tool worker asks the policies itself)."""
    if isinstance(item, GovernedTool):
        return item.inner
    if isinstance(item, BaseTool):
        return item
    if not callable(item):
        raise ConfigError(
            f"{item!r} is not a tool: pass a BaseTool, a @tool function or a function"
        )
    try:
        return tool(item)
    except ValueError as error:
        name = getattr(item, "__name__", repr(item))
        raise ConfigError(
            f"function {name!r} cannot be a tool ({error}): give it a docstring, or wrap it with "
            "StructuredTool.from_function(..., description=...)"
        ) from error


class Toolbox:
    """The tools of a worker by name, with their timeouts and the output cap.

    Args:
        tools: The tools; names must be unique.
        timeout_s: Seconds each call may take (None: no limit).
        timeouts: Per tool name, a timeout replacing ``timeout_s``.
        max_output_chars: Characters of a tool's output the model is shown.

    Raises:
        ConfigError: No tools, a duplicate or unknown name, or a bad limit.
    """

    def __init__(
        self,
        tools: Sequence[ToolLike],
        *,
        timeout_s: float | None,
        timeouts: Mapping[str, float | None],
        max_output_chars: int,
    ) -> None:
        converted = [as_tool(item) for item in tools]
        if not converted:
            raise ConfigError("a tool worker needs at least one tool: pass tools=[...]")
        names = [item.name for item in converted]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ConfigError(f"duplicate tool names {twice}: give each tool a unique name")
        self.tools: dict[str, BaseTool] = dict(zip(names, converted, strict=True))
        unknown = sorted(set(timeouts) - set(names))
        if unknown:
            raise ConfigError(f"timeouts name unknown tools {unknown}; the tools are {names}")
        for limit in (timeout_s, *timeouts.values()):
            if limit is not None and limit <= 0:
                raise ConfigError(f"a tool timeout must be > 0 seconds or None, got {limit}")
        if max_output_chars < 1:
            raise ConfigError(f"max_output_chars must be >= 1, got {max_output_chars}")
        self.timeouts = {name: timeouts.get(name, timeout_s) for name in names}
        self.max_output_chars = max_output_chars

    def plan(self, reply: AIMessage) -> list[_Planned]:
        """The reply's calls, in order: calls to run, and refusals of unknown tools, calls a
        policy denied and calls whose arguments could not be parsed. Arguments the tool's
        argument model refuses are answered when the call runs (the tool checks them once).

        The active policies see each call in order, on the caller's thread (so a policy that
        asks a human pauses the run at the same call when it is replayed)."""
        planned: list[_Planned] = [self._checked(call) for call in reply.tool_calls]
        if reply.invalid_tool_calls:
            planned += [_unparsed(call) for call in reply.invalid_tool_calls]
        return planned

    def run(self, planned: Sequence[_Planned]) -> list[Answer]:
        """Run the checked calls, concurrently on threads when there are several."""
        if len(planned) == 1:  # the common reply: one call, inline when it has no timeout
            [item] = planned
            if not isinstance(item, _Ready):
                return [item]
            if item.timeout_s is None:
                try:
                    outcome = item.tool.invoke(item.call)
                except Exception as error:  # an error message for the model
                    outcome = error
                return [self._answer(item, outcome)]
        threads = [_ToolThread(item) for item in planned if isinstance(item, _Ready)]
        return self._answers(planned, [thread.wait() for thread in threads])

    async def arun(self, planned: Sequence[_Planned]) -> list[Answer]:
        """Run the checked calls concurrently with ``asyncio.gather``."""
        if len(planned) == 1:  # the common reply: one call, no task to gather
            [item] = planned
            return [self._answer(item, await _arun_one(item)) if isinstance(item, _Ready) else item]
        ready = [item for item in planned if isinstance(item, _Ready)]
        outcomes = await asyncio.gather(*(_arun_one(item) for item in ready))
        return self._answers(planned, outcomes)

    def _checked(self, call: ToolCall) -> _Planned:
        """The call ready to run with the arguments the active policies allow, or refused
        (an unknown tool, a call a policy denied); a refusal that ends the task (a spent
        budget) is raised: the worker node fails the task with it."""
        name = call["name"]
        found = self.tools.get(name)
        if found is None:
            return _refused(call, f"unknown tool {name!r}: {_known(list(self.tools))}")
        try:
            args, call_id = governed_tool_args(found, call["args"])
        except TaskRefused:
            raise
        except PolicyDenied as denied:
            return _refused(call, f"tool {name!r} was refused: {denied}")
        if call_id:
            call = {**call, "args": dict(args)}
        return _Ready(call, found, self.timeouts[name], call_id)

    def _answers(self, planned: Sequence[_Planned], outcomes: Sequence[object]) -> list[Answer]:
        results = iter(outcomes)
        return [
            self._answer(item, next(results)) if isinstance(item, _Ready) else item
            for item in planned
        ]

    def _answer(self, ready: _Ready, outcome: object) -> Answer:
        if outcome is _TIMED_OUT or isinstance(outcome, BaseException):
            return self._failure(ready, outcome)
        if ready.call_id:
            outcome = _governed_output(ready, outcome)
        call = ready.call
        name, call_id = call["name"], call["id"] or ""
        if not isinstance(outcome, ToolMessage):  # a list of messages, a Command, a value
            output = render(outcome)
            capped = cap(output, self.max_output_chars)
            return Answer(
                name, call["args"], ToolMessage(capped, tool_call_id=call_id, name=name), output
            )
        content = outcome.content
        output = content if isinstance(content, str) else message_text(content)
        if (
            len(output) <= self.max_output_chars
            and outcome.name == name
            and outcome.tool_call_id == call_id
        ):  # the message as langchain-core made it for the call
            return Answer(name, call["args"], outcome, output)
        update = {"content": self._capped(content), "name": name, "tool_call_id": call_id}
        return Answer(name, call["args"], outcome.model_copy(update=update), output)

    def _failure(self, ready: _Ready, outcome: object) -> Answer:
        """The error answer of a call that timed out or raised; raises what fails the task
        (a tool server's error) or pauses it (a review)."""
        call = ready.call
        if isinstance(outcome, ToolServerError | GraphBubbleUp):
            raise outcome
        if not isinstance(outcome, BaseException):
            return _refused(call, f"tool {call['name']!r} timed out after {ready.timeout_s:g} s")
        if isinstance(outcome, ValidationError) and _of_arguments(ready.tool, outcome):
            problems = _problems(outcome)
            return _refused(call, f"invalid arguments for tool {call['name']!r}: {problems}")
        cause = " ".join(f"{type(outcome).__name__}: {outcome}".split())
        text = f"tool {call['name']!r} failed: {cause}"
        return _refused(call, cap(text, self.max_output_chars))

    def _capped(self, content: Content) -> Content:
        if isinstance(content, str):
            return cap(content, self.max_output_chars)
        text = message_text(content)
        if len(text) <= self.max_output_chars:
            return content
        others = [block for block in content if not _is_text(block)]
        return [{"type": "text", "text": cap(text, self.max_output_chars)}, *others]


class _ToolThread:
    """One call running on a pooled daemon thread (a hung tool never blocks the interpreter's
    exit), in a copy of the caller's context (callbacks and run config follow it)."""

    def __init__(self, ready: _Ready) -> None:
        self.ready = ready
        self.running = threading.Lock()  # held until the call ends (cheaper than an Event)
        self.running.acquire()
        self.outcome: object = _TIMED_OUT
        self.deadline = None if ready.timeout_s is None else time.monotonic() + ready.timeout_s
        POOL.submit(partial(contextvars.copy_context().run, self._body))

    def _body(self) -> None:
        try:
            self.outcome = self.ready.tool.invoke(self.ready.call)
        except BaseException as error:  # handed to the waiting thread
            self.outcome = error
        self.running.release()

    def wait(self) -> object:
        """The call's result or error, or ``_TIMED_OUT``; re-raises what is not an Exception."""
        left = -1.0 if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        if not self.running.acquire(timeout=left):
            return _TIMED_OUT
        if isinstance(self.outcome, BaseException) and not isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


async def _arun_one(ready: _Ready) -> object:
    if ready.timeout_s is None:
        return await _acall(ready)
    scope = asyncio.timeout(ready.timeout_s)
    try:
        async with scope:
            return await _acall(ready)
    except TimeoutError as error:
        return _TIMED_OUT if scope.expired() else error


async def _acall(ready: _Ready) -> object:
    try:
        return await ready.tool.ainvoke(ready.call)
    except Exception as error:  # an error message for the model
        return error


def _governed_output(ready: _Ready, outcome: object) -> object:
    """A governed call's outcome after the active policies saw its output (a message whose
    text they changed becomes a copy with that text and no artifact; any other outcome, its
    text)."""
    args = ready.call["args"]
    if not isinstance(outcome, ToolMessage):
        return governed_tool_output(ready.tool, args, render(outcome), ready.call_id)
    text = message_text(outcome.content)
    governed = governed_tool_output(ready.tool, args, text, ready.call_id)
    if governed is text:
        return outcome
    return outcome.model_copy(update={"content": governed, "artifact": None})


def _of_arguments(item: BaseTool, error: ValidationError) -> bool:
    """Whether ``error`` is the tool refusing its call's arguments (its argument model's
    validation), not an error of its own work."""
    schema = item.args_schema
    return isinstance(schema, type) and error.title == schema.__name__


def _refused(call: ToolCall, text: str) -> Answer:
    message = ToolMessage(text, tool_call_id=call["id"] or "", name=call["name"], status="error")
    return Answer(call["name"], call["args"], message)


def _unparsed(call: InvalidToolCall) -> Answer:
    name = call.get("name") or ""
    text = f"invalid arguments for tool {name!r}: not a JSON object ({call.get('error')})"
    message = ToolMessage(text, tool_call_id=call.get("id") or "", name=name, status="error")
    return Answer(name, {}, message)


def _known(names: list[str]) -> str:
    if len(names) == 1:
        return f"the only tool is {names[0]}"
    return f"the tools are {', '.join(names)}"


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
        for item in error.errors(include_url=False)
    )


def _is_text(block: object) -> bool:
    return isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")


def message_text(content: Content) -> str:
    """The text of a message's content: its string, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(
        block if isinstance(block, str) else str(block.get("text", ""))
        for block in content
        if _is_text(block)
    )


def render(value: object) -> str:
    """``value`` as text: a string as it is, anything else as JSON where possible."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=_jsonable)
    except (TypeError, ValueError):
        return str(value)


def _jsonable(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return str(value)


def cap(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with a note saying how much was kept."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[truncated: {limit} of {len(text)} characters]"
