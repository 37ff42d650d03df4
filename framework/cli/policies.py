"""``cadre policies check FILE``: validate a policy file and print what it enforces."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from framework.cli.common import fail
from framework.errors import CadreError, ConfigError

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
    from framework.runs.launch import load_policies

    resolved = path.expanduser().resolve()
    try:
        text = resolved.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read policy file {resolved}: {error}") from None
    load_policies(text, str(resolved))
    return text


@policies_app.command("check")
def check(
    file: Annotated[Path, typer.Argument(help="The policy file.", readable=False)],
) -> None:
    """Validate FILE and print its version, principal and policies per hook, in order."""
    from framework.policy import HOOKS
    from framework.policy.records import policy_version
    from framework.runs.launch import load_policies

    try:
        text = read_policy(file)
        loaded = load_policies(text, str(file))
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
