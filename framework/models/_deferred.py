"""The runnables a :class:`~framework.models.chat.ProviderChatModel` derives from its provider's
model (``bind_tools``, ``with_structured_output``), made on first use and called through the
model gateway once."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence

from framework.models.cassette import refuse_unrecorded
from framework.models.gateway import Gateway

__all__ = ["Deferred", "Owner"]


class Owner(Protocol):
    """What a derived runnable needs of the model it was derived from."""

    @property
    def label(self) -> str:
        """How errors name the model."""
        ...

    @property
    def gateway(self) -> Gateway:
        """The gateway its calls go through."""
        ...

    def built(self) -> BaseChatModel:
        """The provider's model (built on first use)."""
        ...

    def abuilt(self) -> BaseChatModel:
        """The provider's model for the running event loop."""
        ...

    def provider_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` as the provider's model takes them."""
        ...


class Deferred(Runnable[LanguageModelInput, Any]):
    """A runnable derived from the provider's model, made on first use; its calls go through
    the gateway once (in the owner's ``_generate`` when it is bound to the owner, around it
    otherwise)."""

    def __init__(self, owner: Owner, derive: Callable[[BaseChatModel], Runnable[Any, Any]]) -> None:
        self._owner = owner
        self._derive = derive
        self._runnable: Runnable[Any, Any] | None = None
        self._loop_runnables: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, Runnable[Any, Any]
        ] = weakref.WeakKeyDictionary()

    def _target(self) -> Runnable[Any, Any]:
        if self._runnable is None:
            self._runnable = self._derive(self._owner.built())
        return self._runnable

    def _atarget(self) -> Runnable[Any, Any]:
        """The derived runnable for async calls: bound to the owner (which picks the running
        loop's model), or derived from the running loop's model."""
        if self._through_owner():
            return self._target()
        loop = asyncio.get_running_loop()
        runnable = self._loop_runnables.get(loop)
        if runnable is None:
            runnable = self._loop_runnables.setdefault(loop, self._derive(self._owner.abuilt()))
        return runnable

    def _through_owner(self) -> bool:
        """Whether the derived runnable calls the owner (which goes through the gateway)."""
        first = self._target()
        if isinstance(first, RunnableSequence):
            first = first.first
        owner: object = self._owner
        return isinstance(first, RunnableBinding) and first.bound is owner

    def invoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Call the derived runnable."""
        kwargs = self._owner.provider_kwargs(kwargs)
        if self._through_owner():
            return self._target().invoke(input, config, **kwargs)
        refuse_unrecorded(self._owner.label)
        return self._owner.gateway.call(lambda: self._target().invoke(input, config, **kwargs))

    async def ainvoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Call the derived runnable (async)."""
        kwargs = self._owner.provider_kwargs(kwargs)
        if self._through_owner():
            return await self._target().ainvoke(input, config, **kwargs)
        refuse_unrecorded(self._owner.label)
        return await self._owner.gateway.acall(
            lambda: self._atarget().ainvoke(input, config, **kwargs)
        )
