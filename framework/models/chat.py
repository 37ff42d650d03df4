"""A provider's chat model behind cadre's errors, built only when a run needs it.

:class:`ProviderChatModel` stands for a model spec (:mod:`framework.models.specs`). It builds
the provider's model on first use (or at once, to refuse missing credentials before a run
starts), so a command that only reads a thread never constructs a model. Every call through it,
and through the runnables its ``bind_tools`` and ``with_structured_output`` return, goes
through the model gateway (:mod:`framework.models.gateway`): bounded in time, retried in one
place, the SDK's own retries off; its failures are one-line errors that name the provider and
what to do (:mod:`framework.models.provider_errors`); it streams when someone follows its
tokens (:mod:`framework.models.streaming`); and tool calls a model wrote as text are read as
tool calls (:mod:`framework.models.written_calls`). While a cassette is current, its calls are
recorded or replayed (:mod:`framework.models.cassette`).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, TypeGuard

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import (
    Runnable,
    RunnableBinding,
    RunnableLambda,
)
from pydantic import BaseModel, PrivateAttr

from framework.models._deferred import Deferred
from framework.models.cassette import current_cassette, replaying
from framework.models.gateway import CallLimits, Gateway
from framework.models.heartbeats import run_teller
from framework.models.provider_errors import (
    ProviderError,
    ProviderUnavailableError,
    provider_error,
)
from framework.models.provider_limiter import ProviderLimiter, limiter_for
from framework.models.repair import RepairedOutput, fitted
from framework.models.specs import (
    COMPATIBLE,
    OUTPUT_LIMIT,
    SCRIPTED,
    ModelSpec,
    output_limit_kwarg,
    parse_model_spec,
    resolve_model,
)
from framework.models.streaming import StreamCall, followed
from framework.models.written_calls import offered_tools, written_calls

__all__ = ["ProviderChatModel"]

_log = logging.getLogger("cadre.models")


class _Core:
    """What a :class:`ProviderChatModel` holds besides its spec, as one private attribute
    (pydantic looks each private attribute up in microseconds, on every call)."""

    __slots__ = ("gateway", "lock", "loop_models", "model", "parsed")

    def __init__(self, parsed: ModelSpec, gateway: Gateway) -> None:
        self.parsed, self.gateway = parsed, gateway
        self.model: BaseChatModel | None = None
        self.loop_models: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BaseChatModel]
        self.loop_models = weakref.WeakKeyDictionary()
        self.lock = threading.Lock()


@functools.lru_cache(maxsize=256)
def _described(spec: str) -> tuple[str, Mapping[str, Any]]:
    """A spec's LangChain model type and identifying parameters (asked on every call)."""
    parsed = parse_model_spec(spec)
    where = {"base_url": parsed.base_url} if parsed.base_url else {}
    return f"cadre-{parsed.provider}", {"provider": parsed.provider, "model": parsed.name, **where}


def _streams(
    model: BaseChatModel,
    run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun,
    kwargs: Mapping[str, Any],
) -> bool:
    """Whether a call streams: someone follows its tokens, the call did not turn streaming
    off, and the provider's ``model`` can stream (a scripted file cannot)."""
    if not followed(run_manager) or not kwargs.get("stream", True):
        return False
    return type(model)._stream is not BaseChatModel._stream


def _with_written_calls(result: ChatResult, kwargs: Mapping[str, Any]) -> ChatResult:
    """``result`` with the tool calls its model wrote as text read as tool calls, when the call
    offered tools (:mod:`framework.models.written_calls`)."""
    offered = offered_tools(kwargs) if "tools" in kwargs else frozenset()
    generation = result.generations[0] if offered and result.generations else None
    if generation is None or not isinstance(generation.message, AIMessage):
        return result
    read = written_calls(generation.message, offered)
    if read is None:
        return result
    _log.info("read %d tool call(s) the model wrote as text", len(read.tool_calls))
    kept = ChatGeneration(message=read, generation_info=generation.generation_info)
    return ChatResult(generations=[kept], llm_output=result.llm_output)


