"""The kind-type table takes a kind type from user code: a test module defines an ``echo:``
kind type (one module's worth: its keys, its worker), registers it, and a team file using it
runs through ``cadre run --team-config`` like any other; an unknown key is refused at its line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from framework.cli.app import app as cadre
from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.kinds import KIND_TYPES, KindSetup, KindType, register_kind_type
from teams.configured.app import team_from_file
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus


class EchoKeys(BaseModel):
    """``echo: PREFIX``: how a team file declares an echo kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    echo: str | None = None


class EchoWorker:
    """Answers each task with its description after the kind's prefix."""

    ran: ClassVar[list[str]] = []

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """The echo of the task."""
        EchoWorker.ran.append(task.id)
        answer = f"{self.prefix} {task.description}"
        evidence = [Evidence(source=f"echo:{task.id}", text=answer, score=1.0)]
        return WorkerResult(
            task_id=task.id, status="ok", output=answer, evidence=evidence, confidence=1.0
        )

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """The echo of the task."""
        return self.run(task, question, context)


class EchoKind(KindType[EchoKeys]):
    """``echo:`` kinds: an :class:`EchoWorker` each."""

    key = "echo"
    spec = EchoKeys
    wanted = "an echo"

    def description(self, spec: EchoKeys) -> str:
        """What it does."""
        return "repeat the question"

    def worker(self, spec: EchoKeys, setup: KindSetup) -> Worker:
        """Echoes with the declared prefix."""
        return EchoWorker(spec.echo or "")


ECHO_TEAM = """\
name: parrots
kinds:
  - name: parrot
    echo: "squawk:"
"""


@pytest.fixture
def echo_kind() -> Iterator[KindType[Any]]:
    kind_type = register_kind_type(EchoKind())
    EchoWorker.ran.clear()
    yield kind_type
    del KIND_TYPES["echo"]


def test_a_kind_type_registered_by_user_code_runs_in_a_team_file(
    tmp_path: Path, echo_kind: KindType[Any]
) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(ECHO_TEAM)
    corpus = write_corpus(tmp_path / "corpus", SMALL_CORPUS)
    question = "How are checkpoints encrypted?"
    home = str(tmp_path / "home")
    ran = CliRunner().invoke(
        cadre,
        ["run", question, "--team-config", str(team), "--corpus", str(corpus), "--home", home],
    )
    assert ran.exit_code == 0, ran.stderr
    assert EchoWorker.ran, "the echo kind's worker ran no task"
    assert f"squawk: {question}" in ran.stdout
    listed = CliRunner().invoke(cadre, ["tools", "list", "--config", str(team)])
    assert listed.exit_code == 0, listed.stderr
    assert "parrot" in listed.stdout and "builtin:EchoWorker" in listed.stdout


def test_a_kind_type_set_in_the_table_is_named_by_the_kind_errors(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text("kinds:\n  - name: a\n    builtin: search\n    echo: hi\n")
    with pytest.raises(ConfigError, match=r"team\.yaml:4: kinds\.0\.echo: Extra inputs"):
        team_from_file(team)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(KIND_TYPES, "echo", EchoKind())
        several = r"kinds\.0: a kind is one of .* a2a or echo, not several"
        with pytest.raises(ConfigError, match=several):
            team_from_file(team)
        team.write_text("kinds:\n  - name: a\n")
        with pytest.raises(
            ConfigError, match=r"kinds\.0: a kind needs .*, an a2a agent or an echo"
        ):
            team_from_file(team)


def test_an_unknown_kind_key_is_refused_at_its_line(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text("kinds:\n  - name: docs\n    builtin: search\n  - name: x\n    parrot: hi\n")
    refused = CliRunner().invoke(
        cadre, ["run", "q", "--team-config", str(team), "--home", str(tmp_path / "home")]
    )
    line = one_line_error(refused)
    assert f"{team}:5: kinds.1.parrot: Extra inputs are not permitted" in line
    assert not (tmp_path / "home").exists()


def test_a_kind_type_may_not_take_a_key_that_is_taken() -> None:
    class Clash(EchoKind):
        key = "clash"

        class spec(EchoKeys):  # noqa: N801 - the kind type's keys, as a class attribute
            team: str | None = None

    with pytest.raises(ConfigError, match=r"declares keys that are taken: team \(of team\)"):
        register_kind_type(Clash())
    assert "clash" not in KIND_TYPES
