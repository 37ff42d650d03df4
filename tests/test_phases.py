"""Coordinator team files (``phases:``): two team files run in order from the CLI, their cited
answers and the assessors' notes in the answer; three levels (a phase's team nests a team
kind) run offline; a review point inside a phase's team pauses the run; a phase cycle, an
unknown phase and a taken step name are refused at their lines; a budget at the top stops the
model calls of a team two levels down."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from framework.engine.builder import compile_team
from framework.errors import ConfigError
from framework.memory import Corpus, SemanticStore, ingest_corpus
from framework.memory.embeddings import MiniLMEmbedder
from framework.policy import PolicyMiddleware
from framework.review import approve_all, pending
from framework.runs.runner import run_team
from framework.runs.teams import TeamSetup
from policies.budgets import Budget, Limits
from teams.configured.app import team_from_file
from tests.conftest import one_line_error, write_corpus
from tests.test_nested_teams import SCRIPT

CORPUS = {
    "ports.md": "# Ports\n\nThe gateway listens on port 8443 for TLS traffic.\n",
    "cities.csv": "city,population\nGraz,291000\nLinz,207000\n",
}
QUESTION = "Which port does the gateway listen on, and what is the population of Graz?"
COORDINATOR = """\
name: coordinator
phases:
  - intake
  - team: teams/research.yaml
  - team: teams/tables.yaml
  - assess: [risk, compliance]
