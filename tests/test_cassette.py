"""Model calls recorded against a real OpenAI-compatible provider on loopback, then replayed
with the provider gone: the same answers and usage (a plain call, a tool-binding call, a
structured-output call, a streamed call whose tokens a ``messages`` follower sees), equal
requests answered in recorded order, one line naming what changed when a request no longer
matches, and a whole research team run replayed to the same answer."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
)
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from pydantic import BaseModel

from framework.engine.builder import compile_team
from framework.errors import ConfigError
from framework.memory import Corpus
from framework.models.cassette import (
    Cassette,
    ReplayMismatchError,
    current_cassette,
    use_cassette,
)
from framework.models.chat import ProviderChatModel
from framework.models.gateway import CallLimits
from framework.models.recording import difference, request_of
from framework.models.specs import parse_model_spec
from teams.research.graph import build_research_team
from teams.research.model_roles import build_model_roles
from tests import test_openai_provider as research
from tests.openai_server import OpenAIServer, openai_server

LABEL = "case r03 of docs.yaml"
ONCE = CallLimits(connect_s=1.0, idle_s=2.0, attempts=1)
SYSTEM = "You answer questions about the cache. " * 6 + "Be brief."
ANSWER = "The cache is kept for seven days, then pruned."
GONE = "http://127.0.0.1:9/v1"  # nothing listens there: a call that got through would fail

Mode = Literal["sync", "async"]


class Verdict(BaseModel):
    decision: str


@tool
def lookup(query: str) -> str:
    """Look a query up."""
    return query


def completion(body: dict[str, Any], content: str | None, calls: list[Any] | None = None) -> Any:
    """A ``chat.completion`` whose usage counts the request's characters (so it differs)."""
    prompt = sum(len(json.dumps(m)) for m in body["messages"])
    answer = research.completion(content, calls)
    answer["usage"] = {
        "prompt_tokens": prompt,
        "completion_tokens": 7,
        "total_tokens": prompt + 7,
        "prompt_tokens_details": {"cached_tokens": 3},
    }
    return answer


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """A structured verdict, a tool call, or the answer."""
    if body.get("response_format"):
        return completion(body, '{"decision": "done"}')
    if body.get("tools"):
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "lookup", "arguments": '{"query": "cache"}'},
        }
        return completion(body, None, [call])
    return completion(body, ANSWER)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with openai_server(respond) as httpd:
        yield httpd


def _model(base_url: str) -> ProviderChatModel:
    return ProviderChatModel(f"openai-compatible:m@{base_url}", limits=ONCE)


def _graph(node: Callable[..., Any], name: str = "planner") -> Any:
    return StateGraph(MessagesState).add_node(name, node).add_edge(START, name).compile()


def _session(model: ProviderChatModel) -> dict[str, Any]:
    """The calls, sync: a plain one, with tools, structured, then streamed to a follower."""
    answers: dict[str, Any] = {
        "plain": model.invoke([SystemMessage(SYSTEM), HumanMessage("how long?")]),
        "tools": model.bind_tools([lookup]).invoke("look up the cache"),
        "structured": model.with_structured_output(Verdict).invoke("decide"),
    }
    graph = _graph(lambda state: {"messages": [model.invoke("stream it")]})
    modes = ["messages", "values"]
    seen = list(graph.stream({"messages": []}, stream_mode=modes))
    return {**answers, **_streamed(seen)}


async def _asession(model: ProviderChatModel) -> dict[str, Any]:
    """The async form of :func:`_session`."""
    answers: dict[str, Any] = {
        "plain": await model.ainvoke([SystemMessage(SYSTEM), HumanMessage("how long?")]),
        "tools": await model.bind_tools([lookup]).ainvoke("look up the cache"),
        "structured": await model.with_structured_output(Verdict).ainvoke("decide"),
    }

    async def node(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke("stream it")]}

    modes = ["messages", "values"]
    seen = [item async for item in _graph(node).astream({"messages": []}, stream_mode=modes)]
    return {**answers, **_streamed(seen)}


def _streamed(seen: list[tuple[str, Any]]) -> dict[str, Any]:
    """The streamed call's answer, and the text its follower was handed for it."""
    answer = [chunk for mode, chunk in seen if mode == "values"][-1]["messages"][-1]
    tokens = [chunk[0] for mode, chunk in seen if mode == "messages" and chunk[0].id == answer.id]
    assert all(isinstance(token, AIMessageChunk) for token in tokens)
    return {"streamed": answer, "tokens": "".join(str(t.content) for t in tokens)}


def _run(mode: Mode, model: ProviderChatModel) -> dict[str, Any]:

    return _session(model) if mode == "sync" else asyncio.run(_asession(model))


