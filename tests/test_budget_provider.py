"""A budget's output bound reaches the provider: a local OpenAI-compatible server (stdlib
``http.server`` on loopback) records each real request ``ChatOpenAI`` sends through cadre's
provider model, and answers with usage it reports."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel

from framework.cli._render import policy_lines
from framework.engine.nodes import TeamNode
from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.errors import PolicyDenied
from framework.models.chat import ProviderChatModel
from framework.policy import PolicyMiddleware, governed
from framework.runs.spec import RunSpec
from policies.budgets import Budget, Limits
from tests.openai_server import OpenAIServer, openai_server
from tests.test_policy_hooks import Fan, State, _run

MESSAGE = {"role": "assistant", "content": "fine"}


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    structured = "response_format" in body
    message = {"role": "assistant", "content": '{"verdict": "fine"}'} if structured else MESSAGE
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    """The local server, and the environment that points ``openai:`` models at it."""
    with openai_server(_answer) as httpd:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", httpd.base_url)
        yield httpd


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return term


def test_the_budgets_output_bound_is_sent_to_the_provider(provider: OpenAIServer) -> None:
    model = governed(ProviderChatModel("openai:gpt-test"))
    with_tools = model.bind_tools([lookup])

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        model.invoke("plain")
        with_tools.invoke("with tools")
        model.invoke("a smaller limit of its own", max_tokens=50)
        return {}

    budget = Budget(run=Limits(tokens=10_000), max_output_tokens=300)
    _run(body, budget)
    bodies = [body for _, body in provider.requests]
    limits = [body.get("max_completion_tokens") for body in bodies]
    assert limits == [300, 300, 50]
    assert "tools" in bodies[1]
    assert budget.used("t")["run/tokens"] == 3 * 15  # what the provider reported


def test_without_a_budget_no_output_limit_is_sent(provider: OpenAIServer) -> None:
    model = governed(ProviderChatModel("openai:gpt-test"))

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        model.invoke("plain")
        return {}

    _run(body)
    [(_, request)] = provider.requests
    assert "max_completion_tokens" not in request and "max_tokens" not in request


class Judgement(BaseModel):
    verdict: str


def test_usage_is_what_the_provider_reports_and_an_estimate_says_so(provider: OpenAIServer) -> None:
    judge = governed(ProviderChatModel("openai:gpt-test")).with_structured_output(Judgement)
    silent = governed(FakeListChatModel(responses=["no usage reported"]))

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        assert judge.invoke("judge this") == Judgement(verdict="fine")
        assert silent.invoke("and this").text == "no usage reported"
        return {}

    budget = Budget(run=Limits(tokens=10_000), max_output_tokens=300)
    state = _run(body, budget)
    [(_, request)] = provider.requests
    assert request["max_completion_tokens"] == 300 and "response_format" in request
    [record] = state["usage"].values()
    counts = record.counts
    assert counts["input_tokens@openai:gpt-test"] == 12  # reported, not estimated
    assert counts["output_tokens@openai:gpt-test"] == 3
    assert counts["model_calls"] == 2 and counts["estimated_model_calls"] == 1
    shown = policy_lines(RunSpec(team="research", policy="budget: {}"), state)
    assert "  1 model call(s) reported no usage: their tokens are estimated" in "\n".join(shown)


def _billed(body: dict[str, Any]) -> dict[str, Any]:
    """An answer whose usage is what a provider would bill: the prompt's bytes over four, and
    an output that stops at the request's limit (or writes 400 tokens without one)."""
    prompt = sum(len(str(message.get("content", ""))) for message in body["messages"]) // 4 + 7
    written = min(400, body.get("max_completion_tokens") or 400)
    answer = _answer(body)
    answer["usage"] = {
        "prompt_tokens": prompt,
        "completion_tokens": written,
        "total_tokens": prompt + written,
    }
    return answer


