"""Policies from the command line: ``cadre policies check``, ``cadre run --policy`` pausing
where a policy asks, ``cadre approve`` and ``cadre reject`` deciding it, ``cadre show`` listing
the policy audit; an invalid policy file is refused before anything is written; a task the
budget refused is failed in ``cadre run --json`` and ``cadre show``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus
from tests.test_local_models import _readme_example

runner = CliRunner()

POLICY = """\
principal: {user: carol, tenant: acme, scopes: [support]}
approval: {nodes: [memory_curator], teams: [research]}
pii: {rules: {email: redact}, apply_to: [answer, memory]}
memory: {max_chars: 4000}
budget: {run: {model_calls: 50}}
"""


def _cadre(home: Path, *args: str, reviewer: str = "dana") -> Result:
    return runner.invoke(app, [*args, "--home", str(home)], env={"CADRE_REVIEWER": reviewer})


@pytest.fixture
def setup(tmp_path: Path, embedder: MiniLMEmbedder) -> tuple[Path, Path, Path]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    return tmp_path / "home", corpus, policy


def test_check_prints_the_policies_per_hook(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    result = runner.invoke(app, ["policies", "check", str(policy)])
    assert result.exit_code == 0, result.output
    assert "valid, version" in result.output
    assert "principal: carol@acme (scopes: support)" in result.output
    assert "  before_node: approval, budget" in result.output
    assert "  memory_write: pii, memory_validation" in result.output


def test_check_refuses_a_bad_file_with_its_line(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("budget:\n  run: {tokens: -5}\npii:\n  rules: {email: shout}\n")
    result = runner.invoke(app, ["policies", "check", str(policy)])
    assert result.exit_code == 2
    line = one_line_error(result)
    assert f"{policy}:2: budget.run.tokens" in line
    assert f"{policy}:4: pii.rules.email" in line


def test_an_invalid_policy_file_is_refused_before_anything_is_written(
    setup: tuple[Path, Path, Path],
) -> None:
    home, corpus, policy = setup
    policy.write_text("tool_authorization:\n  rules:\n    - {tools: x, action: maybe}\n")
    result = _cadre(home, "run", "q", "--corpus", str(corpus), "--policy", str(policy))
    assert result.exit_code == 2
    assert f"{policy}:3: tool_authorization.rules.0.action" in one_line_error(result)
    assert not home.exists()


def test_a_policy_asks_and_a_reviewer_approves_or_rejects(
    setup: tuple[Path, Path, Path],
) -> None:
    home, corpus, policy = setup
    question = "How do workers retry transient errors?"
    for thread in ("t1", "t2"):
        started = _cadre(
            home, "run", question, "--corpus", str(corpus), "--policy", str(policy),
            "--thread", thread, "--team", "research",
        )  # fmt: skip
        assert started.exit_code == 0, started.output
    listed = _cadre(home, "reviews")
    assert listed.output.count("policy review  at team research (node memory_curator)") == 2
    assert "policy approval asks at before_node on memory_curator" in listed.output

    approved = _cadre(home, "approve", "t1")
    assert approved.exit_code == 0, approved.output
    shown = _cadre(home, "show", "t1").output
    assert "approve on policy review" in shown
    assert "approval  approved by dana at before_node on memory_curator" in shown
    assert "policies: version " in shown

    rejected = _cadre(home, "reject", "t2", "--reason", "not this one")
    assert rejected.exit_code == 1  # the curator was refused: the run stops with the reason
    assert rejected.stderr.startswith("error: dana rejected node 'memory_curator'")
    assert "not this one" in rejected.stderr


def test_a_decision_can_go_on_under_another_policy_file(
    setup: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    home, corpus, policy = setup
    started = _cadre(
        home, "run", "How do workers retry transient errors?", "--corpus", str(corpus),
        "--policy", str(policy), "--thread", "t3", "--team", "research",
    )  # fmt: skip
    assert started.exit_code == 0, started.output
    other = tmp_path / "other.yaml"
    other.write_text("pii: {rules: {email: mask}, apply_to: [answer]}\n", encoding="utf-8")
    version = runner.invoke(app, ["policies", "check", str(other)]).output.split("version ")[1]
    approved = _cadre(home, "approve", "t3", "--policy", str(other))
    assert approved.exit_code == 0, approved.output
    assert f"policies: version {version.split()[0]}" in _cadre(home, "show", "t3").output


def test_a_fork_runs_under_another_policy_file(
    setup: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    home, corpus, policy = setup
    started = _cadre(
        home, "run", "How do workers retry transient errors?", "--corpus", str(corpus),
        "--policy", str(policy), "--thread", "t4", "--team", "research",
    )  # fmt: skip
    assert started.exit_code == 0, started.output
    other = tmp_path / "other.yaml"
    other.write_text("pii: {rules: {email: redact}, apply_to: [answer]}\n", encoding="utf-8")
    version = runner.invoke(app, ["policies", "check", str(other)]).output.split("version ")[1]
    history = _cadre(home, "history", "t4").output.splitlines()
    first = next(line.split()[0] for line in history[1:] if line.endswith("  team research"))
    forked = _cadre(home, "fork", "t4", first, "--policy", str(other))
    assert forked.exit_code == 0, forked.output
    new = forked.output.split("into thread ")[1].split()[0]
    assert f"policies: version {version.split()[0]}" in _cadre(home, "show", new).output
    assert "policies: version " in _cadre(home, "show", "t4").output


def test_a_rejected_workers_policy_review_says_so_and_the_run_goes_on(
    setup: tuple[Path, Path, Path],
) -> None:
    home, corpus, policy = setup
    policy.write_text('approval: {nodes: [worker], question: "may it search?"}\n', encoding="utf-8")
    started = _cadre(
        home, "run", "How are checkpoints written?", "--corpus", str(corpus),
        "--policy", str(policy), "--thread", "w1", "--team", "research",
    )  # fmt: skip
    assert started.exit_code == 0, started.output
    rejected = _cadre(home, "reject", "w1", "--reason", "not today")
    assert rejected.exit_code in (0, 1), rejected.output  # its task fails; the run goes on
    assert "Traceback" not in rejected.output and "KeyError" not in rejected.output
    assert "dana rejected policy review" in rejected.stdout and "not today" in rejected.stdout


BUDGET_SCRIPT = """\
steps:
  - structured:
      goal: two answers
      sub_questions:
        - {description: "How do workers retry?", query: retry, kind: docs}
        - {description: "What is 6 times 7?", query: "6*7", kind: calc}
  - reply: Workers retry transient errors.
    match: "Task q0:"
  - tools: [{name: multiply, args: {a: 6, b: 7}}]
    match: "Task q1:"
  - reply: I could not multiply.   # the answer around the refusal a task no longer gives
    match: was refused
  - reply: Findings.
    match: "Findings:"
  - structured: {decision: finish, confidence: 1.0}
    match: "Consolidated findings:"
  - structured: {facts: []}
    match: "Evidence:"
  - structured: {sections: []}
    match: "Evidence you may cite:"