def _same(recorded: dict[str, Any], replayed: dict[str, Any]) -> None:
    for key in ("plain", "tools", "streamed"):
        live, again = recorded[key], replayed[key]
        assert isinstance(again, AIMessage)
        assert again.content == live.content
        assert again.tool_calls == live.tool_calls
        assert again.usage_metadata == live.usage_metadata
        assert again.response_metadata == live.response_metadata
        assert again.additional_kwargs == live.additional_kwargs
    assert replayed["structured"] == recorded["structured"] == Verdict(decision="done")
    assert replayed["tokens"] == recorded["tokens"] == ANSWER


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_calls_recorded_against_the_provider_replay_without_it(
    server: OpenAIServer, mode: Mode
) -> None:
    recording = Cassette("record", LABEL)
    with use_cassette(recording):
        recorded = _run(mode, _model(server.base_url))
    sent = len(server.requests)
    assert sent == recording.calls == 4
    assert recorded["plain"].usage_metadata["input_tokens"] > 100  # the provider's own count
    assert recorded["plain"].usage_metadata["input_token_details"] == {"cache_read": 3}
    data = recording.to_bytes()
    assert json.loads(data)["version"] == 1
    server.shutdown()
    server.server_close()

    replay = Cassette.from_bytes(data, "replay", LABEL)
    with use_cassette(replay):
        replayed = _run(mode, _model(GONE))  # another host: the URL is not in the request

    assert len(server.requests) == sent  # nothing reached the provider
    _same(recorded, replayed)
    assert replay.unused() == [] and replay.mismatches == ()
    assert current_cassette() is None


def test_a_changed_system_prompt_is_one_line_naming_what_changed(server: OpenAIServer) -> None:
    def ask(system: str) -> Callable[[MessagesState], dict[str, Any]]:
        asked = [SystemMessage(system), HumanMessage("how long?")]
        return lambda state: {"messages": [_model(server.base_url).invoke(asked)]}

    recording = Cassette("record", LABEL)
    with use_cassette(recording):
        _graph(ask(SYSTEM)).invoke({"messages": []})
    replay = Cassette.from_bytes(recording.to_bytes(), "replay", LABEL)
    changed = SYSTEM.replace("Be brief.", "Be thorough.")
    with use_cassette(replay), pytest.raises(ReplayMismatchError) as raised:
        _graph(ask(changed)).invoke({"messages": []})

    at = SYSTEM.index("brief")
    assert replay.mismatches == (
        f"{LABEL}: the planner's call 1 no longer matches its recording: message 0 (system) "
        f'changed at character {at}: "...about the cache. Be brief." became "...about the '
        'cache. Be thorough."; record it again with --record',
    )
    assert str(raised.value) == (  # what may reach logs and spans holds no prompt text
        f"{LABEL}: the planner's call 1 has no recording that matches it (the eval's result "
        "says what changed); record it again with --record"
    )
    assert isinstance(raised.value, ConfigError)
    assert len(server.requests) == 1  # the recording's call only
    assert replay.unused() == [
        'the planner\'s recorded call 1: 2 message(s), the last (human) "how long?"'
    ]


def test_a_role_with_no_recorded_call_left_says_so(server: OpenAIServer) -> None:
    def asks(*texts: str) -> Callable[[MessagesState], dict[str, Any]]:
        model = _model(server.base_url)
        return lambda state: {"messages": [model.invoke(text) for text in texts]}

    recording = Cassette("record", LABEL)
    with use_cassette(recording):
        _graph(asks("first", "second"), "worker").invoke({"messages": []})
    replay = Cassette.from_bytes(recording.to_bytes(), "replay", LABEL)
    with use_cassette(replay), pytest.raises(ReplayMismatchError) as raised:
        _graph(asks("first", "second", "third"), "worker").invoke({"messages": []})
    assert replay.mismatches == (
        f"{LABEL}: the worker has no recorded call left (2 recorded, 2 used); record it again "
        "with --record",
    )
    assert "the worker's call 3 has no recording that matches it" in str(raised.value)


def test_equal_requests_are_answered_in_recorded_order_whatever_comes_between() -> None:
    numbers = itertools.count(1)
    with openai_server(lambda body: completion(body, f"answer {next(numbers)}")) as server:
        model = _model(server.base_url)
        recording = Cassette("record", LABEL)
        with use_cassette(recording):
            recorded = [model.invoke(text).content for text in ("same", "other", "same")]
    assert recorded == ["answer 1", "answer 2", "answer 3"]

    replay = Cassette.from_bytes(recording.to_bytes(), "replay", LABEL)
    with use_cassette(replay):
        replayed = [_model(GONE).invoke(text).content for text in ("other", "same", "same")]
    assert replayed == ["answer 2", "answer 1", "answer 3"]


def test_recorded_calls_never_asked_for_are_listed(server: OpenAIServer) -> None:
    model = _model(server.base_url)
    recording = Cassette("record", LABEL)
    with use_cassette(recording):
        for text in ("one", "two", "three " * 20):
            model.invoke(text)
    replay = Cassette.from_bytes(recording.to_bytes(), "replay", LABEL)
    with use_cassette(replay):
        model.invoke("two")
    assert replay.unused() == [
        'the caller\'s recorded call 1: 1 message(s), the last (human) "one"',
        "the caller's recorded call 3: 1 message(s), the last (human) \"three three three "
        'three three three thre..."',
    ]


