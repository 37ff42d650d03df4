"""The ``cadre`` app: cadre's commands, and those of other packages (``cadre.commands``)."""

from __future__ import annotations

from importlib.metadata import entry_points

import typer

from framework.cli._common import DatabaseOption, use_database
from framework.cli.keys import keys_app
from framework.cli.review import (
    approve,
    edit,
    fork_thread,
    history_of,
    reject,
    resume,
    reviews,
    show,
)
from framework.cli.roles import roles_app
from framework.cli.run import run
from framework.cli.threads import list_threads, prune_checkpoints

__all__ = ["COMMAND_ENTRY_POINTS", "app", "main"]

app = typer.Typer(
    name="cadre",
    help="Hierarchical teams of agents: plan, fan out, review, remember, answer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(run)
for _command in (reviews, show, approve, edit, reject, resume):
    app.command()(_command)
app.command(name="history")(history_of)
app.command(name="fork")(fork_thread)
app.command(name="threads")(list_threads)
app.command(name="prune")(prune_checkpoints)
app.add_typer(keys_app, name="keys")
app.add_typer(roles_app, name="roles")

COMMAND_ENTRY_POINTS = "cadre.commands"
"""Commands of other packages (``cadre trace`` comes from telemetry) register here."""

for _point in entry_points(group=COMMAND_ENTRY_POINTS):
    app.command(name=_point.name)(_point.load())


@app.callback()
def _root(database: DatabaseOption = None) -> None:
    """Hierarchical teams of agents: plan, fan out, review, remember, answer."""
    use_database(database)


def main() -> None:
    """Entry point of the console script."""
    app()
