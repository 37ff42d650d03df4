"""Where a remote worker kind lives: ``remote_graph: {url, assistant, token_env, timeout_s}``
(a LangGraph-API graph, such as another ``cadre serve``) and ``a2a: URL`` or ``a2a: {url,
token_env, timeout_s}`` (an agent over A2A), as a team file declares them.

A token is never written in the file: ``token_env`` names the environment variable that holds
it, read when a task calls the remote (a URL holding credentials is refused).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["DEFAULT_TIMEOUT_S", "RemoteGraphSpec", "RemoteSpec"]

DEFAULT_TIMEOUT_S = 300.0
"""How long one task may wait for a remote's answer unless the kind says otherwise."""


class RemoteSpec(BaseModel):
    """A remote's address, the environment variable holding its token, and its timeout.

    Attributes:
        url: ``http(s)://HOST[:PORT][/PATH]``, without credentials.
        token_env: The environment variable holding the token (None: no token is sent).
        timeout_s: The most seconds one task waits for the remote's answer.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    token_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=86_400)

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http(s)://HOST[:PORT][/PATH] URL")
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                "a URL must not hold credentials: name the environment variable that holds "
                "the token in token_env"
            )
        return url.rstrip("/")

    def token(self) -> str | None:
        """The token from the environment now (None: no ``token_env``, or it is not set)."""
        return os.environ.get(self.token_env) if self.token_env else None

    def missing_token(self) -> str | None:
        """What is wrong when ``token_env`` names a variable that is not set (None: nothing)."""
        if self.token_env is None or os.environ.get(self.token_env):
            return None
        return (
            f"environment variable {self.token_env} is not set: export the token in it (a team "
            "file names the variable, never the token)"
        )


class RemoteGraphSpec(RemoteSpec):
    """A LangGraph-API graph: :class:`RemoteSpec` and the assistant (or graph id) to run.

    Attributes:
        assistant: The assistant id or graph name (``research``, or a team file's ``name`` on
            a ``cadre serve --team-config``).
    """

    assistant: str = Field(min_length=1, max_length=200)


def a2a_spec(value: Any) -> Any:
    """An ``a2a:`` value as :class:`RemoteSpec` fields: a bare URL becomes ``{url: URL}``."""
    return {"url": value} if isinstance(value, str) else value