def test_bytes_that_are_no_cassette_of_this_version_are_refused() -> None:
    with pytest.raises(ConfigError, match=f"^{LABEL}: the recording is not a cadre cassette"):
        Cassette.from_bytes(b"{not json", "replay", LABEL)
    with pytest.raises(ConfigError, match="cassette version 9, and this cadre reads version 1"):
        Cassette.from_bytes(b'{"version": 9, "calls": []}', "replay", LABEL)


def test_a_scripted_model_replays_its_plain_calls_and_refuses_its_own_tool_binding(
    tmp_path: Path,
) -> None:
    script = tmp_path / "answers.yaml"
    script.write_text("steps:\n  - reply: scripted answer\n", encoding="utf-8")
    recording = Cassette("record", LABEL)
    with use_cassette(recording):
        assert ProviderChatModel(f"scripted:{script}").invoke("hi").content == "scripted answer"
    script.write_text("steps:\n  - reply: another answer\n", encoding="utf-8")  # not read
    replay = Cassette.from_bytes(recording.to_bytes(), "replay", LABEL)
    model = ProviderChatModel(f"scripted:{script}")
    with use_cassette(replay):
        assert model.invoke("hi").content == "scripted answer"
        with pytest.raises(ConfigError, match="cannot be replayed"):
            model.bind_tools([lookup]).invoke("look up")


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_research_team_run_replays_to_the_same_answer_without_its_provider(
    small_corpus: Corpus, mode: Mode
) -> None:
    async def run(base_url: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The run's final state, and the usage its model calls reported to callbacks."""
        model = ProviderChatModel(f"openai-compatible:gpt-test@{base_url}", limits=ONCE)
        graph = compile_team(build_research_team(build_model_roles(model, small_corpus)))
        state, usage = {"question": research.QUESTION}, UsageMetadataCallbackHandler()
        config: Any = {"callbacks": [usage]}
        if mode == "async":
            return dict(await graph.ainvoke(state, config)), usage.usage_metadata
        return dict(graph.invoke(state, config)), usage.usage_metadata

    recording = Cassette("record", LABEL)
    with openai_server(research.respond) as server, use_cassette(recording):
        recorded, recorded_usage = await run(server.base_url)
    roles = {call["role"] for call in json.loads(recording.to_bytes())["calls"]}
    assert len(server.requests) == recording.calls
    assert {"planner", "worker", "reviewer", "formatter"} <= roles

    replay = Cassette.from_bytes(recording.to_bytes(), "replay", LABEL)
    with use_cassette(replay):
        replayed, replayed_usage = await run(GONE)

    assert replayed["final_answer"] == recorded["final_answer"]
    assert f"(`{research.CHECKPOINTS}`)" in replayed["final_answer"]
    assert replay.unused() == [] and replay.mismatches == ()
    assert replayed_usage == recorded_usage
    assert recorded_usage["gpt-test"]["input_tokens"] == 10 * recording.calls


def test_what_changed_is_told_field_by_field_in_a_stable_order() -> None:
    spec = parse_model_spec("openai-compatible:m@http://127.0.0.1:1/v1")
    asked = [SystemMessage(SYSTEM), HumanMessage("how long?")]
    recorded = request_of(spec, asked, None, {"tools": [{"name": "a"}], "temperature": 0.2})

    def changed(**given: Any) -> str:
        sent = {"tools": [{"name": "a"}], "temperature": 0.2, "stream": True}
        request = request_of(
            given.pop("spec", spec), given.pop("messages", asked), None, {**sent, **given}
        )
        return difference([recorded], request)

    other = parse_model_spec("openai-compatible:n@http://127.0.0.1:2/v1")
    assert (
        changed(spec=other)
        == 'the model changed: "openai-compatible:m" became "openai-compatible:n"'
    )
    assert changed(messages=asked[1:]) == "the number of messages changed: 2 became 1"
    assert changed(messages=[asked[0], AIMessage("how long?")]) == (
        'message 1\'s type changed: "human" became "ai"'
    )
    assert changed(tools=[{"name": "b"}]) == (
        'the tools changed: [{"name": "a"}] became [{"name": "b"}]'
    )
    assert changed(temperature=0.7) == "temperature changed: 0.2 became 0.7"
    assert changed(max_tokens=10) == "max_tokens is new"
    assert changed() == "nothing changed"  # the transport (stream) is not part of a request
    elsewhere = parse_model_spec("openai-compatible:m@http://10.0.0.1:8000/v1#key=OTHER_KEY")
    assert changed(spec=elsewhere) == "nothing changed"  # nor the host or its key
