"""Tests for framework.engine.state (reducers, TeamState wiring) and framework.engine.records
(validation)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, StateGraph
from pydantic import ValidationError

from framework.engine.records import (
    SCHEMA_VERSION,
    Evidence,
    Finding,
    MemoryFact,
    Plan,
    Provenance,
    ReviewVerdict,
    Task,
    WorkerResult,
)
from framework.engine.state import (
    MESSAGE_LIMIT,
    TaskReplacement,
    TeamState,
    append_unique_facts,
    bounded_messages,
    merge_by_id,
    merge_sum,
    merge_tasks,
)


def task(task_id: str, **update: Any) -> Task:
    return Task(id=task_id, description=f"task {task_id}", **update)


def result(task_id: str, **update: Any) -> WorkerResult:
    return WorkerResult(
        **{"task_id": task_id, "status": "ok", "output": f"out {task_id}", **update}
    )


def fact(subject: str, source: str | None = None, **update: Any) -> MemoryFact:
    return MemoryFact(
        subject=subject,
        predicate="is",
        object="known",
        provenance=Provenance(source=source),
        **update,
    )


# --- tasks ----------------------------------------------------------------------------------


def test_merge_tasks_mapping_merges_by_id() -> None:
    current = {"a": task("a"), "b": task("b")}
    merged = merge_tasks(current, {"b": task("b", status="running"), "c": task("c")})
    assert list(merged) == ["a", "b", "c"]
    assert merged["a"] == current["a"]
    assert merged["b"].status == "running"
    assert merged["c"].status == "pending"
    assert current["b"].status == "pending", "the reducer must not mutate the current value"


def test_merge_tasks_list_merges_by_id() -> None:
    current = {"a": task("a")}
    merged = merge_tasks(current, [task("a", attempt=2), task("b")])
    assert set(merged) == {"a", "b"}
    assert merged["a"].attempt == 2


def test_merge_tasks_from_empty_state() -> None:
    assert merge_tasks(None, [task("a")]) == {"a": task("a")}
    assert merge_tasks({}, {}) == {}


def test_task_replacement_replaces_the_whole_list() -> None:
    current = {"a": task("a"), "b": task("b")}
    merged = merge_tasks(current, TaskReplacement(tasks={"c": task("c")}))
    assert merged == {"c": task("c")}
    assert merge_tasks(current, TaskReplacement(tasks={})) == {}


# --- worker results -------------------------------------------------------------------------


def test_worker_results_a_retry_replaces_never_duplicates() -> None:
    first = {"a": result("a"), "b": result("b")}
    retried = result("a", output="better", attempt=1)
    merged = merge_by_id(first, {"a": retried})
    assert list(merged) == ["a", "b"]
    assert merged["a"] is retried
    assert merged["b"] is first["b"]
    assert first["a"].attempt == 0


def test_merge_by_id_from_empty_state() -> None:
    assert merge_by_id(None, {"a": result("a")}) == {"a": result("a")}


# --- metrics --------------------------------------------------------------------------------


def test_metrics_merge_by_summing_per_key() -> None:
    merged = merge_sum({"tasks_ok": 2, "retries": 1}, {"tasks_ok": 3, "dispatches": 1})
    assert merged == {"tasks_ok": 5, "retries": 1, "dispatches": 1}
    assert merge_sum(None, {"x": 0.5}) == {"x": 0.5}


# --- memory facts ---------------------------------------------------------------------------


def test_memory_facts_append_unique_by_id() -> None:
    a, b = fact("a"), fact("b")
    merged = append_unique_facts([a], [b, fact("a"), b, fact("c")])
    assert [f.subject for f in merged] == ["a", "b", "c"]
    assert merged[0] is a, "the first copy of a fact is kept"


def test_memory_facts_from_another_source_are_distinct() -> None:
    merged = append_unique_facts(None, [fact("a", "doc1"), fact("a", "doc2")])
    assert len(merged) == 2


def test_memory_fact_id_is_stable() -> None:
    # Snapshots: ids are persisted, so they must not change between versions or processes.
    statement = MemoryFact(
        subject="s", predicate="p", object="o", provenance=Provenance(source="doc.txt")
    )
    assert statement.id == "8430017c6b598eeb"
    assert MemoryFact(subject="s", predicate="p", object="o").id == "c07b38e084bf7e6c"


def test_memory_fact_id_ignores_confidence_and_run_provenance() -> None:
    base = fact("s", "doc")
    other = MemoryFact(
        subject="s",
        predicate="is",
        object="known",
        confidence=0.9,
        provenance=Provenance(source="doc", thread_id="t-2", task_id="x", checkpoint_id="c"),
    )
    assert other.id == base.id
    assert fact("s2", "doc").id != base.id
    assert fact("s", "other-doc").id != base.id
    assert len(base.id) == 16
    int(base.id, 16)


def test_memory_fact_id_separates_fields() -> None:
    one = MemoryFact(subject="ab", predicate="c", object="d")
    two = MemoryFact(subject="a", predicate="bc", object="d")
    assert one.id != two.id


# --- messages -------------------------------------------------------------------------------


def test_bounded_messages_keeps_the_last_limit() -> None:
    reduce = bounded_messages(3)
    messages = reduce([], [HumanMessage(f"m{i}", id=f"id{i}") for i in range(5)])
    assert [m.content for m in messages] == ["m2", "m3", "m4"]
    messages = reduce(messages, [AIMessage("m5", id="id5")])
    assert [m.content for m in messages] == ["m3", "m4", "m5"]


def test_bounded_messages_merge_by_id() -> None:
    reduce = bounded_messages(10)
    messages = reduce([], [HumanMessage("first", id="a"), HumanMessage("second", id="b")])
    messages = reduce(messages, [HumanMessage("first, edited", id="a")])
    assert [(m.id, m.content) for m in messages] == [("a", "first, edited"), ("b", "second")]


def test_bounded_messages_assigns_ids_and_accepts_one_message() -> None:
    messages = bounded_messages(5)(None, AIMessage("solo"))  # type: ignore[arg-type]
    assert len(messages) == 1
    assert messages[0].id


# --- TeamState wiring -----------------------------------------------------------------------


def test_team_state_applies_its_reducers_to_parallel_writes() -> None:
    def left(state: TeamState) -> dict[str, Any]:
        return {
            "worker_results": {"a": result("a")},
            "metrics": {"tasks_ok": 1},
            "memory_writes": [fact("x")],
            "tasks": [task("a", status="done")],
        }

    def right(state: TeamState) -> dict[str, Any]:
        return {
            "worker_results": {"b": result("b")},
            "metrics": {"tasks_ok": 1, "retries": 2},
            "memory_writes": [fact("x"), fact("y")],
            "tasks": [task("b", status="failed")],
        }

    graph = StateGraph(TeamState)
    graph.add_node("left", left)
    graph.add_node("right", right)
    graph.add_edge(START, "left")
    graph.add_edge(START, "right")
    out = graph.compile().invoke(
        {"question": "q", "tasks": {"a": task("a"), "b": task("b"), "c": task("c")}}
    )
    assert set(out["worker_results"]) == {"a", "b"}
    assert out["metrics"] == {"tasks_ok": 2, "retries": 2}
    assert sorted(f.subject for f in out["memory_writes"]) == ["x", "y"]
    assert {t: v.status for t, v in out["tasks"].items()} == {
        "a": "done",
        "b": "failed",
        "c": "pending",
    }


def test_team_state_bounds_messages_at_the_limit() -> None:
    def talk(state: TeamState) -> dict[str, Any]:
        return {"messages": [AIMessage(f"m{i}") for i in range(MESSAGE_LIMIT + 50)]}

    graph = StateGraph(TeamState)
    graph.add_node("talk", talk)
    graph.add_edge(START, "talk")
    out = graph.compile().invoke({"messages": [HumanMessage("hello")]})
    assert len(out["messages"]) == MESSAGE_LIMIT
    assert out["messages"][-1].content == f"m{MESSAGE_LIMIT + 49}"
    assert out["messages"][0].content == "m50"


# --- records --------------------------------------------------------------------------------

RECORDS: list[Any] = [
    task("a"),
    result("a", evidence=[Evidence(source="doc", text="t")]),
    Plan(goal="g", tasks=[task("a")]),
    ReviewVerdict(decision="finish"),
    fact("s"),
    Provenance(),
    Evidence(source="doc", text="t"),
    TaskReplacement(tasks={}),
    Finding(phase="risk", severity="warning", message="weak source"),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_records_carry_the_schema_version(record: Any) -> None:
    assert SCHEMA_VERSION == 1
    assert record.schema_version == SCHEMA_VERSION
    assert record.model_dump()["schema_version"] == SCHEMA_VERSION


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_records_round_trip_through_json(record: Any) -> None:
    assert type(record).model_validate_json(record.model_dump_json()) == record


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_records_are_frozen(record: Any) -> None:
    with pytest.raises(ValidationError, match="frozen"):
        record.schema_version = 2


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (Task, {"id": "a", "description": "d"}),
        (WorkerResult, {"task_id": "a", "status": "ok"}),
        (Plan, {"goal": "g"}),
        (ReviewVerdict, {"decision": "finish"}),
        (MemoryFact, {"subject": "s", "predicate": "p", "object": "o"}),
        (Provenance, {}),
        (Evidence, {"source": "s", "text": "t"}),
        (Finding, {"phase": "p", "severity": "info", "message": "m"}),
    ],
)
def test_records_forbid_unknown_keys(model: Any, fields: dict[str, Any]) -> None:
    model(**fields)
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        model(**fields, surprise=1)


@pytest.mark.parametrize("confidence", [-0.01, 1.01, 2])
def test_confidence_must_be_within_zero_and_one(confidence: float) -> None:
    with pytest.raises(ValidationError, match="confidence"):
        WorkerResult(task_id="a", status="ok", confidence=confidence)
    with pytest.raises(ValidationError, match="confidence"):
        ReviewVerdict(decision="finish", confidence=confidence)
    with pytest.raises(ValidationError, match="confidence"):
        MemoryFact(subject="s", predicate="p", object="o", confidence=confidence)


@pytest.mark.parametrize("confidence", [0.0, 0.5, 1.0])
def test_confidence_bounds_are_inclusive(confidence: float) -> None:
    assert WorkerResult(task_id="a", status="ok", confidence=confidence).confidence == confidence
    assert ReviewVerdict(decision="finish", confidence=confidence).confidence == confidence


def test_records_refuse_bad_values() -> None:
    with pytest.raises(ValidationError, match="id"):
        Task(id="", description="d")
    with pytest.raises(ValidationError, match="attempt"):
        Task(id="a", description="d", attempt=-1)
    with pytest.raises(ValidationError, match="status"):
        Task(id="a", description="d", status="lost")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="status"):
        WorkerResult(task_id="a", status="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="decision"):
        ReviewVerdict(decision="answer")  # type: ignore[arg-type]


def test_nested_records_are_validated_from_dicts() -> None:
    plan = Plan.model_validate({"goal": "g", "tasks": [{"id": "a", "description": "d"}]})
    assert isinstance(plan.tasks[0], Task)
    with pytest.raises(ValidationError, match=r"tasks\.0\.description"):
        Plan.model_validate({"goal": "g", "tasks": [{"id": "a"}]})
