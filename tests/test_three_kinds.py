"""A team of three worker kinds runs end to end with a scripted model: corpus search (the
research worker), a Python tool, and a tool of a real MCP server on stdio."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.engine.nodes.worker import WorkerBodies
from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.errors import ConfigError
from framework.memory import Corpus
from framework.testing import CallTools, Reply, ScriptedChatModel, Structured
from framework.tools.mcp import McpServer, McpToolbox
from framework.tools.worker import ToolWorker
from teams.research import build_research_team, model_roles
from teams.research.schemas import (
    ClaimDraft,
    FactsDraft,
    PlanDraft,
    ReportDraft,
    ReviewVerdictDraft,
    SectionDraft,
    SubQuestion,
)

DEMO_SERVER = Path(__file__).parent / "mcp_servers" / "demo.py"
RETRIES = "docs/retries.md:3"
KINDS = {
    "search": "passages from the corpus",
    "calc": "multiplies numbers",
    "forecast": "tomorrow's weather of a city, from the weather server",
}


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


@pytest.fixture
def toolbox() -> Iterator[McpToolbox]:
    server = McpServer(
        name="weather", transport="stdio", command=sys.executable, args=[str(DEMO_SERVER)]
    )
    with McpToolbox([server]) as opened:
        yield opened


def _script() -> ScriptedChatModel:
    subs = [
        SubQuestion(description="How do workers retry?", query="worker retries", kind="search"),
        SubQuestion(description="What is 6 times 7?", query="6*7", kind="calc"),
        SubQuestion(description="Weather in Lyon?", query="Lyon", kind="forecast"),
    ]
    return ScriptedChatModel(
        [
            Structured(PlanDraft(goal="g", sub_questions=subs)),
            CallTools([("search_corpus", {"query": "worker retries"})], match="Task q0:"),
            Reply(f"Workers retry three times ({RETRIES}).", match="Results for"),
            CallTools([("multiply", {"a": 6, "b": 7})], match="Task q1:"),
            Reply("6 times 7 is 42.", match="42"),
            CallTools([("forecast", {"city": "Lyon"})], match="Task q2:"),
            Reply("Lyon: see the forecast.", match="Lyon"),
            Reply("Findings consolidated.", match="Findings:"),
            Structured(
                ReviewVerdictDraft(decision="finish", confidence=0.9, reasons=["answered"]),
                match="Consolidated findings:",
            ),
            Structured(FactsDraft(facts=[]), match="Evidence:"),
            Structured(
                ReportDraft(
                    sections=[
                        SectionDraft(
                            heading="Retries",
                            claims=[ClaimDraft(text="Workers retry three times.", source=RETRIES)],
                        )
                    ]
                ),
                match="Evidence you may cite:",
            ),
        ]
    )


def _team(model: ScriptedChatModel, corpus: Corpus, toolbox: McpToolbox) -> Any:
    roles = model_roles(model, corpus, corpus.store, kinds=KINDS)
    worker = WorkerKinds(
        [
            WorkerKind(name="search", worker=roles.worker, description=KINDS["search"]),
            WorkerKind(
                name="calc", worker=ToolWorker(model, [multiply]), description=KINDS["calc"]
            ),
            WorkerKind(
                name="forecast",
                worker=ToolWorker(model, toolbox.tools_for("forecast") or toolbox.tools),
                description=KINDS["forecast"],
            ),
        ]
    )
    return build_research_team(replace(roles, worker=worker))


def test_three_kinds_one_of_them_on_mcp_tools(small_corpus: Corpus, toolbox: McpToolbox) -> None:
    model = _script()
    app = compile_team(_team(model, small_corpus, toolbox), checkpointer=InMemorySaver())
    final = app.invoke({"question": "q"}, {"configurable": {"thread_id": "three"}})
    results = final["worker_results"]
    assert {task_id: r.status for task_id, r in results.items()} == {
        "q0": "ok",
        "q1": "ok",
        "q2": "ok",
    }
    assert results["q0"].evidence[0].source == RETRIES
    assert results["q1"].evidence[0].text == "42.0"
    assert results["q1"].evidence[0].source.startswith("tool:multiply(")
    assert "Lyon" in results["q2"].evidence[0].text
    assert results["q2"].evidence[0].source.startswith("tool:forecast(")
    assert {t.kind for t in final["tasks"].values()} == {"search", "calc", "forecast"}
    assert "- Workers retry three times. (`docs/retries.md:3`)" in final["final_answer"]


def test_the_planner_must_reach_every_kind(small_corpus: Corpus, toolbox: McpToolbox) -> None:
    model = _script()
    roles = model_roles(model, small_corpus, kinds={"search": KINDS["search"]})
    worker = WorkerKinds(
        [
            WorkerKind(name="search", worker=roles.worker),
            WorkerKind(name="calc", worker=ToolWorker(model, [multiply])),
        ]
    )
    with pytest.raises(ConfigError, match="worker kind calc is never planned"):
        build_research_team(replace(roles, worker=worker))


def test_a_server_that_dies_fails_its_task_alone_and_restarts_for_the_next(
    small_corpus: Corpus, toolbox: McpToolbox
) -> None:
    crash = next(t for t in toolbox.tools if t.name == "crash")
    echo = next(t for t in toolbox.tools if t.name == "echo")
    model = ScriptedChatModel(
        [
            CallTools([("crash", {"code": 3})], match="Task dies:"),
            CallTools([("echo", {"text": "still here"})], match="Task next:"),
            Reply("done", match="still here"),
        ]
    )
    worker = ToolWorker(model, [crash, echo])
    node = WorkerBodies(WorkerKinds([WorkerKind(name="forecast", worker=worker)]))
    context = NodeContext(node="worker", team="t")
    died = node.run(
        {
            "task": Task(id="dies", description="d", kind="forecast"),
            "question": "q",
            "dispatch_id": "x",
        },
        context,
    )["worker_results"]["dies"]
    assert died.status == "failed"
    assert "ToolServerError" in (died.error or "") and "weather" in (died.error or "")
    after = node.run(
        {
            "task": Task(id="next", description="n", kind="forecast"),
            "question": "q",
            "dispatch_id": "x",
        },
        context,
    )["worker_results"]["next"]
    assert after.status == "ok"
    assert after.evidence[0].text == "still here"
