"""``cadre serve`` refuses to start without a live API token (unless ``--no-auth``), and
``--no-auth`` anywhere but on a loopback address; one line each, nothing served. Started, it
says where it serves, its assistants (team files' by their names) and its console's URL."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import DataHome
from framework.server.tokens import TokenStore
from tests.conftest import one_line_error
from tests.served import serve

runner = CliRunner()


def test_serve_needs_a_live_token(tmp_path: Path) -> None:
    home = tmp_path / "home"
    refused = runner.invoke(app, ["serve", "--home", str(home)])
    assert "no API token to serve with" in one_line_error(refused)
    with TokenStore(DataHome(root=home).create().server_target) as tokens:
        token, _ = tokens.create("acme", "ada", ["run"])
        tokens.revoke(token.token_id)
    again = runner.invoke(app, ["serve", "--home", str(home)])
    assert "no API token to serve with" in one_line_error(again)


def test_no_auth_serves_only_on_loopback(tmp_path: Path) -> None:
    refused = runner.invoke(
        app, ["serve", "--no-auth", "--host", "0.0.0.0", "--home", str(tmp_path / "home")]
    )
    assert "--no-auth serves only on 127.0.0.1" in one_line_error(refused)


def test_workers_must_be_positive(tmp_path: Path) -> None:
    refused = runner.invoke(
        app, ["serve", "--no-auth", "--workers", "0", "--home", str(tmp_path / "home")]
    )
    assert "--workers must be at least 1" in one_line_error(refused)


def test_serve_prints_its_assistants_and_the_consoles_url(tmp_path: Path) -> None:
    team = tmp_path / "support.yaml"
    team.write_text("name: support\nkinds:\n  - {name: docs, builtin: search}\n")
    with serve(tmp_path / "home", None, options=["--team-config", str(team)]) as served:
        assert served.log is not None
        lines = served.log.read_text().splitlines()
    [assistants] = [line for line in lines if line.startswith("assistants: ")]
    assert assistants.removeprefix("assistants: ").split(", ")[-1] == "support"
    assert {"meta", "research"} <= set(assistants.removeprefix("assistants: ").split(", "))
    assert str(team) not in assistants
    assert f"console: {served.url}/console" in lines