class ProviderChatModel(BaseChatModel):
    """``provider:name`` as a chat model, built on first use; provider failures become
    :class:`ProviderError`\\ s.

    Args:
        spec: The model as ``provider:name``.
        build_now: Build the provider's model at once (refusing a missing package or missing
            credentials with a ConfigError before anything runs).
        limits: How long its calls may take and how often they are tried (default: the
            spec's, ``#idle_s=30``..., else :data:`~framework.models.gateway.DEFAULT_LIMITS`).
    """

    spec: str
    _core: _Core = PrivateAttr()

    def __init__(
        self, spec: str, *, build_now: bool = False, limits: CallLimits | None = None
    ) -> None:
        super().__init__(spec=spec)
        parsed = parse_model_spec(spec)
        gateway = Gateway(
            label=parsed.label,
            limiter=limiter_for(f"{parsed.provider}@{parsed.base_url or ''}"),
            limits=limits or parsed.limits,
            translate=self._translated,
            transient=lambda error: isinstance(error, ProviderUnavailableError),
            teller=run_teller,
        )
        self._core = _Core(parsed, gateway)
        if build_now and not replaying():  # a replayed model is never called: not built yet
            self.built()

    def _translated(self, error: Exception) -> Exception | None:
        """``error`` as the gateway sees it: a provider's failure as cadre's (one of ours, such
        as a cut stream, as it is); None for anything else."""
        if isinstance(error, ProviderError):
            return error
        return provider_error(error, self._core.parsed)

    @property
    def built_yet(self) -> bool:
        """Whether the provider's model has been constructed."""
        return self._core.model is not None

    def built(self) -> BaseChatModel:
        """The provider's model, constructed once (ConfigError when it cannot be)."""
        core = self._core
        if core.model is not None:
            return core.model
        with core.lock:
            if core.model is None:
                core.model = self._build()
            return core.model

    def abuilt(self) -> BaseChatModel:
        """The provider's model for async calls on the running event loop: one per loop, for
        an SDK's async client holds connections of the loop it was first used on (a server
        runs each run on a loop of its own, and the model outlives them); a scripted model's
        one model, whose answers are taken in order."""
        core = self._core
        if core.parsed.provider == SCRIPTED:  # answers from a file, in order: one model
            return self.built()
        loop = asyncio.get_running_loop()
        model = core.loop_models.get(loop)
        if model is None:
            self.built()  # the first build refuses a bad spec, as a sync call would
            with core.lock:
                model = core.loop_models.setdefault(loop, self._build())
        return model

    def _build(self) -> BaseChatModel:
        parsed = self._core.parsed
        options = _sdk_options(parsed, self.limits)
        if replaying() and parsed.provider in _KEYED:  # built (to bind tools), never called
            options["api_key"] = _REPLAY_KEY
            if parsed.provider in ("openai", COMPATIBLE):  # no SSL context made per case
                options["http_client"], options["http_async_client"] = _unused_clients()
        return resolve_model(parsed, disable_streaming=True, **options)

    @property
    def label(self) -> str:
        """How errors name this model (``openai-compatible model m at http://...``)."""
        return self._core.parsed.label

    @property
    def gateway(self) -> Gateway:
        """The gateway every call of this model goes through."""
        return self._core.gateway

    @property
    def limits(self) -> CallLimits:
        """How long its calls may take and how often they are tried."""
        return self._core.gateway.limits

    @property
    def limiter(self) -> ProviderLimiter:
        """The limiter of its provider, shared by every call of this process to it."""
        return self._core.gateway.limiter

    @property
    def _llm_type(self) -> str:
        return _described(self.spec)[0]

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return dict(_described(self.spec)[1])

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        """The provider and model, for tracing (LangChain's default guesses them from
        attributes this model does not have, on every call)."""
        described = _described(self.spec)[1]
        params = LangSmithParams(
            ls_provider=described["provider"],
            ls_model_name=described["model"],
            ls_model_type="chat",
        )
        if stop:
            params["ls_stop"] = stop
        return params

    def provider_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` for the provider's model: :data:`OUTPUT_LIMIT` under the provider's own
        name (the smaller, when the caller set that too)."""
        limit = kwargs.pop(OUTPUT_LIMIT, None)
        if limit is None:
            return kwargs
        name = output_limit_kwarg(self._core.parsed)
        given = kwargs.get(name)
        kwargs[name] = limit if given is None else min(int(given), int(limit))
        return kwargs

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        kwargs = self.provider_kwargs(kwargs)
        cassette = current_cassette()
        if cassette is None:
            return self._called(messages, stop, run_manager, kwargs)
        call = (messages, stop, kwargs)
        live = partial(self._called, messages, stop, run_manager, kwargs)
        return cassette.answer(self._core.parsed, call, run_manager, live)

    def _called(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        run_manager: CallbackManagerForLLMRun | None,
        kwargs: dict[str, Any],
    ) -> ChatResult:
        """The call, made through the gateway."""
        core = self._core
        gateway, model = core.gateway, core.model
        model = model if model is not None else self.built()
        if run_manager is not None and _streams(model, run_manager, kwargs):
            call, attempts = self._stream_call(run_manager), itertools.count(1)
            result = gateway.call(
                lambda: call.gather(
                    model._stream(messages, stop, None, **kwargs), run_manager, next(attempts)
                )
            )
        else:
            result = gateway.call(lambda: model._generate(messages, stop, run_manager, **kwargs))
        return _with_written_calls(result, kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        kwargs = self.provider_kwargs(kwargs)
        cassette = current_cassette()
        if cassette is None:
            return await self._acalled(messages, stop, run_manager, kwargs)
        call = (messages, stop, kwargs)
        live = partial(self._acalled, messages, stop, run_manager, kwargs)
        return await cassette.aanswer(self._core.parsed, call, run_manager, live)

    async def _acalled(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        run_manager: AsyncCallbackManagerForLLMRun | None,
        kwargs: dict[str, Any],
    ) -> ChatResult:
        """The async call, made through the gateway."""
        gateway, model = self._core.gateway, self.abuilt()
        if run_manager is not None and _streams(model, run_manager, kwargs):
            call, attempts = self._stream_call(run_manager), itertools.count(1)
            result = await gateway.acall(
                lambda: call.agather(
                    model._astream(messages, stop, None, **kwargs), run_manager, next(attempts)
                )
            )
        else:
            result = await gateway.acall(
                lambda: model._agenerate(messages, stop, run_manager, **kwargs)
            )
        return _with_written_calls(result, kwargs)

    def _stream_call(
        self, run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun
    ) -> StreamCall:
        limits, parsed = self.limits, self._core.parsed
        return StreamCall(
            label=parsed.label,
            run_id=run_manager.run_id,
            deadline_at=time.monotonic() + limits.deadline_s,
            deadline_s=limits.deadline_s,
            checks_finish=parsed.provider in ("openai", COMPATIBLE),
            cut=lambda said: ProviderUnavailableError(
                f"{parsed.label} {said}: check the network and the provider's status, then "
                "continue with `cadre resume`"
            ),
        )

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """The provider model's ``bind_tools``, built on first use, its calls made through
        this model (bounded, retried and streamed by the gateway)."""
        return Deferred(
            self,
            lambda model: self._rebased(model.bind_tools(tools, tool_choice=tool_choice, **kwargs)),
        )

    def with_structured_output(
        self, schema: dict[str, Any] | type, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """The provider model's ``with_structured_output``, built and called on first use; an
        answer that does not fit ``schema`` is repaired (:class:`RepairedOutput`). The answer
        is not streamed: it is read whole, as JSON, before anyone uses it."""

        validated: type[BaseModel] | None = None
        if _parsed_here(schema, self._core.parsed, include_raw, kwargs):
            validated = schema

        def derive(model: BaseChatModel) -> Runnable[Any, Any]:
            if validated is not None:
                sent = {"name": validated.__name__, "schema": validated.model_json_schema()}
                asking = self.bind(
                    response_format={"type": "json_schema", "json_schema": sent}, stream=False
                )
                return asking | RunnableLambda(partial(fitted, validated))
            return model.with_structured_output(schema, include_raw=include_raw, **kwargs)

        structured = Deferred(self, derive)
        name = schema.__name__ if isinstance(schema, type) else schema.get("title", "its schema")
        return RepairedOutput(structured, label=self._core.parsed.label, schema=name)

    def _rebased(self, derived: Runnable[Any, Any]) -> Runnable[Any, Any]:
        """``derived`` (the provider model bound to arguments) as this model bound to them,
        so its calls go through :meth:`_generate`; anything else as it is."""
        if isinstance(derived, RunnableBinding) and derived.bound is self.built():
            return RunnableBinding(bound=self, kwargs=derived.kwargs, config=derived.config)
        return derived


_REPLAY_KEY = "replayed-calls-reach-no-provider"
"""The key a model is built with while its calls are replayed: the provider's own is not needed
(CI replays with no secret), and this one opens nothing."""
_KEYED = frozenset({"openai", "anthropic", COMPATIBLE})
"""Providers whose model cannot be built without a key."""


@functools.cache
def _unused_clients() -> tuple[httpx.Client, httpx.AsyncClient]:
    """HTTP clients for models whose calls are replayed: never used, made once per process
    (an SDK's own clients cost 0.1 s a model to make, for their SSL contexts)."""
    return httpx.Client(), httpx.AsyncClient()


def _sdk_options(spec: ModelSpec, limits: CallLimits) -> dict[str, Any]:
    """The SDK arguments that turn its own retries and streaming off (the gateway streams,
    :mod:`framework.models.streaming`) and bound its requests in time, for the providers whose
    SDK takes them (OpenAI and OpenAI-compatible servers, Anthropic); a stream reports its
    usage."""
    if spec.provider in ("openai", COMPATIBLE):
        timeout = httpx.Timeout(limits.idle_s, connect=limits.connect_s)
        return {"max_retries": 0, "timeout": timeout, "stream_usage": True}
    if spec.provider == "anthropic":
        return {"max_retries": 0, "timeout": limits.idle_s}
    return {}


def _parsed_here(
    schema: Any, spec: ModelSpec, include_raw: bool, kwargs: Mapping[str, Any]
) -> TypeGuard[type[BaseModel]]:
    """Whether an OpenAI-API answer for a pydantic ``schema`` is parsed by cadre rather than by
    the SDK: the SDK parses inside the call, so an answer that does not fit would lose the
    usage the provider billed for it; sent as its JSON schema, the call ends (and is counted)
    before the answer is validated (:func:`fitted`)."""
    json_schema = kwargs.get("method", "json_schema") == "json_schema"
    pydantic = isinstance(schema, type) and issubclass(schema, BaseModel)
    return spec.provider in ("openai", COMPATIBLE) and pydantic and json_schema and not include_raw
