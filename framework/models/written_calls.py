"""Tool calls a model wrote as text.

Small local models, and servers without a tool-call parser for the model's chat template, often
answer a request that offers tools with the call written out as the whole answer, rather than
in the API's ``tool_calls``: ``{"name": "multiply", "arguments": {"a": 6, "b": 7}}``, in a
``json`` code fence, between ``<tool_call>`` tags, or a list of them (``parameters`` for
``arguments`` too). :func:`written_calls` reads such an answer as the tool calls it names, only
when the answer is nothing but calls to tools the request offered, so prose that quotes JSON
stays prose.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection, Mapping
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.messages.tool import ToolCall

__all__ = ["offered_tools", "written_calls"]

_WRAPPERS = (
    re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S),
    re.compile(r"^<tool_call>\s*(.*?)\s*</tool_call>$", re.S),
)


def offered_tools(kwargs: Mapping[str, Any]) -> frozenset[str]:
    """The names of the tools a call's arguments offer the model (OpenAI's ``tools`` shape)."""
    names = set()
    for tool in kwargs.get("tools") or ():
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return frozenset(names)


def written_calls(message: AIMessage, offered: Collection[str]) -> AIMessage | None:
    """``message`` with the tool calls it wrote as text as its ``tool_calls``; None when it made
    calls the API's way, or its text is anything but calls to ``offered`` tools."""
    if message.tool_calls or not offered or not isinstance(message.content, str):
        return None
    calls = _calls(_unwrapped(message.content.strip()), offered)
    if not calls:
        return None
    return message.model_copy(update={"content": "", "tool_calls": calls})


def _unwrapped(text: str) -> str:
    for wrapper in _WRAPPERS:
        found = wrapper.match(text)
        if found:
            return found[1].strip()
    return text


def _calls(text: str, offered: Collection[str]) -> list[ToolCall] | None:
    if not text.startswith(("{", "[")):
        return None
    try:
        written = json.loads(text)
    except ValueError:
        return None
    items = written if isinstance(written, list) else [written]
    calls = [_call(item, offered) for item in items]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _call(item: Any, offered: Collection[str]) -> ToolCall | None:
    if not isinstance(item, Mapping) or set(item) - {"name", "arguments", "parameters", "id"}:
        return None
    name, arguments = item.get("name"), item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(name, str) or name not in offered or not isinstance(arguments, dict):
        return None
    call_id = item.get("id") if isinstance(item.get("id"), str) else f"call_{uuid.uuid4().hex[:12]}"
    return ToolCall(name=name, args=arguments, id=call_id, type="tool_call")
