"""``cadre prompts list|show|set`` (and its old name, ``cadre roles``), and a run that uses and
records the version set."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import DataHome
from framework.memory import MiniLMEmbedder
from framework.runs import launch as launch_module
from framework.runs.launch import relaunch
from framework.runs.threads import read_thread_spec
from framework.testing import ScriptedChatModel, Structured
from teams.research.prompts import PLANNER_SYSTEM, WORKER_SYSTEM
from teams.research.schemas import PlanDraft
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus

runner = CliRunner()

NEW_PLANNER = "Plan at most {max_tasks} sub-questions, shortest first.\n"


def cadre(home: Path, *args: str, stdin: str | None = None) -> Result:
    return runner.invoke(app, [*args, "--home", str(home)], input=stdin)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _prompt_file(tmp_path: Path, text: str, name: str = "prompt.txt") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_list_shows_the_packaged_roles_of_a_fresh_home_and_writes_nothing(home: Path) -> None:
    result = cadre(home, "prompts", "list")
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert {"research.planner", "research.worker", "hypothesis.searcher"} <= set(lines)
    assert lines["research.planner"].split()[1:4] == ["v1", "1", "version(s)"]
    assert "You plan research over a local document corpus." in lines["research.planner"]
    assert not home.exists()


def test_the_old_name_roles_runs_the_same_command_and_says_the_new_one(home: Path) -> None:
    old = cadre(home, "roles", "list")
    assert old.exit_code == 0, old.output
    assert old.stdout == cadre(home, "prompts", "list").stdout
    assert old.stderr == "cadre: `cadre roles` is now `cadre prompts`\n"


def test_set_makes_a_new_version_current_and_show_prints_either(home: Path, tmp_path: Path) -> None:
    result = cadre(home, "prompts", "set", "research.planner", _prompt_file(tmp_path, NEW_PLANNER))
    assert result.exit_code == 0, result.output
    assert result.stdout == "research.planner: version 2 is current\n"

    current = cadre(home, "prompts", "show", "research.planner")
    assert current.stdout == NEW_PLANNER
    assert current.stderr == "research.planner version 2 of 2\n"
    old = cadre(home, "prompts", "show", "research.planner", "--version", "1")
    assert old.stdout == PLANNER_SYSTEM + "\n"
    assert old.stderr == "research.planner version 1 of 2\n"

    listed = cadre(home, "prompts", "list").stdout.splitlines()
    line = next(line for line in listed if line.startswith("research.planner "))
    assert line.split()[1:] == ["v2", "2", "version(s)", *NEW_PLANNER.split()]
    assert oct((home / "roles").stat().st_mode & 0o777) == "0o700"


def test_set_reads_stdin_and_an_unchanged_text_stores_nothing(home: Path) -> None:
    first = cadre(home, "prompts", "set", "research.worker", "-", stdin="Search, then answer.")
    assert first.stdout == "research.worker: version 2 is current\n"
    again = cadre(home, "prompts", "set", "research.worker", "-", stdin="Search, then answer.\n")
    assert again.exit_code == 0
    assert again.stdout == "research.worker: unchanged, version 2 stays current\n"
    default = cadre(home, "prompts", "set", "research.aggregator", "-", stdin="x")
    assert default.stdout == "research.aggregator: version 2 is current\n"
    assert sorted(p.name for p in (home / "roles" / "research.worker").iterdir()) == [
        "v0001.txt",
        "v0002.txt",
    ]


def test_setting_the_packaged_default_itself_changes_nothing(home: Path) -> None:
    result = cadre(home, "prompts", "set", "research.worker", "-", stdin=WORKER_SYSTEM)
    assert result.stdout == "research.worker: unchanged, version 1 stays current\n"


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["set", "Research.Planner", "-"], "text", "lowercase letters, digits, dots"),
        (["set", "research.planer", "-"], "text", "unknown role 'research.planer'"),
        (["set", "research.worker", "-"], " \n", "the prompt of role 'research.worker' is empty"),
        (["set", "research.planner", "-"], "Plan well.", r"lacks {max_tasks}"),
        (["set", "research.planner", "-"], "Plan {max_tasks} {n}.", "unknown field {n}"),
        (["set", "research.worker", "missing.txt"], None, "cannot read the prompt file"),
        (["show", "research.planer"], None, "unknown role 'research.planer'"),
        (["show", "research.planner", "--version", "2"], None, "no version 2: its versions are 1"),
        (["show", "../etc"], None, "invalid role name"),
    ],
)
def test_bad_input_is_one_line_exit_two_and_writes_nothing(
    home: Path, args: list[str], stdin: str | None, message: str
) -> None:
    assert message in one_line_error(cadre(home, "prompts", *args, stdin=stdin))
    assert not home.exists()


def test_a_prompt_file_that_is_not_utf8_is_refused(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("Plan {max_tasks} étapes.".encode("latin-1"))
    error = one_line_error(cadre(home, "prompts", "set", "research.planner", str(path)))
    assert error == f"error: cannot read the prompt file {path}: not UTF-8 text"


def test_a_run_uses_the_version_set_and_records_it(
    home: Path, tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    cadre(home, "prompts", "set", "research.planner", "-", stdin=NEW_PLANNER)
    model = ScriptedChatModel(
        [Structured(PlanDraft(goal="greet", direct_answer="Hello from the plan."))]
    )
    monkeypatch.setattr(launch_module, "ProviderChatModel", lambda spec, build_now: model)

    result = cadre(
        home, "run", "Say hello.", "--team", "research", "--model", "scripted:test",
        "--corpus", str(corpus), "--thread", "t-roles", "--no-trace",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    system = model.requests[0][0]
    assert system.type == "system"
    assert system.text == NEW_PLANNER.strip().format(max_tasks=6)

    info = read_thread_spec(DataHome(root=home), "t-roles")
    assert dict(info.prompt_versions)["research.planner"] == 2
    assert dict(info.prompt_versions)["research.worker"] == 1
    assert "research.planner v2" in cadre(home, "show", "t-roles").stdout

    # a later version does not change what the thread's later parts are built with
    cadre(home, "prompts", "set", "research.planner", "-", stdin="Plan {max_tasks}.")
    launched, _ = relaunch(DataHome(root=home), "t-roles")
    with launched:
        assert launched.prompts.used()["research.planner"] == 2
