"""What a model call used: the provider's counts (carried by its message, or reported through
its callbacks when a derived runnable returns no message), else an estimate marked as one; and a
bound of its input that no byte-level tokenizer exceeds, for reservations."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult
from langchain_core.runnables import RunnableConfig

__all__ = [
    "ReportedUsage",
    "input_bound",
    "observed_by",
    "text_of",
    "usage_counts",
    "usage_of",
]


def text_of(value: Any) -> str:
    if isinstance(value, BaseMessage):
        return value.text if isinstance(value.content, list) else str(value.content)
    if hasattr(value, "model_dump_json"):
        return str(value.model_dump_json())
    return str(value)


def usage_of(
    messages: Sequence[BaseMessage], output: Any, reported: Mapping[str, int] | None = None
) -> dict[str, int]:
    """Tokens of a call: the provider's count (``reported`` by its callbacks, or carried by the
    output), else about four characters per token, marked ``estimated``."""
    counted = getattr(output, "usage_metadata", None)
    if reported:
        return dict(reported)
    if isinstance(output, AIMessage) and counted:
        return {
            "input_tokens": int(counted.get("input_tokens", 0)),
            "output_tokens": int(counted.get("output_tokens", 0)),
        }
    given = sum(len(text_of(message)) for message in messages)
    return {
        "input_tokens": -(-given // 4),
        "output_tokens": -(-len(text_of(output)) // 4),
        "estimated": 1,
    }


class ReportedUsage(BaseCallbackHandler):
    """The usage a provider reports for the model call inside a derived runnable (structured
    output returns no message to read it from)."""

    def __init__(self) -> None:
        self.counted: dict[str, int] = {}

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Add the usage of every generation that carries one."""
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if not usage:
                    continue
                for key in ("input_tokens", "output_tokens"):
                    self.counted[key] = self.counted.get(key, 0) + int(usage.get(key, 0))


def observed_by(config: RunnableConfig | None, handler: BaseCallbackHandler) -> RunnableConfig:
    """``config`` with ``handler`` added to its callbacks."""
    merged: RunnableConfig = {**(config or {})}
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
