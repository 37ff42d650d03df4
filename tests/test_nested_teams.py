"""Team files whose kinds are whole teams (``team: FILE`` or ``team: NAME``): three levels run
offline from the CLI and cite the leaf's corpus, an installed team nests in sync and async runs,
a review point two levels down pauses the run, a file that includes itself is refused with the
chain of its ``team:`` lines, a budget at the top stops a nested team's model calls, and each
subteam's spans nest under the task that runs it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from framework.engine.builder import compile_team
from framework.engine.records import UsageRecord
from framework.errors import ConfigError
from framework.memory import Corpus, SemanticStore, ingest_corpus
from framework.memory.embeddings import MiniLMEmbedder
from framework.policy import Call, PolicyMiddleware, Principal
from framework.review import approve_all, pending
from framework.runs.runner import arun_team, run_team
from framework.runs.teams import TeamSetup
from policies.budgets import Budget, Limits
from teams.configured.app import team_from_file
from tests.conftest import one_line_error, write_corpus
from tests.test_telemetry import Recorder, children, roots

PORTS = "# Ports\n\nThe gateway listens on port 8443 for TLS traffic.\n"
QUESTION = "Which port does the gateway listen on?"
TOP = "name: top\nkinds:\n  - name: deep\n    team: teams/middle.yaml\n"
MIDDLE = "name: middle\nkinds:\n  - name: inner\n    description: the leaf\n    team: leaf.yaml\n"
LEAF = "name: leaf\nkinds:\n  - name: docs\n    builtin: search\n"
SCRIPT = """\
steps:
  - structured:
      goal: port
      sub_questions: [{description: "Which port?", query: gateway port, kind: docs}]
  - tools: [{name: search_corpus, args: {query: gateway port}}]
    match: "Task q0:"
  - reply: The gateway listens on port 8443.
    match: "8443"
  - reply: Findings.
    match: "Findings:"
  - structured: {decision: finish, confidence: 1.0}
    match: "Consolidated findings:"
  - structured: {facts: []}
    match: "Evidence:"
  - structured: {sections: []}
    match: "Evidence you may cite:"
