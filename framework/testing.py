"""A scripted chat model for tests: no network, no API key, deterministic answers.

Example:
    >>> model = ScriptedChatModel([Reply("hello")])
    >>> model.invoke("hi").content
    'hello'
    >>> model.assert_complete()

A script is a list of steps taken in order. A step with ``match`` is only taken by a request
whose last human or tool message contains that text, so parallel workers sharing one model
get the answers meant for them whatever order they run in.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from langchain_core.caches import BaseCache
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import ToolCall, tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field, PrivateAttr

from framework.errors import ConfigError

__all__ = [
    "CallTools",
    "Fail",
    "Reply",
    "ScriptError",
    "ScriptedChatModel",
    "Step",
    "Structured",
    "ToolCallSpec",
]


class ScriptError(AssertionError):
    """The code under test asked the scripted model for something its script does not hold."""


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call of a :class:`CallTools` step.

    Attributes:
        name: The tool's name; it must be bound with ``bind_tools``.
        args: The tool's arguments.
        id: The call id; generated (``call_<step>_<n>``) when left out.
    """

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """Answer with a plain text message."""

    text: str
    match: str | None = field(default=None, kw_only=True)
    refusal: str | None = field(default=None, kw_only=True, repr=False)
    """A refusal, as an OpenAI-API provider reports one (``additional_kwargs["refusal"]``)."""


@dataclass(frozen=True, init=False)
class CallTools:
    """Answer with a message that calls tools.

    Args:
        calls: :class:`ToolCallSpec` objects or ``(name, args)`` pairs.
        match: Only take this step for a request whose last input contains this text.
    """

    calls: tuple[ToolCallSpec, ...]
    match: str | None

    def __init__(
        self,
        calls: Iterable[ToolCallSpec | tuple[str, Mapping[str, Any]]],
        *,
        match: str | None = None,
    ) -> None:
        specs = tuple(c if isinstance(c, ToolCallSpec) else ToolCallSpec(*c) for c in calls)
        if not specs:
            raise ConfigError("CallTools needs at least one call: CallTools([('search', {...})])")
        object.__setattr__(self, "calls", specs)
        object.__setattr__(self, "match", match)


@dataclass(frozen=True)
class Structured:
    """Answer a ``with_structured_output(schema)`` request; the value is validated by the schema."""

    value: BaseModel | Mapping[str, Any]
    match: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Fail:
    """Raise ``error`` from the model call."""

    error: BaseException
    match: str | None = field(default=None, kw_only=True)


Step: TypeAlias = Reply | CallTools | Structured | Fail
"""One step of a script."""


