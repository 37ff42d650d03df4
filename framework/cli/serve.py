"""``cadre serve``: the installed teams, and team files, over HTTP in LangGraph's server API
(see ``docs/server.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from framework.cli.common import DatabaseOption, HomeOption, one_line, use_database
from framework.cli.policies import PolicyOption, read_policy
from framework.database.home import resolve_home
from framework.errors import ConfigError

__all__ = ["serve"]

_LOOPBACK = ("127.0.0.1", "::1", "localhost")
DRAIN_S = 8.0
"""The default drain: under the 10 s a container runtime waits after SIGTERM before SIGKILL."""


@one_line
def serve(
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8123,
    home: HomeOption = None,
    no_auth: Annotated[
        bool,
        typer.Option(
            "--no-auth", help="Serve without API tokens (loopback only; every caller is local)."
        ),
    ] = False,
    corpus: Annotated[
        Path | None, typer.Option(help="A folder to index into the store before serving.")
    ] = None,
    workers: Annotated[int, typer.Option(help="How many runs execute at once.")] = 8,
    drain: Annotated[
        float,
        typer.Option(
            help="Seconds a stopping server (SIGTERM, Ctrl-C) gives the tasks going on to "
            "finish before its runs stop (keep it under your process manager's stop timeout)."
        ),
    ] = DRAIN_S,
    policy: PolicyOption = None,
    queue: Annotated[
        bool,
        typer.Option(
            "--queue",
            help="Put runs on the fleet's queue for `cadre worker` processes (needs --db).",
        ),
    ] = False,
    database: DatabaseOption = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            help="A web origin (scheme://host[:port]) whose pages may call the API from a "
            "browser, such as Agent Inbox's (repeat for several; tokens are still needed).",
        ),
    ] = None,
    team_config: Annotated[
        list[Path] | None,
        typer.Option(
            help="A team file to serve too, as an assistant named by its team's name "
            "(repeat for several). See docs/team-config.md.",
            readable=False,
        ),
    ] = None,
) -> None:
    """Serve the installed teams (and --team-config files) as assistants to LangGraph clients
    (``langgraph-sdk``)."""
    from framework.runs.teams import available_teams, offer_team_files
    from framework.server.app import ServerOptions, build_app
    from framework.server.stopping import serve_until_stopped
    from framework.server.tokens import TokenStore

    use_database(database)
    origins = tuple(checked_origin(origin) for origin in allow_origin or ())
    if origins and no_auth:
        raise ConfigError(
            "--allow-origin needs API tokens: a page of another origin must not act as the "
            "local principal; drop --no-auth and make a token with `cadre tokens create`"
        )
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    if drain < 0:
        raise ConfigError(f"--drain must be at least 0 seconds, got {drain}")
    policy_text = read_policy(policy) if policy is not None else None
    offered = offer_team_files(team_config or ())  # each checked whole before the home is made
    data_home = resolve_home(home).create()
    dispatch = None
    if queue:
        from framework.fleet.queued import queued_dispatch

        dispatch = queued_dispatch(data_home)  # refused at once on SQLite
    if no_auth:
        if host not in _LOOPBACK:
            raise ConfigError(
                f"--no-auth serves only on 127.0.0.1, ::1 or localhost, not {host}: make a "
                "token with `cadre tokens create` to serve on other addresses"
            )
        typer.echo(
            "warning: serving without API tokens; every caller on this machine acts as "
            "tenant 'default'",
            err=True,
        )
    else:
        with TokenStore(data_home.server_target) as tokens:
            if not any(token.revoked_at is None for token in tokens.list()):
                raise ConfigError(
                    "no API token to serve with: make one with `cadre tokens create --tenant T "
                    "--name N --scopes run,review,admin`, or pass --no-auth (loopback only)"
                )
    options = ServerOptions(
        home=data_home,
        no_auth=no_auth,
        corpus=corpus,
        workers=workers,
        policy=policy_text,
        dispatch=dispatch,
        team_files=tuple(team_config or ()),
        allow_origins=origins,
    )
    mode = ", runs on the fleet's queue" if queue else ""
    url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    typer.echo(f"cadre serving {data_home.describe()} on {url}{mode}", err=True)
    typer.echo(f"assistants: {', '.join([*available_teams(), *offered])}", err=True)
    typer.echo(f"console: {url}/console", err=True)
    serve_until_stopped(
        build_app(options),
        drain_s=drain,
        host=host,
        port=port,
        log_level="warning",
        timeout_keep_alive=5,  # an idle connection is closed after 5 s
        h11_max_incomplete_event_size=16_384,  # request lines and headers: 16 KiB at most
    )


def checked_origin(origin: str) -> str:
    """``origin`` as browsers send it (``scheme://host[:port]``, no path, no trailing slash).

    Raises:
        ConfigError: It is not one (``*`` included: name the origins you trust).
    """
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ConfigError(
            f"--allow-origin {origin!r} is not a web origin: give scheme://host[:port], e.g. "
            "http://localhost:3000"
        )
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ConfigError(f"--allow-origin {origin!r}: only scheme://host[:port] is an origin")
    return f"{parts.scheme}://{parts.netloc}"
