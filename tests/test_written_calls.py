"""Tool calls a model wrote as text (as small local models do, or a server without a tool-call
parser for the model's template) are read as tool calls when the answer is nothing but calls
to tools the request offered; anything else stays text."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from framework.models.chat import ProviderChatModel
from framework.models.written_calls import written_calls
from tests.openai_server import openai_server
from tests.test_openai_provider import completion

OFFERED = frozenset({"lookup", "multiply"})
CALL = {"name": "lookup", "arguments": {"query": "cache"}}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(CALL),
        f"```json\n{json.dumps(CALL)}\n```",
        f"<tool_call>\n{json.dumps(CALL)}\n</tool_call>",
        json.dumps({"name": "lookup", "parameters": {"query": "cache"}}),
        json.dumps({"name": "lookup", "arguments": json.dumps({"query": "cache"})}),
    ],
    ids=["bare", "fenced", "tagged", "parameters", "arguments-as-text"],
)
def test_a_call_written_as_text_is_read_as_a_tool_call(text: str) -> None:
    read = written_calls(AIMessage(text), OFFERED)
    assert read is not None and read.content == ""
    [call] = read.tool_calls
    assert (call["name"], call["args"]) == ("lookup", {"query": "cache"})
    assert call["id"]


def test_several_calls_written_as_a_list_are_read_in_order() -> None:
    text = json.dumps([CALL, {"name": "multiply", "arguments": {"a": 6, "b": 7}}])
    read = written_calls(AIMessage(text), OFFERED)
    assert read is not None
    assert [c["name"] for c in read.tool_calls] == ["lookup", "multiply"]


@pytest.mark.parametrize(
    "text",
    [
        f"I would call {json.dumps(CALL)} next.",  # prose around it
        json.dumps({"name": "delete_everything", "arguments": {}}),  # a tool not offered
        json.dumps({"name": "lookup", "arguments": {"query": "x"}, "reason": "extra"}),
        json.dumps([CALL, {"answer": 42}]),  # not all of it calls
        json.dumps({"name": "lookup", "arguments": ["cache"]}),
        '{"name": "lookup", "arguments": {',  # cut short
        "The cache is kept for seven days.",
    ],
)
def test_anything_else_stays_text(text: str) -> None:
    assert written_calls(AIMessage(text), OFFERED) is None


def test_calls_made_the_apis_way_are_left_as_they_are() -> None:
    made = AIMessage("", tool_calls=[{"name": "lookup", "args": {"query": "x"}, "id": "c1"}])
    assert written_calls(made, OFFERED) is None


@tool
def lookup(query: str) -> str:
    """Look a query up."""
    return query


def test_a_provider_answer_with_a_call_in_its_text_reaches_the_worker_as_a_tool_call() -> None:
    fenced = f"```json\n{json.dumps(CALL)}\n```"
    with openai_server(lambda body: completion(fenced)) as server:
        model = ProviderChatModel(f"openai-compatible:m@{server.base_url}")
        answer = model.bind_tools([lookup]).invoke("look the cache up")
        plain = model.invoke("what is the cache?")  # no tools offered: the text stays
    assert isinstance(answer, AIMessage)
    assert [(c["name"], c["args"]) for c in answer.tool_calls] == [("lookup", {"query": "cache"})]
    assert answer.usage_metadata is not None  # what the provider billed is kept
    assert plain.content == fenced and not plain.tool_calls
