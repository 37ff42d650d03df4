"""Model calls stream through the gateway when someone follows their tokens (LangGraph's
``messages`` stream mode), against a provider on loopback that streams as the OpenAI API does:
tokens reach the follower while the call runs, the usage is the provider's, a cut stream is
tried again without its text run into the retry's, and the call's limits hold."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from pydantic import BaseModel

from framework.models.chat import ProviderChatModel
from framework.models.gateway import CallLimits, ProviderGaveUpError
from tests.openai_server import OpenAIServer, Reply, openai_server
from tests.test_openai_provider import completion

QUICK = CallLimits(connect_s=2.0, idle_s=1.0, attempts=3, backoff_s=0.05, backoff_cap_s=0.1)
ANSWER = "The cache is kept for seven days, then pruned."


def _model(server: OpenAIServer, limits: CallLimits = QUICK) -> ProviderChatModel:
    return ProviderChatModel(f"openai-compatible:m@{server.base_url}", limits=limits)


def _graph(ask: Any) -> Any:
    def node(state: MessagesState) -> dict[str, Any]:
        return {"messages": [ask()]}

    return StateGraph(MessagesState).add_node("ask", node).add_edge(START, "ask").compile()


def _followed(ask: Any) -> tuple[list[BaseMessage], BaseMessage]:
    """What a ``messages`` follower saw of a call, and the call's answer."""
    seen: list[BaseMessage] = []
    answer: BaseMessage | None = None
    for mode, chunk in _graph(ask).stream({"messages": []}, stream_mode=["messages", "values"]):
        if mode == "messages":
            seen.append(chunk[0])
        elif chunk["messages"]:
            answer = chunk["messages"][-1]
    assert answer is not None
    return seen, answer


def _tokens(seen: list[BaseMessage], message_id: str | None) -> str:
    return "".join(
        str(m.content) for m in seen if isinstance(m, AIMessageChunk) and m.id == message_id
    )


def test_a_followed_call_streams_its_tokens_and_the_usage_the_provider_reported() -> None:
    with openai_server(lambda body: completion(ANSWER)) as server:
        seen, answer = _followed(lambda: _model(server).invoke("how long is the cache kept?"))
    chunks = [m for m in seen if isinstance(m, AIMessageChunk) and m.content]
    assert len(chunks) > 5  # a few characters each, as they came
    assert _tokens(seen, answer.id) == ANSWER == answer.content
    assert isinstance(answer, AIMessage) and answer.usage_metadata is not None
    assert (answer.usage_metadata["input_tokens"], answer.usage_metadata["output_tokens"]) == (
        10,
        5,
    )
    assert answer.response_metadata["finish_reason"] == "stop"
    sent = [body for _, body in server.requests]
    assert all(b["stream"] and b["stream_options"] == {"include_usage": True} for b in sent)


def test_a_call_nobody_follows_is_not_streamed() -> None:
    with openai_server(lambda body: completion(ANSWER)) as server:
        assert _model(server).invoke("hello").content == ANSWER
    assert not server.requests[0][1].get("stream")


@pytest.mark.parametrize("cleanly", [False, True], ids=["dropped", "ended-early"])
def test_a_cut_stream_is_tried_again_and_its_text_is_not_run_into_the_retry(
    cleanly: bool,
) -> None:
    cut_short = Reply(body=completion(ANSWER), cut_after=4, cut_cleanly=cleanly)
    answers: Iterator[dict[str, Any] | Reply] = iter([cut_short, completion(ANSWER)])
    with openai_server(lambda body: next(answers)) as server:
        seen, answer = _followed(lambda: _model(server).invoke("hello"))
    assert len(server.requests) == 2
    ids = list(dict.fromkeys(m.id for m in seen))
    assert len(ids) == 2  # the cut message, then the retry's
    cut, whole = (_tokens(seen, i) for i in ids)
    assert ANSWER.startswith(cut) and len(cut) < len(ANSWER)
    assert whole == ANSWER
    assert (answer.id, answer.content) == (ids[1], ANSWER)  # the retry's answer alone


