"""The declaration of an MCP server: :class:`McpServer`, a plain pydantic model.

A wrong declaration raises :class:`~framework.errors.ConfigError` (never pydantic's
``ValidationError``), whether built in code (``McpServer(...)``) or read from a configuration
file (:meth:`McpServer.from_config`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from framework.errors import ConfigError

__all__ = ["McpServer"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,47}")
_KIND = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_STDIO_ONLY = ("command", "args", "env", "cwd")
_HTTP_ONLY = ("url", "headers")


class McpServer(BaseModel):
    """One MCP server the tools of a team come from.

    * ``name``: how cadre names the server in errors and listings (a letter, then letters,
      digits, ``_`` or ``-``; at most 48 characters); unique within a toolbox.
    * ``transport``: ``"stdio"`` (cadre starts ``command args`` as a subprocess and speaks MCP
      on its stdin/stdout) or ``"http"`` (streamable HTTP to a server already running at
      ``url``).
    * stdio only: ``command``, ``args``, ``cwd`` and ``env``: the child gets the MCP SDK's small
      default environment (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``) plus
      ``env``, values taken literally (left out of the declaration's repr: they may hold keys).
    * http only: ``url`` (``http://`` or ``https://``) and ``headers`` sent with every request
      (left out of the repr too).
    * ``tools``: the allowlist, tool names as the server spells them (``None``: every tool the
      server lists). A listed name the server does not offer fails the toolbox's start.
    * ``prefix``: expose the tools as ``<name>_<tool>`` instead of the server's own names (to
      avoid a clash between servers).
    * ``kinds``: which worker kinds may use the server's tools (``None``: any); carried for the
      team builder, see :meth:`McpToolbox.tools_for`.
    * ``call_timeout_s``: the longest one tool call may take; ``start_timeout_s``: the longest
      starting (or connecting to) the server and listing its tools may take.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    transport: Literal["stdio", "http"] = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = Field(default=None, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = Field(default=None, repr=False)
    tools: list[str] | None = None
    prefix: bool = False
    kinds: list[str] | None = None
    call_timeout_s: float = Field(default=60.0, gt=0, le=86_400)
    start_timeout_s: float = Field(default=30.0, gt=0, le=3_600)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise ConfigError(_message(data, error)) from None

    @classmethod
    def from_config(cls, data: Mapping[str, Any]) -> McpServer:
        """A declaration read from a configuration file (a mapping of its fields).

        Raises:
            ConfigError: A field is missing, unknown or invalid; the message names the server,
                the field and the fix.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(
                f"an MCP server declaration must be a mapping of its fields, got {data!r}"
            )
        return cls(**dict(data))

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str) -> str:
        if not _NAME.fullmatch(name):
            raise ValueError(
                "must start with a letter and hold only letters, digits, '_' or '-' "
                "(at most 48 characters)"
            )
        return name

    @field_validator("kinds")
    @classmethod
    def _check_kinds(cls, kinds: list[str] | None) -> list[str] | None:
        if kinds is None:
            return None
        bad = [kind for kind in kinds if not _KIND.fullmatch(kind)]
        if bad:
            raise ValueError(
                f"worker kinds must be identifiers (letters, digits, '_', '.', '-'), got {bad}"
            )
        return list(dict.fromkeys(kinds))

    @field_validator("tools")
    @classmethod
    def _check_tools(cls, tools: list[str] | None) -> list[str] | None:
        if tools is None:
            return None
        if not tools or any(not tool.strip() for tool in tools):
            raise ValueError("the allowlist names tools: leave it out to allow every tool")
        return list(dict.fromkeys(tools))

    @model_validator(mode="after")
    def _check_transport(self) -> McpServer:
        if self.transport == "stdio":
            if not self.command or not self.command.strip():
                raise ValueError(
                    "transport 'stdio' needs a command: the program that runs the server "
                    "(e.g. command: python, args: [server.py])"
                )
            wrong = [field for field in _HTTP_ONLY if getattr(self, field) is not None]
            if wrong:
                raise ValueError(f"{', '.join(wrong)} only apply to transport 'http'")
        else:
            if not self.url or not self.url.startswith(("http://", "https://")):
                raise ValueError(
                    "transport 'http' needs a url starting with http:// or https:// "
                    "(e.g. url: http://127.0.0.1:8000/mcp)"
                )
            wrong = [field for field in _STDIO_ONLY if getattr(self, field) not in (None, [])]
            if wrong:
                raise ValueError(f"{', '.join(wrong)} only apply to transport 'stdio'")
        return self


def _message(data: Mapping[str, Any], error: ValidationError) -> str:
    """``MCP server 'x': field: what; field: what`` from pydantic's errors."""
    name = data.get("name")
    who = f"MCP server {name!r}" if isinstance(name, str) and name else "MCP server"
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"])
        what = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            what = "unknown field (check its spelling)"
        parts.append(f"{where}: {what}" if where else what)
    return f"{who}: " + "; ".join(parts)
