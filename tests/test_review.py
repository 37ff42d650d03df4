"""Human review: review points, the review API, the audit trail, history and fork.

The main scenario drives a MetaCoordinator run (the offline research team over a small corpus,
checkpointed in SQLite) through a plan review with an edited plan, five task reviews pending at
once (two rejected, all decided in one call), an answer edit, and a fork from a checkpoint
inside the research subgraph. Refused decisions are checked to leave the SQLite file's rows
exactly as they were.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import Pregel

from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.engine.records import Plan, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, ReviewError
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore, ingest_corpus
from framework.persistence.checkpointer import default_serializer, sqlite_checkpointer
from framework.review import (
    AnswerReview,
    AuditEntry,
    Decision,
    NodeReview,
    PlanReview,
    TaskReview,
    adecide,
    approve_all,
    decide,
    fork,
    history,
    pending,
)
from framework.runs.runner import arun_team, run_team
from framework.runs.teams import TeamSetup
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from teams.meta.app import meta_coordinator
from teams.research import build_research_team, offline_roles
from tests.conftest import write_corpus
from tests.roles import CountingPlanner, ProgrammableWorker, make_roles

App = CompiledStateGraph[Any, Any, Any, Any]

CORPUS = {
    "checkpoints.md": "# Checkpoints\n\nEvery run is checkpointed after each step. "
    "Checkpoints are encrypted at rest with AES in OCB mode.\n",
    "retries.md": "# Retries\n\nWorkers retry transient errors such as timeouts up to three "
    "times, with exponential backoff between attempts.\n",
    "review.md": "# Human review\n\nA human reviewer approves, edits or rejects the plan "
    "while the run is paused at a review point.\n",
    "spans.md": "# Telemetry\n\nEvery node is reported as an OpenTelemetry span and spans are "
    "exported over OTLP.\n",
    "budgets.md": "# Budgets\n\nA budget caps the tokens a run may spend; the run stops when "
    "the budget is exhausted.\n",
}
QUESTION = (
    "How are runs checkpointed? How do workers retry transient errors? "
    "Who approves the plan at a review point? How are spans exported?"
)
"""Four sub-questions: the offline planner plans five tasks, q0 (the whole question) to q4."""
BUDGET = "How does a budget stop a run?"
EDITED_ANSWER = (
    "# Reviewed answer\n\nRuns are checkpointed after each step (`docs/checkpoints.md:3`).\n"
)
REVIEW = frozenset({"plan", "tasks", "answer"})


@dataclass
class CountingWorker:
    """Wraps a worker role and counts its executions per task id."""

    inner: Any
    calls: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _count(self, task: Task) -> None:
        with self._lock:
            self.calls[task.id] += 1

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        self._count(task)
        result: WorkerResult = self.inner.run(task, question, context)
        return result

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        self._count(task)
        result: WorkerResult = await self.inner.arun(task, question, context)
        return result


@dataclass
class Meta:
    """A compiled MetaCoordinator with review points, its database and its counted worker."""

    app: App
    database: Path
    worker: CountingWorker


@pytest.fixture
def corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Corpus]:
    root = write_corpus(tmp_path / "docs", CORPUS)
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield Corpus(store)


@pytest.fixture
def checkpointer(tmp_path: Path) -> Iterator[SqliteSaver]:
    saver = sqlite_checkpointer(tmp_path / "checkpoints.sqlite")
    yield saver
    saver.conn.close()


@pytest.fixture
def meta(corpus: Corpus, checkpointer: SqliteSaver, tmp_path: Path) -> Meta:
    roles = offline_roles(corpus, corpus.store)
    worker = CountingWorker(roles.worker)
    research = build_research_team(replace(roles, worker=worker), review=REVIEW)
    graph = build_meta_coordinator(research, EvidenceRisk(), CitationCompliance())
    app = compile_team(graph, checkpointer=checkpointer, name="meta")
    return Meta(app=app, database=tmp_path / "checkpoints.sqlite", worker=worker)


def rows(database: Path) -> tuple[list[Any], list[Any]]:
    """Every row of the checkpoints and writes tables, in a stable order."""
    with closing(sqlite3.connect(database)) as connection:
        checkpoints = connection.execute(
            "SELECT * FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id"
        ).fetchall()
        writes = connection.execute(
            "SELECT * FROM writes ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx"
        ).fetchall()
    return checkpoints, writes


def thread_rows(database: Path, thread_id: str) -> tuple[list[Any], list[Any]]:
    checkpoints, writes = rows(database)
    return [r for r in checkpoints if r[0] == thread_id], [r for r in writes if r[0] == thread_id]


def edited_plan(plan: Plan) -> Plan:
    """The plan with its last task asking about budgets instead of spans."""
    tasks = [
        task.model_copy(update={"description": BUDGET, "inputs": {"query": BUDGET}})
        if task.id == "q4"
        else task
        for task in plan.tasks
    ]
    return plan.model_copy(update={"tasks": tasks})


def one(requests: list[Any], kind: type[Any]) -> Any:
    assert len(requests) == 1, requests
    assert isinstance(requests[0], kind)
    return requests[0]


def to_plan_review(meta: Meta, thread_id: str = "main") -> PlanReview:
    result = run_team(meta.app, {"question": QUESTION}, thread_id)
    assert result.paused_before == ("research_team",)
    request: PlanReview = one(pending(meta.app, thread_id), PlanReview)
    return request


def to_task_reviews(meta: Meta, thread_id: str = "main") -> list[TaskReview]:
    request = to_plan_review(meta, thread_id)
    plan = edited_plan(request.plan)
    decide(
        meta.app,
        thread_id,
        [Decision(request_id=request.id, kind="edit_plan", reviewer="alice", plan=plan)],
    )
    requests = pending(meta.app, thread_id)
    assert all(isinstance(r, TaskReview) for r in requests)
    return requests  # type: ignore[return-value]


REJECTED = {"q0": "too broad: the sub-questions cover it", "q3": "we know who approves"}


def to_answer_review(meta: Meta, thread_id: str = "main") -> AnswerReview:
    reviews = to_task_reviews(meta, thread_id)
    decisions = [
        Decision(request_id=r.id, kind="reject_tasks", reviewer="bob", reason=REJECTED[r.task.id])
        if r.task.id in REJECTED
        else Decision(request_id=r.id, kind="approve", reviewer="bob")
        for r in reviews
    ]
    decide(meta.app, thread_id, decisions)
    request: AnswerReview = one(pending(meta.app, thread_id), AnswerReview)
    return request


def finished(meta: Meta, thread_id: str = "main") -> dict[str, Any]:
    request = to_answer_review(meta, thread_id)
    decision = Decision(
        request_id=request.id, kind="edit_answer", reviewer="carol", answer=EDITED_ANSWER
    )
    result = decide(meta.app, thread_id, [decision])
    assert result.paused_before == ()
    return result.state


# -- the main scenario ------------------------------------------------------------------------


def test_plan_review_shows_the_plan_inside_the_research_team(meta: Meta) -> None:
    request = to_plan_review(meta)
    assert request.thread_id == "main"
    assert request.path == ["research_team", "research"]
    assert request.node == "plan_review"
    assert request.checkpoint_ns.startswith("research_team:")
    assert request.allowed == ["approve", "edit_plan", "edit_tasks", "reject_tasks"]
    assert [task.id for task in request.tasks] == ["q0", "q1", "q2", "q3", "q4"]
    assert request.plan.goal == QUESTION
    assert not meta.worker.calls  # nothing dispatched before the plan is approved


def test_five_task_reviews_are_pending_at_once_after_a_plan_edit(meta: Meta) -> None:
    reviews = to_task_reviews(meta)
    assert sorted(r.task.id for r in reviews) == ["q0", "q1", "q2", "q3", "q4"]
    assert len({r.id for r in reviews}) == 5
    assert all(r.allowed == ["approve", "reject_tasks", "edit_tasks"] for r in reviews)
    edited = next(r.task for r in reviews if r.task.id == "q4")
    assert edited.description == BUDGET and edited.inputs == {"query": BUDGET}
    assert not meta.worker.calls


def test_rejected_tasks_are_never_dispatched_and_the_reviewer_sees_why(meta: Meta) -> None:
    request = to_answer_review(meta)
    assert meta.worker.calls == Counter({"q1": 1, "q2": 1, "q4": 1})
    assert "## Rejected in review" in request.draft
    for reason in REJECTED.values():
        assert reason in request.draft
    assert "docs/budgets.md:3" in request.draft  # the edited task was researched
    assert request.consolidated.startswith("[q1]")
    snapshot = meta.app.get_state({"configurable": {"thread_id": "main"}}, subgraphs=True)
    research = snapshot.tasks[0].state
    assert research is not None and not isinstance(research, dict)
    reflection = research.values["reflection"]
    assert f"rejected in review: q0 ({REJECTED['q0']})" in reflection.reasons


def test_answer_edit_is_the_final_answer_and_every_decision_is_audited(meta: Meta) -> None:
    state = finished(meta)
    assert state["final_answer"] == EDITED_ANSWER
    assert set(state["findings"]) == {"intake", "risk_assessment", "compliance_check"}
    statuses = {task_id: task.status for task_id, task in state["tasks"].items()}
    assert statuses == {
        "q0": "rejected",
        "q1": "done",
        "q2": "done",
        "q3": "rejected",
        "q4": "done",
    }
    assert state["rejections"] == REJECTED
    assert sorted(state["worker_results"]) == ["q1", "q2", "q4"]
    audit: list[AuditEntry] = state["audit"]
    kinds = [(e.reviewer, e.request_kind, e.decision_kind) for e in audit]
    assert kinds[0] == ("alice", "plan", "edit_plan")
    assert Counter(kinds[1:6]) == {  # task reviews finish in any order
        ("bob", "tasks", "reject_tasks"): 2,
        ("bob", "tasks", "approve"): 3,
    }
    assert kinds[6] == ("carol", "answer", "edit_answer")
    assert len({entry.id for entry in audit}) == 7  # handed up from the subgraph once
    for entry in audit:
        assert entry.path == ["research_team", "research"]
        assert datetime.fromisoformat(entry.at).utcoffset() is not None
    plan_edit, answer_edit = audit[0], audit[-1]
    removed = [line for line in plan_edit.diff.splitlines() if line.startswith("-")]
    added = [line for line in plan_edit.diff.splitlines() if line.startswith("+")]
    assert any('"description": "How are spans exported"' in line for line in removed)
    assert any(f'"description": "{BUDGET}"' in line for line in added)
    assert "+# Reviewed answer" in answer_edit.diff and "-## Findings" in answer_edit.diff
    rejections = [e for e in audit if e.decision_kind == "reject_tasks"]
    assert {e.reason for e in rejections} == set(REJECTED.values())
    assert all('+    "status": "rejected"' in e.diff for e in rejections)
    assert all(e.diff == "" for e in audit if e.decision_kind == "approve")


def test_fork_from_a_nested_checkpoint_reruns_only_the_edited_task(meta: Meta) -> None:
    original = finished(meta)
    before = thread_rows(meta.database, "main")
    entry = next(e for e in history(meta.app, "main") if e.node == "reviewer")
    assert entry.checkpoint_ns.startswith("research_team:")
    config: RunnableConfig = {
        "configurable": {
            "thread_id": "main",
            "checkpoint_ns": entry.checkpoint_ns,
            "checkpoint_id": entry.checkpoint_id,
        }
    }
    at_fork = meta.app.get_state(config).values
    query = "How many times do workers retry a timeout?"
    plan = at_fork["plan"].model_copy(
        update={
            "tasks": [
                t.model_copy(update={"description": query, "inputs": {"query": query}})
                if t.id == "q2"
                else t
                for t in at_fork["plan"].tasks
            ]
        }
    )
    new = fork(
        meta.app,
        "main",
        entry.checkpoint_id,
        checkpoint_ns=entry.checkpoint_ns,
        plan=plan,
        new_thread_id="forked",
        reviewer="dave",
    )
    assert new == "forked"
    assert pending(meta.app, "forked") == []  # the fork runs on when it is continued
    run_team(meta.app, None, "forked")
    review = one(pending(meta.app, "forked"), TaskReview)
    assert review.task.id == "q2" and review.task.description == query
    decide(meta.app, "forked", [Decision(request_id=review.id, kind="approve", reviewer="dave")])
    state = approve_all(meta.app, "forked", "dave").state
    assert meta.worker.calls == Counter({"q2": 2, "q1": 1, "q4": 1})
    assert state["tasks"]["q2"].description == query
    assert {t: task.status for t, task in state["tasks"].items()} == {
        "q0": "rejected",
        "q1": "done",
        "q2": "done",
        "q3": "rejected",
        "q4": "done",
    }
    for task_id in ("q1", "q4"):
        assert state["worker_results"][task_id] == original["worker_results"][task_id]
    assert "timeout" in state["worker_results"]["q2"].output.lower()
    kinds = [(e.reviewer, e.decision_kind) for e in state["audit"]]
    assert kinds[:6] == [(e.reviewer, e.decision_kind) for e in original["audit"][:6]]
    assert kinds[6:] == [("dave", "edit_plan"), ("dave", "approve"), ("dave", "approve")]
    fork_edit = state["audit"][6]
    assert fork_edit.request_id == f"fork:{entry.checkpoint_id}"
    assert f'"description": "{query}"' in fork_edit.diff
    assert state["final_answer"] != EDITED_ANSWER  # the fork's own answer, approved as drafted
    assert thread_rows(meta.database, "main") == before
    assert meta.app.get_state({"configurable": {"thread_id": "main"}}).values == original


# -- refusals leave the thread byte for byte as it was ---------------------------------------


def _raw(request_id: str, kind: str, **fields: Any) -> dict[str, Any]:
    return {"request_id": request_id, "kind": kind, "reviewer": "eve", **fields}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda r: [
                _raw(
                    r.id,
                    "edit_plan",
                    plan={"goal": "g", "tasks": [{"id": "q1", "description": ""}]},
                )
            ],
            r"invalid decision .*plan\.tasks\.0\.description: String should have at least 1",
        ),
        (
            lambda r: [_raw(r.id, "reject_tasks", task_ids=["q1", "q9"])],
            r"unknown task id\(s\) q9 for plan review",
        ),
        (
            lambda r: [_raw(r.id, "edit_answer", answer="no")],
            r"edit_answer is not allowed for plan review .*: choose one of approve, edit_plan",
        ),
        (lambda r: [_raw("f" * 32, "approve")], r"request 'f{32}' is not pending on thread"),
        (
            lambda r: [_raw(r.id, "approve"), _raw(r.id, "approve")],
            "is decided twice in one call",
        ),
        (lambda r: [_raw(r.id, "approve", reviewer="")], r"reviewer: String should have"),
        (lambda r: [_raw(r.id, "edit_plan")], "edit_plan needs the edited plan"),
        (lambda r: [], "no decision given for thread 'main'"),
        (
            lambda r: [
                _raw(
                    r.id,
                    "edit_plan",
                    plan={"goal": "g", "tasks": [{"id": "q1", "description": "d"}] * 2},
                )
            ],
            "name task ids more than once: q1",
        ),
        (
            lambda r: [_raw(r.id, "edit_plan", plan={"goal": "g", "tasks": []})],
            "has no tasks and no direct answer",
        ),
    ],
)
def test_invalid_decisions_are_refused_and_change_nothing(
    meta: Meta, make: Any, message: str
) -> None:
    request = to_plan_review(meta)
    before = rows(meta.database)
    with pytest.raises(ReviewError, match=message):
        decide(meta.app, "main", make(request))
    assert rows(meta.database) == before
    assert pending(meta.app, "main") == [request]


def test_a_task_review_refuses_decisions_about_other_tasks(meta: Meta) -> None:
    reviews = to_task_reviews(meta)
    before = rows(meta.database)
    first = reviews[0]
    other = next(r.task.id for r in reviews if r is not first)
    with pytest.raises(ReviewError, match=rf"unknown task id\(s\) {other} for tasks review"):
        decide(meta.app, "main", [_raw(first.id, "reject_tasks", task_ids=[other])])
    edit = first.task.model_copy(update={"id": other}).model_dump()
    with pytest.raises(ReviewError, match="unknown task id"):
        decide(meta.app, "main", [_raw(first.id, "edit_tasks", tasks=[edit])])
    with pytest.raises(ReviewError, match="edit_plan is not allowed for tasks review"):
        decide(meta.app, "main", [_raw(first.id, "edit_plan", plan={"goal": "g"})])
    assert rows(meta.database) == before


def test_finished_unknown_and_idle_threads_are_refused(meta: Meta) -> None:
    finished(meta)
    before = rows(meta.database)
    with pytest.raises(ReviewError, match="thread 'main' is finished: there is nothing to decide"):
        decide(meta.app, "main", [_raw("a" * 32, "approve")])
    with pytest.raises(ReviewError, match="thread 'main' is finished"):
        approve_all(meta.app, "main", "eve")
    with pytest.raises(ReviewError, match="unknown thread 'ghost'"):
        decide(meta.app, "ghost", [_raw("a" * 32, "approve")])
    with pytest.raises(ReviewError, match="unknown thread 'ghost'"):
        pending(meta.app, "ghost")
    with pytest.raises(ReviewError, match="unknown thread 'ghost'"):
        history(meta.app, "ghost")
    with pytest.raises(ReviewError, match="unknown thread 'ghost'"):
        fork(meta.app, "ghost", "x")
    with pytest.raises(ReviewError, match="no checkpoint 'nope' of thread 'main'"):
        fork(meta.app, "main", "nope")
    assert rows(meta.database) == before
    top = next(e for e in history(meta.app, "main") if e.node == "intake")
    with pytest.raises(ReviewError, match="graph 'meta', which has no planner"):
        fork(meta.app, "main", top.checkpoint_id, plan=Plan(goal="g", direct_answer="a"))
    with pytest.raises(ReviewError, match=r"the plan for the fork .* is invalid"):
        bad = {"goal": "g", "tasks": [{"id": "", "description": "d"}]}
        fork(meta.app, "main", top.checkpoint_id, plan=bad)  # type: ignore[arg-type]
    assert rows(meta.database) == before
    idle = fork(meta.app, "main", top.checkpoint_id)  # copied, not yet continued
    before = rows(meta.database)
    with pytest.raises(ReviewError, match=f"nothing pending on thread '{idle}'"):
        decide(meta.app, idle, [_raw("a" * 32, "approve")])
    with pytest.raises(ReviewError, match=f"thread '{idle}' already exists"):
        fork(meta.app, "main", top.checkpoint_id, new_thread_id=idle)
    assert rows(meta.database) == before


# -- pending across threads, history -----------------------------------------------------------


def test_pending_lists_the_open_requests_of_every_thread(meta: Meta) -> None:
    first = to_plan_review(meta, "first")
    second = to_plan_review(meta, "second")
    everything = pending(meta.app)
    assert {(r.thread_id, r.id) for r in everything} == {
        ("first", first.id),
        ("second", second.id),
    }
    assert first.id != second.id
    assert pending(meta.app, "second") == [second]


def test_history_lists_nested_checkpoints_newest_first(meta: Meta) -> None:
    to_task_reviews(meta)
    entries = history(meta.app, "main")
    stamps = [e.created_at for e in entries]
    assert stamps == sorted(stamps, reverse=True)
    nested = [e for e in entries if e.checkpoint_ns.startswith("research_team:")]
    top = [e for e in entries if e.checkpoint_ns == ""]
    assert nested and top
    by_node = {e.node: e for e in nested}
    assert by_node["planner"].summary == "plan: 5 tasks; paused for plan review"
    assert by_node["plan_review"].summary == "plan: 5 tasks; paused for 5 task reviews"
    assert by_node["planner"].step + 1 == by_node["plan_review"].step
    assert {e.node for e in top} >= {"input", "intake"}
    latest_top = top[0]
    assert latest_top.node == "intake" and latest_top.summary.endswith("paused for 5 task reviews")
    assert entries[-1].step == -1 and entries[-1].node == "input"


# -- review settings, node reviews, task edits, async ------------------------------------------


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"review": frozenset({"plans"})}, "unknown review point 'plans': choose among plan"),
        ({"review": frozenset({"node"})}, "name the nodes to approve in review_nodes"),
        ({"review": "plan"}, "not one string"),
        ({"review_nodes": ("ghost",)}, r"review_nodes \['ghost'\] name no node of a team"),
    ],
)
def test_review_settings_are_checked_at_build_time(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TeamSettings(**settings)


def test_review_points_add_their_nodes_only_when_asked() -> None:
    plain = build_team(make_roles())
    assert not {"plan_review", "task_review", "answer_review"} & set(plain.nodes)
    graph = build_team(make_roles(), TeamSettings(review=frozenset({"plan", "answer"})))
    assert {"plan_review", "answer_review"} <= set(graph.nodes)
    assert "task_review" not in graph.nodes


def test_team_setup_review_reaches_the_research_subgraph(corpus: Corpus) -> None:
    setup = TeamSetup(corpus=corpus, store=corpus.store, review=frozenset({"tasks"}))
    app = compile_team(meta_coordinator(setup))
    [(_, research)] = list(app.get_subgraphs())
    assert isinstance(research, Pregel)
    assert "task_review" in research.nodes and "plan_review" not in research.nodes


def _team(checkpointer: Any, **settings: Any) -> tuple[App, ProgrammableWorker]:
    worker = ProgrammableWorker()
    roles = make_roles(planner=CountingPlanner(n=3), worker=worker)
    graph = build_team(roles, TeamSettings(name="research", **settings))
    return compile_team(graph, checkpointer=checkpointer, name="research"), worker


def test_named_nodes_ask_for_approval_before_they_run(checkpointer: SqliteSaver) -> None:
    app, worker = _team(checkpointer, review_nodes=("worker", "memory_curator"))
    run_team(app, {"question": "q?"}, "nodes")
    requests = [r for r in pending(app, "nodes") if isinstance(r, NodeReview)]
    assert len(requests) == len(pending(app, "nodes")) == 3
    assert sorted(r.summary for r in requests) == [
        "task t0: task 0",
        "task t1: task 1",
        "task t2: task 2",
    ]
    assert all(r.path == ["research"] and r.allowed == ["approve"] for r in requests)
    assert not worker.calls
    approve_all(app, "nodes", "frank")
    assert sorted(worker.calls) == ["t0", "t1", "t2"]
    curator = one(pending(app, "nodes"), NodeReview)
    assert curator.node == "memory_curator" and curator.summary.startswith("plan: 3 tasks")
    with pytest.raises(ReviewError, match="reject_tasks is not allowed for node review"):
        decide(app, "nodes", [_raw(curator.id, "reject_tasks", task_ids=["t0"])])
    state = approve_all(app, "nodes", "frank").state
    assert state["final_answer"].startswith("ANSWER")
    assert [(e.request_kind, e.reviewer) for e in state["audit"]] == [("node", "frank")] * 4


def test_a_task_edit_is_what_the_worker_runs(checkpointer: SqliteSaver) -> None:
    app, worker = _team(checkpointer, review=frozenset({"tasks"}))
    run_team(app, {"question": "q?"}, "edit")
    reviews = {r.task.id: r for r in pending(app, "edit") if isinstance(r, TaskReview)}
    edited = reviews["t1"].task.model_copy(update={"inputs": {"query": "sharper"}})
    decisions = [
        Decision(request_id=reviews["t1"].id, kind="edit_tasks", reviewer="gus", tasks=[edited]),
        Decision(request_id=reviews["t0"].id, kind="approve", reviewer="gus"),
    ]
    result = decide(app, "edit", decisions)  # t2 is left pending
    assert result.paused_before and not worker.calls
    [left] = pending(app, "edit")
    assert isinstance(left, TaskReview) and left.task.id == "t2"
    state = decide(
        app, "edit", [Decision(request_id=left.id, kind="reject_tasks", reviewer="gus")]
    ).state
    assert sorted(worker.calls) == ["t0", "t1"]
    assert state["worker_results"]["t1"].output == "t1:sharper"
    assert state["rejections"] == {"t2": "rejected by gus"}
    [edit] = [e for e in state["audit"] if e.decision_kind == "edit_tasks"]
    assert '+      "query": "sharper"' in edit.diff


async def test_async_decide_resumes_parallel_task_reviews() -> None:
    app, worker = _team(InMemorySaver(serde=default_serializer()), review=REVIEW)
    await arun_team(app, {"question": "q?"}, "async")
    plan = one(pending(app, "async"), PlanReview)
    await adecide(app, "async", [Decision(request_id=plan.id, kind="approve", reviewer="ann")])
    reviews = pending(app, "async")
    assert len(reviews) == 3
    await adecide(
        app, "async", [Decision(request_id=r.id, kind="approve", reviewer="ann") for r in reviews]
    )
    answer = one(pending(app, "async"), AnswerReview)
    result = await adecide(
        app,
        "async",
        [Decision(request_id=answer.id, kind="edit_answer", reviewer="ann", answer="A")],
    )
    assert result.paused_before == () and result.state["final_answer"] == "A"
    assert sorted(worker.calls) == ["t0", "t1", "t2"]
    assert len(result.state["audit"]) == 5
