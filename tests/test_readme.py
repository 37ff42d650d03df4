"""The README's Python examples run as written: the team compiled in-process (leaving no
database in the working tree), and the client of ``cadre serve --team-config`` (Agent Inbox's
calls) against a real server started with the README's commands, the console reviewing too."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve, start
from tests.test_agent_inbox import AgentInbox
from tests.test_console_seams import _console, _decide, _joined

ROOT = Path(__file__).parent.parent
TWO_PARTS = "How are checkpoints encrypted and how do workers retry transient errors?"
"""Planned offline as three tasks (the whole question and its two parts)."""


def _examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return list(re.findall(r"```python\n(.*?)```", readme, re.S))


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_readme_python_example_runs_and_leaves_no_file() -> None:
    [example] = [code for code in _examples() if "build_team" in code]
    before = sorted(ROOT.glob("*.sqlite*"))
    done = _run(example)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# "), done.stdout
    assert sorted(ROOT.glob("*.sqlite*")) == before


def test_the_readme_team_file_is_served_and_reviewed_from_agent_inbox_and_the_console(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's team file, token and ``cadre serve --team-config`` command as written; its
    client code (Agent Inbox's calls) accepts the plan of the run it paused; a second paused run
    is in the inbox of Agent Inbox and of the console, and approved from the console."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    team = re.search(r"```yaml\n# support.yaml\n(.*?)```", readme, re.S)
    commands = re.search(r"```sh\n(cadre tokens create .*?)```", readme, re.S)
    [example] = [code for code in _examples() if "langgraph_sdk" in code]
    assert team and commands
    create, serve_command = (shlex.split(line, comments=True) for line in commands[1].splitlines())
    assert serve_command[:2] == ["cadre", "serve"], serve_command
    monkeypatch.chdir(tmp_path)  # the commands' relative paths: docs, support.yaml
    write_corpus(tmp_path / "docs", SMALL_CORPUS)
    (tmp_path / "support.yaml").write_text(team[1], encoding="utf-8")
    home = tmp_path / "home"
    made = CliRunner().invoke(app, [*create[1:], "--home", str(home)])
    assert made.exit_code == 0, made.output
    served = Served(url="", home=home, database=None, tokens={"ada": made.stdout.split()[0]})

    with start(served, options=serve_command[2:]):
        code = example.replace('"cadre_..."', repr(served.tokens["ada"]))
        done = _run(code.replace("http://127.0.0.1:8123", served.url))
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("# "), done.stdout

        client = served.client("ada")
        thread_id = client.threads.create()["thread_id"]
        client.runs.wait(thread_id, "support", input={"question": "How do workers retry?"})
        [listed] = AgentInbox(client, "support").fetch_threads()
        assert listed["thread_id"] == thread_id
        assert listed["inbox_interrupts"][0]["action_request"]["action"] == "review_plan"
        with _console(served) as console:
            assert f"/console/threads/{thread_id}" in console.get("/console").text
            _decide(console, thread_id, kind="approve")
        _joined(served, thread_id)
        values = client.threads.get_state(thread_id)["values"]
    assert values["final_answer"].startswith("# ")
    assert [(e["request_kind"], e["decision_kind"], e["reviewer"]) for e in values["audit"]] == [
        ("plan", "approve", "ada")
    ]


def test_the_readme_client_code_answers_several_reviews_pending_at_once(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """The README's client code on the README's team with a review per task: a question of
    two parts pauses at several task reviews at once, and the code accepts every one."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    team = re.search(r"```yaml\n# support.yaml\n(.*?)```", readme, re.S)
    [example] = [code for code in _examples() if "langgraph_sdk" in code]
    assert team is not None and "review: [plan]" in team[1]
    (tmp_path / "support.yaml").write_text(team[1].replace("[plan]", "[tasks]"), encoding="utf-8")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    options = ["--corpus", str(corpus), "--team-config", str(tmp_path / "support.yaml")]
    with serve(
        tmp_path / "home", None, tokens={"ada": ("acme", "run,review")}, options=options
    ) as served:
        code = example.replace('"cadre_..."', repr(served.tokens["ada"]))
        code = code.replace("How are checkpoints written?", TWO_PARTS)
        done = _run(code.replace("http://127.0.0.1:8123", served.url))
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("# "), done.stdout
        [thread] = served.client("ada").threads.search(metadata={"graph_id": "support"})
        audit = served.client("ada").threads.get_state(thread["thread_id"])["values"]["audit"]
    assert len(audit) > 1
    assert {(e["request_kind"], e["decision_kind"]) for e in audit} == {("tasks", "approve")}
