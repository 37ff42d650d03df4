"""Record and replay of model calls: a cassette holds the calls of one eval case
(``cadre eval --record/--replay``).

While a cassette is current (:func:`use_cassette`, a context variable, so it follows
LangGraph's tasks, the threads it copies context into and asyncio tasks), every call of a
:class:`~framework.models.chat.ProviderChatModel` goes through it:

- **record**: the call is made as usual, through the gateway, and its request (digest, role,
  the request itself) and result (the message, usage included, and the provider's output) are
  kept;
- **replay**: the call never reaches the gateway or the network; it is answered from the
  recording of an equal request (equal requests in the order they were recorded: parallel
  workers make the global order vary). A request with no recording raises one
  :class:`ReplayMismatchError` line naming what changed. A replayed answer reaches a follower
  of the call's tokens (``messages`` stream mode) as one chunk, as a live one streams.

Requests are compared as :mod:`framework.models.recording` describes them (never the URL or
the key). :meth:`Cassette.to_bytes` is JSON; the caller seals it.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables.config import ensure_config

from framework.errors import ConfigError
from framework.models.recording import (
    difference,
    digest,
    gist,
    loaded_result,
    request_of,
    result_json,
    role_of,
    who,
)
from framework.models.specs import SCRIPTED, ModelSpec
from framework.models.streaming import followed

__all__ = [
    "CASSETTE_VERSION",
    "Cassette",
    "ReplayMismatchError",
    "current_cassette",
    "refuse_unrecorded",
    "replaying",
    "use_cassette",
]

CASSETTE_VERSION: Final = 1
"""The version of :meth:`Cassette.to_bytes`'s JSON."""

Mode = Literal["record", "replay"]
RunManager = CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun

_AGAIN: Final = "record it again with --record"

_CURRENT: ContextVar[Cassette | None] = ContextVar("cadre_cassette", default=None)


class ReplayMismatchError(ConfigError):
    """A replayed call has no recording: the request changed since it was recorded, or the
    role made more calls; the message names the case, the role, the call and what changed."""


def current_cassette() -> Cassette | None:
    """The cassette model calls go through now (None: they are made as usual)."""
    return _CURRENT.get()


def replaying() -> bool:
    """Whether calls made now are answered from a recording (no provider is reached)."""
    cassette = _CURRENT.get()
    return cassette is not None and cassette.mode == "replay"


@contextmanager
def use_cassette(cassette: Cassette | None) -> Iterator[Cassette | None]:
    """Make ``cassette`` current for the calls made inside the block (None: none)."""
    token = _CURRENT.set(cassette)
    try:
        yield cassette
    finally:
        _CURRENT.reset(token)


def refuse_unrecorded(label: str) -> None:
    """Refuse, while a cassette is current, a call of the model ``label`` that does not go
    through its :class:`~framework.models.chat.ProviderChatModel` (a tool binding or
    structured output the provider's model made itself), which could be neither recorded nor
    replayed.

    Raises:
        ConfigError: A cassette is current.
    """
    cassette = _CURRENT.get()
    if cassette is not None:
        raise ConfigError(
            f"{cassette.label}: a call of {label} through a tool binding or structured output "
            f"of the provider's own cannot be {cassette.mode}ed (only calls through cadre's "
            "chat model are): use an OpenAI-compatible provider and pydantic schemas, or run "
            "the case without --record/--replay"
        )


