"""The model-backed research team through a real provider client, ``ChatOpenAI``.

A local OpenAI-compatible server (stdlib ``http.server`` on loopback) decodes each real request
and answers with scripted ``chat.completion`` JSON. ``ChatOpenAI.with_structured_output`` uses
``method="json_schema"`` by default: a pydantic schema goes out as a strict ``response_format``
named after the schema, and the answer is the JSON object in the message content. The worker's
``bind_tools`` sends ``tools``, answered with ``tool_calls``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from langchain_openai import ChatOpenAI

from framework.engine.builder import compile_team
from framework.engine.runtime import NodeContext
from framework.memory import Corpus
from teams.meta.assessors import CitationCompliance
from teams.research.graph import build_research_team
from teams.research.model_roles import build_model_roles
from tests.openai_server import OpenAIServer, openai_server

CHECKPOINTS = "docs/checkpoints.md:3"
RETRIES = "docs/retries.md:3"
QUESTION = "How are checkpoints protected, and how do workers handle timeouts?"
QUERIES = {"checkpoint encryption": CHECKPOINTS, "worker timeouts retry": RETRIES}

STRUCTURED: dict[str, dict[str, Any]] = {
    "PlanDraft": {
        "goal": QUESTION,
        "sub_questions": [
            {
                "id": None,
                "description": "How are checkpoints protected?",
                "query": "checkpoint encryption",
            },
            {
                "id": None,
                "description": "How do workers handle timeouts?",
                "query": "worker timeouts retry",
            },
        ],
        "direct_answer": None,
        "rationale": "one search per part",
    },
    "ReviewVerdictDraft": {
        "decision": "finish",
        "confidence": 0.9,
        "reasons": ["both parts are answered"],
        "retry": [],
        "new_tasks": [],
    },
    "FactsDraft": {
        "facts": [
            {
                "subject": "checkpoints",
                "predicate": "are encrypted with",
                "object": "AES",
                "confidence": 0.9,
                "source": CHECKPOINTS,
            }
        ]
    },
    "ReportDraft": {
        "sections": [
            {
                "heading": "Answer",
                "claims": [
                    {"text": "Checkpoints are encrypted at rest with AES.", "source": CHECKPOINTS},
                    {"text": "Timeouts are retried up to three times.", "source": RETRIES},
                ],
            }
        ]
    },
}


def completion(content: str | None = None, tool_calls: list[Any] | None = None) -> dict[str, Any]:
    """A ``chat.completion`` body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted answer to one decoded request."""
    messages = body["messages"]
    response_format = body.get("response_format")
    if response_format is not None:
        return completion(json.dumps(STRUCTURED[response_format["json_schema"]["name"]]))
    if body.get("tools"):
        last = messages[-1]
        if last["role"] == "tool":
            query = re.search(r"Results for '([^']+)'", last["content"])
            assert query is not None, last
            return completion(f"The corpus says so ({QUERIES[query.group(1)]}).")
        first = re.search(r"First query: (.+)", messages[1]["content"])
        assert first is not None, messages
        call = {
            "id": f"call_{len(messages)}",
            "type": "function",
            "function": {
                "name": "search_corpus",
                "arguments": json.dumps({"query": first.group(1)}),
            },
        }
        return completion(tool_calls=[call])
    return completion(f"Checkpoints use AES ({CHECKPOINTS}); timeouts retry ({RETRIES}).")


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    """The fake OpenAI server, serving on a loopback port in a thread."""
    with openai_server(respond) as httpd:
        yield httpd


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_research_team_through_chat_openai(
    server: OpenAIServer, small_corpus: Corpus, mode: Literal["sync", "async"]
) -> None:
    model = ChatOpenAI(
        model="gpt-test",
        base_url=f"http://127.0.0.1:{server.server_port}/v1",
        api_key="test",
        max_retries=0,
        timeout=10,
    )
    graph = compile_team(build_research_team(build_model_roles(model, small_corpus)))

    if mode == "async":
        final = await graph.ainvoke({"question": QUESTION})
    else:
        final = graph.invoke({"question": QUESTION})

    paths = {path for path, _ in server.requests}
    bodies = [body for _, body in server.requests]
    assert paths == {"/v1/chat/completions"}
    schemas = [b["response_format"]["json_schema"] for b in bodies if "response_format" in b]
    assert [s["name"] for s in schemas] == [
        "PlanDraft",
        "ReviewVerdictDraft",
        "FactsDraft",
        "ReportDraft",
    ]
    assert all(s["strict"] for s in schemas)
    assert "sub_questions" in schemas[0]["schema"]["properties"]
    worker_calls = [b for b in bodies if b.get("tools")]
    assert len(worker_calls) == 4  # two tasks: search, then answer
    for body in worker_calls:
        [tool] = body["tools"]
        assert tool["function"]["name"] == "search_corpus"
        assert list(tool["function"]["parameters"]["properties"]) == ["query"]
    answers = [b["messages"] for b in worker_calls if b["messages"][-1]["role"] == "tool"]
    assert {m[-1]["tool_call_id"] for m in answers} == {"call_2"}
    assert all(m[-2]["tool_calls"][0]["function"]["name"] == "search_corpus" for m in answers)
    results = final["worker_results"]
    assert [results[t].output for t in ("q0", "q1")] == [
        f"The corpus says so ({CHECKPOINTS}).",
        f"The corpus says so ({RETRIES}).",
    ]
    assert (
        f"- Checkpoints are encrypted at rest with AES. (`{CHECKPOINTS}`)"
        in (final["final_answer"])
    )
    findings = CitationCompliance().assess(final, NodeContext(node="check", team="test"))
    assert [f.severity for f in findings] == ["info"], findings
    assert final["memory_writes"][0].provenance.source == CHECKPOINTS
