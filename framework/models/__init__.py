"""Models: model specs (``provider:name`` through LangChain's ``init_chat_model``, any
OpenAI-compatible server, a scripted file) and the provider chat model that names its provider
in its errors. Imports :mod:`framework.errors`, :mod:`framework.testing`, the engine's config
file reader, langchain-core and langchain; a provider's package is imported when a spec names
it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.models.chat import (
        ProviderChatModel,
        ProviderError,
        ProviderUnavailableError,
        provider_error,
    )
    from framework.models.specs import (
        KNOWN_PROVIDERS,
        ModelSpec,
        parse_model_spec,
        resolve_model,
    )

__all__ = [
    "KNOWN_PROVIDERS",
    "ModelSpec",
    "ProviderChatModel",
    "ProviderError",
    "ProviderUnavailableError",
    "parse_model_spec",
    "provider_error",
    "resolve_model",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.models.chat": (
            "ProviderChatModel",
            "ProviderError",
            "ProviderUnavailableError",
            "provider_error",
        ),
        "framework.models.specs": (
            "KNOWN_PROVIDERS",
            "ModelSpec",
            "parse_model_spec",
            "resolve_model",
        ),
    },
)