class Cassette:
    """The recorded model calls of one eval case.

    Args:
        mode: ``record`` (calls are made and kept) or ``replay`` (calls are answered from the
            recording).
        label: How errors name the case (``case r03 of docs.yaml``).
    """

    def __init__(self, mode: Mode, label: str) -> None:
        if mode not in ("record", "replay"):
            raise ConfigError(f"a cassette's mode is 'record' or 'replay', not {mode!r}")
        self.mode: Mode = mode
        self.label = label
        self._entries: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._waiting: dict[str, deque[int]] = {}
        self._used: set[int] = set()
        self._asked: Counter[str] = Counter()
        self._mismatches: list[str] = []

    @property
    def calls(self) -> int:
        """How many calls are recorded."""
        return len(self._entries)

    @property
    def mismatches(self) -> tuple[str, ...]:
        """The :class:`ReplayMismatchError` lines raised so far (a worker turns an error into
        a failed task: the case fails on them all the same)."""
        with self._lock:
            return tuple(self._mismatches)

    def to_bytes(self) -> bytes:
        """The recording as JSON (a ``version`` and the ``calls``)."""
        with self._lock:
            data = {"version": CASSETTE_VERSION, "calls": list(self._entries)}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, data: bytes, mode: Mode, label: str) -> Cassette:
        """The cassette :meth:`to_bytes` wrote.

        Raises:
            ConfigError: ``data`` is not a cassette, or one of another version.
        """
        try:
            loaded = json.loads(data)
            version, calls = loaded["version"], loaded["calls"]
            keys = [set(call) for call in calls]
        except (ValueError, TypeError, KeyError):
            raise ConfigError(f"{label}: the recording is not a cadre cassette; {_AGAIN}") from None
        if version != CASSETTE_VERSION:
            raise ConfigError(
                f"{label}: the recording is of cassette version {version!r}, and this cadre "
                f"reads version {CASSETTE_VERSION}; {_AGAIN}"
            )
        if any(k != {"digest", "role", "request", "result"} for k in keys):
            raise ConfigError(f"{label}: the recording has a malformed call; {_AGAIN}")
        cassette = cls(mode, label)
        cassette._entries = list(calls)
        for index, call in enumerate(calls):
            cassette._waiting.setdefault(call["digest"], deque()).append(index)
        return cassette

    def unused(self) -> list[str]:
        """Replay: the recorded calls never asked for, in recorded order, as short
        descriptions (record: none)."""
        if self.mode == "record":
            return []
        numbers: Counter[str] = Counter()
        left = []
        with self._lock:
            for index, entry in enumerate(self._entries):
                numbers[entry["role"]] += 1
                if index not in self._used:
                    call = f"{who(entry['role'])}'s recorded call {numbers[entry['role']]}"
                    left.append(f"{call}: {gist(entry['request'])}")
        return left

    def answer(
        self,
        spec: ModelSpec,
        call: tuple[list[BaseMessage], list[str] | None, Mapping[str, Any]],
        run_manager: CallbackManagerForLLMRun | None,
        live: Callable[[], ChatResult],
    ) -> ChatResult:
        """A call's result: ``live()``'s, recorded, or the recording's.

        Args:
            spec: The model.
            call: Its messages, stop sequences and provider keyword arguments.
            run_manager: Its run's callbacks.
            live: Makes the call through the gateway.

        Raises:
            ReplayMismatchError: Replaying, the call has no recording.
        """
        request, role = request_of(spec, *call), _role(run_manager)
        if self.mode == "record":
            return self._recorded(request, role, live())
        result = self._replayed(request, role)
        chunk = _chunk(spec, call[2], run_manager, result)
        if chunk is not None and run_manager is not None:
            run_manager.on_llm_new_token(chunk.text, chunk=chunk)
        return result

    async def aanswer(
        self,
        spec: ModelSpec,
        call: tuple[list[BaseMessage], list[str] | None, Mapping[str, Any]],
        run_manager: AsyncCallbackManagerForLLMRun | None,
        live: Callable[[], Awaitable[ChatResult]],
    ) -> ChatResult:
        """The async form of :meth:`answer`."""
        request, role = request_of(spec, *call), _role(run_manager)
        if self.mode == "record":
            return self._recorded(request, role, await live())
        result = self._replayed(request, role)
        chunk = _chunk(spec, call[2], run_manager, result)
        if chunk is not None and run_manager is not None:
            await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
        return result

    def _recorded(self, request: dict[str, Any], role: str, result: ChatResult) -> ChatResult:
        entry = {
            "digest": digest(request),
            "role": role,
            "request": request,
            "result": result_json(result),
        }
        with self._lock:
            self._entries.append(entry)
        return result

    def _replayed(self, request: dict[str, Any], role: str) -> ChatResult:
        key = digest(request)
        with self._lock:
            self._asked[role] += 1
            waiting = self._waiting.get(key)
            if waiting:
                index = waiting.popleft()
                self._used.add(index)
                return loaded_result(self._entries[index]["result"])
            said = self._mismatch(request, role, self._asked[role])
            self._mismatches.append(said)
        # the error may reach logs and spans: it names the call, not the prompt's text (the
        # full line, with what changed, is in :attr:`mismatches`, for the eval's result)
        raise ReplayMismatchError(
            f"{self.label}: {who(role)}'s call {self._asked[role]} has no recording that "
            f"matches it (the eval's result says what changed); {_AGAIN}"
        )

    def _mismatch(self, request: Mapping[str, Any], role: str, number: int) -> str:
        """The line saying why the ``number``-th call of ``role`` has no recording."""
        mine = [i for i, entry in enumerate(self._entries) if entry["role"] == role]
        left = [self._entries[i]["request"] for i in mine if i not in self._used]
        named = who(role)
        if not mine:
            said = f"{named}'s call {number} has no recording (it holds no call of {named})"
        elif not left:
            said = f"{named} has no recorded call left ({len(mine)} recorded, {len(mine)} used)"
        else:
            changed = difference(left, request)
            said = f"{named}'s call {number} no longer matches its recording: {changed}"
        return f"{self.label}: {said}; {_AGAIN}"


def _role(run_manager: RunManager | None) -> str:
    """The role of the call that ``run_manager`` reports (else of the current runnable)."""
    metadata = run_manager.metadata if run_manager is not None else None
    return role_of(metadata or ensure_config().get("metadata") or {})


def _chunk(
    spec: ModelSpec,
    kwargs: Mapping[str, Any],
    run_manager: RunManager | None,
    result: ChatResult,
) -> ChatGenerationChunk | None:
    """A replayed answer as the one chunk its followers are handed (its message taking the
    chunk's id, as a streamed one does); None when a live call would not have streamed:
    nobody follows its tokens, the call turned streaming off, or the model cannot stream."""
    streams = spec.provider != SCRIPTED and kwargs.get("stream", True)
    if run_manager is None or not streams or not followed(run_manager):
        return None
    generation = result.generations[0]
    message = generation.message
    if not isinstance(message, AIMessage):
        return None
    message.id = f"lc_run--{run_manager.run_id}"
    streamed = AIMessageChunk(
        content=message.content,
        id=message.id,
        additional_kwargs=message.additional_kwargs,
        response_metadata=message.response_metadata,
        usage_metadata=message.usage_metadata,
        tool_call_chunks=[
            tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
            for i, c in enumerate(message.tool_calls)
        ],
    )
    return ChatGenerationChunk(message=streamed, generation_info=generation.generation_info)
