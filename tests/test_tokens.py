"""API tokens (``framework.server.tokens``, ``cadre tokens``): made, verified and revoked on
SQLite and PostgreSQL; a wrong, malformed, unknown or revoked token verifies to nothing; the
secret is in no file of the home, no database dump and no listing; bad input is refused in one
line."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import resolve_home
from framework.errors import ConfigError
from framework.policy import Principal
from framework.server.tokens import ApiToken, TokenStore
from tests.conftest import as_default_database, one_line_error
from tests.postgres_server import find_bin_dir

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, database: str | None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data home on SQLite, then on PostgreSQL."""
    as_default_database(database, monkeypatch)
    return tmp_path / "home"


@pytest.fixture
def sqlite_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data home on SQLite only (for what does not depend on the database)."""
    as_default_database(None, monkeypatch)
    return tmp_path / "home"


def _store(home: Path) -> TokenStore:
    return TokenStore(resolve_home(home).create().server_target)


def _cadre(home: Path, *args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _everything(home: Path, database: str | None) -> dict[str, bytes]:
    """Every file under the home by its path, and a dump of the PostgreSQL database."""
    found = {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    if database is None:
        return found
    bin_dir = find_bin_dir()
    assert bin_dir is not None
    dump = subprocess.run(
        [str(bin_dir / "pg_dump"), "--data-only", database], check=True, capture_output=True
    )
    return found | {"pg_dump": dump.stdout}


def test_a_token_verifies_until_it_is_revoked(home: Path) -> None:
    with _store(home) as store:
        token, text = store.create("acme", "ci-bot", ["run", "review"])
        assert text.startswith(f"cadre_{token.token_id}_")
        assert len(token.token_id) == 12 and int(token.token_id, 16) >= 0
        assert store.verify(text) == token
        assert store.list() == store.list("acme") == [token]
        assert store.list("other") == []
        assert token.principal() == Principal(
            user="ci-bot", tenant="acme", scopes=frozenset({"run", "review"})
        )
        revoked = store.revoke(token.token_id)
        assert revoked.revoked_at is not None
        assert store.verify(text) is None
        assert store.list() == [revoked]
        with pytest.raises(ConfigError, match="already revoked"):
            store.revoke(token.token_id)
    with _store(home) as reopened:  # the revocation is stored
        assert reopened.verify(text) is None


def test_wrong_malformed_unknown_and_revoked_tokens_verify_to_none(home: Path) -> None:
    with _store(home) as store:
        token, text = store.create("acme", "kept", ["run"])
        gone, gone_text = store.create("acme", "gone", ["run"])
        store.revoke(gone.token_id)
        secret = text.split("_", 2)[2]
        wrong = text[:-1] + ("A" if text[-1] != "A" else "B")
        unknown_id = next(f"{d}" * 12 for d in "01" if f"{d}" * 12 != token.token_id)
        unknown = f"cadre_{unknown_id}_{secret}"
        malformed = ["", "cadre_", secret, text.upper(), f"Bearer {text}", text + "\n", text[:20]]
        for presented in [wrong, unknown, gone_text, *malformed]:
            assert store.verify(presented) is None, presented
        assert store.verify(text) == token


def test_the_secret_is_stored_nowhere(home: Path, database: str | None) -> None:
    out, _ = _cadre(home, "create", "--tenant", "acme", "--name", "ci", "--scopes", "run")
    text = out.strip()
    token_id, secret = text.split("_", 2)[1:]
    listed, _ = _cadre(home, "list")
    stored = _everything(home, database)
    assert any(token_id.encode() in data for data in stored.values())  # the row is there
    assert [name for name, data in stored.items() if secret.encode() in data] == []
    assert secret not in listed


def test_the_cli_prints_the_token_once_and_lists_tokens_without_secrets(home: Path) -> None:
    out, err = _cadre(home, "create", "--tenant", "acme", "--name", "ci", "--scopes", "run,admin")
    text = out.strip()
    assert out == f"{text}\n" and text.startswith("cadre_")
    assert "cannot be shown again" in err and text not in err
    second, _ = _cadre(home, "create", "--tenant", "beta", "--name", "ops", "--scopes", "review")
    token_id = text.split("_")[1]
    _cadre(home, "revoke", token_id)
    listed, _ = _cadre(home, "list")
    lines = listed.splitlines()
    assert lines[0].split() == ["id", "tenant", "name", "scopes", "created", "(UTC)", "revoked"]
    assert len(lines) == 3
    assert lines[1].startswith(token_id) and "run,admin" in lines[1]
    assert lines[1].split()[-1] != "-" and lines[2].split()[-1] == "-"  # revoked, live
    for secret in (text.split("_", 2)[2], second.strip().split("_", 2)[2]):
        assert secret not in listed
    only_beta, _ = _cadre(home, "list", "--tenant", "beta")
    assert len(only_beta.splitlines()) == 2 and "ops" in only_beta
    with _store(home) as store:
        assert store.verify(text) is None
        assert store.verify(second.strip()) is not None


def test_a_duplicate_name_is_refused_until_revoked(home: Path) -> None:
    args = ["tokens", "create", "--tenant", "acme", "--name", "ci", "--scopes", "run"]
    first = runner.invoke(app, [*args, "--home", str(home)])
    token_id = first.stdout.strip().split("_")[1]
    line = one_line_error(runner.invoke(app, [*args, "--home", str(home)]))
    assert token_id in line and "revoke" in line and "another name" in line
    _cadre(home, "revoke", token_id)
    again = runner.invoke(app, [*args, "--home", str(home)])
    assert again.exit_code == 0, again.output
    with _store(home) as store:
        assert [token.name for token in store.list()] == ["ci"]
        assert store.verify(again.stdout.strip()) is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tenant", "acme", "--name", "ci", "--scopes", "run,deploy"], "run, review, admin"),
        (["--tenant", "acme", "--name", "ci", "--scopes", ","], "run, review, admin"),
        (["--tenant", "ac me", "--name", "ci", "--scopes", "run"], "tenant 'ac me'"),
        (["--tenant", "-acme", "--name", "ci", "--scopes", "run"], "starting with a letter"),
        (["--tenant", "acme", "--name", "x" * 65, "--scopes", "run"], "1 to 64"),
    ],
)
def test_bad_scopes_tenant_or_name_are_refused_in_one_line(
    sqlite_home: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["tokens", "create", *args, "--home", str(sqlite_home)])
    assert message in one_line_error(result)
    assert _cadre(sqlite_home, "list")[0].startswith("no API tokens")


def test_revoking_an_unknown_or_revoked_token_is_refused(sqlite_home: Path) -> None:
    assert "no API token 'abc'" in one_line_error(
        runner.invoke(app, ["tokens", "revoke", "abc", "--home", str(sqlite_home)])
    )
    out, _ = _cadre(sqlite_home, "create", "--tenant", "a", "--name", "b", "--scopes", "run")
    token_id = out.split("_")[1]
    _cadre(sqlite_home, "revoke", token_id)
    again = runner.invoke(app, ["tokens", "revoke", token_id, "--home", str(sqlite_home)])
    assert "already revoked" in one_line_error(again)


def test_listing_a_home_without_tokens_creates_nothing(sqlite_home: Path) -> None:
    assert _cadre(sqlite_home, "list")[0].startswith("no API tokens under")
    assert not sqlite_home.exists()


def test_the_token_file_is_private(sqlite_home: Path) -> None:
    home = resolve_home(sqlite_home).create()
    assert stat.S_IMODE(home.server.stat().st_mode) == 0o600
    assert home.server_target == home.server
    assert resolve_home(sqlite_home, "postgresql://u@h/db").server_target == "postgresql://u@h/db"


def test_admin_allows_every_scope() -> None:
    def token(*scopes: str) -> ApiToken:
        return ApiToken(
            token_id="0" * 12,
            tenant="t",
            name="n",
            scopes=frozenset(scopes),
            created_at=0.0,
            revoked_at=None,
        )

    assert all(token("admin").allows(scope) for scope in ("run", "review", "admin"))
    assert token("run").allows("run") and not token("run").allows("review")
    assert not token("review").allows("admin")
