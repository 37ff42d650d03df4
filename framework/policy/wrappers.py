"""Governed models, tools and memory writes: the chain of the active node decides about them.

Outside a governed node (no :class:`~framework.policy.frame.PolicyFrame`) each passes through
unchanged, so wrapping costs one context-variable read.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, overload

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import BaseModel, PrivateAttr

from framework.errors import PolicyDenied
from framework.models.chat import ProviderChatModel
from framework.models.specs import OUTPUT_LIMIT
from framework.models.usage_check import UsageReportError, checked_usage
from framework.policy.frame import PolicyFrame, current_frame
from framework.policy.hooks import Call
from framework.policy.usage import (
    ReportedUsage,
    input_bound,
    observed_by,
    response_usage,
    stamped,
    usage_counts,
    usage_of,
)

__all__ = [
    "GovernedChatModel",
    "GovernedTool",
    "governed",
    "governed_memory_write",
    "governed_tool_args",
    "governed_tool_output",
    "model_name",
    "tool_scopes",
]

_log = logging.getLogger("cadre.models")

_CALL_IDS = itertools.count(1)
_NO_SCOPES: frozenset[str] = frozenset()


def model_name(model: Any) -> str:
    """How policies, budgets and prices name a model: ``provider:name`` where known."""
    for attribute in ("spec", "model_name", "model"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    llm_type = getattr(model, "_llm_type", None)
    return llm_type if isinstance(llm_type, str) else type(model).__name__


def _as_messages(value: LanguageModelInput) -> list[BaseMessage]:
    if isinstance(value, PromptValue):
        return value.to_messages()
    if isinstance(value, str):
        return convert_to_messages([("human", value)])
    return convert_to_messages(value)


class _ModelGuard:
    """The hooks around one model call in ``frame``."""

    def __init__(self, frame: PolicyFrame, name: str) -> None:
        self.frame = frame
        self.name = name
        self.call_id = next(_CALL_IDS)

    def before(self, messages: list[BaseMessage], extra: Any = None) -> Call | None:
        """The before-model call (None when no policy decides there); its usage holds
        ``input_bound``, a bound no tokenizer that spends at least a byte per token exceeds:
        the UTF-8 bytes of the messages and of what else is sent (bound tools, schemas), plus
        a few tokens per message."""
        if not self.frame.chain.decides("before_model"):
            return None
        usage = {"input_bound": input_bound(messages, extra)}
        return self.frame.call(
            "before_model", self.name, messages, usage=usage, call_id=self.call_id
        )

    @contextmanager
    def failing(self, billed: Mapping[str, int] | None = None) -> Iterator[None]:
        """Around the model call: when it raises, count what the provider billed for it
        (``billed``, filled by the call's callbacks: an answer that did not parse was still
        written), tell the policies (``model_failed``, with that usage), then let the error go
        on."""
        try:
            yield
        except BaseException as error:
            usage = dict(billed or {})
            if usage:
                self.frame.tally(usage_counts(self.name, usage))
            if self.frame.chain.decides("model_failed"):
                call = self.frame.call(
                    "model_failed", self.name, error, usage=usage, call_id=self.call_id
                )
                self.frame.chain.tell(call)
            raise

    def after_call(
        self,
        messages: Sequence[BaseMessage],
        output: Any,
        reported: Mapping[str, int] | None = None,
    ) -> Call | None:
        """Count the call's usage; the after-model call (None when no policy decides there)."""
        usage = usage_of(messages, output, reported)
        self.frame.tally(usage_counts(self.name, usage))
        if not self.frame.chain.decides("after_model"):
            return None
        return self.frame.call(
            "after_model",
            self.name,
            output,
            request=messages,
            usage=usage,
            call_id=self.call_id,
        )


