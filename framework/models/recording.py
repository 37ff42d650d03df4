"""One recorded model call as JSON: its request (what the digest is made of, kept so a
mismatch can say what changed), the role that made it, and its result.

A request holds what shapes the answer: the model (provider and name, never the URL or key, so
a recording made against one host replays against another), the messages (type, content,
tool calls, tool call id, name), the stop sequences and the call's keyword arguments (tools,
tool choice, response format, temperature, output limit...), less the ones that only shape
the transport (:data:`TRANSPORT_KWARGS`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel

from framework.engine.nesting import namespace_nodes
from framework.models.specs import ModelSpec

__all__ = [
    "TRANSPORT_KWARGS",
    "difference",
    "digest",
    "gist",
    "loaded_result",
    "request_of",
    "result_json",
    "role_of",
    "who",
]

TRANSPORT_KWARGS: Final = frozenset({"stream", "stream_options", "timeout"})
"""Call keyword arguments left out of a request: they change how an answer comes, not what."""

_SNIPPET: Final = 20
"""Characters shown on each side of the first difference."""


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it: a pydantic class as its schema, an instance as its data,
    anything else as its ``repr``."""
    if isinstance(value, type) and issubclass(value, BaseModel):
        return value.model_json_schema()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return repr(value)


def _json(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` made of JSON types only (a round trip, so a recording compares equal to what
    it replays)."""
    plain: dict[str, Any] = json.loads(json.dumps(value, default=_plain, ensure_ascii=False))
    return plain


def _message(message: BaseMessage) -> dict[str, Any]:
    shown: dict[str, Any] = {"type": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        shown["tool_calls"] = [
            {"name": c["name"], "args": c["args"], "id": c.get("id")} for c in calls
        ]
    for key in ("tool_call_id", "name"):
        if getattr(message, key, None) is not None:
            shown[key] = getattr(message, key)
    return shown


def request_of(
    spec: ModelSpec,
    messages: Sequence[BaseMessage],
    stop: list[str] | None,
    kwargs: Mapping[str, Any],
) -> dict[str, Any]:
    """A call's request, as recorded."""
    shaping = {k: v for k, v in sorted(kwargs.items()) if k not in TRANSPORT_KWARGS}
    return _json(
        {
            "model": f"{spec.provider}:{spec.name}",
            "messages": [_message(m) for m in messages],
            "stop": stop,
            "tools": shaping.pop("tools", None),
            "kwargs": shaping,
        }
    )


def digest(request: Mapping[str, Any]) -> str:
    """The sha256 of a request's canonical JSON."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def role_of(metadata: Mapping[str, Any]) -> str:
    """The role a call was made from, from its run's metadata: the nodes down to it
    (``research_team/planner``; a Send's task ids left out), or ``""`` outside a graph."""
    nodes = namespace_nodes(str(metadata.get("langgraph_checkpoint_ns") or ""))
    if not nodes and metadata.get("langgraph_node"):
        nodes = [str(metadata["langgraph_node"])]
    return "/".join(nodes)


def who(role: str) -> str:
    """How a message names a role (``the caller`` outside a graph)."""
    return f"the {role}" if role else "the caller"


def result_json(result: ChatResult) -> dict[str, Any]:
    """A call's result, as recorded: each generation's message (usage included) and info, and
    the provider's output. A message id cadre made for the run (``lc_run-``) is left out: a
    replay gets its own."""
    generations = []
    for generation in result.generations:
        message = message_to_dict(generation.message)
        if str(message["data"].get("id") or "").startswith("lc_run-"):
            message["data"]["id"] = None
        generations.append({"message": message, "info": generation.generation_info})
    return _json({"generations": generations, "llm_output": result.llm_output})


def loaded_result(recorded: Mapping[str, Any]) -> ChatResult:
    """A recorded result as a new :class:`ChatResult`."""
    messages = messages_from_dict([g["message"] for g in recorded["generations"]])
    generations = [
        ChatGeneration(message=message, generation_info=g["info"])
        for message, g in zip(messages, recorded["generations"], strict=True)
    ]
    return ChatResult(generations=generations, llm_output=recorded["llm_output"])


def _fields(request: Mapping[str, Any]) -> dict[str, Any]:
    """A request's fields by how a message names them, in the order they are compared."""
    fields: dict[str, Any] = {"the model": request["model"]}
    fields["the number of messages"] = len(request["messages"])
    for number, message in enumerate(request["messages"]):
        named = f"message {number} ({message['type']})"
        fields[f"message {number}'s type"] = message["type"]
        fields[named] = message["content"]
        for key in ("tool_calls", "tool_call_id", "name"):
            fields[f"{named}'s {key.replace('_', ' ')}"] = message.get(key)
    fields["the tools"] = request["tools"]
    fields["the stop sequences"] = request["stop"]
    for key, value in request["kwargs"].items():
        fields[key] = value
    return fields


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cut(text: str, at: int) -> str:
    start, end = max(0, at - _SNIPPET), at + _SNIPPET
    shown = ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")
    return json.dumps(shown, ensure_ascii=False)


def _first_change(recorded: Mapping[str, Any], asked: Mapping[str, Any]) -> tuple[int, str]:
    """Where ``asked`` first differs from ``recorded`` (the field's rank, or the number of
    fields when none does) and what changed, in words."""
    old, new = _fields(recorded), _fields(asked)
    for rank, label in enumerate(dict.fromkeys([*new, *old])):
        was, now = old.get(label), new.get(label)
        if was == now:
            continue
        if label not in old or label not in new:
            return rank, f"{label} {'is new' if label not in old else 'is gone'}"
        before, after = _text(was), _text(now)
        if len(before) + len(after) <= 2 * _SNIPPET:
            return rank, f"{label} changed: {_shown(was)} became {_shown(now)}"
        at = next(
            (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
            min(len(before), len(after)),
        )
        return (
            rank,
            f"{label} changed at character {at}: {_cut(before, at)} became {_cut(after, at)}",
        )
    return len(old) + len(new), "nothing changed"


def difference(candidates: Sequence[Mapping[str, Any]], asked: Mapping[str, Any]) -> str:
    """What changed in ``asked`` against the closest of ``candidates`` (recorded requests):
    the one whose first difference comes latest (the first recorded of equals)."""
    changes = [_first_change(recorded, asked) for recorded in candidates]
    return max(changes, key=lambda change: change[0])[1]


def gist(request: Mapping[str, Any]) -> str:
    """A request in a few words: its number of messages and the start of the last one."""
    messages = request["messages"]
    if not messages:
        return "no messages"
    last = messages[-1]
    text = " ".join(_text(last["content"]).split())
    start = text[: 2 * _SNIPPET] + ("..." if len(text) > 2 * _SNIPPET else "")
    return f"{len(messages)} message(s), the last ({last['type']}) {_shown(start)}"
