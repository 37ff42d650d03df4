"""``cadre prompts``: list, show and set the versioned role prompts of the data home
(``cadre roles``, its old name, still works and says the new one).

``show`` prints the bare text on stdout (the version line goes to stderr), so a prompt can be
saved, edited and set again: ``cadre prompts show NAME > f.txt``, then ``cadre prompts set
NAME f.txt``. Bad input (an unknown role or version, a bad name, an empty or unreadable file, a
template whose fields change) exits 2 with one line on stderr and stores nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from framework.cli.common import HomeOption, fail
from framework.database.home import resolve_home
from framework.errors import CadreError, ConfigError

if TYPE_CHECKING:
    from framework.runs.prompts import PromptRegistry, RolePrompt

__all__ = ["prompt_lines", "prompts_app", "renamed_from_roles", "roles_app"]

prompts_app = typer.Typer(help="Role prompts: list, show and set their versions.")


def renamed_from_roles() -> None:
    """``cadre roles``, the old name of ``cadre prompts``: says the new name, then runs it."""
    print("cadre: `cadre roles` is now `cadre prompts`", file=sys.stderr)


roles_app = typer.Typer(
    callback=renamed_from_roles, help="Old name of `cadre prompts` (still works)."
)
"""``cadre roles``: the commands of ``cadre prompts``, under their old name."""


_FIRST_LINE = 70
"""Characters of a prompt's first line shown by ``cadre prompts list``."""

NameArgument = Annotated[
    str, typer.Argument(metavar="NAME", help="The role, e.g. research.planner.")
]


def _registry(home: Path | None) -> PromptRegistry:
    """The role prompts of the data home ``home``."""
    from framework.runs.prompts import PromptRegistry

    return PromptRegistry.of_home(resolve_home(home))


def _first_line(text: str) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= _FIRST_LINE else line[: _FIRST_LINE - 3] + "..."


def prompt_lines(registry: PromptRegistry) -> list[str]:
    """``cadre prompts list``: one line per role: name, current version, versions, first line."""
    rows = [(name, registry.versions(name)) for name in registry.names()]
    width = max((len(name) for name, _ in rows), default=0)
    return [
        f"{name:<{width}}  v{versions[-1].version}  {len(versions)} version(s)  "
        f"{_first_line(versions[-1].text)}"
        for name, versions in rows
        if versions
    ]


def _version(registry: PromptRegistry, name: str, number: int | None) -> tuple[RolePrompt, int]:
    """The version ``number`` of ``name`` (the current one when None), and how many there are."""
    versions = registry.versions(name)
    if not versions:
        raise ConfigError(f"unknown role {name!r}: see `cadre prompts list`")
    if number is None:
        return versions[-1], len(versions)
    for prompt in versions:
        if prompt.version == number:
            return prompt, len(versions)
    known = ", ".join(str(prompt.version) for prompt in versions)
    raise ConfigError(f"role {name!r} has no version {number}: its versions are {known}")


def _read_prompt(file: Path) -> str:
    """The text of ``file`` (stdin for ``-``); ConfigError when it cannot be read as UTF-8."""
    if str(file) == "-":
        return sys.stdin.read()
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise ConfigError(f"cannot read the prompt file {file}: {reason}") from error


@prompts_app.command("list")
@roles_app.command("list")
def list_roles(home: HomeOption = None) -> None:
    """List the roles: current version, number of versions and the prompt's first line.

    Packaged roles show their default as version 1 until it is first used or set.
    """
    try:
        lines = prompt_lines(_registry(home))
    except CadreError as error:
        fail(error)
    typer.echo("\n".join(lines) if lines else "no roles: no team declares any")


@prompts_app.command("show")
@roles_app.command("show")
def show_role(
    name: NameArgument,
    version: Annotated[
        int | None, typer.Option(help="The version to show (default: the current one).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Print a role's prompt (the current version, or --version N) on stdout."""
    try:
        prompt, count = _version(_registry(home), name, version)
    except CadreError as error:
        fail(error)
    typer.echo(f"{name} version {prompt.version} of {count}", err=True)
    typer.echo(prompt.text)


@prompts_app.command("set")
@roles_app.command("set")
def set_role(
    name: NameArgument,
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="The new prompt's text file; - reads stdin.")
    ],
    home: HomeOption = None,
) -> None:
    """Store FILE's text as the new current version of role NAME.

    An unchanged text stores nothing. Runs started afterwards use the new version; threads
    started before keep theirs.
    """
    try:
        text = _read_prompt(file)
        registry = _registry(home)
        before = registry.versions(name)
        prompt = registry.set(name, text)
    except CadreError as error:
        fail(error)
    if before and before[-1].version == prompt.version:
        typer.echo(f"{name}: unchanged, version {prompt.version} stays current")
    else:
        typer.echo(f"{name}: version {prompt.version} is current")
