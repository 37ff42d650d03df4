"""``cadre tokens``: the API tokens of ``cadre serve``: create, list, revoke.

A token's text is printed once, by ``create``; the home keeps only a digest of its secret.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import HomeOption, one_line
from framework.database.home import resolve_home

if TYPE_CHECKING:
    from framework.server.tokens import ApiToken, TokenStore

__all__ = ["tokens_app"]

tokens_app = typer.Typer(help="API tokens of `cadre serve`: create, list, revoke.")

_HEADERS = ("id", "tenant", "name", "scopes", "created (UTC)", "revoked")


@contextmanager
def _tokens(home: Path | None) -> Iterator[TokenStore]:
    from framework.server.tokens import TokenStore

    data_home = resolve_home(home).create()
    with TokenStore(data_home.server_target) as store:
        yield store


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _table(tokens: list[ApiToken]) -> list[str]:
    """A header, then one line per token (never its secret: the store has none)."""
    from framework.server.tokens import SCOPES

    rows = [_HEADERS]
    for token in tokens:
        scopes = ",".join(scope for scope in SCOPES if scope in token.scopes)
        when = (_when(token.created_at), _when(token.revoked_at))
        rows.append((token.token_id, token.tenant, token.name, scopes, *when))
    widths = [max(len(row[column]) for row in rows) for column in range(len(_HEADERS))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


@tokens_app.command("create")
@one_line
def create(
    tenant: Annotated[str, typer.Option(help="The tenant the token acts for.")],
    name: Annotated[str, typer.Option(help="The token's name, unique in its tenant.")],
    scopes: Annotated[
        str, typer.Option(help="What it may do, comma-separated: run, review, admin.")
    ],
    home: HomeOption = None,
) -> None:
    """Make a token and print it on stdout; it cannot be shown again."""
    with _tokens(home) as store:
        token, text = store.create(tenant, name, scopes.split(","))
    typer.echo(text)
    typer.echo(
        f"token {token.token_id} ({token.tenant}/{token.name}): keep it now, it cannot be "
        "shown again (only its digest is stored)",
        err=True,
    )


@tokens_app.command("list")
@one_line
def list_tokens(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's tokens.")] = None,
    home: HomeOption = None,
) -> None:
    """The tokens, revoked ones too, oldest first (never a secret)."""
    data_home = resolve_home(home)
    tokens: list[ApiToken] = []
    if data_home.database is not None or data_home.server.is_file():  # reading makes nothing
        with _tokens(home) as store:
            tokens = store.list(tenant)
    if not tokens:
        of = f" of tenant {tenant}" if tenant else ""
        typer.echo(f"no API tokens{of} under {data_home.describe()}")
        return
    typer.echo("\n".join(_table(tokens)))


@tokens_app.command("revoke")
@one_line
def revoke(token_id: str, home: HomeOption = None) -> None:
    """Revoke TOKEN_ID: the server refuses it from now on."""
    with _tokens(home) as store:
        token = store.revoke(token_id)
    typer.echo(f"revoked token {token.token_id} ({token.tenant}/{token.name})")