"""
RESEARCH = "name: research\nkinds:\n  - name: docs\n    builtin: search\n"
TABLES = "name: tables\nkinds:\n  - name: rows\n    builtin: table\n"
MIDDLE = "name: middle\nkinds:\n  - name: inner\n    team: leaf.yaml\n"


def _cli(*args: str) -> Any:
    return CliRunner().invoke(__import__("framework.cli.app", fromlist=["app"]).app, list(args))


def _files(root: Path, coordinator: str = COORDINATOR, **teams: str) -> Path:
    """The coordinator file under ``root`` and ``teams`` (file stem -> text) in root/teams."""
    (root / "teams").mkdir(parents=True)
    for stem, text in {"research": RESEARCH, "tables": TABLES, **teams}.items():
        (root / "teams" / f"{stem}.yaml").write_text(text)
    top = root / "coordinator.yaml"
    top.write_text(coordinator)
    return top


def test_two_team_phases_answer_with_both_teams_findings_and_the_assessors_notes(
    tmp_path: Path,
) -> None:
    top = _files(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", CORPUS)
    home = str(tmp_path / "home")
    ran = _cli("run", QUESTION, "--team-config", str(top), "--corpus", str(corpus),
               "--thread", "t1", "--home", home, "--no-trace")  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    answer = ran.stdout
    research, tables, notes = (answer.index(h) for h in ("## research", "## tables", "## Assess"))
    assert research < tables < notes
    assert "port 8443 for TLS traffic. (`corpus/ports.md:3`)" in answer[research:tables]
    assert "population: 291000 (`corpus/cities.csv:2`)" in answer[tables:notes]
    assert "- compliance_check: info: all 2 claims cite their sources" in answer[notes:]
    shown = _cli("show", "t1", "--home", home)
    assert shown.exit_code == 0, shown.stderr
    assert "team research: " in shown.stdout and "team tables: " in shown.stdout
    listed = _cli("tools", "list", "--config", str(top))
    assert listed.stdout.startswith("research/docs  builtin:CorpusSearchWorker  -  {}")
    assert "\ntables/rows  builtin:TableWorker  -  {}" in listed.stdout


def test_three_levels_a_phase_team_nesting_a_team_kind_run_offline(tmp_path: Path) -> None:
    coordinator = "name: top\nphases:\n  - team: teams/middle.yaml\n  - assess: [compliance]\n"
    top = _files(tmp_path / "conf", coordinator, middle=MIDDLE, leaf=RESEARCH)
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": CORPUS["ports.md"]})
    ran = _cli("run", "Which port does the gateway listen on?", "--team-config", str(top),
               "--corpus", str(corpus), "--home", str(tmp_path / "home"), "--no-trace")  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    assert "## middle" in ran.stdout
    assert "port 8443 for TLS traffic. (`corpus/ports.md:3`)" in ran.stdout
    assert "compliance_check: info: all 1 claims cite their sources" in ran.stdout
    listed = _cli("tools", "list", "--config", str(top))
    assert listed.stdout.startswith("middle/inner/docs  builtin:CorpusSearchWorker  -  {}")


def test_a_budget_at_the_top_stops_a_phase_teams_nested_model_calls(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    leaf = "name: leaf\nmodels: {default: scripted:answers.yaml}\n" + RESEARCH.split("\n", 1)[1]
    coordinator = "name: top\nphases:\n  - team: teams/middle.yaml\n  - assess: [risk]\n"
    top = _files(tmp_path / "conf", coordinator, middle=MIDDLE, leaf=leaf)
    (tmp_path / "conf" / "teams" / "answers.yaml").write_text(SCRIPT)
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": CORPUS["ports.md"]})
    budget = Budget(run=Limits(model_calls=2))
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        middleware = (PolicyMiddleware([budget]),)
        setup = TeamSetup(corpus=Corpus(store), store=store, middleware=middleware)
        app = compile_team(team_from_file(top)(setup), checkpointer=InMemorySaver())
        final = app.invoke({"question": "Which port?"}, {"configurable": {"thread_id": "b"}})
    result = final["worker_results"]["middle"]
    assert result.status == "failed"
    assert re.match(
        r"every task of team middle was refused; first: every task of team leaf was refused; "
        r"first: "
        r"refused: policy 'budget' denied a call to model 'scripted:",
        result.error or "",
    )
    assert "- middle: every task of team middle was refused" in final["final_answer"]
    assert "- risk_assessment: error: task failed: every task" in final["final_answer"]
    recorded = sum(record.counts.get("model_calls", 0) for record in final["usage"].values())
    assert recorded == budget.used("b")["run/model_calls"] >= 2


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_review_point_in_a_phase_team_pauses_the_run(
    tmp_path: Path, small_corpus: Corpus, mode: str
) -> None:
    reviewed = "name: research\nreview: [plan]\n" + RESEARCH.split("\n", 1)[1]
    top = _files(tmp_path / "conf", research=reviewed)
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store)
    app = compile_team(team_from_file(top)(setup), checkpointer=InMemorySaver())
    question = {"question": "How are checkpoints encrypted?"}
    if mode == "sync":
        run_team(app, question, "r")
    else:
        asyncio.run(app.ainvoke(question, {"configurable": {"thread_id": "r"}}))
    [request] = pending(app, "r")
    assert request.kind == "plan" and request.path[-1] == "research"
    final = approve_all(app, "r", "dana").state
    assert "`docs/checkpoints.md:3`" in final["final_answer"].split("## tables")[0]
    assert set(final["worker_results"]) == {"research", "tables"}
    assert pending(app, "r") == []


def test_a_phase_cycle_is_refused_with_the_chain(tmp_path: Path) -> None:
    (tmp_path / "c1.yaml").write_text("name: c1\nphases:\n  - intake\n  - team: c2.yaml\n")
    (tmp_path / "c2.yaml").write_text("name: c2\nkinds:\n  - name: back\n    team: ./c1.yaml\n")
    chain = re.escape(f"{tmp_path}/c1.yaml:4 -> {tmp_path}/c2.yaml:4 -> {tmp_path}/c1.yaml")
    with pytest.raises(ConfigError, match=f"team files include each other: {chain}$"):
        team_from_file(tmp_path / "c1.yaml")
    done = _cli("run", "q", "--team-config", str(tmp_path / "c1.yaml"),
                "--home", str(tmp_path / "h"))  # fmt: skip
    assert one_line_error(done).endswith(f"{tmp_path}/c2.yaml:4 -> {tmp_path}/c1.yaml")
    assert not (tmp_path / "h").exists()


def test_unknown_phases_and_taken_names_are_refused_at_their_lines(tmp_path: Path) -> None:
    top = tmp_path / "c.yaml"
    top.write_text("name: c\nphases:\n  - intake\n  - review: plan\n  - assess: [cost]\n  - vote\n")
    with pytest.raises(ConfigError) as refused:
        team_from_file(top)
    message = str(refused.value)
    assert f"{top}:4: phases.1: unknown phase review: a phase is intake, team:" in message
    assert f"{top}:5: phases.2.assess.0: Input should be 'risk' or 'compliance'" in message
    assert f"{top}:6: phases.3: unknown phase 'vote'" in message
    top.write_text("phases:\n  - team: research\n  - team: research\n  - team: gone.yaml\n")
    with pytest.raises(ConfigError, match=r"c\.yaml:3: phases\.1: step 'research' is taken"):
        team_from_file(top)
    top.write_text("phases:\n  - intake\n  - team: gone.yaml\n")
    with pytest.raises(ConfigError, match=r"c\.yaml:3: phases\.1\.team: no team file"):
        team_from_file(top)
    top.write_text("kinds: [{name: a, builtin: search}]\nphases: [intake]\n")
    with pytest.raises(ConfigError, match=r"c\.yaml:1: a team file declares kinds \(a team\) or"):
        team_from_file(top)  # about the whole file: no empty place before the message
