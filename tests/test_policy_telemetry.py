"""Policy decisions in the trace: a ``cadre.policy`` event on the node's span and the
``cadre.policy.decisions`` metric per decision; content captured into spans is redacted when
the PII policy covers spans."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph

from framework.engine.nodes.team_node import TeamNode
from framework.engine.runtime import NodeContext
from framework.engine.state import GovernedState
from framework.errors import PolicyDenied
from framework.policy import PolicyMiddleware, governed
from framework.runs.runner import run_team
from framework.testing import Reply, ScriptedChatModel
from policies.authorization import ToolAuthorization, ToolRule
from policies.redaction import PiiRedaction
from tests.test_telemetry import Recorder


class State(GovernedState, total=False):
    question: str
    final_answer: str


@tool
def delete_account(user: str) -> str:
    """Delete an account."""
    return "deleted"


@tool
def note(text: str) -> str:
    """Keep a note."""
    return f"noted: {text}"


def test_decisions_are_span_events_and_metrics_and_captured_content_is_redacted() -> None:
    recorder = Recorder(capture_content=True)
    model = governed(ScriptedChatModel([Reply("Done for ann@example.com.")]))
    remove, keep = governed(delete_account), governed(note)

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        model.invoke([HumanMessage("help ann@example.com")])
        keep.invoke({"text": "call ann@example.com"})
        with pytest.raises(PolicyDenied):
            remove.invoke({"user": "ann"})
        return {"final_answer": "ok"}

    policies = PolicyMiddleware(
        [
            ToolAuthorization([ToolRule(tools="delete_*", action="deny", reason="staff only")]),
            PiiRedaction({"email": "redact"}, apply_to=("tool_args", "spans")),
        ],
        listeners=(recorder.telemetry.policy_decided,),
    )
    chain = (*recorder.telemetry.middleware, policies)
    graph = StateGraph(State)
    graph.add_node("mine", TeamNode("mine", "platform", body, middleware=chain))
    graph.add_edge(START, "mine")
    graph.add_edge("mine", END)
    run_team(graph.compile(), {"question": "q"}, "t-pol", observer=recorder.telemetry)

    spans = recorder.finished()
    [node] = [s for s in spans if s.name == "cadre.node mine"]
    events = [dict(e.attributes or {}) for e in node.events if e.name == "cadre.policy"]
    assert {(e["cadre.policy.name"], e["cadre.policy.action"]) for e in events} == {
        ("tool_authorization", "deny"),
        ("pii", "modify"),
    }
    captured = " ".join(str(value) for span in spans for value in (span.attributes or {}).values())
    assert "ann@example.com" not in captured
    assert "[EMAIL]" in captured
    points = recorder.metrics()["cadre.policy.decisions"]
    assert sum(point.value for point in points) == 2
    recorder.telemetry.close()


def test_a_rate_limit_wait_is_a_span_event_not_an_audit_entry() -> None:
    from policies.rate_limits import Rate, RateLimit

    recorder = Recorder()
    model = governed(ScriptedChatModel([Reply("a"), Reply("b")]))

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        model.invoke("one")
        model.invoke("two")
        return {}

    limit = RateLimit({"model:*": Rate(requests_per_minute=600)})
    policies = PolicyMiddleware([limit], listeners=(recorder.telemetry.policy_decided,))
    graph = StateGraph(State)
    chain = (*recorder.telemetry.middleware, policies)
    graph.add_node("mine", TeamNode("mine", "platform", body, middleware=chain))
    graph.add_edge(START, "mine")
    graph.add_edge("mine", END)
    final = run_team(graph.compile(), {"question": "q"}, "t-wait", observer=recorder.telemetry)
    [node] = [s for s in recorder.finished() if s.name == "cadre.node mine"]
    [wait] = [dict(e.attributes or {}) for e in node.events if e.name == "cadre.policy"]
    assert wait["cadre.policy.action"] == "wait" and wait["cadre.policy.name"] == "rate_limit"
    assert not final.state.get("policy_audit")
    recorder.telemetry.close()


def test_a_nodes_captured_input_and_output_are_redacted_too() -> None:
    recorder = Recorder(capture_content=True)

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        return {"final_answer": f"written back to {state['question'].split()[-1]}"}

    redaction = PiiRedaction({"email": "redact"}, apply_to=("spans",))
    chain = (*recorder.telemetry.middleware, PolicyMiddleware([redaction]))
    graph = StateGraph(State)
    graph.add_node("mine", TeamNode("mine", "platform", body, middleware=chain))
    graph.add_edge(START, "mine")
    graph.add_edge("mine", END)
    question = {"question": "please answer bob@example.org"}
    final = run_team(graph.compile(), question, "t-node", observer=recorder.telemetry)
    assert final.state["final_answer"] == "written back to bob@example.org"  # spans only
    [node] = [s for s in recorder.finished() if s.name == "cadre.node mine"]
    attributes = node.attributes or {}
    assert "bob@example.org" not in str(attributes["cadre.input"])
    assert "bob@example.org" not in str(attributes["cadre.output"])
    assert "[EMAIL]" in str(attributes["cadre.input"]) + str(attributes["cadre.output"])
    recorder.telemetry.close()
