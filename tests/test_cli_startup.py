"""How ``cadre`` starts: ``--help`` lists every command from its help text, each made only when
run; what ``--help`` and the commands that read threads import (modules, not times: see
``bench/startup.py`` for those)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import EntryPoint, EntryPoints, entry_points
from pathlib import Path
from pkgutil import resolve_name
from typing import Any

import pytest
import typer.main
from typer._click.exceptions import BadParameter
from typer._coercion import AdapterRuntimeParam, build_runtime_param
from typer.testing import CliRunner

from framework.cli.app import (
    COMMAND_ENTRY_POINTS,
    COMMANDS,
    GROUPS,
    _click_command,
    _listed_command,
    app,
    run_app,
)
from tests.test_cli_daily import _imported_by, loaded

runner = CliRunner()

RICH_HELP = ("typer.rich_utils", "rich.markdown", "rich.syntax", "pygments", "markdown_it")
"""Typer's rich help, whose module imports Markdown, syntax highlighting (pygments,
markdown-it) and tracebacks: only help and usage errors need it."""
NOT_FOR_HELP = (
    "Crypto",
    "cffi",
    "pydantic",
    "yaml",
    "asyncio",
    "framework.engine",
    "framework.review",
    "framework.retention",
    "framework.persistence.cipher",
    "framework.persistence.reader",
    "framework.runs.spec",
    "rich.markdown",
    "rich.traceback",
    "markdown_it",
    "pygments",
)
"""What reading or running a thread needs and ``cadre --help`` does not import: the cipher
(OpenSSL's AES-OCB through ``cryptography``), cadre's records (pydantic), YAML,
asyncio, the review and retention layers and the checkpoint reader; nor rich's Markdown and
tracebacks, which typer's rich help imports for what cadre's help does not use."""


def _plugins() -> list[str]:
    return [point.name for point in entry_points(group=COMMAND_ENTRY_POINTS)]


def _listed(help_text: str) -> list[str]:
    """The names in the Commands panel of a rich help text."""
    panel = help_text.split("─ Commands ", 1)[1].split("╰", 1)[0]
    rows = (line.removeprefix("│ ") for line in panel.splitlines()[1:])
    return [row.split()[0] for row in rows if row[:1] not in ("", " ")]


def test_help_lists_cadres_commands_then_other_packages_then_cadres_groups() -> None:
    listed = runner.invoke(app, ["--help"])
    assert listed.exit_code == 0, listed.output
    assert _listed(listed.stdout) == [*COMMANDS, *_plugins(), *GROUPS]
    assert {"trace", "ask", "extract"} <= set(_plugins())  # this package's own plugins


@pytest.mark.parametrize("name", [*COMMANDS, *GROUPS, "trace", "ask", "extract"])
def test_every_command_and_subcommand_has_its_help(name: str) -> None:
    shown = runner.invoke(app, [name, "--help"])
    assert shown.exit_code == 0, shown.output
    assert f"Usage: cadre {name} " in shown.stdout
    if name in GROUPS:
        for sub in _listed(shown.stdout):
            sub_help = runner.invoke(app, [name, sub, "--help"])
            assert sub_help.exit_code == 0, (sub, sub_help.output)
            assert f"Usage: cadre {name} {sub} " in sub_help.stdout


def test_a_mistyped_command_is_refused_with_the_closest_names() -> None:
    refused = runner.invoke(app, ["thread"])
    assert refused.exit_code == 2
    assert "No such command 'thread'. Did you mean 'threads'?" in refused.stderr
    theirs = runner.invoke(app, ["trac"]).stderr  # a command of another package is suggested
    assert "No such command 'trac'. Did you mean 'trace'" in " ".join(theirs.split())


def test_a_package_registering_a_command_of_cadres_is_refused_when_the_list_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clash = EntryPoint(name="threads", value="telemetry.cli:trace", group=COMMAND_ENTRY_POINTS)
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: EntryPoints([clash]))
    assert run_app(["--help"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: telemetry.cli:trace is registered under cadre.commands as `cadre threads`, a "
        "command of cadre's own: register it under another name"
    ]
    assert run_app(["threads", "--home", str(tmp_path)]) == 0  # cadre's own: list not read
    assert capsys.readouterr().out == f"no threads under {tmp_path}\n"


@pytest.mark.parametrize("name", [*COMMANDS, *_plugins(), *GROUPS])
def test_the_help_lists_each_command_as_it_is_made(name: str) -> None:
    plugins = {point.name: point.value for point in entry_points(group=COMMAND_ENTRY_POINTS)}
    target = resolve_name({**COMMANDS, **plugins, **GROUPS}[name])
    listed, made = _listed_command(name, target), _click_command(name, target)
    shown = ("name", "help", "short_help", "hidden", "deprecated", "rich_help_panel")
    assert [getattr(listed, key) for key in shown] == [getattr(made, key) for key in shown]


def _printed_help(first: str) -> str:
    """``cadre --help`` in a fresh process that runs ``first`` before."""
    code = f"{first}\nfrom framework.cli.app import run_app\nrun_app(['--help'])"
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout


def test_the_help_is_the_same_with_rich_markdown_and_tracebacks_imported() -> None:
    assert _printed_help("import typer.rich_utils") == _printed_help("")


def test_rich_markdown_and_tracebacks_are_imported_when_typer_uses_them() -> None:
    probe = (
        "import sys\n"
        "from framework.cli._rich_help import import_rich_help\n"
        "import_rich_help()\n"
        "from typer import rich_utils\n"
        "from typer.models import DeveloperExceptionConfig\n"
        "assert not {'rich.markdown', 'rich.traceback'} & set(sys.modules)\n"
        "from rich.markdown import Markdown\n"
        "from rich.traceback import Traceback\n"
        "text = rich_utils._make_rich_text(text='*a*', markup_mode='markdown')\n"
        "assert isinstance(text, Markdown), text\n"
        "shown = rich_utils.get_traceback(ValueError('a'), DeveloperExceptionConfig(), [])\n"
        "assert isinstance(shown, Traceback), shown\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=120)


def test_help_loads_every_command_but_nothing_a_thread_needs() -> None:
    modules = _imported_by(["--help"])
    assert not loaded(modules, NOT_FOR_HELP), loaded(modules, NOT_FOR_HELP)
    commands = {target.partition(":")[0] for target in [*COMMANDS.values(), *GROUPS.values()]}
    assert commands <= modules


def other_commands(own: str) -> set[str]:
    """The modules of every command but those in ``own`` (``framework.cli.policies`` too, whose
    ``--policy`` option the thread commands take), other packages' included."""
    targets = [*COMMANDS.values(), *GROUPS.values()]
    targets += [point.value for point in entry_points(group=COMMAND_ENTRY_POINTS)]
    return {target.partition(":")[0] for target in targets} - {own, "framework.cli.policies"}


@pytest.mark.parametrize(
    ("args", "own"),
    [(["threads"], "framework.cli.threads"), (["reviews"], "framework.cli.review")],
)
def test_a_command_that_reads_threads_loads_no_other_command_and_no_rich_help(
    tmp_path: Path, args: list[str], own: str
) -> None:
    modules = _imported_by([*args, "--home", str(tmp_path)])
    found = [*loaded(modules, RICH_HELP), *sorted(modules & other_commands(own))]
    assert not found, found


def _commands_made() -> list[Any]:
    """The root command and every command and subcommand, as ``cadre`` makes them to run."""
    root = typer.main.get_command(app)
    plugins = {point.name: point.value for point in entry_points(group=COMMAND_ENTRY_POINTS)}
    names = {**COMMANDS, **GROUPS, **plugins}
    made, todo = [root], [root.get_command(None, name) for name in names]
    while todo:
        command = todo.pop()
        made.append(command)
        todo += getattr(command, "commands", {}).values()
    return made


def _coerced(runtime: Any, value: str, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        return "value", runtime._coerce_value(value, param=param, ctx=ctx)
    except BadParameter as error:
        return "refused", error.format_message()


def test_plain_options_read_values_as_typers_adapters_do(tmp_path: Path) -> None:
    """Every ``str``, ``Path`` and ``bool`` option is read without pydantic, and reads a string
    as typer's pydantic adapter reads it: the same value, or the same refusal (a path that must
    exist, a file where a folder is asked for)."""
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    values = ["x", "", " a b ", "-", "~/x", str(tmp_path), str(tmp_path / "file.txt")]
    values.append(str(tmp_path / "missing"))
    checked = 0
    for command in _commands_made():
        ctx = command.context_class(command)
        for param in [*command.params, command.get_help_option(ctx)]:
            runtime = getattr(param, "_runtime_param", None)
            annotation = getattr(param, "type_descriptor", None)
            if annotation is None or annotation.annotation not in (str, bool, Path):
                continue
            assert runtime is not None and not isinstance(runtime, AdapterRuntimeParam), param
            if annotation.annotation is bool:
                assert runtime.coerce(None, param=param, ctx=ctx) is None
                continue
            typers = build_runtime_param(annotation)
            for value in values:
                assert _coerced(runtime, value, param, ctx) == _coerced(typers, value, param, ctx)
            checked += 1
    assert checked > 50  # cadre's commands have some 80 string and path options


def test_a_command_reading_only_plain_options_imports_no_pydantic(tmp_path: Path) -> None:
    modules = _imported_by(["threads", "--home", str(tmp_path)])
    assert not loaded(modules, ("pydantic",)), loaded(modules, ("pydantic",))