"""


def test_a_task_whose_tool_call_the_budget_refused_is_failed_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's team file under a budget of no tool calls per task: the calc task's tool
    call is refused, so the task fails with "budget exhausted" (it ended ``done`` with the
    model's answer around the refusal); the docs task, answered without a tool, is done."""
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    args = _readme_example(tmp_path)
    (tmp_path / "answers.yaml").write_text(BUDGET_SCRIPT, encoding="utf-8")
    args[args.index("--model") + 1] = "scripted:answers.yaml"
    (tmp_path / "policy.yaml").write_text("budget: {task: {tool_calls: 0}}\n", encoding="utf-8")
    home = tmp_path / "home"
    ran = _cadre(home, *args, "--policy", "policy.yaml", "--thread", "b1", "--json")
    assert ran.exit_code == 0, ran.output
    final = json.loads(ran.stdout)
    assert {key: task["status"] for key, task in final["tasks"].items()} == {
        "q0": "done",
        "q1": "failed",
    }
    error = final["worker_results"]["q1"]["error"]
    assert error.startswith(
        "refused: policy 'budget' denied a call to tool 'multiply': budget "
        "exhausted (task q1 tool_calls: 0 of 0 used)"
    ), error
    shown = _cadre(home, "show", "b1").stdout
    assert "  q1  calc      failed    What is 6 times 7?" in shown, shown
    assert "budget  deny at before_tool on multiply" in shown


def test_check_prints_every_budget_limit(tmp_path: Path) -> None:
    policy = tmp_path / "budget.yaml"
    policy.write_text(
        "budget:\n  run: {model_calls: 50, cost: 2.5}\n  task: {tokens: 20000}\n"
        "  max_output_tokens: 512\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["policies", "check", str(policy)])
    assert result.exit_code == 0, result.output
    assert (
        "  budget: run model_calls 50, cost 2.5; each task tokens 20000; max_output_tokens 512; "
        "when spent: stop"
    ) in result.output
