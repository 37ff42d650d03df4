"""The model gateway against a provider on loopback that misbehaves as real ones do: the SDK's
own retries are off, transient failures are retried in one place (``Retry-After`` honoured and
shared by every call to the provider), a stalled provider is given up on, and what is not
transient is tried once with its own fix."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from framework.errors import ConfigError, TransientError
from framework.models.chat import ProviderChatModel
from framework.models.gateway import (
    CallLimits,
    ProviderCircuitOpenError,
    ProviderGaveUpError,
    retry_after_s,
)
from framework.models.provider_errors import ProviderError
from framework.models.repair import StructuredOutputError
from framework.models.specs import parse_model_spec
from framework.models.usage_check import UsageReportError, checked_usage
from tests.openai_server import OpenAIServer, Reply, openai_server
from tests.test_openai_provider import completion

QUICK = CallLimits(connect_s=2.0, idle_s=1.0, attempts=3, backoff_s=0.05, backoff_cap_s=0.1)


def _error(status: int, message: str, code: str = "test") -> Reply:
    return Reply(status, {"error": {"message": message, "type": code, "code": code}})


def _model(server: OpenAIServer, limits: CallLimits = QUICK) -> ProviderChatModel:
    # a new address per test: each has its own provider limiter
    return ProviderChatModel(f"openai-compatible:m@{server.base_url}", limits=limits)


@pytest.fixture
def flaky() -> Iterator[OpenAIServer]:
    """Two 503s, then an answer."""
    answers = itertools.chain([_error(503, "overloaded"), _error(503, "overloaded")], _ok())
    with openai_server(lambda body: next(answers)) as server:
        yield server


def _until_held(model: ProviderChatModel) -> None:
    """Wait until a 429's Retry-After holds the model's provider back."""
    deadline = time.monotonic() + 10
    while model.limiter.wait_s() == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert model.limiter.wait_s() > 0


def _ok() -> Iterator[dict[str, Any]]:
    while True:
        yield completion("fine")


def test_transient_failures_are_retried_once_each_by_the_gateway_not_by_the_sdk(
    flaky: OpenAIServer,
) -> None:
    assert _model(flaky).invoke("hello").content == "fine"
    assert len(flaky.requests) == 3  # two failures and the answer: no SDK retry besides


async def test_the_async_path_is_retried_the_same_way(flaky: OpenAIServer) -> None:
    answer = await _model(flaky).ainvoke("hello")
    assert answer.content == "fine"
    assert len(flaky.requests) == 3


def test_a_provider_failing_every_attempt_gives_up_naming_it_and_how_often_it_tried() -> None:
    with openai_server(lambda body: _error(502, "bad gateway")) as server:
        with pytest.raises(ProviderGaveUpError) as raised:
            _model(server).invoke("hello")
        assert len(server.requests) == QUICK.attempts
    line = str(raised.value)
    assert line.startswith(f"the openai-compatible chat model 'm' at {server.base_url} could not")
    assert line.endswith(")") and "(gave up after 3 attempts over" in line
    assert "\n" not in line
    assert not isinstance(raised.value, TransientError)  # a worker's retry does not multiply it


def test_retry_after_is_honoured_and_holds_back_every_call_to_the_provider() -> None:
    first = threading.Event()
    lock = threading.Lock()
    seen: list[str] = []

    def respond(body: dict[str, Any]) -> dict[str, Any] | Reply:
        with lock:
            seen.append(body["messages"][-1]["content"])
            if len(seen) == 1:
                first.set()
                return Reply(
                    429,
                    {"error": {"message": "slow down", "type": "rate_limit", "code": None}},
                    {"Retry-After": "1"},
                )
        return completion("fine")

    with openai_server(respond) as server:
        model = _model(server)
        answers: list[Any] = []
        one = threading.Thread(target=lambda: answers.append(model.invoke("one")))
        one.start()
        assert first.wait(10)
        _until_held(model)
        answers.append(model.invoke("two"))  # sent after the 429: waits for the same hold
        one.join(30)
        arrivals = list(server.arrivals)
    assert [a.content for a in answers] == ["fine", "fine"]
    assert len(arrivals) == 3
    assert min(arrivals[1:]) - arrivals[0] >= 0.95  # nobody went before the Retry-After passed


def test_a_stalled_provider_is_given_up_on_after_its_idle_limit() -> None:
    limits = CallLimits(connect_s=2.0, idle_s=0.3, attempts=2, backoff_s=0.01)
    with openai_server(lambda body: Reply(200, completion("late"), stall_s=2.0)) as server:
        with pytest.raises(ProviderGaveUpError, match="timed out") as raised:
            _model(server, limits).invoke("hello")
        assert len(server.requests) == 2
    assert "(gave up after 2 attempts over" in str(raised.value)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            _error(
                400, "This model's maximum context length is 8192 tokens", "context_length_exceeded"
            ),
            "longer than its context window",
        ),
        (_error(401, "bad key", "invalid_api_key"), "refused the credentials"),
        (_error(404, "no such model", "model_not_found"), "does not know the model"),
    ],
)
def test_what_is_not_transient_is_tried_once_with_its_own_fix(reply: Reply, said: str) -> None:
    with openai_server(lambda body: reply) as server:
        with pytest.raises(ProviderError, match=said) as raised:
            _model(server).invoke("hello")
        assert len(server.requests) == 1
    assert "structured output" not in str(raised.value)  # not the advice for another failure


def test_a_rate_limit_spell_is_probed_by_one_call_at_a_time_and_every_call_is_answered() -> None:
    spell_s, retry_after = 1.2, "0.3"
    ends = time.monotonic() + spell_s

    def spell(body: dict[str, Any]) -> dict[str, Any] | Reply:
        if time.monotonic() < ends:
            return Reply(
                429,
                {"error": {"message": "slow down", "type": "rate"}},
                {"Retry-After": retry_after},
            )
        return completion(f"answer to {body['messages'][-1]['content']}")

    with openai_server(spell) as server:
        model = _model(server)

        async def ask_all() -> list[Any]:
            return await asyncio.gather(*(model.ainvoke(f"task {n}") for n in range(6)))

        answers = asyncio.run(ask_all())
    assert [a.content for a in answers] == [f"answer to task {n}" for n in range(6)]
    sent = Counter(body["messages"][-1]["content"] for _, body in server.requests)
    assert max(sent.values()) <= QUICK.attempts  # waiting calls sent nothing: one probed
    limited = len(server.requests) - 6
    assert limited <= 6 + spell_s / 0.3 + 1  # the first six, then about one per Retry-After


def test_retry_after_is_read_in_seconds_or_milliseconds_and_a_date_is_left_to_backoff() -> None:
    class Answer:
        def __init__(self, headers: dict[str, str]) -> None:
            self.headers = headers

    class FailedError(Exception):
        def __init__(self, headers: dict[str, str]) -> None:
            super().__init__("failed")
            self.response = Answer(headers)

    assert retry_after_s(FailedError({"retry-after": "2"})) == 2.0
    assert retry_after_s(FailedError({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    assert retry_after_s(FailedError({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})) is None
    wrapped = ProviderError("translated")
    wrapped.__cause__ = FailedError({"retry-after": "3"})
    assert retry_after_s(wrapped) == 3.0


def test_backoff_is_full_jitter_under_its_cap() -> None:
    limits = CallLimits(backoff_s=1.0, backoff_cap_s=4.0)
    assert all(0 <= limits.backoff(n) <= min(4.0, 2 ** (n - 1)) for n in range(1, 10))


def test_parallel_async_calls_share_one_hold() -> None:
    count = itertools.count()

    def respond(body: dict[str, Any]) -> dict[str, Any] | Reply:
        if next(count) == 0:
            return Reply(429, {"error": {"message": "slow", "type": "r"}}, {"retry-after": "1"})
        return completion("fine")

    async def three(model: ProviderChatModel) -> list[Any]:
        first = asyncio.create_task(model.ainvoke("a"))
        while model.limiter.wait_s() == 0:  # until the 429 has come back
            await asyncio.sleep(0.01)
        rest = [model.ainvoke("b"), model.ainvoke("c")]
        return await asyncio.gather(first, *rest)

    with openai_server(respond) as server:
        answers = asyncio.run(three(_model(server)))
        arrivals = list(server.arrivals)
    assert [a.content for a in answers] == ["fine"] * 3
    assert len(arrivals) == 4
    assert min(arrivals[1:]) - arrivals[0] >= 0.95


@pytest.mark.parametrize("value", [-1, 1.5, float("nan"), float("inf"), 10**12, True, "12", None])
def test_a_usage_count_that_cannot_be_true_is_refused_naming_its_source(value: Any) -> None:
    with pytest.raises(UsageReportError, match=r"^agent 'x' reported tokens = .*not counted"):
        checked_usage({"tokens": value}, "agent 'x'")


def test_true_usage_counts_pass_as_whole_numbers() -> None:
    assert checked_usage({"a": 0, "b": 12.0, "c": 10_000_000}, "s") == {"a": 0, "b": 12, "c": 10**7}


class Verdict(BaseModel):
    verdict: str


def _says(message: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def respond(body: dict[str, Any]) -> dict[str, Any]:
        answer = completion()
        answer["choices"][0]["message"] = message
        return answer

    return respond


def test_a_refusal_in_a_structured_role_fails_on_one_line_without_asking_again() -> None:
    refusal = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    with openai_server(_says(refusal)) as server:
        judge = _model(server).with_structured_output(Verdict)
        with pytest.raises(StructuredOutputError, match="refused to answer in Verdict") as raised:
            judge.invoke("judge")
        assert len(server.requests) == 1
    assert "I can't help with that." in str(raised.value) and "cadre resume" in str(raised.value)


@pytest.mark.parametrize("content", ['```json\n{"verdict": "fine"}\n```', '{"verdict": "fine"}'])
def test_a_structured_answer_is_read_with_or_without_a_code_fence(content: str) -> None:
    with openai_server(_says({"role": "assistant", "content": content})) as server:
        assert _model(server).with_structured_output(Verdict).invoke("j") == Verdict(verdict="fine")
        [(_, body)] = server.requests
    assert body["response_format"]["json_schema"]["name"] == "Verdict"


def test_a_run_is_told_what_a_model_call_waits_for() -> None:
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        answer: str

    answers = itertools.chain(
        [Reply(429, {"error": {"message": "slow", "type": "r"}}, {"retry-after": "1"})], _ok()
    )
    with openai_server(lambda body: next(answers)) as server:
        model = _model(server)
        graph = StateGraph(State)
        graph.add_node("ask", lambda state: {"answer": str(model.invoke("hi").content)})
        graph.add_edge(START, "ask")
        graph.add_edge("ask", END)
        events = list(graph.compile().stream({"answer": ""}, stream_mode="custom"))
    [waiting] = [e for e in events if e.get("event") == "waiting"]
    assert waiting["seconds"] == 1.0
    assert waiting["reason"] == (
        f"the openai-compatible chat model 'm' at {server.base_url} asked to wait (Retry-After 1 s)"
    )


def _custom_events(model: ProviderChatModel) -> list[dict[str, Any]]:
    """The custom events of a one-node graph run that asks ``model``."""
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        answer: str

    graph = StateGraph(State)
    graph.add_node("ask", lambda state: {"answer": str(model.invoke("hi").content)})
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return list(graph.compile().stream({"answer": ""}, stream_mode="custom"))


def test_a_run_is_told_that_a_long_call_is_still_running() -> None:
    slow = Reply(body=completion("fine"), stall_s=1.6)
    limits = CallLimits(connect_s=2.0, idle_s=5.0, heartbeat_s=0.5)
    with openai_server(lambda body: slow) as server:
        events = _custom_events(_model(server, limits))
    running = [e for e in events if e.get("event") == "running"]
    assert len(running) >= 2  # every half second while it ran
    assert (
        running[0]["reason"] == f"call to the openai-compatible chat model 'm' at {server.base_url}"
    )
    assert running[0]["seconds"] >= 0.5 and running[-1]["seconds"] > running[0]["seconds"]


def test_after_calls_in_a_row_give_up_the_circuit_opens_fails_fast_then_closes() -> None:
    failing = True

    def respond(body: dict[str, Any]) -> dict[str, Any] | Reply:
        return _error(503, "down") if failing else completion("back")

    limits = CallLimits(connect_s=2.0, idle_s=1.0, attempts=1, circuit_after=2, circuit_s=0.5)
    with openai_server(respond) as server:
        model = _model(server, limits)
        for _ in range(2):
            with pytest.raises(ProviderGaveUpError):
                model.invoke("hello")
        with pytest.raises(ProviderCircuitOpenError) as raised:
            model.invoke("hello")
        assert len(server.requests) == 2  # the open circuit sent nothing
        assert "its last 2 calls all gave up" in str(raised.value)
        assert "`cadre resume`" in str(raised.value)
        time.sleep(0.6)
        failing = False
        assert model.invoke("hello").content == "back"  # the first call after it tries again
        failing = True
        with pytest.raises(ProviderGaveUpError) as again:
            model.invoke("hello")
        assert not isinstance(again.value, ProviderCircuitOpenError)  # the answer closed it


def test_a_model_spec_sets_its_call_limits_after_its_hash() -> None:
    spec = parse_model_spec("openai:gpt-4o#idle_s=30,attempts=5,deadline_s=90.5")
    assert spec.name == "gpt-4o"
    assert (spec.limits.idle_s, spec.limits.attempts, spec.limits.deadline_s) == (30, 5, 90.5)
    assert spec.limits.connect_s == CallLimits().connect_s
    served = parse_model_spec("openai-compatible:m@http://127.0.0.1:9/v1#key=SERVED_KEY,attempts=1")
    assert (served.key_env, served.limits.attempts, served.base_url) == (
        "SERVED_KEY",
        1,
        "http://127.0.0.1:9/v1",
    )
    assert parse_model_spec("openai:gpt-4o").limits == CallLimits()


@pytest.mark.parametrize(
    "spec",
    [
        "openai:gpt-4o#idle=30",
        "openai:gpt-4o#attempts=0",
        "openai:gpt-4o#attempts=1.5",
        "openai:gpt-4o#idle_s=inf",
        "openai:gpt-4o#idle_s=-1",
        "openai:gpt-4o#idle_s=1,idle_s=2",
        "openai:gpt-4o#key=OPENAI_API_KEY",
    ],
)
def test_a_bad_option_in_a_model_spec_is_refused_naming_the_options(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"after '#': options are connect_s=N, idle_s=N"):
        parse_model_spec(spec)


def test_the_limits_of_a_spec_reach_its_calls() -> None:
    with openai_server(lambda body: _error(503, "overloaded")) as server:
        model = ProviderChatModel(f"openai-compatible:m@{server.base_url}#attempts=1")
        with pytest.raises(ProviderGaveUpError, match=r"gave up after 1 attempt over"):
            model.invoke("hello")
        assert len(server.requests) == 1


def test_an_empty_plan_is_asked_again_with_the_reason() -> None:
    from teams.research.schemas import PlanDraft

    empty = {"goal": "retries", "sub_questions": [], "direct_answer": None, "rationale": None}
    asked = {"description": "How are errors retried?", "query": "retry"}
    planned = {**empty, "sub_questions": [asked]}
    answers = iter([completion(json.dumps(empty)), completion(json.dumps(planned))])
    with openai_server(lambda body: next(answers)) as server:
        plan = _model(server).with_structured_output(PlanDraft).invoke("plan the research")
    assert [q.description for q in plan.sub_questions] == ["How are errors retried?"]
    [_, again] = [body for _, body in server.requests]
    assert "no sub-questions and no direct answer" in again["messages"][-1]["content"]