"""


def _cli(*args: str) -> Any:
    return CliRunner().invoke(__import__("framework.cli.app", fromlist=["app"]).app, list(args))


def _files(root: Path, leaf: str = LEAF) -> Path:
    """top.yaml -> teams/middle.yaml -> teams/leaf.yaml under ``root``; the top file."""
    (root / "teams").mkdir(parents=True)
    (root / "teams" / "middle.yaml").write_text(MIDDLE)
    (root / "teams" / "leaf.yaml").write_text(leaf)
    (root / "teams" / "answers.yaml").write_text(SCRIPT)
    top = root / "top.yaml"
    top.write_text(TOP)
    return top


def test_three_levels_from_files_run_offline_and_cite_the_leafs_corpus(tmp_path: Path) -> None:
    top = _files(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    home = str(tmp_path / "home")
    ran = _cli(
        "run", QUESTION, "--team-config", str(top), "--corpus", str(corpus), "--thread", "t1",
        "--home", home,
    )  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    assert "The gateway listens on port 8443 for TLS traffic. (`corpus/ports.md:3`)" in ran.stdout
    assert "\nmiddle > leaf plan 1 task(s)\n" in ran.stderr  # progress names the teams
    history = _cli("history", "t1", "--home", home)
    places = {line.split("  ")[-1].strip() for line in history.stdout.splitlines()[1:]}
    assert places == {
        "team top",
        "team top > kind deep (task q0) > team middle",
        "team top > kind deep (task q0) > team middle > kind inner (task q0) > team leaf",
    }
    shown = _cli("show", "t1", "--home", home)
    assert shown.exit_code == 0, shown.stderr
    assert "deep" in shown.stdout
    listed = _cli("tools", "list", "--config", str(top))
    assert listed.stdout.startswith("deep/inner/docs  builtin:CorpusSearchWorker  -  {}")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_kind_may_be_an_installed_team(tmp_path: Path, small_corpus: Corpus, mode: str) -> None:
    top = tmp_path / "top.yaml"
    top.write_text("kinds:\n  - name: research\n    team: research\n")
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store)
    app = compile_team(team_from_file(top)(setup), checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "installed"}}
    question = {"question": "How are checkpoints encrypted?"}
    final = app.invoke(question, config) if mode == "sync" else _arun(app, question, config)
    sources = {e.source for r in final["worker_results"].values() for e in r.evidence}
    assert "docs/checkpoints.md:3" in sources
    assert "`docs/checkpoints.md:3`" in final["final_answer"]


def _arun(app: Any, question: dict[str, str], config: Any) -> Any:
    return asyncio.run(app.ainvoke(question, config))


def test_a_review_point_two_levels_down_pauses_the_run_and_is_approved(
    tmp_path: Path, small_corpus: Corpus
) -> None:
    top = _files(tmp_path / "conf", "name: leaf\nreview: [plan]\n" + LEAF.split("\n", 1)[1])
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store)
    app = compile_team(team_from_file(top)(setup), checkpointer=InMemorySaver())
    run_team(app, {"question": "How are checkpoints encrypted?"}, "r")
    [request] = pending(app, "r")
    assert request.kind == "plan" and request.path[-1] == "leaf"
    final = approve_all(app, "r", "dana").state
    assert "`docs/checkpoints.md:3`" in final["final_answer"]
    assert pending(app, "r") == []


def test_a_file_that_includes_itself_is_refused_with_the_chain_of_lines(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "name: a\nkinds:\n  - name: docs\n    builtin: search\n"
        "  - name: other\n    description: b's team\n    team: b.yaml\n"
    )
    (tmp_path / "b.yaml").write_text("name: b\nkinds:\n  - name: back\n    team: ./a.yaml\n")
    chain = re.escape(f"{tmp_path}/a.yaml:7 -> {tmp_path}/b.yaml:4 -> {tmp_path}/a.yaml")
    with pytest.raises(ConfigError, match=f"team files include each other: {chain}$"):
        team_from_file(tmp_path / "a.yaml")
    home = str(tmp_path / "h")
    done = _cli("run", "q", "--team-config", str(tmp_path / "b.yaml"), "--home", home)
    assert one_line_error(done).endswith(
        f"{tmp_path}/b.yaml:4 -> {tmp_path}/a.yaml:7 -> {tmp_path}/b.yaml"
    )
    assert not (tmp_path / "h").exists()
    (tmp_path / "self.yaml").write_text("kinds:\n  - name: me\n    team: self.yaml\n")
    with pytest.raises(ConfigError, match=re.escape(f"self.yaml:3 -> {tmp_path}/self.yaml")):
        team_from_file(tmp_path / "self.yaml")


def test_a_missing_file_or_unknown_team_is_refused_where_it_is_named(tmp_path: Path) -> None:
    (tmp_path / "inner.yaml").write_text(
        "kinds:\n  - name: gone\n    team: gone.yaml\n  - name: nobody\n    team: nosuch\n"
    )
    (tmp_path / "outer.yaml").write_text("kinds:\n  - name: inner\n    team: inner.yaml\n")
    with pytest.raises(ConfigError) as refused:
        team_from_file(tmp_path / "outer.yaml")
    message = str(refused.value)
    assert f"{tmp_path}/inner.yaml:3: kinds.0.team: no team file {tmp_path}/gone.yaml" in message
    assert f"{tmp_path}/inner.yaml:5: kinds.1.team: no installed team 'nosuch': one of" in message
    assert message.endswith(f"(included at {tmp_path}/outer.yaml:3)")
    (tmp_path / "both.yaml").write_text("kinds:\n  - name: x\n    builtin: search\n    team: a\n")
    with pytest.raises(ConfigError, match=r"both\.yaml:2: kinds\.0: a kind is one of builtin"):
        team_from_file(tmp_path / "both.yaml")


def test_a_budget_at_the_top_stops_the_nested_teams_model_calls(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """Top and middle run offline; the leaf's roles are on its own scripted model. Two model
    calls at the top: the leaf's planner and its worker's first call (a search) are made, the
    worker's second is refused, and the refusal comes up through both levels."""
    leaf = "name: leaf\nmodels: {default: scripted:answers.yaml}\n" + LEAF.split("\n", 1)[1]
    top = _files(tmp_path / "conf", leaf)
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    budget = Budget(run=Limits(model_calls=2))
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        setup = TeamSetup(
            corpus=Corpus(store), store=store, middleware=(PolicyMiddleware([budget]),)
        )
        factory = team_from_file(top)
        assert not factory.needs_model and factory.model_specs[0].startswith("scripted:")
        app = compile_team(factory(setup), checkpointer=InMemorySaver())
        final = app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "b"}})
    [result] = final["worker_results"].values()
    assert result.status == "failed" and result.evidence == []
    assert result.refused  # refused all the way up: no level retries what a policy refused
    assert re.fullmatch(
        r"every task of team middle was refused; first: every task of team leaf was refused; "
        r"first: "
        r"refused: policy 'budget' denied a call to model 'scripted:.*answers\.yaml': "
        r"budget exhausted \(run model_calls: 2 of 2 used\)",
        result.error or "",
    )
    assert "8443" not in final["final_answer"]
    assert "the run's budget ran out (run model_calls: 2 of 2 used)" in final["final_answer"]
    # the nested teams' usage is the top's: in its state (for a resume) and in its budget
    recorded = sum(record.counts.get("model_calls", 0) for record in final["usage"].values())
    assert recorded == budget.used("b")["run/model_calls"] >= 2
    assert {record.team for record in final["usage"].values()} >= {"leaf"}


