"""MCP over streamable HTTP against a real ``cadre serve``, with the ``mcp`` SDK's own client
(``streamable_http_client`` and ``ClientSession``) on loopback: a tool per served team answers
a question with its cited answer and sends progress notifications from the run's node
updates; a team file's plan review pauses the run (a result saying so, not an error) and
``answer_review`` answers it as the token's name, which ``cadre show`` then lists in the
audit; tokens, tenants and scopes hold as over LangGraph's API (no token: 401; another
tenant's thread is not found; a ``run`` token cannot answer a review)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from framework.cli.app import app as cadre
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints written?"
CITED = "docs/checkpoints.md:3"
SUPPORT = "name: support\nreview: [plan]\nkinds:\n  - {name: docs, builtin: search}\n"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("mcp")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    support = root / "support.yaml"
    support.write_text(SUPPORT, encoding="utf-8")
    tokens = {
        "ada": ("acme", "run,review"),
        "bob": ("globex", "run,review"),
        "runner": ("acme", "run"),
    }
    options = ["--team-config", str(support)]
    with serve(root / "home", None, corpus=corpus, tokens=tokens, options=options) as server:
        yield server


@asynccontextmanager
async def connected(served: Served, name: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP session sending the token ``name`` (``ada`` as a bearer token, the
    others as ``x-api-key``)."""
    token = served.tokens[name]
    headers = {"Authorization": f"Bearer {token}"} if name == "ada" else {"x-api-key": token}
    timeout = httpx.Timeout(30, read=120)
    async with (
        httpx.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(f"{served.url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


class Progress:
    """The progress notifications a call received."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, message))


def _refusal(result: types.CallToolResult) -> str:
    """The one line of a tool error."""
    assert result.isError, result
    [content] = result.content
    assert isinstance(content, types.TextContent)
    assert "\n" not in content.text and "Traceback" not in content.text
    return content.text


def _texts(result: types.CallToolResult) -> list[str]:
    return [part.text for part in result.content if isinstance(part, types.TextContent)]


async def _paused(session: ClientSession) -> dict[str, Any]:
    result = await session.call_tool("support", {"question": QUESTION})
    assert not result.isError, result
    paused = result.structuredContent
    assert paused is not None and paused["status"] == "paused"
    return paused


async def test_each_served_team_is_a_tool_and_answer_review_is_one(served: Served) -> None:
    async with connected(served, "ada") as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert {"support", "research", "meta", "answer_review"} <= set(tools)
    support = tools["support"]
    assert support.description is not None and "support.yaml" in support.description
    assert support.inputSchema["required"] == ["question"]
    assert set(support.inputSchema["properties"]) == {"question", "thread_id"}
    assert support.outputSchema is not None
    review = tools["answer_review"].inputSchema
    assert review["required"] == ["team", "thread_id", "decision"]
    assert "support" in review["properties"]["team"]["enum"]


async def test_a_question_is_answered_with_its_cited_answer_and_progress(served: Served) -> None:
    progress = Progress()
    async with connected(served, "ada") as session:
        result = await session.call_tool(
            "research", {"question": QUESTION}, progress_callback=progress
        )
        assert not result.isError, result
        answered = result.structuredContent
        assert answered is not None and answered["status"] == "answered"
        assert CITED in answered["answer"]
        assert _texts(result) == [answered["answer"], f"thread_id: {answered['thread_id']}"]

        follow_up = await session.call_tool(
            "research", {"question": QUESTION, "thread_id": answered["thread_id"]}
        )
        assert follow_up.structuredContent is not None
        assert follow_up.structuredContent["thread_id"] == answered["thread_id"]
        assert follow_up.structuredContent["run_id"] != answered["run_id"]
    counts = [count for count, _ in progress.seen]
    assert counts == list(range(1, len(counts) + 1)) and len(counts) >= 3
    messages = [message for _, message in progress.seen]
    assert "research: planner done" in messages and "research: formatter done" in messages


async def test_a_paused_review_is_answered_through_answer_review_and_audited(
    served: Served,
) -> None:
    async with connected(served, "ada") as session:
        progress = Progress()
        result = await session.call_tool(
            "support", {"question": QUESTION}, progress_callback=progress
        )
        paused = result.structuredContent
        assert not result.isError and paused is not None and paused["status"] == "paused"
        assert paused["answer"] == ""
        [review] = paused["reviews"]
        assert review["value"]["kind"] == "plan" and review["id"]
        assert "approve" in review["value"]["allowed"]
        [text, thread_line] = _texts(result)
        assert f"plan review {review['id']} at team support" in text
        assert f'"id": "{review["id"]}"' in text and '"goal": "How are' in text
        assert '{"team": "support", "thread_id": "' in text
        assert thread_line == f"thread_id: {paused['thread_id']}"
        assert progress.seen[-1][1] == "support: paused for review"

        thread_id = paused["thread_id"]
        wrong = {"kind": "edit_answer", "answer": "no"}
        invalid = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": thread_id, "decision": wrong}
        )
        assert "edit_answer" in _refusal(invalid)

        progress = Progress()
        keyed = {review["id"]: "approve"}
        done = await session.call_tool(
            "answer_review",
            {"team": "support", "thread_id": thread_id, "decision": keyed},
            progress_callback=progress,
        )
        assert not done.isError, done
        answered = done.structuredContent
        assert answered is not None and answered["status"] == "answered"
        assert answered["thread_id"] == thread_id and CITED in answered["answer"]
        assert progress.seen and progress.seen[0][0] == 1

        again = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": thread_id, "decision": "approve"}
        )
        assert "waits for no review" in _refusal(again)

    shown = CliRunner().invoke(cadre, ["show", thread_id, "--home", str(served.home)])
    assert shown.exit_code == 0, shown.output
    [line] = [line for line in shown.stdout.splitlines() if "approve on plan review" in line]
    assert line.endswith(f"  ada  approve on plan review {review['id']} at team support")


async def test_another_tenant_can_neither_read_nor_resume_a_thread(served: Served) -> None:
    async with connected(served, "ada") as session:
        thread_id = (await _paused(session))["thread_id"]
    async with connected(served, "bob") as session:
        resumed = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": thread_id, "decision": "approve"}
        )
        assert _refusal(resumed) == f"thread {thread_id} not found"
        asked = await session.call_tool("support", {"question": "mine?", "thread_id": thread_id})
        assert "not found" in _refusal(asked)
        missing = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": "nowhere", "decision": "approve"}
        )
        assert _refusal(missing) == "thread nowhere not found"
    async with connected(served, "ada") as session:  # still paused, still ada's
        approved = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": thread_id, "decision": "approve"}
        )
        assert approved.structuredContent is not None
        assert approved.structuredContent["status"] == "answered"


async def test_a_token_without_the_review_scope_cannot_answer_a_review(served: Served) -> None:
    async with connected(served, "runner") as session:
        thread_id = (await _paused(session))["thread_id"]  # `run` starts it: same tenant
        refused = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": thread_id, "decision": "approve"}
        )
        assert "review" in _refusal(refused)
    async with connected(served, "ada") as session:  # nothing was decided: ada can
        rejection = {"kind": "reject_tasks", "task_ids": ["q0"], "reason": "not this one"}
        rejected = await session.call_tool(
            "answer_review", {"team": "support", "thread_id": thread_id, "decision": rejection}
        )
        assert rejected.structuredContent is not None
        assert rejected.structuredContent["status"] == "answered"
        assert "Not researched" in rejected.structuredContent["answer"]
    shown = CliRunner().invoke(cadre, ["show", thread_id, "--home", str(served.home)])
    assert "  ada  reject_tasks on plan review " in shown.stdout
    assert "runner  " not in shown.stdout


async def test_unknown_tools_and_invalid_arguments_are_tool_errors(served: Served) -> None:
    async with connected(served, "ada") as session:
        assert "no team is served as 'nobody'" in _refusal(
            await session.call_tool("nobody", {"question": QUESTION})
        )
        assert "question" in _refusal(await session.call_tool("research", {}))


async def test_a_request_without_a_valid_token_is_refused_with_401(served: Served) -> None:
    headers = {"accept": "application/json, text/event-stream"}
    with httpx.Client(base_url=served.url, timeout=30) as plain:
        for sent in ({}, {"x-api-key": "not-a-token"}, {"authorization": "Bearer nope"}):
            refused = plain.post("/mcp", json=INITIALIZE, headers={**headers, **sent})
            assert refused.status_code == 401, refused.text
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert "API token" in refused.json()["detail"]
        assert plain.get("/mcp").status_code == 405  # no server stream without sessions
    with pytest.raises(Exception) as failed:  # the SDK wraps it in exception groups
        async with (
            httpx.AsyncClient() as http,
            streamable_http_client(f"{served.url}/mcp", http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
    assert "401" in str(_innermost(failed.value))


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
