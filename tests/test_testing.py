"""Tests for framework.testing: the scripted chat model."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from framework.errors import ConfigError
from framework.testing import (
    CallTools,
    Fail,
    Reply,
    ScriptedChatModel,
    ScriptError,
    Structured,
    ToolCallSpec,
)


class Verdict(BaseModel):
    approved: bool
    notes: list[str] = []


class Plan(BaseModel):
    goal: str


@tool
def search(query: str) -> str:
    """Search the corpus."""
    return query


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    return url


def test_replies_come_in_order_and_requests_are_recorded() -> None:
    model = ScriptedChatModel([Reply("first"), Reply("second")])

    assert model.invoke("one").content == "first"
    assert model.invoke([SystemMessage("sys"), HumanMessage("two")]).content == "second"

    assert [[m.text for m in request] for request in model.requests] == [["one"], ["sys", "two"]]
    model.assert_complete()


def test_answers_carry_rough_usage_metadata() -> None:
    model = ScriptedChatModel([Reply("three word answer")])

    answer = model.invoke("a question of five words")

    assert isinstance(answer, AIMessage)
    assert answer.usage_metadata == {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}


def test_tool_calls_through_bind_tools_share_the_script() -> None:
    model = ScriptedChatModel(
        [
            CallTools(
                [("search", {"query": "otters"}), ToolCallSpec("fetch", {"url": "u"}, id="c9")]
            ),
            Reply("done"),
        ]
    )
    bound = model.bind_tools([search, fetch])

    calls = bound.invoke("find otters")

    assert bound.bound_tools == ("search", "fetch")
    assert model.bound_tools == ()
    assert isinstance(calls, AIMessage)
    assert calls.tool_calls == [
        {"name": "search", "args": {"query": "otters"}, "id": "call_0_0", "type": "tool_call"},
        {"name": "fetch", "args": {"url": "u"}, "id": "c9", "type": "tool_call"},
    ]
    assert model.invoke([ToolMessage("found", tool_call_id="call_0_0")]).content == "done"
    assert len(bound.requests) == 2
    model.assert_complete()


def test_unbound_tool_is_a_script_error_and_leaves_the_step() -> None:
    model = ScriptedChatModel([CallTools([("delete_all", {})])])
    bound = model.bind_tools([search])

    with pytest.raises(
        ScriptError, match=r"calls delete_all, not bound to the model \(bound: search\)"
    ):
        bound.invoke("go")
    with pytest.raises(ScriptError, match=r"\(bound: none\); bind it with bind_tools"):
        model.invoke("go")
    with pytest.raises(ScriptError, match="never used"):
        model.assert_complete()


def test_structured_output_returns_schema_instances() -> None:
    model = ScriptedChatModel(
        [Structured(Verdict(approved=True, notes=["ok"])), Structured({"approved": False})]
    )
    reviewer = model.with_structured_output(Verdict)

    assert reviewer.invoke("review this") == Verdict(approved=True, notes=["ok"])
    assert reviewer.invoke("review again") == Verdict(approved=False)
    model.assert_complete()


def test_structured_output_include_raw_reports_parsing_errors() -> None:
    model = ScriptedChatModel([Structured({"approved": "maybe"})])

    result: Any = model.with_structured_output(Verdict, include_raw=True).invoke("review")

    assert result["parsed"] is None
    assert isinstance(result["raw"], AIMessage)
    assert result["raw"].tool_calls[0]["name"] == "Verdict"
    assert "approved" in str(result["parsing_error"])


def test_structured_output_asked_but_next_step_is_a_reply() -> None:
    model = ScriptedChatModel([Reply("plain text")])

    with pytest.raises(ScriptError) as caught:
        model.with_structured_output(Verdict).invoke("review")

    assert str(caught.value) == (
        "structured output 'Verdict' was asked, but the next step is "
        "steps[0] Reply(text='plain text', match=None)"
    )
    assert model.invoke("now plain").content == "plain text"


def test_structured_step_needs_a_structured_request_of_its_schema() -> None:
    model = ScriptedChatModel([Structured(Plan(goal="g"))])

    with pytest.raises(ScriptError, match="did not ask for structured output"):
        model.invoke("plain")
    with pytest.raises(ScriptError, match=r"'Verdict' was asked, but steps\[0\] .* holds Plan"):
        model.with_structured_output(Verdict).invoke("review")
    assert model.with_structured_output(Plan).invoke("plan") == Plan(goal="g")


def test_match_selects_steps_for_concurrent_workers() -> None:
    model = ScriptedChatModel([Reply(f"answer {i}", match=f"task-{i}") for i in reversed(range(8))])

    def work(i: int) -> str:
        return str(model.invoke([SystemMessage("worker"), HumanMessage(f"do task-{i}")]).content)

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(work, range(8)))

    assert answers == [f"answer {i}" for i in range(8)]
    assert len(model.requests) == 8
    model.assert_complete()


def test_match_reads_the_last_human_or_tool_message() -> None:
    model = ScriptedChatModel(
        [Reply("from tool", match="tool says"), Reply("from human", match="hi")]
    )
    history = [HumanMessage("hi"), AIMessage("calling"), ToolMessage("tool says", tool_call_id="1")]

    assert model.invoke(history).content == "from tool"
    assert model.invoke([HumanMessage("hi"), AIMessage("tool says")]).content == "from human"


async def test_ainvoke_takes_steps_like_invoke() -> None:
    model = ScriptedChatModel([Reply("async one"), Structured({"goal": "g"})])

    first = await model.ainvoke("hi")
    plan = await model.with_structured_output(Plan).ainvoke("plan")

    assert first.content == "async one"
    assert plan == Plan(goal="g")
    model.assert_complete()


def test_fail_step_raises_its_error_once() -> None:
    boom = TimeoutError("model timed out")
    model = ScriptedChatModel([Fail(boom), Reply("recovered")])

    with pytest.raises(TimeoutError) as caught:
        model.invoke("try")

    assert caught.value is boom
    assert model.invoke("retry").content == "recovered"


def test_exhausted_script_names_the_request_and_remaining_steps() -> None:
    model = ScriptedChatModel([Reply("only for b", match="b")])

    with pytest.raises(ScriptError) as caught:
        model.invoke([HumanMessage("question a")])

    assert str(caught.value) == (
        "no scripted step fits request 1 (last message: human: 'question a'); steps left:\n"
        "  steps[0] Reply(text='only for b', match='b')"
    )
    model.invoke("b")
    with pytest.raises(ScriptError, match=r"request 3 .*steps left: none$"):
        model.invoke("c")


def test_assert_complete_names_unused_steps() -> None:
    model = ScriptedChatModel([Reply("used"), Reply("unused"), Fail(ValueError("never"))])
    model.invoke("go")

    with pytest.raises(ScriptError) as caught:
        model.assert_complete()

    assert str(caught.value) == (
        "2 scripted step(s) never used:\n"
        "  steps[1] Reply(text='unused', match=None)\n"
        "  steps[2] Fail(error=ValueError('never'), match=None)"
    )


def test_script_errors_are_assertion_errors() -> None:
    assert issubclass(ScriptError, AssertionError)


def test_bad_steps_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="CallTools needs at least one call"):
        CallTools([])
    with pytest.raises(ConfigError, match=r"steps\[1\] is 'oops'"):
        ScriptedChatModel([Reply("ok"), "oops"])  # type: ignore[list-item]


def test_llm_type() -> None:
    assert ScriptedChatModel()._llm_type == "scripted"
