"""Chat-model resolution from model spec strings (see docs/models.md).

- ``provider:name``: a provider LangChain's ``init_chat_model`` knows (``openai:gpt-4o-mini``,
  ``anthropic:claude-sonnet-4-5``, ``ollama:llama3.1:8b``...), built through it;
- ``openai-compatible:NAME@URL``: any OpenAI-compatible server (Ollama, vLLM, llama.cpp's
  server, LM Studio), keyless, or ``...@URL#key=ENV_VAR`` with the key read from ``$ENV_VAR``;
- after ``#``, options separated by commas: ``key=ENV_VAR`` (above) and the call limits
  ``connect_s``, ``idle_s``, ``attempts``, ``deadline_s`` (``openai:gpt-4o#idle_s=30,attempts=5``);
- ``scripted:FILE``: a file of answers (:mod:`framework.models.scripted`), to try a team
  offline.

Example:
    >>> model = resolve_model("openai:gpt-4o-mini", temperature=0)  # doctest: +SKIP

A provider's package is imported only when a spec names it; a missing one is reported as a
:class:`~framework.errors.ConfigError` with the command that installs it.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from langchain.chat_models import base as langchain_chat_models
from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel

from framework.errors import ConfigError
from framework.models.gateway import DEFAULT_LIMITS, CallLimits
from framework.models.scripted import scripted_model

__all__ = [
    "COMPATIBLE",
    "KNOWN_PROVIDERS",
    "OUTPUT_LIMIT",
    "SCRIPTED",
    "ModelSpec",
    "anchored_spec",
    "output_limit_kwarg",
    "parse_model_spec",
    "resolve_model",
]

OUTPUT_LIMIT: Final = "cadre_output_limit"
"""The call keyword a :class:`~framework.models.chat.ProviderChatModel` reads as the most
tokens a call may write, and passes on under the provider's own name."""

COMPATIBLE: Final = "openai-compatible"
"""The provider of ``openai-compatible:NAME@URL`` specs."""

SCRIPTED: Final = "scripted"
"""The provider of ``scripted:FILE`` specs."""

