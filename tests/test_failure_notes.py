"""The answer's notes say what happened to a task that did not finish, through ``cadre run`` and
``cadre show``: a remote kind's task that failed is not called a failed search, and a task a
policy refused says it was refused, and why."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from framework.cli.app import app
from tests.a2a_agents import free_port
from tests.conftest import write_corpus

QUESTION = "What are the prices?"
TEAM = """\
name: top
kinds:
  - name: pricing
    description: prices and discounts
    remote_graph: {{url: "http://127.0.0.1:{port}", assistant: research}}
"""
"""One remote kind, on a port where nothing listens."""
DENY = "tool_authorization:\n  rules:\n    - {tools: pricing, action: deny, reason: not today}\n"


def _answer(tmp_path: Path, thread: str, *options: str) -> str:
    team = tmp_path / "top.yaml"
    team.write_text(TEAM.format(port=free_port()))
    corpus = write_corpus(tmp_path / "corpus", {"notes.md": "# Notes\n\nNothing on prices.\n"})
    home = ["--home", str(tmp_path / "home")]
    run = ["run", QUESTION, "--team-config", str(team), "--corpus", str(corpus)]
    CliRunner().invoke(app, [*run, "--thread", thread, "--no-trace", *home, *options])
    shown = CliRunner().invoke(app, ["show", thread, *home])
    assert shown.exit_code == 0, shown.output
    return shown.stdout


def test_a_remote_task_that_failed_is_not_called_a_failed_search(tmp_path: Path) -> None:
    answer = _answer(tmp_path, "down")
    assert "Search failed" not in answer
    assert f"> Task failed (kind pricing): {QUESTION}: RemoteAgentError: kind 'pricing'" in answer


def test_a_task_a_policy_refused_says_it_was_refused_and_why(tmp_path: Path) -> None:
    policy = tmp_path / "deny.yaml"
    policy.write_text(DENY)
    answer = _answer(tmp_path, "denied", "--policy", str(policy))
    assert "Search failed" not in answer
    assert (
        f"> Refused: {QUESTION}: policy 'tool_authorization' denied a call to tool 'pricing': "
        "not today\n"
    ) in answer
