"""What a model call used, counted once for every reader (the policies' usage records that
``cadre show`` sums, and the model spans ``cadre trace`` sums): the provider's counts where it
reports them, else an estimate (about four characters per token) marked as one; and a bound of
its input that no byte-level tokenizer exceeds, for reservations.

:func:`response_usage` is the one count: it reads a model call's messages and its response
(what the call's callbacks see). The policies get it through :class:`ReportedUsage`, a callback
on the call, or from the response directly (:class:`~framework.policy.wrappers.GovernedChatModel`,
which then stamps it on the message it returns, so the span of that call reads the same count).
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, Generation, LLMResult
from langchain_core.runnables import RunnableConfig, ensure_config

from framework.models.usage_check import UsageReportError, checked_usage

__all__ = [
    "ESTIMATED",
    "ReportedUsage",
    "input_bound",
    "observed_by",
    "response_usage",
    "stamped",
    "text_of",
    "usage_counts",
    "usage_of",
    "usage_totals",
]

_log = logging.getLogger("cadre.models")

ESTIMATED = "cadre_usage_estimated"
"""The ``response_metadata`` key of a message whose ``usage_metadata`` is cadre's estimate (the
provider reported none), so a reader of the message still knows it is one."""


def text_of(value: Any) -> str:
    if isinstance(value, BaseMessage):
        return value.text if isinstance(value.content, list) else str(value.content)
    if hasattr(value, "model_dump_json"):
        return str(value.model_dump_json())
    return str(value)


def _tokens(characters: int) -> int:
    return -(-characters // 4)


def _output_text(message: BaseMessage) -> str:
    """What an answer holds: its text and the arguments of its tool calls (structured output
    is a tool call)."""
    calls = getattr(message, "tool_calls", None) or []
    return text_of(message) + "".join(json.dumps(c["args"], default=str) for c in calls)


def _estimate(messages: Sequence[BaseMessage], outputs: Sequence[BaseMessage]) -> dict[str, int]:
    return {
        "input_tokens": _tokens(sum(len(text_of(message)) for message in messages)),
        "output_tokens": _tokens(sum(len(_output_text(message)) for message in outputs)),
        "estimated": 1,
    }


def response_usage(
    messages: Sequence[BaseMessage],
    generations: Sequence[Generation],
    llm_output: Mapping[str, Any] | None = None,
) -> dict[str, int]:
    """The tokens of one model call, from its ``messages`` and its response (``generations``
    and ``llm_output``): the provider's counts (every generation's ``usage_metadata``, else
    the ``token_usage`` of ``llm_output``), else an estimate of about four characters per
    token, marked ``estimated`` (a message stamped by :func:`stamped` keeps its mark). Counts
    that cannot be true (negative, not finite, absurd: :func:`checked_usage`) are not counted:
    the call is estimated instead, and the fault logged naming the model."""
    answers = [g.message for g in generations if isinstance(g, ChatGeneration)]
    counted = [
        (answer, usage)
        for answer in answers
        if (usage := getattr(answer, "usage_metadata", None)) is not None
    ]
    source = _source(answers, llm_output)
    try:
        if counted:
            usage = {
                "input_tokens": sum(_count(u, "input_tokens", source) for _, u in counted),
                "output_tokens": sum(_count(u, "output_tokens", source) for _, u in counted),
            }
            if any(answer.response_metadata.get(ESTIMATED) for answer, _ in counted):
                usage["estimated"] = 1
            return usage
        token_usage = (llm_output or {}).get("token_usage") or {}
        if token_usage:
            return {
                "input_tokens": _count(token_usage, "prompt_tokens", source),
                "output_tokens": _count(token_usage, "completion_tokens", source),
            }
    except UsageReportError as fault:
        _log.warning("%s", fault)
    return _estimate(messages, answers)


def _count(usage: Mapping[str, Any], key: str, source: str) -> int:
    """One count a provider reported, checked (0 when it reports none)."""
    return checked_usage({key: usage.get(key) or 0}, source)[key]


def _source(answers: Sequence[BaseMessage], llm_output: Mapping[str, Any] | None) -> str:
    """How a usage fault names the model that reported it."""
    names = [a.response_metadata.get("model_name") for a in answers]
    name = next((n for n in names if n), None) or (llm_output or {}).get("model_name")
    return f"the provider of model {name!r}" if name else "the model's provider"


def usage_of(
    messages: Sequence[BaseMessage], output: Any, reported: Mapping[str, int] | None = None
) -> dict[str, int]:
    """Tokens of a call: what its callbacks counted (``reported``, see :class:`ReportedUsage`),
    else the provider's count carried by the output, else an estimate (see
    :func:`response_usage`)."""
    if reported:
        return dict(reported)
    if isinstance(output, AIMessage):
        return response_usage(messages, [ChatGeneration(message=output)])
    answer = AIMessage(content=text_of(output))  # a parsed value: its text is the answer
    return response_usage(messages, [ChatGeneration(message=answer)])


def stamped(message: Any, usage: Mapping[str, int]) -> Any:
    """``message`` carrying ``usage`` as its ``usage_metadata`` (an estimate marked as one), so
    every reader of the call's response counts it the same; other values as they are."""
    if not isinstance(message, AIMessage):
        return message
    tokens_in, tokens_out = int(usage["input_tokens"]), int(usage["output_tokens"])
    estimated = bool(usage.get("estimated"))
    current = message.usage_metadata
    if (
        current is not None
        and (current.get("input_tokens"), current.get("output_tokens")) == (tokens_in, tokens_out)
        and bool(message.response_metadata.get(ESTIMATED)) == estimated
    ):
        return message
    metadata = {k: v for k, v in message.response_metadata.items() if k != ESTIMATED}
    if estimated:
        metadata[ESTIMATED] = True
    return message.model_copy(
        update={
            "usage_metadata": {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
            "response_metadata": metadata,
        }
    )


class ReportedUsage(BaseCallbackHandler):
    """The usage of the model calls made inside a derived runnable (bound tools, structured
    output), counted from their callbacks as :func:`response_usage` counts them: the same
    messages and response the call's span reads."""

    run_inline = True

    def __init__(self) -> None:
        self.counted: dict[str, int] = {}
        self._sent: dict[UUID, list[BaseMessage]] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        """Keep what the call sends."""
        with self._lock:
            self._sent[run_id] = list(messages[0]) if messages else []

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Add the call's usage."""
        with self._lock:
            sent = self._sent.pop(run_id, [])
        generations = [g for generations in response.generations for g in generations]
        usage = response_usage(sent, generations, response.llm_output)
        with self._lock:
            for key, amount in usage.items():
                if key == "estimated":
                    self.counted[key] = 1
                else:
                    self.counted[key] = self.counted.get(key, 0) + amount

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Forget a failed call."""
        with self._lock:
            self._sent.pop(run_id, None)


def observed_by(config: RunnableConfig | None, handler: BaseCallbackHandler) -> RunnableConfig:
    """``config`` with ``handler`` added to its callbacks, the callbacks the call would inherit
    kept (the node's: its span's model calls are its children)."""
    merged: RunnableConfig = ensure_config(config)
    callbacks = merged.get("callbacks")
    if callbacks is None or isinstance(callbacks, list):
        merged["callbacks"] = [*(callbacks or []), handler]
    else:
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        merged["callbacks"] = manager
    return merged


@functools.cache
def _per_model(name: str) -> tuple[str, str]:
    return f"input_tokens@{name}", f"output_tokens@{name}"


def usage_counts(name: str, usage: Mapping[str, int]) -> dict[str, float]:
    tokens_in, tokens_out = usage["input_tokens"], usage["output_tokens"]
    model_in, model_out = _per_model(name)
    counts: dict[str, float] = {
        "model_calls": 1,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        model_in: tokens_in,
        model_out: tokens_out,
    }
    if usage.get("estimated"):
        counts["estimated_model_calls"] = 1  # ``cadre show`` says how many counts are estimates
    return counts


def input_bound(messages: Sequence[Any], extra: Any = None) -> int:
    """A bound of the input tokens of a model call that no tokenizer spending at least a byte
    per token exceeds: the UTF-8 bytes of the messages and of what else is sent (``extra``:
    bound tools, a schema), plus a few tokens per message."""
    size = sum(len(text_of(message).encode()) + 4 for message in messages) + 3
    return size + len(json.dumps(extra, default=str).encode()) if extra else size


_TOTALLED = ("model_calls", "tool_calls", "input_tokens", "output_tokens")


def usage_totals(counts: Iterable[Mapping[str, float]]) -> dict[str, int]:
    """The calls and tokens over usage records' counts (the non-zero ones): what a run tells
    a caller it used, and what a remote's run is charged for here."""
    records = list(counts)
    totals = {name: int(sum(c.get(name, 0) for c in records)) for name in _TOTALLED}
    return {name: total for name, total in totals.items() if total}