def _limited(frame: PolicyFrame, model: BaseChatModel, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with the policies' output limit, for a model that passes it on to its
    provider (a :class:`~framework.models.chat.ProviderChatModel`); others get it unchanged."""
    limit = frame.chain.output_limit
    if limit is None or not isinstance(model, ProviderChatModel):
        return kwargs
    return {**kwargs, OUTPUT_LIMIT: limit}


def _run(frame: PolicyFrame, call: Call | None, value: Any) -> Any:
    """What ``call`` goes on with after the chain; ``value`` when no policy decides."""
    return value if call is None else frame.chain.run(call, frame)


async def _arun(frame: PolicyFrame, call: Call | None, value: Any) -> Any:
    """Async form of :func:`_run`."""
    return value if call is None else await frame.chain.arun(call, frame)


class GovernedChatModel(BaseChatModel):
    """``inner`` with the active policies around every call, including the runnables its
    ``bind_tools`` and ``with_structured_output`` return.

    Args:
        inner: Any langchain-core chat model.
    """

    inner: BaseChatModel
    _name: str = PrivateAttr(default="")

    def __init__(self, inner: BaseChatModel, **kwargs: Any) -> None:
        super().__init__(inner=inner, **kwargs)
        self._name = model_name(inner)

    @property
    def _llm_type(self) -> str:
        return f"governed-{getattr(self.inner, '_llm_type', 'model')}"

    @property
    def name_for_policies(self) -> str:
        """The model's name in audit entries, budgets and prices."""
        return self._name

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        frame = current_frame()
        if frame is None:
            return self.inner._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        guard = _ModelGuard(frame, self.name_for_policies)
        sent = _run(frame, guard.before(messages, kwargs), messages)
        kwargs = _limited(frame, self.inner, kwargs)
        with guard.failing():
            result = self.inner._generate(sent, stop=stop, run_manager=run_manager, **kwargs)
        message, usage = _first(result), _usage(sent, result)
        after = _run(frame, guard.after_call(sent, message, usage), message)
        return _replaced(result, after, usage)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        frame = current_frame()
        inner = self.inner
        if frame is None:
            return await inner._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)
        guard = _ModelGuard(frame, self.name_for_policies)
        sent = await _arun(frame, guard.before(messages, kwargs), messages)
        kwargs = _limited(frame, inner, kwargs)
        with guard.failing():
            result = await inner._agenerate(sent, stop=stop, run_manager=run_manager, **kwargs)
        message, usage = _first(result), _usage(sent, result)
        after = await _arun(frame, guard.after_call(sent, message, usage), message)
        return _replaced(result, after, usage)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[LanguageModelInput, Any]:
        """The inner model's ``bind_tools``, governed."""
        derived = self.inner.bind_tools(tools, **kwargs)
        return _GovernedRunnable(derived, self.name_for_policies, self.inner)

    def with_structured_output(
        self, schema: dict[str, Any] | type, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """The inner model's ``with_structured_output``, governed."""
        derived = self.inner.with_structured_output(schema, **kwargs)
        return _GovernedRunnable(derived, self.name_for_policies, self.inner)


def _first(result: ChatResult) -> BaseMessage:
    return result.generations[0].message


def _usage(sent: Sequence[BaseMessage], result: ChatResult) -> dict[str, int]:
    """What the call used (see :func:`~framework.policy.usage.response_usage`)."""
    return response_usage(sent, result.generations, result.llm_output)


def _replaced(result: ChatResult, message: Any, usage: Mapping[str, int]) -> ChatResult:
    """The result the governed call returns: ``message`` (what the policies let through),
    carrying the call's ``usage``, so the call's span counts what the policies counted."""
    if not isinstance(message, BaseMessage):
        message = AIMessage(str(message))
    message = stamped(message, usage)
    if message is _first(result):
        return result
    return ChatResult(generations=[ChatGeneration(message=message)], llm_output=result.llm_output)


class _GovernedRunnable(Runnable[LanguageModelInput, Any]):
    """A runnable derived from a model (tools bound, structured output) under the policies; the
    usage of its model calls is read from their callbacks (structured output returns no
    message), as their spans read it."""

    def __init__(self, inner: Runnable[Any, Any], name: str, model: BaseChatModel) -> None:
        self.inner = inner
        self.model_name = name
        self.model = model
        """The model the runnable was derived from (it may take an output limit)."""
        self.sent_along = _bound_arguments(inner)
        """What the runnable sends besides the messages (bound tools, a schema)."""

    def invoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Call the derived runnable inside the model hooks."""
        frame = current_frame()
        if frame is None:
            return self.inner.invoke(input, config, **kwargs)
        guard = _ModelGuard(frame, self.model_name)
        messages = _as_messages(input)
        sent = _run(frame, guard.before(messages, self.sent_along), messages)
        kwargs = _limited(frame, self.model, kwargs)
        reported = ReportedUsage()
        with guard.failing(reported.counted):
            output = self.inner.invoke(sent, observed_by(config, reported), **kwargs)
        return _run(frame, guard.after_call(sent, output, reported.counted), output)

    async def ainvoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Async form of :meth:`invoke`."""
        frame = current_frame()
        if frame is None:
            return await self.inner.ainvoke(input, config, **kwargs)
        guard = _ModelGuard(frame, self.model_name)
        messages = _as_messages(input)
        sent = await _arun(frame, guard.before(messages, self.sent_along), messages)
        kwargs = _limited(frame, self.model, kwargs)
        reported = ReportedUsage()
        with guard.failing(reported.counted):
            output = await self.inner.ainvoke(sent, observed_by(config, reported), **kwargs)
        return await _arun(frame, guard.after_call(sent, output, reported.counted), output)


class GovernedTool(BaseTool):
    """``inner`` with the active policies around every call (for a platform team's own nodes;
    a :class:`~framework.tools.worker.ToolWorker` governs its tools itself). A denied call
    raises :class:`~framework.errors.PolicyDenied`.

    ``invoke``/``ainvoke`` hand the (possibly changed) arguments straight to the inner tool,
    so the tool machinery (callbacks, argument parsing) runs once, not twice.
    """

    inner: BaseTool

    def __init__(self, inner: BaseTool) -> None:
        super().__init__(
            name=inner.name,
            description=inner.description,
            args_schema=inner.args_schema,
            metadata=inner.metadata,
            tags=inner.tags,
            inner=inner,
        )

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Call the inner tool inside the tool hooks."""
        given, call_id = governed_tool_args(self.inner, _arguments_of(input))
        output = self.inner.invoke(_with_arguments(input, given), config, **kwargs)
        return _governed_output(self.inner, given, output, call_id)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async form of :meth:`invoke`."""
        given, call_id = governed_tool_args(self.inner, _arguments_of(input))
        output = await self.inner.ainvoke(_with_arguments(input, given), config, **kwargs)
        return _governed_output(self.inner, given, output, call_id)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        """Reached only through ``run``: the governed ``invoke``."""
        kwargs.pop("run_manager", None)
        return self.invoke(args[0] if args and not kwargs else kwargs)


def _arguments_of(input: Any) -> Mapping[str, Any]:
    """The arguments of a tool input: a tool call's ``args``, a dict, or one string."""
    if isinstance(input, Mapping):
        args = input.get("args") if input.get("type") == "tool_call" else input
        return args if isinstance(args, Mapping) else {}
    return {"input": input}


def _with_arguments(input: Any, args: Mapping[str, Any]) -> Any:
    """``input`` with ``args`` in place of its arguments (the same object when unchanged)."""
    if isinstance(input, Mapping) and input.get("type") == "tool_call":
        return input if args is input.get("args") else {**input, "args": dict(args)}
    if isinstance(input, Mapping):
        return input if args is input else dict(args)
    return input if args.get("input") is input else args.get("input")


def _governed_output(tool: BaseTool, args: Mapping[str, Any], output: Any, call_id: int) -> Any:
    if not call_id:
        return output
    if isinstance(output, ToolMessage):
        return _governed_message(tool, args, output, call_id)
    text = output if isinstance(output, str) else json.dumps(output, default=str)
    governed_text = governed_tool_output(tool, args, text, call_id)
    return output if governed_text is text else governed_text


def _governed_message(
    tool: BaseTool, args: Mapping[str, Any], message: ToolMessage, call_id: int
) -> ToolMessage:
    """A tool's message after the policies: its text as they changed it, and its artifact's
    items (a search's passages) kept with their sources, lines and scores, each text passed
    through the same policies; an artifact that cannot be rebuilt so is dropped (its texts
    must not outlive the policies)."""
    content = message.content
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    governed_text = governed_tool_output(tool, args, text, call_id)
    if governed_text is text:
        return message
    artifact = message.artifact
    items = list(artifact) if isinstance(artifact, list | tuple) else [artifact]
    kept = [_governed_item(tool, args, item, call_id) for item in items]
    if any(item is _UNBUILDABLE for item in kept) or artifact is None:
        return message.model_copy(update={"content": governed_text, "artifact": None})
    rebuilt = type(artifact)(kept) if isinstance(artifact, list | tuple) else kept[0]
    return message.model_copy(update={"content": governed_text, "artifact": rebuilt})


_UNBUILDABLE = object()
"""An artifact item whose text cannot be replaced."""


def _governed_item(tool: BaseTool, args: Mapping[str, Any], item: Any, call_id: int) -> Any:
    """``item`` with its ``text`` after the policies (unchanged without a text)."""
    text = item.get("text") if isinstance(item, Mapping) else getattr(item, "text", None)
    if not isinstance(text, str):
        return item
    governed_text = governed_tool_output(tool, args, text, call_id)
    if governed_text is text:
        return item
    if isinstance(item, Mapping):
        return {**item, "text": governed_text}
    if isinstance(item, BaseModel):
        return item.model_copy(update={"text": governed_text})
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return dataclasses.replace(item, text=governed_text)
    return _UNBUILDABLE


def _bound_arguments(runnable: Runnable[Any, Any]) -> Any:
    """The keyword arguments a runnable binds to its model (its first step's, for a chain)."""
    first = getattr(runnable, "first", runnable)  # a sequence: model binding | parser
    kwargs = getattr(first, "kwargs", None)
    return kwargs if isinstance(kwargs, Mapping) and kwargs else None


@overload
def governed(item: BaseChatModel) -> BaseChatModel: ...
@overload
def governed(item: BaseTool) -> BaseTool: ...
def governed(item: BaseChatModel | BaseTool) -> BaseChatModel | BaseTool:
    """A model or tool under the policies of whatever node calls it (wrapped once)."""
    if isinstance(item, GovernedChatModel | GovernedTool):
        return item
    if isinstance(item, BaseTool):
        return GovernedTool(item)
    return GovernedChatModel(item)


def tool_scopes(tool: BaseTool) -> frozenset[str]:
    """The scopes a tool declares it needs: ``metadata={"scopes": [...]}``."""
    declared = tool.metadata.get("scopes") if tool.metadata else None
    return frozenset(str(frame) for frame in declared) if declared else _NO_SCOPES


def tool_aliases(tool: BaseTool) -> tuple[str, ...]:
    """The other names a tool goes by: an MCP tool's name on its server (``mcp_tool``), when
    the team exposes it under another (a prefixed server)."""
    own = tool.metadata.get("mcp_tool") if tool.metadata else None
    return (str(own),) if own and own != tool.name else ()


def governed_tool_args(tool: BaseTool, args: Mapping[str, Any]) -> tuple[Any, int]:
    """The arguments a tool call goes on with after the active policies, and the call's id
    (for :func:`governed_tool_output`); unchanged outside a governed node.

    Raises:
        PolicyDenied: A policy denied the call, or a human rejected it.
    """
    frame = current_frame()
    if frame is None:
        return args, 0
    call_id = next(_CALL_IDS)
    if frame.chain.decides("before_tool"):
        call = frame.call(
            "before_tool",
            tool.name,
            args,
            scopes=tool_scopes(tool),
            aliases=tool_aliases(tool),
            call_id=call_id,
        )
        args = frame.chain.run(call, frame)  # a refused call is not counted as made
    frame.tally({"tool_calls": 1, f"tool_calls@{tool.name}": 1})
    return args, call_id


def _checked_tool_usage(tool: BaseTool, usage: Mapping[str, int] | None) -> dict[str, int]:
    """What ``tool`` reported it used, or nothing when a count cannot be true."""
    try:
        return checked_usage(usage or {}, f"tool {tool.name!r}")
    except UsageReportError as fault:
        _log.warning("%s", fault)
        return {}


def governed_tool_output(
    tool: BaseTool,
    args: Mapping[str, Any],
    output: str,
    call_id: int,
    usage: Mapping[str, int] | None = None,
) -> str:
    """A tool's output text after the active policies (unchanged outside a governed node).

    ``usage`` is what the tool reported it used itself (a remote agent's model calls and
    tokens): checked (a count that cannot be true is not counted: the fault is logged naming
    the tool), counted in this execution's usage and shown to the policies (a budget charges
    it), once per call."""
    frame = current_frame()
    if frame is None:
        return output
    usage = _checked_tool_usage(tool, usage)
    frame.tally(usage)
    if not frame.chain.decides("after_tool"):
        return output
    call = frame.call(
        "after_tool",
        tool.name,
        output,
        request=args,
        scopes=tool_scopes(tool),
        aliases=tool_aliases(tool),
        call_id=call_id,
        usage=usage or {},
    )
    return str(frame.chain.run(call, frame))


def governed_memory_write(namespace: str, item: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """An item (``text`` and ``metadata``) as the active policies let it be written to
    ``namespace``; None when one refused it (the refusal is in the audit trail)."""
    frame = current_frame()
    if frame is None or not frame.chain.decides("memory_write"):
        return item
    try:
        written = frame.chain.run(frame.call("memory_write", namespace, item), frame)
    except PolicyDenied:
        return None
    return written if isinstance(written, Mapping) else None
