"""Models: model specs (``provider:name`` through LangChain's ``init_chat_model``, any
OpenAI-compatible server, a scripted file; call limits after ``#``), the provider chat model
that names its provider in its errors, the gateway every call of it goes through (time limits
and one retry policy, structured output repaired, reported usage checked), and the cassette
that records and replays its calls. Imports :mod:`framework.errors`, :mod:`framework.testing`,
the engine's config file reader and nesting, langchain-core, langchain and LangGraph's stream
writer; a provider's package is imported when a spec names it."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.models.cassette import *
    from framework.models.chat import *
    from framework.models.gateway import *
    from framework.models.provider_errors import *
    from framework.models.provider_limiter import ProviderLimiter as ProviderLimiter
    from framework.models.repair import *
    from framework.models.specs import KNOWN_PROVIDERS as KNOWN_PROVIDERS
    from framework.models.specs import ModelSpec as ModelSpec
    from framework.models.specs import parse_model_spec as parse_model_spec
    from framework.models.specs import resolve_model as resolve_model
    from framework.models.usage_check import *

__getattr__, __dir__ = lazy_exports(__name__)