def test_a_hundred_parallel_workers_never_make_the_provider_bill_over_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limit = 5_000
    with openai_server(_billed) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        model = governed(ProviderChatModel("openai:gpt-test"))

        async def work(payload: Fan, context: NodeContext) -> dict[str, Any]:
            with contextlib.suppress(PolicyDenied):  # the budget refused the call
                await model.ainvoke(f"worker {payload['task'].id} asks a question")
            return {}

        budget = Budget(run=Limits(tokens=limit), max_output_tokens=100)
        chain = (PolicyMiddleware([budget]),)
        graph = StateGraph(State)
        graph.add_node("start", TeamNode("start", "t", lambda s, c: {}, middleware=chain))
        skipped = TeamNode(  # a worker the budget refuses to start is skipped
            "worker", "t", lambda p, c: {}, work, middleware=chain, refusal=lambda p, why: {}
        )
        graph.add_node("worker", skipped)
        graph.add_edge(START, "start")
        sends = [Send("worker", {"task": Task(id=f"t{i}", description="d")}) for i in range(100)]
        graph.add_conditional_edges("start", lambda s: sends)
        graph.add_edge("worker", END)
        config = {"configurable": {"thread_id": "t"}, "max_concurrency": 100}
        asyncio.run(graph.compile().ainvoke({"question": "q"}, config))
    billed = sum(_billed(body)["usage"]["total_tokens"] for _, body in server.requests)
    assert len(server.requests) < 100  # the budget did bind
    assert billed <= limit  # overshoot 0: what the provider billed stayed within the budget
    assert budget.used("t")["run/tokens"] == billed


@pytest.mark.parametrize("bad", [-5000, 10**12, 1e300])
def test_usage_a_provider_reports_that_cannot_be_true_is_never_counted(
    bad: float, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def lying(body: dict[str, Any]) -> dict[str, Any]:
        answer = _answer(body)
        answer["usage"] = {"prompt_tokens": bad, "completion_tokens": 3, "total_tokens": bad}
        return answer

    with openai_server(lying) as httpd:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", httpd.base_url)
        model = governed(ProviderChatModel("openai:gpt-test"))

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            assert model.invoke("how much?").text == "fine"
            return {}

        state = _run(body, Budget(run=Limits(tokens=10_000)))
    [record] = state["usage"].values()
    counts = record.counts
    assert 0 < counts["input_tokens@openai:gpt-test"] < 100  # the estimate, not the report
    assert counts["estimated_model_calls"] == 1
    assert "reported input_tokens" in caplog.text and "is not counted" in caplog.text


def test_usage_a_tool_reports_that_cannot_be_true_is_never_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from framework.policy.wrappers import governed_tool_output

    def body(state: State, context: NodeContext) -> dict[str, Any]:
        governed_tool_output(lookup, {"term": "x"}, "answer", 1, {"tool_calls": -3})
        governed_tool_output(lookup, {"term": "y"}, "answer", 2, {"tool_calls": 2})
        return {}

    state = _run(body, Budget(run=Limits(tool_calls=2)))
    [record] = state["usage"].values()
    assert record.counts["tool_calls"] == 2  # the honest report only: -3 lifted no limit
    assert "tool 'lookup' reported tool_calls = -3" in caplog.text


def _judging(contents: list[str]) -> Any:
    """Structured answers in turn (each billed 12 + 3 tokens), the last one repeated."""
    answers = iter(contents)
    last: list[str] = []

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        last[:] = [next(answers, last[0] if last else "")]
        answer = _answer(body)
        answer["choices"][0]["message"] = {"role": "assistant", "content": last[0]}
        return answer

    return respond


def test_a_structured_answer_that_does_not_fit_is_asked_again_with_what_was_wrong(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with openai_server(_judging(['{"verdict": ', '{"verdict": "fine"}'])) as httpd:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", httpd.base_url)
        judge = governed(ProviderChatModel("openai:gpt-test")).with_structured_output(Judgement)

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            assert judge.invoke("judge this") == Judgement(verdict="fine")
            return {}

        state = _run(body, Budget(run=Limits(tokens=10_000)))
        bodies = [body for _, body in httpd.requests]
    assert len(bodies) == 2
    repair = bodies[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"verdict": '}
    assert "does not fit the required schema" in repair[-1]["content"]
    [record] = state["usage"].values()
    assert record.counts["input_tokens@openai:gpt-test"] == 24  # both calls billed and counted


def test_a_structured_answer_that_never_fits_fails_on_one_line_and_is_still_charged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from framework.models.repair import StructuredOutputError

    with openai_server(_judging(["not json at all"])) as httpd:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", httpd.base_url)
        judge = governed(ProviderChatModel("openai:gpt-test")).with_structured_output(Judgement)
        failures: list[str] = []

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            with pytest.raises(StructuredOutputError) as raised:
                judge.invoke("judge this")
            failures.append(str(raised.value))
            return {}

        state = _run(body, Budget(run=Limits(tokens=10_000)))
        assert len(httpd.requests) == 3
    [line] = failures
    assert line.startswith("the openai chat model 'gpt-test' answered output that does not fit")
    assert "Judgement" in line and "asked 3 times" in line and "cadre resume" in line
    assert "\n" not in line
    [record] = state["usage"].values()
    assert record.counts["input_tokens@openai:gpt-test"] == 36  # three billed calls, none free