NO_KEY: Final = "not-needed"
"""The key sent to an OpenAI-compatible server that wants none (the client needs one)."""


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A parsed model spec.

    Attributes:
        provider: A provider key (``openai``), ``openai-compatible`` or ``scripted``.
        name: The model's name (a scripted model's file).
        base_url: An OpenAI-compatible server's address (``http://localhost:11434/v1``).
        key_env: The variable holding that server's key (None: it wants none).
        limits: How long its calls may take and how often they are tried (``#idle_s=30``...).
    """

    provider: str
    name: str
    base_url: str | None = None
    key_env: str | None = None
    limits: CallLimits = DEFAULT_LIMITS

    @property
    def label(self) -> str:
        """How errors name the model: ``the openai chat model 'gpt-4o'``."""
        where = f" at {self.base_url}" if self.base_url else ""
        return f"the {self.provider} chat model {self.name!r}{where}"


_LANGCHAIN_PROVIDERS: Final[tuple[str, ...]] = tuple(
    getattr(langchain_chat_models, "_BUILTIN_PROVIDERS", ())
)
"""The providers ``init_chat_model`` builds (empty where it does not say: any is tried)."""

KNOWN_PROVIDERS: Final[tuple[str, ...]] = tuple(
    sorted({*_LANGCHAIN_PROVIDERS, COMPATIBLE, SCRIPTED})
)
"""The provider keys :func:`parse_model_spec` accepts."""

_EXTRAS: Final = {
    "openai": "openai",
    COMPATIBLE: "openai",
    "anthropic": "anthropic",
    "ollama": "ollama",
}
"""cadre's extras that install a provider's package (``pip install 'cadre[openai]'``)."""
_OUTPUT_LIMITS: Final = {"ollama": "num_predict", "google_genai": "max_output_tokens"}
"""What a provider's chat model calls the most tokens a call may write (default
``max_tokens``)."""

_FORMS: Final = (
    "'openai-compatible:NAME@URL' (any OpenAI-compatible server) or 'scripted:FILE' "
    "(see docs/models.md)"
)
_EXPECTED: Final = f"expected 'provider:name' such as 'openai:gpt-4o-mini', {_FORMS}"
_PROVIDERS_ARE: Final = (
    "LangChain's providers are "
    f"{', '.join(p for p in KNOWN_PROVIDERS if p not in (COMPATIBLE, SCRIPTED))}; or {_FORMS}"
)
_COMPATIBLE_SPEC: Final = re.compile(r"(?P<name>.+?)@(?P<url>https?://\S+)")

_LIMIT_OPTIONS: Final = ("connect_s", "idle_s", "attempts", "deadline_s")
"""The :class:`~framework.models.gateway.CallLimits` a spec may set after ``#``."""


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse a model spec (see the module).

    The name may itself contain colons (``"ollama:llama3.1:8b"``); the provider is the part
    before the first one.

    Raises:
        ConfigError: If the spec is malformed or names an unknown provider.
    """
    provider, colon, name = spec.partition(":")
    spaces = [c for c in spec if c.isspace()]  # a scripted file's name may hold blanks
    spaced = any(c != " " for c in spaces) if provider == SCRIPTED else bool(spaces)
    spaced = spaced or name != name.strip()
    if not colon or not provider or not name.strip() or spaced or spec != spec.strip():
        raise ConfigError(f"bad model spec {spec!r}: {_EXPECTED}")
    options = ""
    if provider != SCRIPTED:  # a scripted file's name may hold any character
        name, _, options = name.partition("#")
    key, limits = _options(spec, provider, options)
    if provider == COMPATIBLE:
        found = _COMPATIBLE_SPEC.fullmatch(name)
        if found is None:
            raise ConfigError(
                f"bad model spec {spec!r}: expected 'openai-compatible:NAME@URL' such as "
                "'openai-compatible:llama3.1@http://localhost:11434/v1', with '#key=ENV_VAR' "
                "after the URL when the server wants a key"
            )
        return ModelSpec(
            provider=COMPATIBLE,
            name=found["name"],
            base_url=found["url"].rstrip("/"),
            key_env=key,
            limits=limits,
        )
    if provider not in KNOWN_PROVIDERS and _LANGCHAIN_PROVIDERS:
        raise ConfigError(f"unknown model provider {provider!r} in {spec!r}: {_PROVIDERS_ARE}")
    return ModelSpec(provider=provider, name=name, limits=limits)


def _options(spec: str, provider: str, text: str) -> tuple[str | None, CallLimits]:
    """The key variable and the call limits the options after a spec's ``#`` give
    (``key=ENV_VAR,idle_s=30,attempts=5``).

    Raises:
        ConfigError: An option is unknown, repeated, or its value is not a positive number.
    """
    key: str | None = None
    changes: dict[str, Any] = {}
    for option in filter(None, text.split(",")):
        name, _, value = option.partition("=")
        if name == "key" and provider == COMPATIBLE and re.fullmatch(r"\w+", value):
            key = value
            continue
        number = _positive(value, whole=name == "attempts")
        if name not in _LIMIT_OPTIONS or name in changes or number is None:
            keys = "key=ENV_VAR (openai-compatible), " if provider == COMPATIBLE else ""
            raise ConfigError(
                f"bad model spec {spec!r}: option {option!r} after '#': options are {keys}"
                f"{', '.join(f'{o}=N' for o in _LIMIT_OPTIONS)}, each once, N > 0 "
                "(docs/models.md)"
            )
        changes[name] = number
    return key, dataclasses.replace(DEFAULT_LIMITS, **changes)


def _positive(text: str, *, whole: bool) -> float | int | None:
    """``text`` as a positive finite number (a whole one when ``whole``), else None."""
    try:
        number = int(text) if whole else float(text)
    except ValueError:
        return None
    return number if 0 < number < math.inf else None


def anchored_spec(spec: str, folder: Path) -> str:
    """``spec`` with a ``scripted:`` file made absolute against ``folder`` (the file a thread
    or a team file records must be found from anywhere); other specs unchanged."""
    provider, _, name = spec.partition(":")
    if provider != SCRIPTED or not name:
        return spec
    return f"{SCRIPTED}:{(folder / Path(name).expanduser()).resolve()}"


def resolve_model(spec: str | ModelSpec, **kwargs: Any) -> BaseChatModel:
    """Build the chat model a spec names.

    Args:
        spec: A model spec string or a :class:`ModelSpec`.
        **kwargs: Passed to the provider's chat-model class (``temperature``, ``api_key``...).

    Raises:
        ConfigError: If the spec is bad, the provider package is not installed, a named key
            variable is unset, or the provider's class refuses the arguments.
    """
    parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
    if parsed.provider == SCRIPTED:
        return scripted_model(Path(parsed.name))
    if parsed.provider not in KNOWN_PROVIDERS and _LANGCHAIN_PROVIDERS:
        raise ConfigError(f"unknown model provider {parsed.provider!r}: {_PROVIDERS_ARE}")
    if "model" in kwargs:
        raise ConfigError(
            f"pass the model name in the spec ('{parsed.provider}:<name>'), not as model="
        )
    provider = parsed.provider
    if provider == COMPATIBLE:
        provider = "openai"
        key = kwargs.pop("api_key", None) or _key(parsed)
        kwargs = {"base_url": parsed.base_url, "api_key": key, **kwargs}
    try:
        model: BaseChatModel = init_chat_model(parsed.name, model_provider=provider, **kwargs)
    except ImportError as exc:
        raise _missing_package(parsed, exc) from exc
    except Exception as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(
            f"could not create the {parsed.provider} chat model {parsed.name!r}: {detail}"
        ) from exc
    return model


def _key(spec: ModelSpec) -> str:
    """The key of an OpenAI-compatible server: from ``$key_env`` (which must be set), else a
    placeholder (never ``$OPENAI_API_KEY``, which is not meant for this server)."""
    if spec.key_env is None:
        return NO_KEY
    key = os.environ.get(spec.key_env, "")
    if not key:
        raise ConfigError(
            f"{spec.label} reads its key from ${spec.key_env}, which is not set: export "
            f"{spec.key_env}=KEY, or drop '#key={spec.key_env}' for a server that wants none"
        )
    return key


def _missing_package(spec: ModelSpec, error: ImportError) -> ConfigError:
    """The one line naming the package a provider needs and how to install it."""
    named = re.search(r"pip install (?:-U )?([\w.-]+)", str(error))
    package = named[1] if named else f"langchain-{spec.provider.replace('_', '-')}"
    cause = error.__cause__ if isinstance(error.__cause__, ImportError) else error
    missing = (cause.name or "").split(".")[0]
    if missing and missing != package.replace("-", "_"):
        return ConfigError(
            f"the {spec.provider} provider package {package} failed to import: {cause}"
        )
    hint = f"pip install {package}"
    extra = _EXTRAS.get(spec.provider)
    if extra is not None:
        hint += f" (or pip install 'cadre[{extra}]')"
    return ConfigError(f"model provider {spec.provider!r} needs {package}: install it with: {hint}")


def output_limit_kwarg(spec: ModelSpec) -> str:
    """The provider's name for the most tokens a call may write (``max_tokens``, Ollama's
    ``num_predict``...)."""
    return _OUTPUT_LIMITS.get(spec.provider, "max_tokens")
