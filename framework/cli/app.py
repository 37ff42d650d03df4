"""The ``cadre`` app: cadre's commands, and those of other packages (``cadre.commands``).

A command is made (its options read) only when it runs; the list of ``cadre --help`` imports
each command's module for its help text alone. ``cadre threads`` loads no other command, and
reads no other package's entry points."""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pkgutil import resolve_name
from typing import Annotated, Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from framework.cli._plain_options import read_plainly
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
from framework.database import out_of_space
from framework.errors import CadreError, ConfigError

__all__ = ["COMMANDS", "COMMAND_ENTRY_POINTS", "GROUPS", "app", "interrupted", "run_app"]

COMMANDS = {
    "run": "framework.cli.run:run",
    "reviews": "framework.cli.review:reviews",
    "show": "framework.cli.review:show",
    "approve": "framework.cli.review:approve",
    "edit": "framework.cli.review:edit",
    "reject": "framework.cli.review:reject",
    "respond": "framework.cli.review:respond",
    "resume": "framework.cli.review:resume",
    "history": "framework.cli.review:history_of",
    "fork": "framework.cli.review:fork_thread",
    "threads": "framework.cli.threads:list_threads",
    "prune": "framework.cli.threads:prune_checkpoints",
    "purge": "framework.cli.purge:purge_scope",
    "serve": "framework.cli.serve:serve",
    "worker": "framework.cli.fleet:worker",
    "submit": "framework.cli.fleet:submit",
    "workers": "framework.cli.fleet:list_workers",
}
"""cadre's commands, in the order ``cadre --help`` lists them: name -> ``module:function``."""

GROUPS = {
    "keys": "framework.cli.keys:keys_app",
    "prompts": "framework.cli.prompts:prompts_app",
    "roles": "framework.cli.prompts:roles_app",
    "tools": "framework.cli.tools:tools_app",
    "policies": "framework.cli.policies:policies_app",
    "memory": "framework.cli.memory:memory_app",
    "retention": "framework.cli.retention:retention_app",
    "tokens": "framework.cli.tokens:tokens_app",
    "eval": "framework.cli.evals:eval_app",
}
"""cadre's groups of commands, listed after the commands: name -> ``module:Typer app``."""

COMMAND_ENTRY_POINTS = "cadre.commands"
"""Commands of other packages (``cadre trace`` comes from telemetry) register here; they are
listed after cadre's commands, before its groups."""


class _Commands(TyperGroup):
    """The commands of ``cadre``: each made from its function or Typer app the first time it
    is run, and listed from its help text; other packages' entry points are read only for the
    list or a name that is not cadre's."""

    _plugins: dict[str, str] | None = None
    _listing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        read_plainly(self)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The help, listing each command from its help text alone (its options not read)."""
        from framework.cli._rich_help import import_rich_help

        import_rich_help()
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:  # typer's own click types
        return [*COMMANDS, *self._plugin_targets(), *GROUPS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            target = COMMANDS.get(cmd_name) or GROUPS.get(cmd_name)
            target = target or self._plugin_targets().get(cmd_name)
            if target is None:  # unknown: typer suggests a close name from every command
                self._make_all()
                return None
            if self._listing:
                return _listed_command(cmd_name, resolve_name(target))
            command = _click_command(cmd_name, resolve_name(target))
            read_plainly(command)
            self.commands[cmd_name] = command
        return super().get_command(ctx, cmd_name)

    def _make_all(self) -> None:
        for name in self.list_commands(None):
            self.get_command(None, name)

    def _plugin_targets(self) -> dict[str, str]:
        """Each ``cadre.commands`` entry point's name -> its ``module:function`` (ConfigError
        for one named as a command of cadre's)."""
        if self._plugins is None:
            from importlib.metadata import entry_points

            self._plugins = {}
            for point in entry_points(group=COMMAND_ENTRY_POINTS):
                if point.name in COMMANDS or point.name in GROUPS:
                    raise ConfigError(
                        f"{point.value} is registered under {COMMAND_ENTRY_POINTS} as `cadre "
                        f"{point.name}`, a command of cadre's own: register it under another name"
                    )
                self._plugins[point.name] = point.value
        return self._plugins


def _listed_command(name: str, function_or_app: Any) -> Any:
    """The command ``name`` as a list shows it: the name, help, panel and flags that
    :func:`_click_command` gives it, without its options."""
    from typer.core import TyperCommand
    from typer.main import solve_typer_info_defaults
    from typer.models import TyperInfo

    if isinstance(function_or_app, typer.Typer):
        info = solve_typer_info_defaults(TyperInfo(function_or_app, name=name))
        return TyperCommand(
            name=name,
            help=info.help,
            short_help=info.short_help,
            hidden=info.hidden,
            deprecated=info.deprecated,
            rich_help_panel=info.rich_help_panel,
        )
    return TyperCommand(name=name, help=inspect.getdoc(function_or_app))


def _click_command(name: str, function_or_app: Any) -> Any:
    """The click command ``name`` of a command function or a Typer app, as ``app.command`` and
    ``app.add_typer`` would make it."""
    from typer.main import get_command_from_info, get_group_from_info
    from typer.models import CommandInfo, TyperInfo

    if isinstance(function_or_app, typer.Typer):
        return get_group_from_info(
            TyperInfo(function_or_app, name=name),
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
            suggest_commands=app.suggest_commands,
        )
    return get_command_from_info(
        CommandInfo(name=name, callback=function_or_app),
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode,
    )


app = typer.Typer(
    name="cadre",
    cls=_Commands,
    help="Hierarchical teams of agents: plan, fan out, review, remember, answer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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


def _parent_trace() -> AbstractContextManager[None]:
    """The trace a parent process started cadre in (``TRACEPARENT``, ``TRACESTATE`` and
    ``BAGGAGE`` in the environment, as OpenTelemetry's environment carriers name them): the
    command's spans join it."""
    if not os.environ.get("TRACEPARENT"):
        return nullcontext()
    from telemetry.propagation import continued, from_environment  # not at every start-up

    return continued(from_environment(os.environ))


def run_app(args: Sequence[str]) -> int:
    """Run ``cadre ARGS``: one line on stderr for any failure (the traceback only with
    ``--debug``), and the exit code of docs/cli.md."""
    try:
        with _parent_trace():
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
