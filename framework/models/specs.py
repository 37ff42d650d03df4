"""Chat-model resolution from ``"provider:name"`` strings.

Example:
    >>> model = resolve_model("openai:gpt-4o-mini", temperature=0)  # doctest: +SKIP

The provider packages are optional: each one is imported only when a spec names it, and a
missing one is reported as a :class:`~framework.errors.ConfigError` with the command that
installs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from langchain_core.language_models import BaseChatModel

from framework.errors import ConfigError

__all__ = [
    "KNOWN_PROVIDERS",
    "OUTPUT_LIMIT",
    "ModelSpec",
    "output_limit_kwarg",
    "parse_model_spec",
    "resolve_model",
]

OUTPUT_LIMIT: Final = "cadre_output_limit"
"""The call keyword a :class:`~framework.models.chat.ProviderChatModel` reads as the most
tokens a call may write, and passes on under the provider's own name."""


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A parsed model spec.

    Attributes:
        provider: A known provider key, such as ``"openai"``.
        name: The provider's model name, such as ``"gpt-4o-mini"``.
    """

    provider: str
    name: str


@dataclass(frozen=True, kw_only=True)
class _Provider:
    package: str
    module: str
    class_name: str
    model_kwarg: str
    extra: str | None
    output_limit_kwarg: str = "max_tokens"
    """What the provider's chat model calls the most tokens a call may write."""


_PROVIDERS: Final[dict[str, _Provider]] = {
    "openai": _Provider(
        package="langchain-openai",
        module="langchain_openai",
        class_name="ChatOpenAI",
        model_kwarg="model",
        extra="openai",
    ),
    "anthropic": _Provider(
        package="langchain-anthropic",
        module="langchain_anthropic",
        class_name="ChatAnthropic",
        model_kwarg="model",
        extra="anthropic",
    ),
    "ollama": _Provider(
        package="langchain-ollama",
        module="langchain_ollama",
        class_name="ChatOllama",
        model_kwarg="model",
        extra="ollama",
        output_limit_kwarg="num_predict",
    ),
    "google_genai": _Provider(
        package="langchain-google-genai",
        module="langchain_google_genai",
        class_name="ChatGoogleGenerativeAI",
        model_kwarg="model",
        extra=None,
        output_limit_kwarg="max_output_tokens",
    ),
    "mistralai": _Provider(
        package="langchain-mistralai",
        module="langchain_mistralai",
        class_name="ChatMistralAI",
        model_kwarg="model",
        extra=None,
    ),
    "groq": _Provider(
        package="langchain-groq",
        module="langchain_groq",
        class_name="ChatGroq",
        model_kwarg="model",
        extra=None,
    ),
}

KNOWN_PROVIDERS: Final[tuple[str, ...]] = tuple(sorted(_PROVIDERS))
"""The provider keys :func:`parse_model_spec` accepts."""

_EXPECTED: Final = (
    "expected 'provider:name' such as 'openai:gpt-4o-mini', "
    f"with provider one of: {', '.join(KNOWN_PROVIDERS)}"
)


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse ``"provider:name"``.

    The name may itself contain colons (``"ollama:llama3.1:8b"``); the provider is the part
    before the first one.

    Args:
        spec: The model spec.

    Returns:
        The parsed spec.

    Raises:
        ConfigError: If the spec is malformed or names an unknown provider.
    """
    provider, colon, name = spec.partition(":")
    if not colon or not provider or not name or any(c.isspace() for c in spec):
        raise ConfigError(f"bad model spec {spec!r}: {_EXPECTED}")
    if provider not in _PROVIDERS:
        raise ConfigError(f"unknown model provider {provider!r} in {spec!r}: {_EXPECTED}")
    return ModelSpec(provider=provider, name=name)


def resolve_model(spec: str | ModelSpec, **kwargs: Any) -> BaseChatModel:
    """Build the chat model a spec names.

    Args:
        spec: ``"provider:name"`` or a :class:`ModelSpec`.
        **kwargs: Passed to the provider's chat-model class (``temperature``, ``api_key``...).

    Returns:
        The chat model.

    Raises:
        ConfigError: If the spec is bad, the provider package is not installed, or the
            provider's class refuses the arguments (a missing API key, for instance).
    """
    parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
    provider = _PROVIDERS.get(parsed.provider)
    if provider is None:
        raise ConfigError(f"unknown model provider {parsed.provider!r}: {_EXPECTED}")
    if provider.model_kwarg in kwargs:
        raise ConfigError(
            f"pass the model name in the spec ('{parsed.provider}:<name>'), "
            f"not as {provider.model_kwarg}="
        )
    factory = _import_factory(parsed.provider, provider)
    try:
        return factory(**{provider.model_kwarg: parsed.name}, **kwargs)
    except Exception as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(
            f"could not create the {parsed.provider} chat model {parsed.name!r}: {detail}"
        ) from exc


def _import_factory(key: str, provider: _Provider) -> Callable[..., BaseChatModel]:
    try:
        module = importlib.import_module(provider.module)
    except ModuleNotFoundError as exc:
        if exc.name != provider.module:
            raise ConfigError(
                f"the {key} provider package {provider.package} failed to import: {exc}"
            ) from exc
        hint = f"pip install {provider.package}"
        if provider.extra is not None:
            hint += f" (or pip install 'cadre[{provider.extra}]')"
        raise ConfigError(
            f"model provider {key!r} needs {provider.package}: install it with: {hint}"
        ) from exc
    factory: Callable[..., BaseChatModel] = getattr(module, provider.class_name)
    return factory


def output_limit_kwarg(spec: ModelSpec) -> str:
    """The provider's name for the most tokens a call may write (``max_tokens``, Ollama's
    ``num_predict``...)."""
    return _PROVIDERS[spec.provider].output_limit_kwarg
