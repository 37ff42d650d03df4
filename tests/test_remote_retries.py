"""A remote kind's call follows the model gateway's retry policy: an attempt the remote never ran
(it refused it with HTTP 503 or 429, or no connection was made) is tried again, after the
``Retry-After`` the remote asked for, within the kind's ``timeout_s``; a failure the remote may
have run (HTTP 500) is not, so a task is never run twice by a retry. A real a2a-sdk agent on
loopback, behind a middleware that refuses its first calls."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from framework.memory import MiniLMEmbedder, SemanticStore
from framework.runs.runner import run_team
from tests.a2a_agents import free_port, running_agent
from tests.test_remote_kinds import (
    LIGHTHOUSE,
    REPLY,
    Agent,
    LighthouseExecutor,
    _agent_kind,
    _app,
    _results,
)


@dataclass
class Refusals:
    """How the agent's calls are refused: the first ``first`` with ``status``."""

    status: int
    first: int
    refused: int = 0


class Refusing(BaseHTTPMiddleware):
    """Refuses the agent's first calls (its card stays served) with a status and a short
    ``Retry-After``."""

    def __init__(self, app: ASGIApp, refusals: Refusals) -> None:
        super().__init__(app)
        self.refusals = refusals

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if request.method == "POST" and self.refusals.refused < self.refusals.first:
            self.refusals.refused += 1
            headers = {"Retry-After": "0.2"}
            return JSONResponse({"error": "busy"}, self.refusals.status, headers=headers)
        return await call_next(request)


@pytest.fixture
def refused() -> Iterator[tuple[Agent, Refusals]]:
    def start(status: int, first: int) -> tuple[Agent, Refusals]:
        port = free_port()
        agent, refusals = Agent(url=f"http://127.0.0.1:{port}"), Refusals(status, first)
        middleware = [Middleware(Refusing, refusals=refusals)]
        stack.append(running_agent(port, LighthouseExecutor(agent), "Lighthouses.", middleware))
        stack[-1].__enter__()
        return agent, refusals

    stack: list = []
    yield start  # type: ignore[misc]
    for running in reversed(stack):
        running.__exit__(None, None, None)


def _run(url: str, tmp_path: Path, embedder: MiniLMEmbedder, thread: str) -> object:
    """The team's answer; ``timeout_s`` spans every attempt of the task (the reviewer's retries
    too), so it is wide enough that no deadline cuts a try short however loaded the machine."""
    team = tmp_path / f"{thread}.yaml"
    team.write_text(_agent_kind(url, ", timeout_s: 600"), encoding="utf-8")
    with SemanticStore(":memory:", embedder=embedder) as store:
        [result] = _results(run_team(_app(team, store), {"question": LIGHTHOUSE}, thread).state)
    return result


@pytest.mark.parametrize("status", [503, 429])
def test_calls_the_remote_never_ran_are_tried_again_after_its_retry_after(
    refused: object, tmp_path: Path, embedder: MiniLMEmbedder, status: int
) -> None:
    agent, refusals = refused(status, 2)  # type: ignore[operator]
    result = _run(agent.url, tmp_path, embedder, f"busy-{status}")
    assert result.status == "ok" and result.output == REPLY, result.error
    assert refusals.refused == 2 and result.attempt == 0  # the gateway's tries, not the reviewer's
    assert agent.asked == [LIGHTHOUSE]  # run once


def test_a_remote_that_keeps_refusing_gives_up_as_the_gateway_does(
    refused: object, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    agent, refusals = refused(503, 1_000)  # type: ignore[operator]
    result = _run(agent.url, tmp_path, embedder, "down")
    assert result.status == "failed" and agent.asked == []
    prefix = f"RemoteAgentError: kind 'agent' (a2a {agent.url}): "
    assert result.error.startswith(prefix + "HTTP 503: Service Unavailable (gave up after 10 ")
    assert "10 rate-limited over " in result.error  # each refusal asked to wait: 10 tries
    assert refusals.refused == 10 * (result.attempt + 1)  # per attempt of the task


def test_a_failure_the_remote_may_have_run_is_not_tried_again(
    refused: object, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    agent, refusals = refused(500, 1_000)  # type: ignore[operator]
    result = _run(agent.url, tmp_path, embedder, "broken")
    assert result.status == "failed" and "HTTP 500" in result.error
    assert "gave up" not in result.error and ", after " in result.error
    assert refusals.refused == result.attempt + 1  # once per attempt of the task
