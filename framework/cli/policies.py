"""``cadre policies check FILE [--team-config TEAMFILE]``: validate a policy file (and the names
its rules give, against a team file's team) and print what it enforces."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import fail
from framework.errors import CadreError, ConfigError

if TYPE_CHECKING:
    from framework.policy import NameReference, TeamNames

__all__ = ["PolicyOption", "policies_app", "read_policy"]

policies_app = typer.Typer(help="Policy files: what governs a run.")

PolicyOption = Annotated[
    Path | None,
    typer.Option(
        "--policy",
        help="A policy file (YAML: tool authorization, PII, budgets, rate limits, memory "
        "rules, approvals). See docs/policies.md.",
        readable=False,
    ),
]


def read_policy(path: Path) -> str:
    """The text of policy file ``path``, checked whole.

    Raises:
        ConfigError: It cannot be read, or is invalid (``FILE:LINE``).
    """
    from framework.engine.config_file import shown_path, unreadable
    from framework.runs.launch import load_policies

    resolved = path.expanduser().resolve()
    try:
        text = resolved.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise unreadable("policy file", resolved, error) from None
    load_policies(text, shown_path(resolved))
    return text


@policies_app.command("check")
def check(
    file: Annotated[Path, typer.Argument(help="The policy file.", readable=False)],
    team_config: Annotated[
        Path | None,
        typer.Option(
            help="A team file, checked as `cadre run` checks it: refuse rules naming tools, "
            "teams or nodes it does not have.",
            readable=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="The model the team file's team runs with, as `cadre run --model` gives it "
            "(not called); without it, the file's own models."
        ),
    ] = None,
) -> None:
    """Validate FILE and print its version, principal and policies per hook, in order; with
    --team-config, the team file is checked as a run checks it, and every tool, team and node
    the rules name must be the team's."""
    from framework.engine.config_file import shown_path
    from framework.policy import HOOKS
    from framework.policy.records import policy_version
    from framework.runs.launch import load_policies

    try:
        text = read_policy(file)
        loaded = load_policies(text, shown_path(file.expanduser().resolve()))
        if team_config is not None:
            _check_names(loaded.references, team_config, model)
    except CadreError as error:
        fail(error)
    typer.echo(f"{file}: valid, version {policy_version(text)}")
    principal = loaded.principal
    if principal is not None:
        scopes = ", ".join(sorted(principal.scopes)) or "none"
        typer.echo(f"principal: {principal.user}@{principal.tenant} (scopes: {scopes})")
    typer.echo("policies, in the order they are asked (every team and node they match):")
    for policy in loaded.policies:
        typer.echo(f"  {policy.name}: {policy.describe()}")
    typer.echo("hooks:")
    for hook in HOOKS:
        names = [p.name for p in loaded.policies if hook in p.hooks()]
        typer.echo(f"  {hook}: {', '.join(names) or '-'}")


def _check_names(references: Sequence[NameReference], team_config: Path, model: str | None) -> None:
    """Refuse rules naming what the team of ``team_config`` does not have (ConfigError with
    each rule's ``FILE:LINE``)."""
    from framework.policy import unknown_names

    problems = unknown_names(references, _team_names(team_config, model))
    if problems:
        raise ConfigError(
            f"the policy file names what team file {team_config} does not have: "
            + "; ".join(problems)
        )


def _team_names(team_config: Path, model: str | None) -> TeamNames:
    """The names of the team ``team_config`` composes, checked as a run with ``model`` checks
    it, built as a run with a model builds it (its model-backed roles; the stand-in model is
    never called), on an in-memory store."""
    from framework.memory import Corpus, SemanticStore
    from framework.runs.teams import TeamSetup, check_team, team_file_team
    from framework.testing import ScriptedChatModel
    from framework.tools.listing import team_names

    factory = check_team(team_file_team(team_config), model=model)
    with SemanticStore(":memory:") as store:
        setup = TeamSetup(corpus=Corpus(store), store=store, model=ScriptedChatModel())
        with setup.resources:
            return team_names(factory(setup))
