"""A provider SDK's failures as cadre's one-line errors: what happened, naming the provider (or
the server), and what to do; transient ones (a rate limit, a timeout, a dropped connection, a
cut stream) apart from those no retry mends (credentials, an unknown model, a refused request,
an input longer than the model's window)."""

from __future__ import annotations

from framework.errors import CadreError, ModelError, TransientError
from framework.models.specs import COMPATIBLE, SCRIPTED, ModelSpec
from framework.testing import ScriptError

__all__ = ["ProviderError", "ProviderUnavailableError", "provider_error"]


class ProviderError(ModelError):
    """The model provider refused or failed a call (authentication, unknown model, bad
    request); the message names the provider and what to do."""


class ProviderUnavailableError(ProviderError, TransientError):
    """The provider could not be reached, timed out or limited the rate: worth a retry."""


_KINDS: tuple[tuple[tuple[str, ...], tuple[int, ...], str, str, bool], ...] = (
    (
        ("Authentication", "PermissionDenied", "Unauthorized", "Forbidden"),
        (401, 403),
        "refused the credentials",
        "check the provider's API key (for OpenAI, OPENAI_API_KEY) and its permissions",
        False,
    ),
    (
        ("RateLimit", "ResourceExhausted", "TooManyRequests"),
        (429,),
        "limited the rate of requests",
        "wait, or lower --max-parallel, then continue the thread with `cadre resume`",
        True,
    ),
    (
        ("Timeout", "DeadlineExceeded"),
        (408, 504),
        "timed out",
        "check the network and the provider's status, then continue with `cadre resume`",
        True,
    ),
    (
        (
            "Connection",
            "ConnectError",
            "NetworkError",
            "RemoteProtocol",
            "ReadError",
            "ServiceUnavailable",
            "InternalServer",
        ),
        (500, 502, 503),
        "could not be reached",
        "check the network and the provider's base URL, then continue with `cadre resume`",
        True,
    ),
    (
        ("NotFound",),
        (404,),
        "does not know the model",
        "check the model name after 'provider:' in --model",
        False,
    ),
    (
        ("BadRequest", "InvalidRequest", "UnprocessableEntity"),
        (400, 422),
        "refused the request",
        "the model must call tools and answer in JSON schemas (structured output) for "
        "model-backed roles: pick one that does (docs/models.md)",
        False,
    ),
)
"""(class-name parts, HTTP statuses, what happened, what to do, transient) per failure kind."""

_COMPATIBLE_FIXES: dict[str, str] = {
    "refused the credentials": "check the key the server at {url} expects: put it in a "
    "variable and name it after the URL ('#key=ENV_VAR')",
    "could not be reached": "check that the server at {url} is running and serves the OpenAI "
    "API there (its /v1 address), then continue with `cadre resume`",
    "does not know the model": "check the model name before '@' in the spec: the server lists "
    "its models at {url}/models",
    "refused the request": "model-backed roles need tool calls and JSON-schema structured "
    "output ('response_format'): start the server at {url} with them on and pick a model that "
    "calls tools (docs/models.md, per server)",
}
"""What to do, for an OpenAI-compatible server, where it differs from a provider's."""


_CONTEXT_LENGTH = ("context_length_exceeded", "context length", "context window", "too many tokens")
"""What a provider's refusal says when the input does not fit the model's window."""


def _too_long(error: BaseException, spec: ModelSpec) -> ProviderError | None:
    """The error for an input longer than the model's context window, if ``error`` is one."""
    said = " ".join(str(error).split())
    if _status(error) not in (400, 413) or not any(w in said.lower() for w in _CONTEXT_LENGTH):
        return None
    return ProviderError(
        f"{spec.label} refused an input longer than its context window ({said[:200]}): send "
        "less (a smaller corpus or fewer passages per task, a shorter question or prompt), or "
        "pick a model with a longer context window"
    )


def _fix(happened: str, fix: str, spec: ModelSpec) -> str:
    if spec.provider != COMPATIBLE or happened not in _COMPATIBLE_FIXES:
        return fix
    return _COMPATIBLE_FIXES[happened].format(url=spec.base_url)


def _status(error: BaseException) -> int | None:
    for holder in (error, getattr(error, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int):
            return status
    return None


def provider_error(error: BaseException, spec: ModelSpec) -> ProviderError | None:
    """The one-line cadre error for a provider SDK's failure; None when ``error`` is not one
    (a cadre error, a programming error), so it travels on unchanged."""
    if isinstance(error, CadreError) or not isinstance(error, Exception):
        return None
    if isinstance(error, ScriptError) and spec.provider == SCRIPTED:
        return ProviderError(
            f"{spec.label} has no answer for a request: {' '.join(str(error).split())[:300]}; "
            "add a step for it to the file (see docs/models.md)"
        )
    too_long = _too_long(error, spec)
    if too_long is not None:
        return too_long
    names = [cls.__name__ for cls in type(error).__mro__]
    status = _status(error)
    for parts, statuses, happened, fix, transient in _KINDS:
        if status in statuses or any(part in name for part in parts for name in names):
            kind = ProviderUnavailableError if transient else ProviderError
            detail = " ".join(str(error).split())[:160]
            return kind(
                f"{spec.label} {happened} ({type(error).__name__}: {detail}): "
                f"{_fix(happened, fix, spec)}"
            )
    return None
