"""Remote worker kinds of a team file, against real servers on loopback: ``remote_graph:`` runs
each task on a second ``cadre serve`` through LangGraph's ``RemoteGraph`` (its cited finding
comes back; its review pause pauses this run and is approved here, from Python and the CLI);
``a2a:`` sends each task to that server's A2A agent (its ``input-required`` plan review pauses
this run and is approved here, from Python and the CLI, each of parallel tasks taking its own
decision, which the remote audits) and to an agent served with ``a2a-sdk`` (its reply and
artifact come back; a free-text ``input-required`` fails naming it); a remote pause fails the
task of a run without a thread; every failure is one line naming the kind and URL; a token
variable that is not set is refused at load, and a token goes to its remote's origin only; a
remote call is a tool span under its task; a tool-authorization rule naming a kind refuses its
tasks, and the answer and passages of a remote pass the run's ``after_tool`` policies."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from typer.testing import CliRunner

from framework.cli.app import app as cadre
from framework.engine.builder import compile_team
from framework.engine.records import Plan, Task
from framework.errors import ConfigError
from framework.kinds import remote as remote_kind
from framework.kinds.remote import http_client
from framework.kinds.remote_specs import RemoteSpec
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.policy import Call, Policy, PolicyMiddleware, Verdict, modify
from framework.review import adecide, approve_all, pending
from framework.runs.runner import arun_team, run_team
from framework.runs.teams import TeamSetup
from policies.authorization import ToolAuthorization, ToolRule
from policies.budgets import Budget, Limits
from teams.configured.app import team_from_file
from teams.configured.planning import RoutingPlanner
from telemetry.instrument import Telemetry
from tests.a2a_agents import free_port, running_agent
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints encrypted?"
FINDING = "Checkpoints are encrypted at rest with AES in OCB mode. (`docs/checkpoints.md:3`)"
LIGHTHOUSE = "When was the Skerry Head lighthouse built?"
REPLY = "The Skerry Head lighthouse was built in 1874."
LOG = "Keeper's log: first lit on 1 March 1874."
ASKS = "Which Skerry Head do you mean, the island or the cape?"
AGENT_TOKEN = "agent-secret"
SUPPORT = "name: support\nreview: [plan]\nkinds:\n  - {name: docs, builtin: search}\n"
OTHER_CORPUS = {"ports.md": "# Ports\n\nThe gateway listens on port 8443 for TLS traffic.\n"}
METERED = "name: {name}\nmodels: {{default: 'scripted:{name}.script.yaml'}}\n" + (
    "kinds:\n  - {{name: docs, builtin: search}}\n"
)
"""A team whose roles run on a scripted model (its usage is not nothing), one per remote kind
(a script's steps are used once)."""
ANSWERS = """\
steps:
  - structured:
      goal: encryption
      sub_questions:
        - {description: "How are checkpoints encrypted?", query: checkpoints, kind: docs}
  - tools: [{name: search_corpus, args: {query: checkpoints encrypted}}]
    match: "Task q0:"
  - reply: Checkpoints are encrypted at rest with AES in OCB mode.
    match: "OCB mode"
  - reply: Findings.
    match: "Findings:"
  - structured: {decision: finish, confidence: 1.0}
    match: "Consolidated findings:"
  - structured: {facts: []}
    match: "Evidence:"
  - structured: {sections: []}
    match: "Evidence you may cite:"
"""


# -- a second cadre serve -------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("remote-serve")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    support = root / "support.yaml"
    support.write_text(SUPPORT, encoding="utf-8")
    metered = [root / f"metered_{kind}.yaml" for kind in ("remote_graph", "a2a")]
    for team in metered:
        team.write_text(METERED.format(name=team.stem), encoding="utf-8")
        (root / f"{team.stem}.script.yaml").write_text(ANSWERS, encoding="utf-8")
    policy = root / "policy.yaml"  # a generous budget: the remote's runs record their usage
    policy.write_text("budget:\n  run: {model_calls: 1000}\n", encoding="utf-8")
    tokens = {"ada": ("acme", "run,review")}
    teams = [option for team in (support, *metered) for option in ("--team-config", str(team))]
    options = [*teams, "--policy", str(policy)]
    with serve(root / "home", None, corpus=corpus, tokens=tokens, options=options) as server:
        yield server


def _graph_kind(url: str, assistant: str = "research") -> str:
    remote = f"url: '{url}', assistant: {assistant}, token_env: REMOTE_TOKEN"
    return f"name: top\nkinds:\n  - name: remote\n    remote_graph: {{{remote}}}\n"


def _app(team: Path, store: SemanticStore, *policies: Policy) -> Any:
    middleware = (PolicyMiddleware(list(policies)),) if policies else ()
    setup = TeamSetup(corpus=Corpus(store), store=store, middleware=middleware)
    return compile_team(team_from_file(team)(setup), checkpointer=InMemorySaver())


def _results(final: Any) -> list[Any]:
    return list(final["worker_results"].values())


def test_a_remote_graph_kind_answers_with_the_remotes_cited_finding(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    team.write_text(_graph_kind(served.url), encoding="utf-8")
    corpus = write_corpus(tmp_path / "corpus", OTHER_CORPUS)  # the local corpus knows nothing
    ran = CliRunner().invoke(
        cadre,
        ["run", QUESTION, "--team-config", str(team), "--corpus", str(corpus), "--thread", "r1",
         "--home", str(tmp_path / "home")],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert FINDING in ran.stdout
    listed = CliRunner().invoke(cadre, ["tools", "list", "--config", str(team)])
    assert listed.stdout.startswith(f"remote  remote_graph:{served.url}  remote  {{")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_remote_review_pauses_this_run_and_is_approved_here(
    served: Served,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedder: MiniLMEmbedder,
    mode: str,
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    team.write_text(_graph_kind(served.url, "support"), encoding="utf-8")
    with SemanticStore(":memory:", embedder=embedder) as store:
        app = _app(team, store)
        if mode == "sync":
            paused = run_team(app, {"question": QUESTION}, "p1").state
        else:
            paused = asyncio.run(arun_team(app, {"question": QUESTION}, "p1")).state
        assert "final_answer" not in paused
        [request] = pending(app, "p1")
        assert request.kind == "plan" and request.path[:2] == ["remote", "support"]
        remote = f"remote_graph {served.url}, assistant support"
        assert request.where == f"team top > kind remote (task q0) > {remote} > team support"
        assert [task.kind for task in request.tasks] == ["docs"]  # the remote's plan
        decision = {"request_id": request.id, "kind": "approve", "reviewer": "dana"}
        if mode == "sync":
            final = approve_all(app, "p1", "dana").state
        else:
            final = asyncio.run(adecide(app, "p1", [decision])).state
        assert pending(app, "p1") == []
    assert FINDING in final["final_answer"]
    [result] = _results(final)
    assert result.status == "ok" and result.evidence[0].source == "docs/checkpoints.md:3"
    [entry] = final["audit"]  # decided here: in this run's trail, with its place
    decided = (entry.request_id, entry.decision_kind, entry.reviewer)
    assert decided == (request.id, "approve", "dana")
    assert entry.where == request.where


@pytest.mark.parametrize("kind", ["remote_graph", "a2a"])
def test_what_a_remote_used_counts_in_this_runs_usage_and_budget(
    served: Served,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedder: MiniLMEmbedder,
    kind: str,
) -> None:
    """The remote's model calls and tokens (its own usage records; over A2A, what a cadre
    agent says in its answer) are charged here: one budget across the tree, a remote level
    included."""
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    metered = f"metered_{kind}"
    made = _graph_kind if kind == "remote_graph" else _cadre_agent_kind
    team.write_text(made(served.url, metered), encoding="utf-8")
    budget = Budget(run=Limits(model_calls=100))
    with SemanticStore(":memory:", embedder=embedder) as store:
        final = run_team(_app(team, store, budget), {"question": QUESTION}, "u1").state
    [result] = _results(final)
    assert result.status == "ok" and "OCB mode" in result.output, result.error
    [remote] = served.client("ada").threads.search(metadata={"graph_id": metered})
    remote_usage = remote["values"]["usage"]
    reported = sum(record["counts"].get("model_calls", 0) for record in remote_usage.values())
    assert reported >= 5  # the remote's planner, worker, reviewer, curator, formatter
    assert budget.used("u1")["run/model_calls"] == reported  # offline here: only the remote's
    recorded = sum(record.counts.get("model_calls", 0) for record in final["usage"].values())
    assert recorded == reported  # in this run's state: a resumed run keeps it


def test_a_remote_review_is_listed_and_approved_from_the_cli(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    team.write_text(_graph_kind(served.url, "support"), encoding="utf-8")
    home = str(tmp_path / "home")
    corpus = write_corpus(tmp_path / "corpus", OTHER_CORPUS)
    ran = CliRunner().invoke(
        cadre,
        ["run", QUESTION, "--team-config", str(team), "--corpus", str(corpus), "--thread", "c1",
         "--home", home],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert "paused for review: thread c1 has 1 pending request(s)" in ran.stdout
    listed = CliRunner().invoke(cadre, ["reviews", "--home", home])
    assert listed.exit_code == 0 and "c1" in listed.stdout, listed.output
    approved = CliRunner().invoke(cadre, ["approve", "c1", "--reviewer", "dana", "--home", home])
    assert approved.exit_code == 0, approved.output
    assert "thread c1 finished; its answer:" in approved.stdout
    assert FINDING in approved.stdout


# -- another cadre serve's agent over A2A ---------------------------------------------------


def _cadre_agent_kind(url: str, team: str = "support") -> str:
    remote = f"url: '{url}/a2a/{team}', token_env: REMOTE_TOKEN"
    return f"name: top\nkinds:\n  - name: remote\n    a2a: {{{remote}}}\n"


def _remote_audit(served: Served, agent_task: str) -> list[tuple[str, str, str]]:
    """The remote thread's audit trail: (request kind, decision, reviewer) per decision."""
    state: dict[str, Any] = dict(served.client("ada").threads.get_state(agent_task))
    audit = state["values"].get("audit") or []
    return [(entry["request_kind"], entry["decision_kind"], entry["reviewer"]) for entry in audit]


def _remote_threads(served: Served) -> set[str]:
    return {thread["thread_id"] for thread in served.client("ada").threads.search(limit=1000)}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_cadre_agents_review_pauses_this_run_and_is_approved_here(
    served: Served,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedder: MiniLMEmbedder,
    mode: str,
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    team.write_text(_cadre_agent_kind(served.url), encoding="utf-8")
    with SemanticStore(":memory:", embedder=embedder) as store:
        app = _app(team, store)
        if mode == "sync":
            paused = run_team(app, {"question": QUESTION}, "a1").state
        else:
            paused = asyncio.run(arun_team(app, {"question": QUESTION}, "a1")).state
        assert "final_answer" not in paused
        [request] = pending(app, "a1")
        assert request.kind == "plan" and request.path == ["remote", "support"]
        agent = f"a2a {served.url}/a2a/support"
        assert request.where == f"team top > kind remote (task q0) > {agent} > team support"
        assert [task.kind for task in request.tasks] == ["docs"]  # the remote's plan
        [pause] = app.get_state({"configurable": {"thread_id": "a1"}}).interrupts
        agent_task = pause.value["thread_id"]  # the remote's task, waiting for the decision
        assert _remote_audit(served, agent_task) == []
        decision = {"request_id": request.id, "kind": "approve", "reviewer": "dana"}
        if mode == "sync":
            final = approve_all(app, "a1", "dana").state
        else:
            final = asyncio.run(adecide(app, "a1", [decision])).state
        assert pending(app, "a1") == []
    assert FINDING in final["final_answer"]
    [result] = _results(final)
    assert result.status == "ok" and FINDING in result.output
    assert result.evidence[0].source == "docs/checkpoints.md:3"  # the agent's own source
    assert _remote_audit(served, agent_task) == [("plan", "approve", "ada")]
    [entry] = final["audit"]  # decided here: in this run's trail too, by its reviewer
    decided = (entry.request_id, entry.decision_kind, entry.reviewer)
    assert decided == (request.id, "approve", "dana")
    assert entry.where == request.where


def test_a_cadre_agents_review_is_listed_and_approved_from_the_cli(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    team.write_text(_cadre_agent_kind(served.url), encoding="utf-8")
    home = str(tmp_path / "home")
    corpus = write_corpus(tmp_path / "corpus", OTHER_CORPUS)
    before = _remote_threads(served)
    ran = CliRunner().invoke(
        cadre,
        ["run", QUESTION, "--team-config", str(team), "--corpus", str(corpus), "--thread", "c2",
         "--home", home],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert "paused for review: thread c2 has 1 pending request(s)" in ran.stdout
    [agent_task] = _remote_threads(served) - before
    listed = CliRunner().invoke(cadre, ["reviews", "--home", home])
    assert listed.exit_code == 0 and "c2" in listed.stdout, listed.output
    approved = CliRunner().invoke(cadre, ["approve", "c2", "--reviewer", "dana", "--home", home])
    assert approved.exit_code == 0, approved.output
    assert "thread c2 finished; its answer:" in approved.stdout
    assert FINDING in approved.stdout
    shown = CliRunner().invoke(cadre, ["show", agent_task, "--home", str(served.home)])
    assert shown.exit_code == 0, shown.output
    assert "  ada  approve on plan review " in shown.stdout


def test_parallel_tasks_of_a_cadre_agent_each_take_their_own_decision(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    team.write_text(_cadre_agent_kind(served.url), encoding="utf-8")
    question = "How are checkpoints encrypted? How do workers retry transient errors?"
    with SemanticStore(":memory:", embedder=embedder) as store:
        app = _app(team, store)
        asyncio.run(arun_team(app, {"question": question}, "a3"))
        first, *others = pending(app, "a3")
        assert others, "the plan should send several tasks to the agent"
        pauses = app.get_state({"configurable": {"thread_id": "a3"}}).interrupts
        agent_tasks = {pause.id: pause.value["thread_id"] for pause in pauses}
        assert len(set(agent_tasks.values())) == len(pauses)  # a remote task per local task
        decision = {"request_id": first.id, "kind": "approve", "reviewer": "dana"}
        decided = asyncio.run(adecide(app, "a3", [decision])).state
        assert [request.id for request in pending(app, "a3")] == [r.id for r in others]
        [(task_id, result)] = decided["worker_results"].items()
        assert first.where.startswith(f"team top > kind remote (task {task_id}) > ")
        assert result.status == "ok"
        assert _remote_audit(served, agent_tasks[first.id]) == [("plan", "approve", "ada")]
        assert all(_remote_audit(served, agent_tasks[r.id]) == [] for r in others)
        final = approve_all(app, "a3", "dana").state
    assert {result.status for result in _results(final)} == {"ok"}
    assert all(
        _remote_audit(served, agent_tasks[r.id]) == [("plan", "approve", "ada")] for r in others
    )


@pytest.mark.parametrize("kind", ["remote_graph", "a2a"])
def test_a_remote_review_fails_the_task_of_a_run_without_a_thread(
    served: Served,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedder: MiniLMEmbedder,
    kind: str,
) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", served.tokens["ada"])
    team = tmp_path / "top.yaml"
    kinds = {
        "remote_graph": _graph_kind(served.url, "support"),
        "a2a": _cadre_agent_kind(served.url),
    }
    team.write_text(kinds[kind], encoding="utf-8")
    with SemanticStore(":memory:", embedder=embedder) as store:
        setup = TeamSetup(corpus=Corpus(store), store=store)
        final = compile_team(team_from_file(team)(setup)).invoke({"question": QUESTION})
    [result] = _results(final)
    assert result.status == "failed" and result.error is not None
    assert result.error.startswith(f"RemoteAgentError: kind 'remote' ({kind} {served.url}")
    assert "paused for a review, which a run without a thread cannot answer" in result.error


def test_remote_graph_failures_are_one_line_naming_the_kind_and_url(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder
) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    cases = {
        "down": (down, "ada", "connect: cannot connect ("),
        "token": (served.url, "wrong", "HTTP 401: the remote refused the call (check the token "
                  "in REMOTE_TOKEN)"),
    }  # fmt: skip
    for name, (url, token, problem) in cases.items():
        monkeypatch.setenv("REMOTE_TOKEN", served.tokens.get(token, "not-a-token"))
        team = tmp_path / f"{name}.yaml"
        team.write_text(_graph_kind(url), encoding="utf-8")
        with SemanticStore(":memory:", embedder=embedder) as store:
            final = run_team(_app(team, store), {"question": QUESTION}, name).state
        [result] = _results(final)
        prefix = f"RemoteAgentError: kind 'remote' (remote_graph {url}, assistant research): "
        assert result.status == "failed" and result.error.startswith(prefix + problem)
        assert "\n" not in result.error and "not-a-token" not in result.error
        assert result.error in final["final_answer"]


def test_a_token_variable_that_is_not_set_is_refused_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REMOTE_TOKEN", raising=False)
    team = tmp_path / "top.yaml"
    team.write_text(_graph_kind("http://127.0.0.1:9"), encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        team_from_file(team)
    assert str(refused.value) == (
        f"team file {team} is invalid: {team}:4: kinds.0.remote_graph.token_env: environment "
        "variable REMOTE_TOKEN is not set: export the token in it (a team file names the "
        "variable, never the token)"
    )
    done = CliRunner().invoke(
        cadre, ["run", QUESTION, "--team-config", str(team), "--home", str(tmp_path / "h")]
    )
    assert "REMOTE_TOKEN is not set" in one_line_error(done)
    assert not (tmp_path / "h").exists()
    team.write_text(
        "kinds:\n  - name: remote\n    a2a: 'http://me:secret@127.0.0.1:9'\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"top\.yaml:3: kinds\.0\.a2a\.url: .*not hold credent"):
        team_from_file(team)


def test_a_token_goes_to_the_remotes_origin_only() -> None:
    sent: dict[str, str | None] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        sent[str(request.url)] = request.headers.get("authorization")
        return httpx.Response(200)

    async def requests() -> None:
        spec = RemoteSpec(url="http://127.0.0.1:9/agent")
        async with http_client(spec, {"Authorization": "Bearer t"}) as remote:
            mock = httpx.MockTransport(answer)
            async with httpx.AsyncClient(auth=remote.auth, transport=mock) as client:
                await client.get("http://127.0.0.1:9/agent/.well-known/agent-card.json")
                await client.post("http://127.0.0.2:9/agent")  # a host the card names
                await client.post("http://127.0.0.1:10/agent")

    asyncio.run(requests())
    assert sent == {
        "http://127.0.0.1:9/agent/.well-known/agent-card.json": "Bearer t",
        "http://127.0.0.2:9/agent": None,
        "http://127.0.0.1:10/agent": None,
    }


# -- an agent served with a2a-sdk ----------------------------------------------------------


@dataclass
class Agent:
    """A running A2A agent: its URL and the questions it was asked."""

    url: str
    asked: list[str] = field(default_factory=list)


class LighthouseExecutor(AgentExecutor):
    """Answers from a fixed rule: a question naming 'which' needs input, any other is answered
    with the lighthouse's year and the keeper's log as an artifact."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        question = context.get_user_input()
        self.agent.asked.append(question)
        assert context.message is not None and context.task_id and context.context_id
        await event_queue.enqueue_event(new_task_from_user_message(context.message))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if "which" in question.lower():
            await updater.requires_input(new_text_message(ASKS))
            return
        await updater.add_artifact([new_text_part(LOG)], name="keeper-log")
        await updater.complete(new_text_message(REPLY))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


class BearerOnly(BaseHTTPMiddleware):
    """Refuses a call without the agent's token (its card stays public)."""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        wanted = f"Bearer {AGENT_TOKEN}"
        if request.method == "POST" and request.headers.get("authorization") != wanted:
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        return await call_next(request)


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    port = free_port()
    served = Agent(url=f"http://127.0.0.1:{port}")
    executor, token = LighthouseExecutor(served), [Middleware(BearerOnly)]
    with running_agent(port, executor, "Knows when lighthouses were built.", token):
        yield served


def _agent_kind(url: str, extra: str = ", token_env: AGENT_TOKEN") -> str:
    return f"name: top\nkinds:\n  - name: agent\n    a2a: {{url: '{url}'{extra}}}\n"


def test_an_a2a_kind_answers_with_the_agents_reply(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", AGENT_TOKEN)
    team = tmp_path / "top.yaml"
    team.write_text(_agent_kind(agent.url), encoding="utf-8")
    corpus = write_corpus(tmp_path / "corpus", OTHER_CORPUS)
    ran = CliRunner().invoke(
        cadre,
        ["run", LIGHTHOUSE, "--team-config", str(team), "--corpus", str(corpus), "--home",
         str(tmp_path / "home")],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert f"{REPLY} (`a2a:{agent.url}`)" in ran.stdout
    assert f"{LOG} (`a2a:{agent.url}#keeper-log`)" in ran.stdout
    assert LIGHTHOUSE in agent.asked


def test_a2a_failures_are_one_line_naming_the_agent(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", AGENT_TOKEN)
    down = f"http://127.0.0.1:{free_port()}"
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        mute = f"http://127.0.0.1:{silent.getsockname()[1]}"
        cases = {
            "down": (down, LIGHTHOUSE, "", "connect: cannot connect ("),
            "mute": (mute, LIGHTHOUSE, ", timeout_s: 0.5",
                     "wait: no answer within 0.5 s (timeout_s)"),
            "token": (agent.url, LIGHTHOUSE, "", "HTTP 401: the remote refused the call (it "
                      "wants a token: name its environment variable in token_env)"),
        }  # fmt: skip
        for name, (url, question, extra, problem) in cases.items():
            team = tmp_path / f"{name}.yaml"
            team.write_text(_agent_kind(url, extra), encoding="utf-8")
            with SemanticStore(":memory:", embedder=embedder) as store:
                final = run_team(_app(team, store), {"question": question}, name).state
            [result] = _results(final)
            prefix = f"RemoteAgentError: kind 'agent' (a2a {url}): "
            assert result.status == "failed" and result.error.startswith(prefix + problem), name
            assert "\n" not in result.error and AGENT_TOKEN not in result.error


# -- governance ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_remote_call_is_a_tool_span_under_its_task(
    agent: Agent,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedder: MiniLMEmbedder,
    mode: str,
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", AGENT_TOKEN)
    team = tmp_path / "top.yaml"
    team.write_text(_agent_kind(agent.url), encoding="utf-8")
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry = Telemetry(provider, MeterProvider())
    with SemanticStore(":memory:", embedder=embedder) as store:
        setup = TeamSetup(corpus=Corpus(store), store=store, middleware=telemetry.middleware)
        app = compile_team(team_from_file(team)(setup), checkpointer=InMemorySaver())
        question = {"question": LIGHTHOUSE}
        if mode == "sync":
            final = run_team(app, question, "s", observer=telemetry).state
        else:
            final = asyncio.run(arun_team(app, question, "s", observer=telemetry)).state
    telemetry.close()
    assert REPLY in final["final_answer"]
    finished = {span.context.span_id: span for span in spans.get_finished_spans()}
    [call] = [span for span in finished.values() if span.name == "execute_tool agent"]
    assert call.parent is not None and finished[call.parent.span_id].name == "cadre.task q0"


class YearsHidden(Policy):
    """Hides years in tool outputs (after_tool), to show a remote's answer passes it."""

    def after_tool(self, call: Call) -> Verdict:
        return modify(str(call.value).replace("1874", "[year]"), "years hidden")


def test_a_rule_naming_a_remote_kind_refuses_its_tasks_and_outputs_pass_the_policies(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", AGENT_TOKEN)
    team = tmp_path / "top.yaml"
    team.write_text(_agent_kind(agent.url), encoding="utf-8")
    rule = ToolRule(tools="agent", action="deny", reason="no remote agents today")
    question = "When was the refused lighthouse built?"
    with SemanticStore(":memory:", embedder=embedder) as store:
        app = _app(team, store, ToolAuthorization([rule]))
        final = run_team(app, {"question": question}, "d").state
    [result] = _results(final)
    assert result.error == (
        "refused: policy 'tool_authorization' denied a call to tool 'agent': no remote agents today"
    )
    decided = {(e.policy, e.hook, e.action, e.target, e.task_id) for e in final["policy_audit"]}
    assert decided == {("tool_authorization", "before_tool", "deny", "agent", "q0")}
    assert question not in agent.asked

    with SemanticStore(":memory:", embedder=embedder) as store:
        final = run_team(_app(team, store, YearsHidden()), {"question": LIGHTHOUSE}, "h").state
    [result] = _results(final)
    assert result.output == "The Skerry Head lighthouse was built in [year]."
    assert {e.text for e in result.evidence} == {result.output, LOG.replace("1874", "[year]")}
    assert "1874" not in final["final_answer"]

    policy = tmp_path / "policy.yaml"
    policy.write_text("tool_authorization:\n  rules:\n    - {tools: agent, action: deny}\n")
    checked = CliRunner().invoke(
        cadre, ["policies", "check", str(policy), "--team-config", str(team)]
    )
    assert checked.exit_code == 0, checked.output
    policy.write_text("tool_authorization:\n  rules:\n    - {tools: agnet, action: deny}\n")
    typo = CliRunner().invoke(cadre, ["policies", "check", str(policy), "--team-config", str(team)])
    assert "the team has no tool 'agnet' (its tools: agent)" in one_line_error(typo)


def test_a_file_with_several_text_kinds_runs_offline_asking_each_of_them(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", AGENT_TOKEN)
    remote = f"a2a: {{url: '{agent.url}', token_env: AGENT_TOKEN}}"
    team = tmp_path / "several.yaml"
    team.write_text(
        "name: top\nkinds:\n  - name: docs\n    builtin: search\n"
        f"  - name: harbours\n    description: ports and harbours\n    {remote}\n"
        f"  - name: lights\n    description: lighthouses and when they were built\n    {remote}\n",
        encoding="utf-8",
    )
    corpus = write_corpus(tmp_path / "corpus", OTHER_CORPUS)
    asked = len(agent.asked)
    ran = CliRunner().invoke(
        cadre,
        ["run", LIGHTHOUSE, "--team-config", str(team), "--corpus", str(corpus), "--home",
         str(tmp_path / "home"), "--json"],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    tasks = json.loads(ran.stdout)["tasks"]
    assert {task["kind"] for task in tasks.values()} == {"docs", "harbours", "lights"}
    whole = [task for task in tasks.values() if task["description"] == LIGHTHOUSE]
    assert sorted(task["kind"] for task in whole) == ["docs", "harbours", "lights"]
    assert agent.asked[asked:].count(LIGHTHOUSE) == 2  # each remote kind was asked once


def test_the_offline_router_sends_a_part_to_the_kind_its_words_name() -> None:
    class Parts:
        def plan(self, state: Any, context: Any) -> Plan:
            parts = ["the whole question", "what do prices cost", "when was the lighthouse lit"]
            tasks = [Task(id=f"q{n}", description=part) for n, part in enumerate(parts)]
            return Plan(goal="q", tasks=tasks)

    routes = {"search": [("docs", ""), ("pricing", "prices and discounts"), ("lights", "")]}
    plan = RoutingPlanner(Parts(), routes).plan({"question": "q"}, None)  # type: ignore[arg-type]
    assert [(task.id, task.kind) for task in plan.tasks] == [
        ("q0", "docs"), ("q0-pricing", "pricing"), ("q0-lights", "lights"),
        ("q1", "pricing"), ("q2", "lights"),
    ]  # fmt: skip


def test_a_hung_remote_holds_a_task_for_one_timeout_across_its_retries(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        mute = f"http://127.0.0.1:{silent.getsockname()[1]}"
        team = tmp_path / "mute.yaml"
        team.write_text(_agent_kind(mute, ", timeout_s: 0.5"), encoding="utf-8")
        with SemanticStore(":memory:", embedder=embedder) as store:
            final = run_team(_app(team, store), {"question": LIGHTHOUSE}, "mute-retry").state
    [result] = _results(final)
    assert result.attempt > 0, "the reviewer retried the failed task"
    assert result.error.endswith(
        "no answer within 0.5 s (timeout_s); its earlier attempts used the whole timeout_s (0.5 "
        "s), so it is not called again for this task: raise timeout_s or check the remote"
    )


@pytest.mark.parametrize(
    "error, said",
    [
        (httpx.ConnectError("All connection attempts failed"), "connect: cannot connect (All"),
        (httpx.ConnectTimeout("timed out"), "connect: no connection within the client's"),
        (httpx.PoolTimeout("no free connection"), "connect: no connection within the client's"),
        (httpx.WriteError("Broken pipe"), "send: lost the connection sending the question"),
        (httpx.WriteTimeout("timed out"), "send: lost the connection sending the question"),
        (httpx.ReadError("reset"), "wait: lost the connection mid-call (reset)"),
        (httpx.RemoteProtocolError("Server disconnected"), "wait: lost the connection mid-call"),
        (httpx.ReadTimeout("timed out"), "wait: no answer within 7 s (timeout_s)"),
        (TimeoutError(), "wait: no answer within 7 s (timeout_s)"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, BaseException) else "",
)
def test_a_transport_failure_names_the_phase_of_the_call(error: Exception, said: str) -> None:
    wrapped = RuntimeError("the client failed")
    wrapped.__cause__ = error  # as a client library raises it: the transport error inside
    assert remote_kind.problem(
        wrapped, RemoteSpec(url="http://127.0.0.1:1", timeout_s=7)
    ).startswith(said)
