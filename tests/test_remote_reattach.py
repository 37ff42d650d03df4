"""A parent killed while an ``a2a:`` kind's agent works on its task, then resumed, takes that
task's answer: it finds the task it sent by its A2A context (``ListTasks``), follows it to its
end (``GetTask``), and sends the agent no new task.

Real processes and HTTP: the agent is a2a-sdk's server on loopback (its executor held by a
condition until the parent was killed), the parent is ``cadre run`` killed with SIGKILL, then
``cadre resume`` in a new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tests.a2a_agents import free_port, running_agent
from tests.conftest import write_corpus

QUESTION = "When was the Skerry Head lighthouse built?"
REPLY = "The Skerry Head lighthouse was built in 1874."
CORPUS = {"ports.md": "# Ports\n\nThe gateway listens on port 8443 for TLS traffic.\n"}
WAIT_S = 120.0
CADRE = [sys.executable, "-c", "from framework.cli.main import main; main()"]


@dataclass
class HeldAgent:
    """What the agent was asked, the JSON-RPC methods it was called with, and the condition
    that holds its work."""

    asked: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


class HeldExecutor(AgentExecutor):
    """Starts each task, waits until released, then completes it with the reply."""

    def __init__(self, agent: HeldAgent) -> None:
        self.agent = agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.agent.asked.append(context.get_user_input())
        assert context.message is not None and context.task_id and context.context_id
        await event_queue.enqueue_event(new_task_from_user_message(context.message))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        await asyncio.to_thread(self.agent.release.wait, WAIT_S)
        await updater.add_artifact([new_text_part(REPLY)], name="answer")
        await updater.complete(new_text_message(REPLY))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


class Methods:
    """Records the JSON-RPC method of each request (an ASGI middleware)."""

    def __init__(self, app: ASGIApp, seen: list[str]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def peeked() -> Message:
            message = await receive()
            with contextlib.suppress(ValueError, AttributeError):
                self.seen.append(json.loads(message.get("body") or b"{}").get("method", "?"))
            return message

        await self.app(scope, peeked if scope["type"] == "http" else receive, send)


@pytest.fixture
def agent() -> Iterator[tuple[str, HeldAgent]]:
    held = HeldAgent()
    port = free_port()
    watch = [Middleware(Methods, seen=held.methods)]
    try:
        with running_agent(port, HeldExecutor(held), "Knows lighthouses.", watch) as url:
            yield url, held
    finally:
        held.release.set()


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_parent_killed_during_an_a2a_call_takes_that_tasks_answer_on_resume(
    agent: tuple[str, HeldAgent], tmp_path: Path
) -> None:
    url, held = agent
    team = tmp_path / "top.yaml"
    team.write_text(f"name: top\nkinds:\n  - name: agent\n    a2a: '{url}'\n", encoding="utf-8")
    corpus = write_corpus(tmp_path / "corpus", CORPUS)
    home = str(tmp_path / "home")
    run = [*CADRE, "run", QUESTION, "--team-config", str(team), "--corpus", str(corpus)]
    parent = subprocess.Popen(
        [*run, "--home", home, "--thread", "t1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _until(lambda: held.asked, "the agent's first task")
    finally:
        parent.kill()
        parent.wait(WAIT_S)
    called = Counter(held.methods)
    sent = called["SendMessage"]
    assert sent == len(held.asked) >= 1
    resume = subprocess.Popen(
        [*CADRE, "resume", "t1", "--home", home],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    listed = called["ListTasks"]  # the parent asks before it sends
    _until(
        lambda: held.methods.count("ListTasks") > listed or resume.poll() is not None,
        "the resume's ListTasks",
    )
    held.release.set()  # the task the killed parent sent still works: the resume follows it
    out, err = resume.communicate(timeout=WAIT_S)
    assert resume.returncode == 0, err
    assert REPLY in out
    assert Counter(held.methods)["SendMessage"] == sent  # no new task
    assert len(held.asked) == sent and "GetTask" in held.methods
