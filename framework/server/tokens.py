"""API tokens of the HTTP server: who may call it, for which tenant, with which scopes.

A token reads ``cadre_<id>_<secret>``; it is shown once, when made. Only the SHA-256 digest of
its secret is stored (in ``server.sqlite`` under the data home, or the schema ``cadre_server``
of its PostgreSQL database), so a copy of the store lets nobody call the server.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from framework.database import Database, open_database
from framework.errors import ConfigError
from framework.policy import Principal

__all__ = ["SCOPES", "SERVER_SCHEMA", "ApiToken", "TokenStore"]

SCOPES = ("run", "review", "admin")
"""run: start runs and read threads; review: decide reviews; admin: everything, deleting
threads included."""

SERVER_SCHEMA = "cadre_server"
"""The PostgreSQL schema of the server's tables (a SQLite home keeps them in a file)."""

_TABLE = """CREATE TABLE IF NOT EXISTS api_tokens (
    token_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, name TEXT NOT NULL, scopes TEXT NOT NULL,
    digest TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION,
    UNIQUE (tenant, name))"""
_COLUMNS = "token_id, tenant, name, scopes, created_at, revoked_at"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_TOKEN = re.compile(r"cadre_([0-9a-f]{12})_([A-Za-z0-9_-]{20,128})")
_UNKNOWN_DIGEST = hashlib.sha256(b"no such token").hexdigest()


@dataclass(frozen=True, kw_only=True)
class ApiToken:
    """One token, without its secret."""

    token_id: str
    tenant: str
    name: str
    scopes: frozenset[str]
    created_at: float
    revoked_at: float | None

    def principal(self) -> Principal:
        """Who a request with this token acts for: the token's name, tenant and scopes."""
        return Principal(user=self.name, tenant=self.tenant, scopes=self.scopes)

    def allows(self, scope: str) -> bool:
        """Whether the token grants ``scope`` (``admin`` grants every scope)."""
        return "admin" in self.scopes or scope in self.scopes


class TokenStore:
    """The ``api_tokens`` table of one data home.

    Args:
        target: A SQLite file (created 0600 by the home), ``":memory:"``, or a PostgreSQL URL.
    """

    def __init__(self, target: Path | str) -> None:
        self.db: Database = open_database(target, schema=SERVER_SCHEMA)
        try:
            with self.db.lock, self.db.schema_transaction():
                self.db.execute(_TABLE)
        except BaseException:
            self.db.close()
            raise

    def create(self, tenant: str, name: str, scopes: Iterable[str]) -> tuple[ApiToken, str]:
        """Make a token; it and its text, which is stored nowhere (show it once).

        A revoked token's name may be taken again (its row goes).

        Raises:
            ConfigError: A bad tenant, name or scope, or a live token of that name.
        """
        token = ApiToken(
            token_id=secrets.token_hex(6),
            tenant=_checked("tenant", tenant),
            name=_checked("name", name),
            scopes=_checked_scopes(scopes),
            created_at=time.time(),
            revoked_at=None,
        )
        secret = secrets.token_urlsafe(32)
        with self.db.lock, self.db.write_transaction():
            self.db.execute(
                "DELETE FROM api_tokens WHERE tenant = ? AND name = ? AND revoked_at IS NOT NULL",
                (token.tenant, token.name),
            )
            added = self.db.execute(
                f"INSERT INTO api_tokens ({_COLUMNS}, digest) VALUES (?, ?, ?, ?, ?, NULL, ?) "
                "ON CONFLICT (tenant, name) DO NOTHING",
                (
                    token.token_id,
                    token.tenant,
                    token.name,
                    _scopes_text(token.scopes),
                    token.created_at,
                    _digest(secret),
                ),
            ).rowcount
            if not added:
                raise ConfigError(self._taken(token.tenant, token.name))
        return token, f"cadre_{token.token_id}_{secret}"

    def list(self, tenant: str | None = None) -> list[ApiToken]:
        """The tokens, revoked ones too, oldest first; those of ``tenant`` when given."""
        where, params = ("WHERE tenant = ? ", (_checked("tenant", tenant),)) if tenant else ("", ())
        with self.db.lock:
            rows = self.db.execute(
                f"SELECT {_COLUMNS} FROM api_tokens {where}ORDER BY created_at, token_id", params
            ).fetchall()
        return [_token(row) for row in rows]

    def revoke(self, token_id: str) -> ApiToken:
        """Revoke a token from now on; the token as it now is.

        Raises:
            ConfigError: There is no such token, or it was revoked already.
        """
        with self.db.lock, self.db.write_transaction():
            changed = self.db.execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL",
                (time.time(), token_id),
            ).rowcount
            row = self.db.execute(
                f"SELECT {_COLUMNS} FROM api_tokens WHERE token_id = ?", (token_id,)
            ).fetchone()
        if row is None:
            raise ConfigError(
                f"no API token {token_id!r}: `cadre tokens list` shows the ids there are"
            )
        if not changed:
            raise ConfigError(f"API token {token_id} is already revoked; nothing to do")
        return _token(row)

    def verify(self, presented: str) -> ApiToken | None:
        """The live token ``presented`` is the text of; None for an unknown, malformed,
        revoked or wrong one (the time taken does not tell which ids exist)."""
        match = _TOKEN.fullmatch(presented)
        if match is None:
            return None
        token_id, secret = match.groups()
        with self.db.lock:
            row = self.db.execute(
                f"SELECT {_COLUMNS}, digest FROM api_tokens WHERE token_id = ?", (token_id,)
            ).fetchone()
        stored = row[6] if row is not None else _UNKNOWN_DIGEST
        same = hmac.compare_digest(stored, _digest(secret))
        if row is None or not same:
            return None
        token = _token(row)
        return token if token.revoked_at is None else None

    def close(self) -> None:
        """Close the connection."""
        with self.db.lock:
            self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _taken(self, tenant: str, name: str) -> str:
        row = self.db.execute(
            "SELECT token_id FROM api_tokens WHERE tenant = ? AND name = ?", (tenant, name)
        ).fetchone()
        held = row[0] if row is not None else "ID"
        return (
            f"tenant {tenant} already has a token named {name!r} (id {held}): revoke it with "
            f"`cadre tokens revoke {held}` or choose another name"
        )


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _checked(what: str, value: str) -> str:
    """``value`` when it is a valid tenant or token name; ConfigError saying the rule."""
    if not _NAME.fullmatch(value):
        raise ConfigError(
            f"{what} {value!r}: use 1 to 64 letters, digits, dots, dashes or underscores, "
            "starting with a letter or digit"
        )
    return value


def _checked_scopes(scopes: Iterable[str]) -> frozenset[str]:
    """``scopes`` (names, or one comma-separated text) when they are a non-empty subset of
    :data:`SCOPES`; ConfigError listing the valid ones otherwise."""
    names = scopes.split(",") if isinstance(scopes, str) else scopes
    chosen = frozenset(name.strip() for name in names if name.strip())
    unknown = sorted(chosen - set(SCOPES))
    if unknown or not chosen:
        what = f"unknown scope(s) {', '.join(unknown)}" if unknown else "no scope"
        raise ConfigError(f"{what}: give one or more of {', '.join(SCOPES)} (comma-separated)")
    return chosen


def _scopes_text(scopes: frozenset[str]) -> str:
    return ",".join(scope for scope in SCOPES if scope in scopes)


def _token(row: Any) -> ApiToken:
    return ApiToken(
        token_id=row[0],
        tenant=row[1],
        name=row[2],
        scopes=frozenset(row[3].split(",")),
        created_at=row[4],
        revoked_at=row[5],
    )
