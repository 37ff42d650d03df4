"""``cadre tools list``: every tool the workers of the installed teams (or of one team, or of a
team file) can call, by team, worker kind and source.

Each team is built as a run would build it, on an in-memory store with an empty corpus (no data
home is opened, nothing is indexed, no embedding model is loaded), and its graph is walked
(:func:`framework.tools.listing.team_tools`). With ``--model`` the model-backed roles are built
instead; the provider's model itself is never constructed, so no API key or network is needed.
A team file whose kinds call tools (so it only runs with a model) is listed with a stand-in
model that is never called.
MCP servers are started to list their tools and stopped again. ``--json`` prints the same as
one JSON document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import fail
from framework.errors import CadreError, ConfigError

if TYPE_CHECKING:
    from framework.tools.listing import ToolRow

__all__ = ["tools_app"]

tools_app = typer.Typer(help="The tools a team's workers can call.")


@tools_app.command("list")
def list_tools(
    team: Annotated[
        str | None,
        typer.Option(help="One installed team (default: every installed team)."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="A team file (YAML) whose tools to list; instead of --team.",
            readable=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="List the model-backed roles' tools, as a run with this provider:name model "
            "would have them (the model is not called; no key needed)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List every tool the workers of the installed teams (or of --team, or of a --config team
    file) can call, by team, worker kind and source, with its JSON argument schema."""
    if team is not None and config is not None:
        fail(ConfigError("--team and --config both name the team: give one of them"))
    try:
        rows = _rows(team, config, model)
    except CadreError as error:
        fail(error)
    if as_json:
        typer.echo(json.dumps([row.as_dict() for row in rows], indent=2, sort_keys=True))
        return
    for row in rows:
        schema = json.dumps(row.arguments, sort_keys=True, separators=(",", ":"))
        line = f"{row.kind}  {row.source}  {row.tool}  {schema}"
        typer.echo(line if config is not None else f"{row.team}  {line}")  # a file: one team
        if row.description:
            typer.echo(f"    {row.description}")


def _rows(team: str | None, config: Path | None, model: str | None) -> list[ToolRow]:
    """The rows of the teams asked for, each built on one in-memory setup."""
    from framework.memory import Corpus, SemanticStore
    from framework.models.chat import ProviderChatModel
    from framework.runs.teams import TeamSetup, available_teams, load_team, team_file_team
    from framework.testing import ScriptedChatModel
    from framework.tools.listing import team_tools

    if config is not None:
        named: list[tuple[str | None, str]] = [(None, team_file_team(config))]
    else:
        named = [(name, name) for name in ([team] if team is not None else available_teams())]
    factories = [(label, load_team(name)) for label, name in named]  # unknown names first
    chat = ProviderChatModel(model) if model is not None else None  # built on first call: never
    rows: list[ToolRow] = []
    with SemanticStore(":memory:") as store:
        for label, factory in factories:
            # a team file whose kinds call tools only runs with a model: list it with one that
            # is never called, as a run would build it whatever its model
            needs_model = chat is None and factory.needs_model
            used = ScriptedChatModel() if needs_model else chat
            setup = TeamSetup(corpus=Corpus(store), store=store, model=used)
            with setup.resources:
                rows.extend(team_tools(factory(setup), label))
    return rows
