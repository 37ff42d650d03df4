"""``cadre show`` and ``cadre history`` on a run paused inside nested teams, as docs/team-config.md
composes them: a coordinator file whose phase is a research team, whose kind ``legal`` is a team
file declaring ``review: [plan]``. ``show`` names the review points of every level and, while
paused, the inner teams' plans and tasks under the tasks that ran them; ``history`` reads the
nested teams' checkpoints without a warning and names what wrote each one."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from tests.conftest import write_corpus

COORDINATOR = "name: coordinator\nphases:\n  - intake\n  - team: teams/research.yaml\n"
RESEARCH = """\
name: research
kinds:
  - name: legal
    description: questions about contracts
    team: legal.yaml
  - name: data
    builtin: table
"""
LEGAL = "name: legal\nreview: [plan]\nkinds:\n  - name: contracts\n    builtin: search\n"
CONTRACT = (
    "# Harbour Freight contract\n\n"
    "The Harbour Freight contract renews automatically every twelve months.\n"
    "Notices go to the legal department of Harbour Freight.\n"
)
QUESTION = "What do the contracts say about renewal, and who receives notices?"
PARTS = (QUESTION, "What do the contracts say about renewal", "who receives notices")
"""The research team's three tasks offline (the whole question and its parts), each a legal
team paused at its plan review."""


@dataclass(frozen=True)
class Paused:
    home: Path

    def cli(self, *args: str) -> Any:
        result = CliRunner().invoke(app, [*args, "--home", str(self.home)])
        assert result.exit_code == 0, result.output
        return result


@pytest.fixture(scope="module")
def paused(tmp_path_factory: pytest.TempPathFactory) -> Paused:
    root = tmp_path_factory.mktemp("nested")
    (root / "conf" / "teams").mkdir(parents=True)
    (root / "conf" / "coordinator.yaml").write_text(COORDINATOR)
    (root / "conf" / "teams" / "research.yaml").write_text(RESEARCH)
    (root / "conf" / "teams" / "legal.yaml").write_text(LEGAL)
    corpus = write_corpus(root / "corpus", {"contracts.md": CONTRACT})
    made = Paused(root / "home")
    ran = made.cli("run", QUESTION, "--team-config", str(root / "conf" / "coordinator.yaml"),
                   "--corpus", str(corpus), "--thread", "t1", "--no-trace")  # fmt: skip
    assert "paused for review: thread t1 has 3 pending request(s)" in ran.stdout
    return made


def test_show_names_every_levels_review_points_and_the_inner_teams_plans_and_tasks(
    paused: Paused,
) -> None:
    lines = paused.cli("show", "t1").stdout.splitlines()
    assert lines[0].endswith(", model offline, review plan in team legal")
    assert "plan: none at the top (its teams' plans are under their tasks)" in lines
    assert "tasks: 1 (8 in the teams below)" in lines
    start = lines.index("tasks: 1 (8 in the teams below)") + 1
    tree = lines[start : lines.index("pending: 3")]
    assert tree[:3] == [
        f"  research  research  running   {QUESTION}",
        f"      team research: 3 task(s), plan: {QUESTION}",
        f"        q0  legal     running   {QUESTION}",
    ]
    for part in PARTS:  # each legal team: its plan, and its tasks pending the plan review
        assert f"            team legal: {1 + 2 * (part == QUESTION)} task(s), plan: {part}" in tree
        assert f"              q0  contracts  pending   {part}" in tree


def test_history_of_a_nested_run_is_quiet_and_names_what_wrote_each_row(
    paused: Paused, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        shown = paused.cli("history", "t1")
    assert not caplog.records, [record.getMessage() for record in caplog.records]
    assert shown.stderr == ""
    header, *rows = shown.stdout.splitlines()
    assert header.split() == ["checkpoint", "step", "written", "by", "state", "place"]
    writers = {(row.split("  ")[-1].strip(), row.split()[2]) for row in rows}
    assert all(writer != "?" for _, writer in writers), rows
    research = "team coordinator > kind research (task research) > team research"
    legal = [f"{research} > kind legal (task q{n}) > team legal" for n in range(3)]
    assert {*((place, "planner") for place in legal), (research, "dispatcher")} <= writers
    planned = [row for row in rows if row.split()[2] == "planner" and "team legal" in row]
    assert len(planned) == 3
    assert all("; paused for plan review  " in row for row in planned)
    assert any(
        row.split()[2] == "intake" and "paused for 3 plan reviews  team coordinator" in row
        for row in rows
    )