def _model_call(task_id: str | None, within: tuple[str, ...], call_id: int) -> Call:
    return Call(
        hook="before_model",
        target="m",
        value=[],
        principal=Principal(user="u"),
        thread_id="t",
        team="leaf",
        task_id=task_id,
        within=within,
        call_id=call_id,
    )


def test_a_task_budget_tells_apart_equal_task_ids_of_different_subteams() -> None:
    """Task q0 of the subteam in q1 and q0 of the one in q2 are two tasks, and a subteam's
    tasks count against the task above them too."""
    budget = Budget(task=Limits(model_calls=2))
    calls = [
        _model_call("q0", ("q1",), 1),
        _model_call("q0", ("q2",), 2),
        _model_call("q0", ("q1",), 3),
        _model_call("q3", ("q1",), 4),  # another task of q1's subteam: q1's third call
    ]
    verdicts = [budget.before_model(call).action for call in calls]
    assert verdicts == ["allow", "allow", "allow", "deny"]
    for call in calls[:3]:
        budget.after_model(call)
    used = budget.used("t")
    assert used["task/q1/q0/model_calls"] == used["task/q1/model_calls"] == 2
    assert used["task/q2/q0/model_calls"] == used["task/q2/model_calls"] == 1
    # a run resumed in another process takes the chains up again from the usage records
    resumed = Budget(task=Limits(model_calls=2))
    record = UsageRecord(team="leaf", task_id="q0", within=["q1"], counts={"model_calls": 2})
    resumed.restore("t", [record])
    assert resumed.before_model(_model_call("q5", ("q1",), 5)).action == "deny"
    assert resumed.before_model(_model_call("q5", ("q2",), 6)).action == "allow"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_spans_nest_each_subteam_under_the_task_it_runs(
    tmp_path: Path, embedder: MiniLMEmbedder, mode: str
) -> None:
    """run > team top > step > task > team middle > ... > team leaf > its nodes and task."""
    top = _files(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    recorder = Recorder()
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        middleware = recorder.telemetry.middleware
        setup = TeamSetup(corpus=Corpus(store), store=store, middleware=middleware)
        app = compile_team(team_from_file(top)(setup), checkpointer=InMemorySaver())
        question = {"question": QUESTION}
        if mode == "sync":
            run_team(app, question, "s", observer=recorder.telemetry)
        else:
            asyncio.run(arun_team(app, question, "s", observer=recorder.telemetry))
    spans = recorder.finished()
    recorder.telemetry.close()
    [run] = roots(spans)
    [team] = children(spans, run)
    chain = [run.name, team.name]
    for _ in range(2):  # down through middle to leaf
        [step] = [s for s in children(spans, team) if s.name == "cadre.step worker"]
        [task] = children(spans, step)
        [team] = children(spans, task)
        chain += [step.name, task.name, team.name]
    assert chain == [
        "cadre.run",
        "cadre.team top",
        "cadre.step worker",
        "cadre.task q0",
        "cadre.team middle",
        "cadre.step worker",
        "cadre.task q0",
        "cadre.team leaf",
    ]
    assert team.attributes["cadre.team.path"] == "top/middle/leaf"
    [planner] = [s for s in children(spans, team) if s.name == "cadre.node planner"]
    place = "team top > kind deep (task q0) > team middle > kind inner (task q0) > team leaf"
    assert planner.attributes["cadre.where"] == place  # as reviews, audits and history write it
    for parent in spans:
        below = children(spans, parent)
        if below:
            assert parent.start_time <= min(c.start_time for c in below)
            assert parent.end_time >= max(c.end_time for c in below), parent.name
