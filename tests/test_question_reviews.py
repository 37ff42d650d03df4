"""Question reviews: an A2A agent that asks in free text (``input-required``) pauses this run
with a question review; a reviewer here responds (review API, CLI, the LangGraph API's resume
value, Agent Inbox) and the agent is sent the text on its same task, or rejects the question
and the task fails with the reason. The agent is a real ``a2a-sdk`` server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from framework.cli.app import app as cadre
from framework.engine.builder import compile_team
from framework.errors import ReviewError
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.review import QuestionReview, decide, pending
from framework.runs.runner import run_team
from framework.runs.teams import TeamSetup
from framework.server._inbox import inbox_fields
from framework.server.run_path._resume import resume_from
from teams.configured.app import team_from_file
from tests.a2a_agents import free_port, running_agent
from tests.conftest import one_line_error, write_corpus

LIGHTHOUSE = "When was the Skerry Head lighthouse built?"
ASKS = "Which Skerry Head do you mean, the island or the cape?"
BUILT = "The lighthouse on {place} was built in 1874."
CORPUS = {"ports.md": "# Ports\n\nThe gateway listens on port 8443 for TLS traffic.\n"}


@dataclass
class Agent:
    """A running A2A agent: its URL, the tasks it asked on and the responses it was sent."""

    url: str
    asked_on: list[str] = field(default_factory=list)
    heard: list[tuple[str, str]] = field(default_factory=list)


class AskingExecutor(AgentExecutor):
    """Asks which Skerry Head is meant on a new task; answers with the place it is told on the
    same task."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        said = context.get_user_input()
        assert context.message is not None and context.task_id and context.context_id
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
            self.agent.asked_on.append(context.task_id)
            await updater.requires_input(new_text_message(ASKS))
            return
        self.agent.heard.append((context.task_id, said))
        await updater.complete(new_text_message(BUILT.format(place=said)))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    port = free_port()
    served = Agent(url=f"http://127.0.0.1:{port}")
    description = "Knows when lighthouses were built, once it knows which."
    with running_agent(port, AskingExecutor(served), description):
        yield served


@pytest.fixture
def team(agent: Agent, tmp_path: Path) -> Path:
    path = tmp_path / "top.yaml"
    path.write_text(
        f"name: top\nkinds:\n  - name: agent\n    a2a: {{url: '{agent.url}'}}\n", encoding="utf-8"
    )
    return path


@pytest.fixture
def app(team: Path, embedder: MiniLMEmbedder) -> Iterator[Any]:
    with SemanticStore(":memory:", embedder=embedder) as store:
        setup = TeamSetup(corpus=Corpus(store), store=store)
        yield compile_team(team_from_file(team)(setup), checkpointer=InMemorySaver())


def _asked(app: Any, agent: Agent, thread: str) -> tuple[QuestionReview, str]:
    """Run the lighthouse question on ``thread`` to its pause: the question review, and the
    agent's task that waits for the response."""
    paused = run_team(app, {"question": LIGHTHOUSE}, thread).state
    assert "final_answer" not in paused
    [request] = pending(app, thread)
    assert isinstance(request, QuestionReview)
    return request, agent.asked_on[-1]


def _respond(request: QuestionReview, text: str) -> dict[str, Any]:
    return {"request_id": request.id, "kind": "respond", "reviewer": "dana", "response": text}


def test_a_free_text_question_pauses_the_run_and_the_response_goes_to_the_agents_task(
    app: Any, agent: Agent
) -> None:
    request, agent_task = _asked(app, agent, "q1")
    assert (request.question, request.remote) == (ASKS, f"a2a {agent.url}")
    assert request.where == f"team top > kind agent (task {request.task_id}) > a2a {agent.url}"
    assert request.allowed == ["respond", "reject"]
    final = decide(app, "q1", [_respond(request, "the island")]).state
    assert pending(app, "q1") == []
    assert (agent_task, "the island") in agent.heard  # the same task, the reviewer's text
    [result] = final["worker_results"].values()
    assert result.status == "ok" and result.output == BUILT.format(place="the island")
    assert BUILT.format(place="the island") in final["final_answer"]
    [entry] = final["audit"]
    decided = (entry.request_id, entry.request_kind, entry.decision_kind, entry.reviewer)
    assert decided == (request.id, "question", "respond", "dana")
    assert (entry.response, entry.where) == ("the island", request.where)