def test_a_stream_cut_on_every_attempt_gives_up_saying_so() -> None:
    cut = Reply(body=completion(ANSWER), cut_after=3, cut_cleanly=True)
    with openai_server(lambda body: cut) as server, pytest.raises(ProviderGaveUpError) as raised:
        _followed(lambda: _model(server).invoke("hello"))
    assert "ended its stream before the answer was complete (3 chunk(s))" in str(raised.value)
    assert "gave up after 3 attempts" in str(raised.value)


def test_a_slow_but_steady_stream_is_not_cut_by_the_idle_limit() -> None:
    slow = Reply(body=completion(ANSWER), chunk_s=0.1)  # ~15 chunks: longer than idle_s=1
    with openai_server(lambda body: slow) as server:
        _, answer = _followed(lambda: _model(server).invoke("hello"))
    assert answer.content == ANSWER
    assert len(server.requests) == 1  # never retried


def test_a_stream_that_goes_silent_is_given_up_on_after_its_idle_limit() -> None:
    silent = Reply(body=completion(ANSWER), chunk_s=1.5)  # more than idle_s=1 per chunk
    once = CallLimits(connect_s=2.0, idle_s=1.0, attempts=1)
    with openai_server(lambda body: silent) as server, pytest.raises(ProviderGaveUpError) as raised:
        _followed(lambda: _model(server, once).invoke("hello"))
    assert "timed out" in str(raised.value)


def test_a_stream_running_past_its_deadline_is_given_up_on() -> None:
    slow = Reply(body=completion(ANSWER), chunk_s=0.05)
    limits = CallLimits(connect_s=2.0, idle_s=1.0, attempts=3, deadline_s=0.3)
    with openai_server(lambda body: slow) as server, pytest.raises(ProviderGaveUpError) as raised:
        _followed(lambda: _model(server, limits).invoke("hello"))
    assert "was still answering when its deadline of 0.3 s passed" in str(raised.value)
    assert len(server.requests) == 1  # the deadline is the call's, across attempts


@tool
def lookup(query: str) -> str:
    """Look a query up."""
    return query


def _tool_call() -> dict[str, Any]:
    arguments = '{"query": "cache"}'
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": "lookup", "arguments": arguments},
    }


def test_a_tool_calling_call_streams_through_the_gateway_once() -> None:
    failing = Reply(503, {"error": {"message": "overloaded", "type": "test"}})
    answers: Iterator[Any] = itertools.chain(
        [failing], itertools.repeat(completion(None, [_tool_call()]))
    )
    with openai_server(lambda body: next(answers)) as server:
        bound = _model(server).bind_tools([lookup])
        _, answer = _followed(lambda: bound.invoke("look up the cache"))
    assert isinstance(answer, AIMessage)
    assert answer.tool_calls[0]["name"] == "lookup"
    assert answer.tool_calls[0]["args"] == {"query": "cache"}
    bodies = [body for _, body in server.requests]
    assert len(bodies) == 2  # the 503 and its retry
    assert all(b["stream"] and b["tools"][0]["function"]["name"] == "lookup" for b in bodies)


class Verdict(BaseModel):
    decision: str


def test_a_structured_answer_is_read_whole_not_streamed() -> None:
    with openai_server(lambda body: completion('{"decision": "done"}')) as server:
        structured = _model(server).with_structured_output(Verdict)
        graph = _graph(lambda: AIMessage(structured.invoke("decide").decision))
        assert graph.invoke({"messages": []})["messages"][-1].content == "done"
    assert server.requests[0][1]["stream"] is False


async def test_the_async_path_streams_the_same_way() -> None:
    with openai_server(lambda body: completion(ANSWER)) as server:
        model = _model(server)

        async def node(state: MessagesState) -> dict[str, Any]:
            return {"messages": [await model.ainvoke("hello")]}

        graph = StateGraph(MessagesState).add_node("ask", node).add_edge(START, "ask").compile()
        seen = [m async for m, _ in graph.astream({"messages": []}, stream_mode="messages")]
    chunks = [m for m in seen if isinstance(m, AIMessageChunk) and m.content]
    assert len(chunks) > 5 and "".join(str(c.content) for c in chunks) == ANSWER