class _Script:
    """The steps, which are used, and the requests seen; shared by a model and its copies."""

    def __init__(self, steps: tuple[Step, ...]) -> None:
        for index, step in enumerate(steps):
            if not isinstance(step, Reply | CallTools | Structured | Fail):
                raise ConfigError(
                    f"steps[{index}] is {step!r}; a step is Reply, CallTools, Structured or Fail"
                )
        self.steps = steps
        self.used = [False] * len(steps)
        self.requests: list[list[BaseMessage]] = []
        self.lock = threading.Lock()

    def take(
        self, messages: list[BaseMessage], tools: tuple[str, ...], schema: str | None
    ) -> AIMessage | BaseException:
        """Consume the first unused step that fits; return its answer or the error to raise."""
        key = _input_text(messages)
        with self.lock:
            self.requests.append(list(messages))
            index = next((i for i in range(len(self.steps)) if self._fits(i, key)), None)
            if index is None:
                last = _describe(messages[-1]) if messages else "none"
                raise ScriptError(
                    f"no scripted step fits request {len(self.requests)} (last message: {last});"
                    f" steps left:{_lines(self.remaining()) or ' none'}"
                )
            outcome = _outcome(index, self.steps[index], tools, schema)
            self.used[index] = True
            return outcome

    def remaining(self) -> list[str]:
        """Describe the unused steps; call with the lock held."""
        return [f"steps[{i}] {step!r}" for i, step in enumerate(self.steps) if not self.used[i]]

    def _fits(self, index: int, key: str) -> bool:
        match = self.steps[index].match
        return not self.used[index] and (match is None or match in key)


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers from a script of steps.

    Copies made by ``bind_tools`` and ``with_structured_output`` share the script: a step
    consumed through one is consumed for all. Taking a step is thread-safe, through
    ``invoke`` and ``ainvoke`` alike. Answers carry a rough ``usage_metadata`` (words).

    Args:
        steps: The script.
        **kwargs: Fields of :class:`~langchain_core.language_models.BaseChatModel`.

    Raises:
        ConfigError: If a step is not one of the step types.
    """

    # A global LLM cache would replay answers without consuming steps.
    cache: BaseCache | bool | None = Field(default=False, exclude=True)

    _script: _Script = PrivateAttr()
    _tools: tuple[str, ...] = PrivateAttr(default=())
    _schema: str | None = PrivateAttr(default=None)

    def __init__(self, steps: Iterable[Step] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._script = _Script(tuple(steps))

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def bound_tools(self) -> tuple[str, ...]:
        """The names of the tools bound with ``bind_tools``."""
        return self._tools

    @property
    def requests(self) -> list[list[BaseMessage]]:
        """The message lists received so far, in order, through this model and its copies."""
        with self._script.lock:
            return [list(request) for request in self._script.requests]

    def assert_complete(self) -> None:
        """Check that every step was used.

        Raises:
            ScriptError: Naming the steps left.
        """
        with self._script.lock:
            left = self._script.remaining()
        if left:
            raise ScriptError(f"{len(left)} scripted step(s) never used:{_lines(left)}")

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ScriptedChatModel:
        """Return a copy sharing the script, with these tools bound (replacing earlier ones).

        ``tool_choice`` and other keyword arguments are accepted and ignored.
        """
        return self._clone(tools=tuple(_tool_name(tool) for tool in tools), schema=self._schema)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        """Return a runnable whose requests must be answered by :class:`Structured` steps.

        The parsing is langchain-core's own (a tool call validated by ``schema``), so a pydantic
        schema gives schema instances and ``include_raw=True`` gives ``raw``/``parsed``/
        ``parsing_error``.
        """
        asking = self._clone(tools=self._tools, schema=_tool_name(schema))
        return BaseChatModel.with_structured_output(
            asking, schema, include_raw=include_raw, **kwargs
        )

    def _clone(self, *, tools: tuple[str, ...], schema: str | None) -> ScriptedChatModel:
        clone = self.model_copy()  # shallow: the private _script is shared
        clone._tools = tools
        clone._schema = schema
        return clone

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._respond(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._respond(messages)

    def _respond(self, messages: list[BaseMessage]) -> ChatResult:
        outcome = self._script.take(messages, self._tools, self._schema)
        if isinstance(outcome, BaseException):
            raise outcome
        outcome.usage_metadata = _usage(messages, outcome)
        return ChatResult(generations=[ChatGeneration(message=outcome)])


def _outcome(
    index: int, step: Step, tools: tuple[str, ...], schema: str | None
) -> AIMessage | BaseException:
    where = f"steps[{index}] {step!r}"
    if isinstance(step, Fail):
        return step.error
    if isinstance(step, Structured):
        return AIMessage(content="", tool_calls=[_structured_call(where, index, step, schema)])
    if schema is not None:
        raise ScriptError(f"structured output {schema!r} was asked, but the next step is {where}")
    if isinstance(step, Reply):
        refused = {"refusal": step.refusal} if step.refusal else {}
        return AIMessage(content=step.text, additional_kwargs=refused)
    return AIMessage(content="", tool_calls=_tool_calls(where, index, step, tools))


def _structured_call(where: str, index: int, step: Structured, schema: str | None) -> ToolCall:
    if schema is None:
        raise ScriptError(
            f"{where} is Structured, but the request did not ask for structured output"
            " (use with_structured_output)"
        )
    if isinstance(step.value, BaseModel):
        given = _tool_name(type(step.value))
        if given != schema:
            raise ScriptError(f"structured output {schema!r} was asked, but {where} holds {given}")
        args = step.value.model_dump(mode="json")
    else:
        args = dict(step.value)
    return tool_call(name=schema, args=args, id=f"call_{index}_0")


def _tool_calls(where: str, index: int, step: CallTools, tools: tuple[str, ...]) -> list[ToolCall]:
    unbound = [call.name for call in step.calls if call.name not in tools]
    if unbound:
        raise ScriptError(
            f"{where} calls {', '.join(unbound)}, not bound to the model"
            f" (bound: {', '.join(tools) or 'none'}); bind it with bind_tools"
        )
    return [
        tool_call(name=call.name, args=dict(call.args), id=call.id or f"call_{index}_{n}")
        for n, call in enumerate(step.calls)
    ]


def _tool_name(tool: Mapping[str, Any] | type | Callable[..., Any] | BaseTool) -> str:
    name: str = convert_to_openai_tool(tool)["function"]["name"]
    return name


def _input_text(messages: list[BaseMessage]) -> str:
    """The text of the last human or tool message: what ``match`` is looked for in."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage | ToolMessage):
            return message.text
    return ""


def _describe(message: BaseMessage) -> str:
    text = message.text
    shown = text if len(text) <= 120 else text[:117] + "..."
    return f"{message.type}: {shown!r}"


def _lines(items: list[str]) -> str:
    return "".join(f"\n  {item}" for item in items)


def _usage(messages: list[BaseMessage], answer: AIMessage) -> UsageMetadata:
    input_tokens = sum(_words(message) for message in messages)
    output_tokens = _words(answer)
    return UsageMetadata(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )


def _words(message: BaseMessage) -> int:
    count = len(message.text.split())
    if isinstance(message, AIMessage):
        count += sum(len(json.dumps(c["args"], default=str).split()) for c in message.tool_calls)
    return count