def test_a_rejected_question_fails_the_task_with_the_reason(app: Any, agent: Agent) -> None:
    request, agent_task = _asked(app, agent, "q2")
    rejection = {"request_id": request.id, "kind": "reject", "reviewer": "dana"}
    state = decide(app, "q2", [{**rejection, "reason": "ask about lamps only"}]).state
    [result] = state["worker_results"].values()
    assert result.status == "failed" and result.refused
    reason = "ask about lamps only"
    assert result.error == f"refused: dana rejected the question of a2a {agent.url}: {reason}"
    assert all(task != agent_task for task, _ in agent.heard)
    assert pending(app, "q2") == []  # refused by a person: not retried, not asked again
    assert "final_answer" in state


def test_an_empty_response_is_refused_and_the_thread_stays_paused(app: Any, agent: Agent) -> None:
    request, agent_task = _asked(app, agent, "q3")
    with pytest.raises(ReviewError) as refused:
        decide(app, "q3", [_respond(request, "  ")])
    assert "respond needs a non-empty response" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert [r.id for r in pending(app, "q3")] == [request.id]
    assert all(task != agent_task for task, _ in agent.heard)


@pytest.mark.parametrize(
    "value",
    [{"kind": "respond", "response": "the cape"}, [{"type": "response", "args": "the cape"}]],
    ids=["cadre", "agent-inbox"],
)
def test_the_apis_resume_value_responds_to_the_question(app: Any, agent: Agent, value: Any) -> None:
    thread = f"q4-{type(value).__name__}"
    request, agent_task = _asked(app, agent, thread)
    shown = inbox_fields(request.model_dump(mode="json"))
    assert shown["config"] == {
        "allow_accept": False,
        "allow_edit": False,
        "allow_respond": True,
        "allow_ignore": True,
    }
    assert shown["action_request"]["args"]["question"] == ASKS
    snapshot = app.get_state({"configurable": {"thread_id": thread}}, subgraphs=True)
    command = resume_from(snapshot, thread, value, "ada")
    final = run_team(app, command, thread).state
    assert (agent_task, "the cape") in agent.heard
    [result] = final["worker_results"].values()
    assert result.output == BUILT.format(place="the cape")
    [entry] = final["audit"]
    assert (entry.decision_kind, entry.reviewer, entry.response) == ("respond", "ada", "the cape")


def test_a_question_is_listed_and_responded_to_from_the_cli(
    agent: Agent, team: Path, tmp_path: Path
) -> None:
    home = str(tmp_path / "home")
    corpus = write_corpus(tmp_path / "corpus", CORPUS)
    ran = CliRunner().invoke(
        cadre,
        ["run", LIGHTHOUSE, "--team-config", str(team), "--corpus", str(corpus), "--thread",
         "c1", "--home", home],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert "cadre respond c1 TEXT" in ran.stdout
    agent_task = agent.asked_on[-1]
    listed = CliRunner().invoke(cadre, ["reviews", "--home", home])
    assert listed.exit_code == 0, listed.output
    assert "question review  at team top > kind agent (task " in listed.stdout
    assert f"a2a {agent.url} asks (task " in listed.stdout and ASKS in listed.stdout
    empty = CliRunner().invoke(cadre, ["respond", "c1", " ", "--reviewer", "dana", "--home", home])
    assert "no response: pass the text the agent is sent" in one_line_error(empty)
    still = CliRunner().invoke(cadre, ["reviews", "--thread", "c1", "--home", home])
    assert ASKS in still.stdout
    responded = CliRunner().invoke(
        cadre, ["respond", "c1", "the cape", "--reviewer", "dana", "--home", home]
    )
    assert responded.exit_code == 0, responded.output
    assert "dana responded to question review " in responded.stdout
    assert "thread c1 finished; its answer:" in responded.stdout
    assert BUILT.format(place="the cape") in responded.stdout
    assert (agent_task, "the cape") in agent.heard
    shown = CliRunner().invoke(cadre, ["show", "c1", "--home", home])
    [decided] = [line for line in shown.stdout.splitlines() if "  dana  respond on " in line]
    assert "respond on question review " in decided and decided.endswith(": the cape")
