"""A team's answer handed to whoever follows the run's messages, a few words at a time.

A model's tokens reach LangGraph's ``messages`` stream mode through the callbacks of its call
(:mod:`framework.models.streaming`). A team's answer is written by its formatter, with or
without a model (an offline report, a report rendered from a model's structured draft), so it
is spoken through the same callbacks as a message in chunks: a chat front end, AG-UI or an A2A
stream shows it the same way whatever wrote it. Only the handlers that follow a stream hear it;
budgets, usage and telemetry see no model call, for there was none.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
from langchain_core.runnables.config import ensure_config, get_callback_manager_for_config
from langchain_core.tracers._streaming import _StreamingCallbackHandler

__all__ = ["ANSWER_KEY", "speaks_answer", "spoken"]

ANSWER_KEY = "cadre_answer"
"""The metadata key marking a streamed message as the run's answer (the answer of the team
that was asked, not of a team working on one of its tasks)."""

WORDS_PER_CHUNK = 4
"""Words in each chunk of a spoken answer."""

_WORD = re.compile(r"\s*\S+\s*")


def spoken(text: str, *, name: str, answer: bool) -> AIMessage:
    """The message ``text`` as ``name`` wrote it, spoken in chunks to whoever follows the
    current run's messages (no one: the message alone); marked as the run's ``answer`` with
    :data:`ANSWER_KEY` in its metadata."""
    manager = _followers()
    if manager is None or not text:
        return AIMessage(text, name=name)
    if answer:
        manager.add_metadata({ANSWER_KEY: True}, inherit=False)
    message = AIMessage(text, name=name, id=f"lc_run--{uuid.uuid4()}")
    (run,) = manager.on_chat_model_start({"name": name}, [[HumanMessage(name)]])
    words = _WORD.findall(text)
    for start in range(0, len(words), WORDS_PER_CHUNK):
        piece = "".join(words[start : start + WORDS_PER_CHUNK])
        chunk = AIMessageChunk(content=piece, name=name, id=message.id)
        run.on_llm_new_token(piece, chunk=ChatGenerationChunk(message=chunk))
    run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]))
    return message


def speaks_answer(metadata: Mapping[str, Any]) -> bool:
    """Whether a streamed message's ``metadata`` marks it as the run's answer."""
    return metadata.get(ANSWER_KEY) is True


def _followers() -> CallbackManager | None:
    """The current run's callbacks that follow a stream (None when none does)."""
    manager = get_callback_manager_for_config(ensure_config())
    following: list[BaseCallbackHandler] = [
        h for h in manager.handlers if isinstance(h, _StreamingCallbackHandler)
    ]
    if not following:
        return None
    followers = manager.copy()
    followers.handlers = following
    followers.inheritable_handlers = [
        h for h in manager.inheritable_handlers if isinstance(h, _StreamingCallbackHandler)
    ]
    return followers
