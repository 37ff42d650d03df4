"""A provider's answer streamed token by token through the model gateway.

A call streams when someone follows its tokens (LangGraph's ``messages`` stream mode, which a
server's ``messages``/``messages-tuple`` modes, AG-UI and A2A streaming read): the chunks are
handed on as they arrive and gathered into the call's one answer, usage included (the provider
is asked to report it in the stream). Each attempt's chunks carry an id of their own, so when a
cut stream is tried again by the gateway a client sees the cut message stop and a new one begin,
never the two run together; the answer is the last attempt's alone.

A stream that ends before the provider said it was finished (no ``finish_reason``) is a cut
stream: a transient failure, tried again. A stream still running past the call's deadline is
given up on.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from framework.models.gateway import ProviderGaveUpError

__all__ = ["StreamCall", "followed"]


def followed(run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None) -> bool:
    """Whether someone follows this call's tokens (a streaming handler is attached)."""
    handlers = run_manager.handlers if run_manager is not None else []
    return any(isinstance(handler, _StreamingCallbackHandler) for handler in handlers)


@dataclass(frozen=True, kw_only=True)
class StreamCall:
    """One streamed model call, attempt by attempt.

    Attributes:
        label: How messages name the model.
        run_id: The call's run (each attempt's message id is made from it).
        deadline_at: ``time.monotonic()`` past which the call is given up on.
        deadline_s: The deadline, in seconds, for the message.
        checks_finish: Whether a stream must end with a ``finish_reason`` (providers that send
            one: a stream without it was cut).
        cut: The transient error of a cut stream, from what was said of it.
    """

    label: str
    run_id: Any
    deadline_at: float
    deadline_s: float
    checks_finish: bool
    cut: Callable[[str], Exception]

    def gather(
        self,
        chunks: Iterator[ChatGenerationChunk],
        run_manager: CallbackManagerForLLMRun,
        attempt: int,
    ) -> ChatResult:
        """Attempt ``attempt``: hand each chunk on as it comes, then the whole answer."""
        taken: list[ChatGenerationChunk] = []
        for chunk in chunks:
            self._stamp(chunk, attempt, len(taken))
            run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            taken.append(chunk)
        return self._answer(taken)

    async def agather(
        self,
        chunks: AsyncIterator[ChatGenerationChunk],
        run_manager: AsyncCallbackManagerForLLMRun,
        attempt: int,
    ) -> ChatResult:
        """The async form of :meth:`gather`."""
        taken: list[ChatGenerationChunk] = []
        async for chunk in chunks:
            self._stamp(chunk, attempt, len(taken))
            await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            taken.append(chunk)
        return self._answer(taken)

    def _stamp(self, chunk: ChatGenerationChunk, attempt: int, taken: int) -> None:
        """Give ``chunk`` its attempt's message id and its metadata, or give up past the
        deadline."""
        if time.monotonic() > self.deadline_at:
            raise ProviderGaveUpError(
                f"{self.label} was still answering when its deadline of {self.deadline_s:g} s "
                f"passed ({taken} chunk(s) streamed): raise it in the model spec "
                "('#deadline_s=...'), or ask for less"
            )
        suffix = f"-{attempt}" if attempt > 1 else ""
        chunk.message.id = f"lc_run--{self.run_id}{suffix}"
        chunk.message.response_metadata = {
            **(chunk.generation_info or {}),
            **chunk.message.response_metadata,
        }

    def _answer(self, taken: list[ChatGenerationChunk]) -> ChatResult:
        """The streamed answer, or the cut-stream error when it did not finish."""
        finished = any((c.generation_info or {}).get("finish_reason") for c in taken)
        if not taken or (self.checks_finish and not finished):
            raise self.cut(
                f"ended its stream before the answer was complete ({len(taken)} chunk(s))"
            )
        return generate_from_stream(iter(taken))
