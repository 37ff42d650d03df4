"""The policy layer's hook points on a platform team's own nodes: governed models and tools
called from any node, fail-closed policies, after-node changes, per-run principals, waits,
memory writes, inheritance into nested teams, and budgets under parallel workers."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Mapping
from dataclasses import replace
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel

from framework.engine.middleware import Middleware
from framework.engine.nodes.team_node import TeamNode
from framework.engine.records import Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.engine.state import GovernedState
from framework.errors import PolicyDenied, PolicyFailure
from framework.memory import SemanticStore, StoreItem
from framework.policy import (
    ALLOW,
    PRINCIPAL_KEY,
    Call,
    Policy,
    PolicyMiddleware,
    Principal,
    Verdict,
    deny,
    governed,
    inherit_policies,
    modify,
    recorded_usage,
)
from framework.testing import Fail, Reply, ScriptedChatModel, Structured
from policies.authorization import ToolAuthorization, ToolRule
from policies.budgets import Budget, Limits
from policies.memory_rules import MemoryValidation
from policies.rate_limits import Rate, RateLimit
from policies.redaction import PiiRedaction


class State(GovernedState, total=False):
    question: str
    answer: str
    final_answer: str
    done: list[str]


CALLED: list[Any] = []


@tool
def send_mail(to: str, body: str) -> str:
    """Send an e-mail."""
    CALLED.append((to, body))
    return f"sent to {to}"


@tool
def run_sql(query: str) -> str:
    """Run a SQL query."""
    CALLED.append(query)
    return "3 rows"


def _graph(
    body: Any, middleware: tuple[Middleware, ...], abody: Any = None
) -> StateGraph[Any, Any, Any, Any]:
    graph = StateGraph(State)
    graph.add_node("mine", TeamNode("mine", "platform", body, abody, middleware=middleware))
    graph.add_edge(START, "mine")
    graph.add_edge("mine", END)
    return graph


def _run(
    body: Any, *policies: Policy, config: Mapping[str, Any] | None = None, abody: Any = None
) -> dict[str, Any]:
    app = _graph(body, (PolicyMiddleware(policies),), abody).compile(checkpointer=InMemorySaver())
    configurable = {"thread_id": "t", **(config or {})}
    if abody is not None:
        return asyncio.run(app.ainvoke({"question": "q"}, {"configurable": configurable}))
    return app.invoke({"question": "q"}, {"configurable": configurable})


def test_a_users_node_calls_a_governed_model_and_governed_tools() -> None:
    CALLED.clear()
    model = governed(ScriptedChatModel([Reply("Mail ops@example.com about it.")]))
    mail, sql = governed(send_mail), governed(run_sql)
    rule = ToolRule(tools="run_sql", args={"query": r"(?i)^\s*(delete|drop)"}, unless="db:write")
    policies = (
        ToolAuthorization([replace_action(rule, "deny")]),
        PiiRedaction({"email": "redact"}, apply_to=("tool_args", "model_input", "answer")),
    )

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        reply = model.invoke([HumanMessage("write to bob@example.com")])
        mail.invoke({"to": "bob@example.com", "body": "hello"})
        sql.invoke({"query": "select 1"})
        try:
            sql.invoke({"query": "DROP TABLE users"})
        except PolicyDenied as denied:
            refused = str(denied)
        return {"answer": reply.text, "final_answer": f"{reply.text} ({refused})"}

    final = _run(body, *policies)
    assert CALLED == [("[EMAIL]", "hello"), "select 1"]
    assert "ops@example.com" in final["answer"]  # the model's output is not redacted...
    assert "example.com" not in final["final_answer"]  # ...but the answer is
    assert "DROP" not in final["final_answer"] and "tool_authorization" in final["final_answer"]
    trail = [(e.policy, e.hook, e.action, e.target) for e in final["policy_audit"]]
    assert ("pii", "before_model", "modify", "scripted") in [
        (a, b, c, "scripted") for a, b, c, _ in trail
    ]
    assert ("tool_authorization", "before_tool", "deny", "run_sql") in trail
    assert ("pii", "answer", "modify", "answer") in trail
    [record] = final["usage"].values()
    assert record.counts["model_calls"] == 1
    assert record.counts["tool_calls"] == 2  # the DROP was refused: not a call made
    assert record.counts["tool_calls@run_sql"] == 1


def replace_action(rule: ToolRule, action: Any) -> ToolRule:
    return ToolRule(tools=rule.tools, args=rule.args, unless=rule.unless, action=action)


def test_the_principal_of_a_run_lifts_a_rule() -> None:
    CALLED.clear()
    sql = governed(run_sql)
    rule = ToolRule(tools="run_sql", args={"query": "(?i)^drop"}, unless="db:write", action="deny")

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        sql.invoke({"query": "drop table t"})
        return {}

    writer = Principal(user="ann", scopes=frozenset({"db:write"}))
    _run(body, ToolAuthorization([rule]), config={PRINCIPAL_KEY: writer})
    assert CALLED == ["drop table t"]
    with pytest.raises(PolicyDenied, match="drop"):
        _run(body, ToolAuthorization([ToolRule(tools="run_sql", action="deny", reason="drop")]))


def test_a_tool_declares_the_scopes_it_needs() -> None:
    scoped = governed(run_sql.model_copy(update={"metadata": {"scopes": ["db:read"]}}))

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        scoped.invoke({"query": "select 1"})
        return {}

    with pytest.raises(PolicyDenied, match="local lacks scope db:read for run_sql"):
        _run(body, ToolAuthorization())
    reader = Principal(scopes=frozenset({"db:read"}))
    _run(body, ToolAuthorization(), config={PRINCIPAL_KEY: reader})


class Raising(Policy):
    def before_node(self, call: Call) -> Verdict:
        raise RuntimeError("lookup service down")


class Sloppy(Policy):
    def before_node(self, call: Call) -> Verdict:
        return "yes"  # type: ignore[return-value]


class Rewriting(Policy):
    def before_node(self, call: Call) -> Verdict:
        return modify({"question": "other"}, "changed the input")


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (Raising(), "policy 'Raising' failed at before_node on 'mine' (RuntimeError: lookup"),
        (Sloppy(), "policy 'Sloppy' answered str at before_node, not a Verdict"),
        (Rewriting(), "modified a node's input at before_node, which cannot be changed"),
    ],
)
def test_a_policy_that_fails_refuses_what_it_guarded(policy: Policy, message: str) -> None:
    ran: list[str] = []

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        ran.append("ran")
        return {}

    with pytest.raises(PolicyFailure) as failure:
        _run(body, policy)
    assert message in str(failure.value)
    assert ran == []


class Stamp(Policy):
    name = "stamp"

    def after_node(self, call: Call) -> Verdict:
        return modify({**call.value, "done": ["stamped"]}, "stamped the update")


def test_after_node_changes_the_update_in_sync_and_async_runs() -> None:
    def body(state: State, context: NodeContext) -> dict[str, Any]:
        return {"done": ["body"]}

    async def abody(state: State, context: NodeContext) -> dict[str, Any]:
        return {"done": ["body"]}

    assert _run(body, Stamp())["done"] == ["stamped"]
    assert _run(body, Stamp(), abody=abody)["done"] == ["stamped"]


def test_a_rate_limit_makes_calls_wait_and_counts_the_wait() -> None:
    model = governed(ScriptedChatModel([Reply("a"), Reply("b")]))
    limit = RateLimit({"model:*": Rate(requests_per_minute=120)})  # one per 0.5 s

    async def abody(state: State, context: NodeContext) -> dict[str, Any]:
        for _ in range(2):
            await model.ainvoke("hi")
        return {}

    final = _run(lambda s, c: {}, limit, abody=abody)
    [record] = final["usage"].values()
    assert 0.25 < record.counts["wait_s"] <= 0.51  # the second call waits for its slot


def test_a_schedule_spaces_requests_and_lets_a_burst_through() -> None:
    from framework.policy.rates import MemorySchedules

    now = [100.0]
    schedules = MemorySchedules(clock=lambda: now[0])
    assert [schedules.reserve("spaced", 1.0, 0.0, 1) for _ in range(3)] == [0.0, 1.0, 2.0]
    assert [schedules.reserve("burst", 1.0, 2.0, 1) for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]
    now[0] = 110.0
    assert schedules.reserve("spaced", 1.0, 0.0, 1) == 0.0  # idle long enough: no wait


def test_schedules_in_postgresql_are_shared_by_every_connection(postgres_url: str) -> None:
    from framework.database import open_database
    from framework.policy.rates import RATES_SCHEMA, DatabaseSchedules

    first, second = (
        DatabaseSchedules(open_database(postgres_url, schema=RATES_SCHEMA)) for _ in range(2)
    )
    waits = [s.reserve("model:x", 10.0, 0.0, 1) for s in (first, second, first, second)]
    assert waits[0] == 0.0
    for index, wait in enumerate(waits[1:], start=1):  # ten seconds apart, whoever asks
        assert index * 10.0 - 1.0 < wait <= index * 10.0
    first.db.close()
    second.db.close()


class Shape(BaseModel):
    word: str


def test_structured_output_goes_through_the_model_hooks() -> None:
    model = governed(ScriptedChatModel([Structured(Shape(word="fine"))]))
    seen: list[str] = []

    class Watch(Policy):
        def after_model(self, call: Call) -> Verdict:
            seen.append(type(call.value).__name__)
            return ALLOW

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        return {"answer": model.with_structured_output(Shape).invoke("go").word}

    assert _run(body, Watch())["answer"] == "fine"
    assert seen == ["Shape"]


def test_memory_writes_are_validated_and_redacted(embedder: Any) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            store.put_many(
                ("facts",),
                [
                    StoreItem(key="a", text="no source here", metadata={}),
                    StoreItem(key="b", text="mail x@example.com", metadata={"source": "d.md:1"}),
                ],
            )
            return {}

        final = _run(
            body,
            PiiRedaction({"email": "redact"}, apply_to=("memory",)),
            MemoryValidation(),
        )
        assert store.get(("facts",), "a") is None
        kept = store.get(("facts",), "b")
        assert kept is not None and kept.text == "mail [EMAIL]"
    actions = {(e.policy, e.action) for e in final["policy_audit"]}
    assert actions == {("memory_validation", "deny"), ("pii", "modify")}


def test_outer_policies_govern_nested_teams_before_their_own() -> None:
    outer, inner = PolicyMiddleware([Stamp()]), PolicyMiddleware([deny_all()])
    team = _graph(lambda s, c: {}, (inner,))
    inherit_policies(team, (outer,))
    inherit_policies(team, (outer,))  # twice: no duplicate
    node = team.nodes["mine"].runnable
    assert isinstance(node, TeamNode)
    assert node.middleware == (outer, inner)


def deny_all() -> Policy:
    class DenyAll(Policy):
        def before_tool(self, call: Call) -> Verdict:
            return deny("no tools")

    return DenyAll()


class Fan(TypedDict):
    task: Any


def test_a_budget_is_never_exceeded_by_parallel_workers() -> None:
    """Twenty workers at once, each wanting two model calls, under a run budget of seven."""
    model = governed(ScriptedChatModel([Reply("ok")] * 60))
    ran: list[str] = []

    async def work(payload: Fan, context: NodeContext) -> dict[str, Any]:
        try:
            for _ in range(2):
                await model.ainvoke("x")
                ran.append(payload["task"].id)
        except PolicyDenied:
            pass
        return {}

    budget = Budget(run=Limits(model_calls=7))
    graph = StateGraph(State)
    chain = (PolicyMiddleware([budget]),)
    graph.add_node("start", TeamNode("start", "t", lambda s, c: {}, middleware=chain))
    graph.add_node("worker", TeamNode("worker", "t", lambda p, c: {}, work, middleware=chain))
    graph.add_edge(START, "start")
    tasks = [Task(id=f"t{i}", description="d") for i in range(20)]
    graph.add_conditional_edges("start", lambda s: [Send("worker", {"task": t}) for t in tasks])
    graph.add_edge("worker", END)
    asyncio.run(graph.compile().ainvoke({"question": "q"}, {"configurable": {"thread_id": "b"}}))
    assert len(ran) == 7
    assert budget.used("b")["run/model_calls"] == 7


def test_a_token_budget_holds_under_a_hundred_parallel_workers() -> None:
    """The bench's scenario, smaller: the canned model reports more input tokens than four
    characters each, and the bound still holds."""
    from bench.budget import main

    assert main(["--runs", "2", "--workers", "100", "--tokens", "1500"]) == 0


class Rounds(GovernedState, total=False):
    question: str
    rounds: Annotated[int, operator.add]
    done: Annotated[list[str], operator.add]


def _rounds_policies(budget: Budget) -> PolicyMiddleware:
    from policies.approval import NodeApproval

    return PolicyMiddleware([NodeApproval(["gate"]), budget])


def _rounds_app(policies: PolicyMiddleware, checkpointer: InMemorySaver) -> Any:
    """start -> three workers (one model call each) -> gate (asks a human) -> start again."""
    model = governed(ScriptedChatModel([Reply("ok")] * 6))
    chain = (policies,)

    def work(payload: Fan, context: NodeContext) -> dict[str, Any]:
        try:
            model.invoke("x")
        except PolicyDenied:
            return {}
        return {"done": [payload["task"].id]}

    graph = StateGraph(Rounds)
    graph.add_node("start", TeamNode("start", "t", lambda s, c: {}, middleware=chain))
    refused = TeamNode("worker", "t", work, middleware=chain, refusal=lambda payload, why: {})
    graph.add_node("worker", refused)
    graph.add_node("gate", TeamNode("gate", "t", lambda s, c: {"rounds": 1}, middleware=chain))
    graph.add_edge(START, "start")
    tasks = [Task(id=f"t{i}", description="d") for i in range(3)]
    graph.add_conditional_edges("start", lambda s: [Send("worker", {"task": t}) for t in tasks])
    graph.add_edge("worker", "gate")
    graph.add_conditional_edges("gate", lambda s: END if s.get("rounds", 0) >= 2 else "start")
    return graph.compile(checkpointer=checkpointer)


def test_a_resumed_run_in_a_new_process_keeps_its_budget_usage() -> None:
    """The first round's three model calls are in the thread's usage; a new process (a new
    budget object) takes them up, so the second round gets only the one call left of four."""
    from framework.review import approve_all
    from framework.runs.runner import run_team

    saver = InMemorySaver()
    first = _rounds_app(_rounds_policies(Budget(run=Limits(model_calls=4))), saver)
    run_team(first, {"question": "q"}, "r")
    assert len(first.get_state({"configurable": {"thread_id": "r"}}).values["done"]) == 3
    # as a new process would
    later = _rounds_app(_rounds_policies(Budget(run=Limits(model_calls=4))), saver)
    approve_all(later, "r", "dana")  # the gate of round one
    final = approve_all(later, "r", "dana").state  # the gate of round two
    assert len(final["done"]) == 4
    counts = [record.counts.get("model_calls", 0) for record in final["usage"].values()]
    assert sum(counts) == 4


def test_an_app_forgets_an_ended_run_and_takes_its_usage_up_again_from_its_state() -> None:
    """An app a server shares outlives its runs: once a run ended, its budget keeps nothing of
    the thread (a server running many threads does not grow), and the thread's next run in
    the same app takes its usage up from its state, so it still gets one call of four."""
    from framework.review import approve_all
    from framework.runs.runner import run_team

    budget = Budget(run=Limits(model_calls=4))
    policies = _rounds_policies(budget)
    app = _rounds_app(policies, InMemorySaver())
    run_team(app, {"question": "q"}, "r")
    assert budget.used("r")["run/model_calls"] == 3
    policies.forget("r")
    assert budget.used("r") == {}
    approve_all(app, "r", "dana")  # the gate of round one
    final = approve_all(app, "r", "dana").state  # the gate of round two
    assert len(final["done"]) == 4
    assert budget.used("r")["run/model_calls"] == 4


class _CallingWorker:
    """Calls a governed scripted model once per task, then answers."""

    def __init__(self) -> None:
        self.model = governed(ScriptedChatModel([Reply("ok")] * 8))

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        self.model.invoke([HumanMessage(task.description)])
        return WorkerResult(task_id=task.id, status="ok", output=task.id)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        await self.model.ainvoke([HumanMessage(task.description)])
        return WorkerResult(task_id=task.id, status="ok", output=task.id)


def test_a_workers_usage_rides_on_its_result_and_a_retry_keeps_the_first_attempts() -> None:
    """Each worker execution writes one state key (its result, carrying its usage); the
    aggregator files the usage in the team's ``usage``, so a retried task's first attempt
    still counts after its result is replaced."""
    from framework.engine.builder import TeamSettings, build_team, compile_team
    from framework.engine.records import ReviewVerdict
    from tests.roles import CountingPlanner, ScriptedReviewer, make_roles

    retry = ReviewVerdict(decision="retry_workers", retry_task_ids=["t1"])
    roles = replace(
        make_roles(CountingPlanner(n=3), reviewer=ScriptedReviewer([retry])),
        worker=_CallingWorker(),
    )
    budget = Budget(run=Limits(model_calls=100))
    settings = TeamSettings(middleware=(PolicyMiddleware([budget]),))
    app = compile_team(build_team(roles, settings), checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "u"}}
    updates = list(app.stream({"question": "q"}, config, stream_mode="updates"))
    worker_updates = [chunk["worker"] for chunk in updates if "worker" in chunk]
    assert len(worker_updates) == 4
    for update in worker_updates:
        assert set(update) == {"worker_results"}
        [result] = update["worker_results"].values()
        [record] = result.usage.values()
        assert (record.task_id, record.counts["model_calls"]) == (result.task_id, 1)
    values = app.get_state(config).values
    filed = values["usage"].values()
    assert sorted(record.task_id for record in filed) == ["t0", "t1", "t1", "t2"]
    assert recorded_usage(values) == values["usage"]
    assert len(values["worker_results"]["t1"].usage) == 1  # the retry's; the first is filed


def test_a_rule_about_a_tool_holds_under_the_prefixed_name_a_team_exposes() -> None:
    from framework.tools.mcp import McpToolbox
    from tests.test_mcp_tools import stdio_demo

    with McpToolbox([stdio_demo("ops", tools=["add", "echo"], prefix=True)]) as toolbox:
        tools = {tool.name: governed(tool) for tool in toolbox.tools}
        assert sorted(tools) == ["ops_add", "ops_echo"]

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            tools["ops_echo"].invoke({"text": "hi"})
            tools["ops_add"].invoke({"a": 1, "b": 2})
            return {}

        deny_add = ToolAuthorization([ToolRule(tools="ad*", action="deny", reason="no sums")])
        with pytest.raises(PolicyDenied, match="no sums"):
            _run(body, deny_add)
        by_exposed = ToolAuthorization([ToolRule(tools="ops_add", action="deny", reason="no")])
        with pytest.raises(PolicyDenied, match="no"):
            _run(body, by_exposed)
        _run(body, ToolAuthorization([ToolRule(tools="sub*", action="deny")]))


def test_a_failed_model_call_gives_back_what_it_reserved() -> None:
    steps = [
        Fail(TimeoutError("provider timed out")) if i % 3 == 2 else Reply("ok") for i in range(9)
    ]
    model = governed(ScriptedChatModel(steps))
    budget = Budget(run=Limits(tokens=4_000), max_output_tokens=1_000)
    answered: list[str] = []

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        for _ in range(9):
            try:
                answered.append(model.invoke("x").text)
            except TimeoutError:
                answered.append("failed")
        return {}

    _run(body, budget)
    # each call reserves about 1,000 tokens of a 4,000 budget and uses a few: a failed call's
    # reservation is given back, so all nine calls fit; before, three failures held 3,000
    assert answered.count("failed") == 3 and answered.count("ok") == 6
    used = budget.used("t")
    assert used["run/model_calls"] == 9 and used["run/tokens"] < 4_000


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("limits", "refused"),
    [
        ({"run": Limits(model_calls=0)}, "denied node 'worker'"),  # the worker is not run
        ({"task": Limits(tokens=10)}, "denied a call to model 'scripted'"),
        ({"task": Limits(tool_calls=0)}, "denied a call to tool 'send_mail'"),  # was done
    ],
)
def test_a_task_the_budget_refused_fails_with_the_reason(
    mode: str, limits: dict[str, Limits], refused: str
) -> None:
    """Whether the budget refuses the worker, its model call or its tool call, the task fails
    with "budget exhausted"; a tool worker does not hand the refusal to its model to answer
    around (the step its model would take then is left over)."""
    from framework.engine.builder import TeamSettings, build_team, compile_team
    from framework.testing import CallTools
    from framework.tools.worker import ToolWorker
    from tests.roles import CountingPlanner, make_roles

    CALLED.clear()
    script = [
        CallTools([("send_mail", {"to": "ops", "body": "hi"})]),
        Reply("The mail could not be sent.", match="was refused"),
    ]
    worker = ToolWorker(governed(ScriptedChatModel(script)), [send_mail])
    roles = replace(make_roles(CountingPlanner(n=1)), worker=worker)
    settings = TeamSettings(middleware=(PolicyMiddleware([Budget(**limits)]),))
    app = compile_team(build_team(roles, settings), checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": f"{mode}-{refused}"}}
    if mode == "async":
        final = asyncio.run(app.ainvoke({"question": "q"}, config))
    else:
        final = app.invoke({"question": "q"}, config)
    assert final["tasks"]["t0"].status == "failed"
    error = final["worker_results"]["t0"].error or ""
    assert error.startswith(f"refused: policy 'budget' {refused}: budget exhausted ("), error
    assert CALLED == []
