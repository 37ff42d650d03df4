"""A run's input as chat front ends send it, and the human turn a thread's ``messages`` holds.

LangGraph's chat clients (Agent Chat UI, ``useStream``) start a run with
``{"messages": [{"type": "human", "content": ...}]}``: the text of the last human message is
the question (a later one on the same thread is the next question). cadre's own doors send
``{"question": ...}``: the question becomes the human message. Either way the thread's
``messages`` holds the human turn before the team's answer, as a chat front end shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.exceptions import HTTPException

__all__ = ["chat_input"]

_HUMAN = frozenset({"human", "user"})
"""A human message's ``type`` (LangChain) or ``role`` (OpenAI's form, which LangGraph reads)."""


def chat_input(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with both the question and its human message (for a team whose input takes
    a question and chat messages).

    Raises:
        HTTPException: 422 when ``messages`` is not a list, or holds no human message with
            text and no question is given.
    """
    messages = values.get("messages")
    if "question" in values or messages is None:
        question = values.get("question")
        if not isinstance(question, str) or not question or messages is not None:
            return dict(values)
        return {**values, "messages": [{"type": "human", "content": question}]}
    if not isinstance(messages, list):
        raise HTTPException(422, "input.messages: a list of messages")
    question = next(filter(None, map(_human_text, reversed(messages))), "")
    if not question:
        raise HTTPException(
            422,
            'input.messages holds no human message with text: send {"messages": [{"type": '
            '"human", "content": "..."}]} or {"question": "..."}',
        )
    return {**values, "question": question}


def _human_text(message: Any) -> str:
    """The text of a human message (its text parts joined), "" for any other message."""
    if not isinstance(message, Mapping):
        return ""
    if message.get("type", message.get("role")) not in _HUMAN:
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    parts = [
        part.get("text") if isinstance(part, Mapping) else part
        for part in content
        if isinstance(part, str) or (isinstance(part, Mapping) and part.get("type") == "text")
    ]
    return "\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()
