"""The ``cadre`` command."""

from __future__ import annotations

import typer

from framework.cli.run import run

__all__ = ["app", "main"]

app = typer.Typer(
    name="cadre",
    help="Hierarchical teams of agents: plan, fan out, review, remember, answer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(run)


@app.callback()
def _root() -> None:
    """Hierarchical teams of agents: plan, fan out, review, remember, answer."""


def main() -> None:
    """Entry point of the console script."""
    app()
