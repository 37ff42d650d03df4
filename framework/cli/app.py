"""The ``cadre`` app: cadre's commands, and those of other packages (``cadre.commands``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Annotated

import typer
from typer.exceptions import TyperException

from framework.cli.common import (
    DEBUG_VARIABLE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    DatabaseOption,
    announced_thread,
    debugging,
    exit_code,
    use_database,
)
from framework.cli.evals import eval_app
from framework.cli.fleet import list_workers, submit, worker
from framework.cli.keys import keys_app
from framework.cli.memory import memory_app
from framework.cli.policies import policies_app
from framework.cli.prompts import prompts_app, renamed_from_roles
from framework.cli.purge import purge_scope
from framework.cli.retention import retention_app
from framework.cli.review import (
    approve,
    edit,
    fork_thread,
    history_of,
    reject,
    respond,
    resume,
    reviews,
    show,
)
from framework.cli.run import run
from framework.cli.serve import serve
from framework.cli.threads import list_threads, prune_checkpoints
from framework.cli.tokens import tokens_app
from framework.cli.tools import tools_app
from framework.database import out_of_space
from framework.errors import CadreError

__all__ = ["COMMAND_ENTRY_POINTS", "app", "interrupted", "run_app"]

app = typer.Typer(
    name="cadre",
    help="Hierarchical teams of agents: plan, fan out, review, remember, answer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(run)
for _command in (reviews, show, approve, edit, reject, respond, resume):
    app.command()(_command)
app.command(name="history")(history_of)
app.command(name="fork")(fork_thread)
app.command(name="threads")(list_threads)
app.command(name="prune")(prune_checkpoints)
app.command(name="purge")(purge_scope)
app.command(name="serve")(serve)
app.command(name="worker")(worker)
app.command(name="submit")(submit)
app.command(name="workers")(list_workers)
app.add_typer(keys_app, name="keys")
app.add_typer(prompts_app, name="prompts")
app.add_typer(
    prompts_app,
    name="roles",
    callback=renamed_from_roles,
    help="Old name of `cadre prompts` (still works).",
)
app.add_typer(tools_app, name="tools")
app.add_typer(policies_app, name="policies")
app.add_typer(memory_app, name="memory")
app.add_typer(retention_app, name="retention")
app.add_typer(tokens_app, name="tokens")
app.add_typer(eval_app, name="eval")

COMMAND_ENTRY_POINTS = "cadre.commands"
"""Commands of other packages (``cadre trace`` comes from telemetry) register here."""

for _point in entry_points(group=COMMAND_ENTRY_POINTS):
    app.command(name=_point.name)(_point.load())


@app.callback()
def _root(
    database: DatabaseOption = None,
    debug: Annotated[
        bool, typer.Option("--debug", help=f"Full tracebacks on errors (or ${DEBUG_VARIABLE}=1).")
    ] = False,
) -> None:
    """Hierarchical teams of agents: plan, fan out, review, remember, answer."""
    if debug:
        os.environ[DEBUG_VARIABLE] = "1"
    use_database(database)


def interrupted() -> int:
    """Say how to go on after Ctrl-C, on one line; the exit code 130."""
    resume = announced_thread()
    hint = f"; continue with `{resume}`" if resume else ""
    typer.echo(f"interrupted{hint}", err=True)
    return EXIT_INTERRUPTED


def run_app(args: Sequence[str]) -> int:
    """Run ``cadre ARGS``: one line on stderr for any failure (the traceback only with
    ``--debug``), and the exit code of docs/cli.md."""
    try:
        result = app(args=list(args), prog_name="cadre", standalone_mode=False)
    except (KeyboardInterrupt, typer.Abort):
        return interrupted()
    except TyperException as error:  # a usage error: typer prints it with the usage line
        show = getattr(error, "show", None)
        if callable(show):
            show()
        else:
            typer.echo(f"error: {error.format_message()}", err=True)
        return error.exit_code
    except CadreError as error:
        if debugging():
            raise
        typer.echo(f"error: {' '.join(str(error).split())}", err=True)
        return exit_code(error)
    except Exception as error:
        if debugging():
            raise
        if isinstance(error, OSError) and (full := out_of_space(error, error.filename or ".")):
            typer.echo(f"error: {full}", err=True)
            return exit_code(full)
        detail = " ".join(str(error).split())[:300]
        typer.echo(
            f"error: unexpected {type(error).__name__}: {detail} (run again with --debug, or "
            f"{DEBUG_VARIABLE}=1, for the traceback)",
            err=True,
        )
        return EXIT_FAILED
    code = result if isinstance(result, int) else 0
    return interrupted() if code == EXIT_INTERRUPTED else code  # typer's code for Ctrl-C
