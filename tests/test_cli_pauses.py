"""A run that pauses without ``--review`` still says so: a team file's ``review: [plan]`` and a
policy's ``ask`` print the pending requests and the commands that continue the thread, ``--json``
lists them in ``pending``, and ``cadre show`` names the review points a team file declares."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from framework.cli.app import app
from tests.conftest import SMALL_CORPUS, write_corpus

REVIEWED_FILE = """\
name: support
review: [plan]
kinds:
  - name: docs
    builtin: search
"""
ASKING_POLICY = "approval: {nodes: [memory_curator], teams: [research]}\n"
QUESTION = "How do workers retry transient errors?"


def _cadre(home: Path, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--home", str(home)], env={"CADRE_REVIEWER": "dana"})


def test_a_team_files_review_point_pauses_visibly(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    team = tmp_path / "team.yaml"
    team.write_text(REVIEWED_FILE, encoding="utf-8")
    home = tmp_path / "home"
    args = ["run", QUESTION, "--corpus", str(corpus), "--team-config", str(team)]

    ran = _cadre(home, *args, "--thread", "t1")
    assert ran.exit_code == 0, ran.output
    assert "paused for review: thread t1 has 1 pending request(s)" in ran.stdout
    assert "plan review  at team support" in ran.stdout
    assert "cadre approve t1 --revision " in ran.stdout
    assert "cadre edit t1 --plan FILE --revision " in ran.stdout
    assert "cadre reject t1 TASK_ID... --reason TEXT --revision " in ran.stdout

    as_json = _cadre(home, *args, "--thread", "t2", "--json")
    assert as_json.exit_code == 0, as_json.output
    [request] = json.loads(as_json.stdout)["pending"]
    assert request["kind"] == "plan"

    shown = _cadre(home, "show", "t1")
    assert shown.exit_code == 0, shown.output
    assert f"team support ({team.resolve()}), model offline, review plan" in shown.stdout


def test_a_policy_that_asks_pauses_visibly(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    policy = tmp_path / "policy.yaml"
    policy.write_text(ASKING_POLICY, encoding="utf-8")
    home = tmp_path / "home"
    args = ["run", QUESTION, "--corpus", str(corpus), "--team", "research"]

    ran = _cadre(home, *args, "--policy", str(policy), "--thread", "t1")
    assert ran.exit_code == 0, ran.output
    assert "paused for review: thread t1 has 1 pending request(s)" in ran.stdout
    assert "policy review  at team research (node memory_curator)" in ran.stdout
    assert "policy approval asks at before_node on memory_curator" in ran.stdout
    assert "cadre approve t1 --revision " in ran.stdout
    assert "cadre reject t1 --reason TEXT --revision " in ran.stdout

    as_json = _cadre(home, *args, "--policy", str(policy), "--thread", "t2", "--json")
    assert as_json.exit_code == 0, as_json.output
    [request] = json.loads(as_json.stdout)["pending"]
    assert request["kind"] == "policy"

    approved = _cadre(home, "approve", "t1")
    assert approved.exit_code == 0, approved.output
    assert "thread t1 finished; its answer:" in approved.stdout
