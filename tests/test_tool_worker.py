"""ToolWorker: a bounded tool-calling loop over scripted chat models and real LangChain tools.

No test depends on timing: a "hanging" tool waits on an event released when the test ends, and
concurrency is proven by barriers that only open when the calls are in flight together.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call
from langchain_core.outputs import ChatResult
from langchain_core.tools import BaseTool, StructuredTool, tool
from pydantic import BaseModel, Field

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.memory import Passage
from framework.testing import CallTools, Fail, Reply, ScriptedChatModel
from framework.tools._evidence import tool_source
from framework.tools._threads import DaemonPool
from framework.tools.worker import TOOL_WORKER_SYSTEM, ToolWorker, task_request

CONTEXT = NodeContext(node="worker", team="test")
TASK = Task(id="t1", description="find things", inputs={"query": "things"})
QUESTION = "What are the things?"
WAIT_S = 5.0
"""How long a barrier or event waits before giving up: a broken test fails, never hangs."""

Mode = Literal["sync", "async"]
MODES: tuple[Mode, ...] = ("sync", "async")


async def work(worker: ToolWorker, mode: Mode, task: Task = TASK) -> WorkerResult:
    if mode == "async":
        return await worker.arun(task, QUESTION, CONTEXT)
    return worker.run(task, QUESTION, CONTEXT)


def tool_messages(model: ScriptedChatModel | ListModel, request: int = -1) -> list[ToolMessage]:
    """The tool messages at the end of a request the model received."""
    messages = model.requests[request] if isinstance(model, ScriptedChatModel) else model.seen[-1]
    tail: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        tail.insert(0, message)
    return tail


class ListModel(FakeMessagesListChatModel):
    """Answers from its list whatever tools are bound: it can call tools that do not exist."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ListModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


# -- tools ----------------------------------------------------------------------------------


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def echo(text: str) -> str:
    """Repeat the text."""
    return text


class ShoutArgs(BaseModel):
    text: str


class Shout(BaseTool):
    """A BaseTool subclass."""

    name: str = "shout"
    description: str = "Repeat the text in capitals."
    args_schema: type[BaseModel] = ShoutArgs

    def _run(self, text: str) -> str:
        return text.upper()


def reverse(text: str) -> str:
    """Reverse the text (a plain function, made a tool by the worker)."""
    return text[::-1]


def _search(query: str) -> tuple[str, list[Passage]]:
    passages = [
        Passage(source="b.md:1", path="b.md", line=1, heading="", text="b  low", score=0.3),
        Passage(source="a.md:1", path="a.md", line=1, heading="", text="a\nhigh", score=0.9),
        Passage(source="b.md:1", path="b.md", line=1, heading="", text="b high", score=0.7),
        Passage(source="c.md:1", path="c.md", line=1, heading="", text="c", score=0.7),
    ]
    return f"{len(passages)} passages for {query}", passages


search = StructuredTool.from_function(
    _search, name="search", description="Search.", response_format="content_and_artifact"
)


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event a hanging tool waits on; set when the test ends, so no thread outlives it."""
    event = threading.Event()
    yield event
    event.set()


# -- the loop -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_call_then_an_answer(mode: Mode) -> None:
    model = ScriptedChatModel([CallTools([("add", {"a": 2, "b": 3})]), Reply("It is 5.")])

    result = await work(ToolWorker(model, [add]), mode)

    model.assert_complete()
    source = tool_source("add", {"a": 2, "b": 3})
    assert source.startswith("tool:add(") and source.endswith(")")
    assert result == WorkerResult(
        task_id="t1",
        status="ok",
        output="It is 5.",
        evidence=[Evidence(source=source, text="5", score=1.0)],
        confidence=1.0,
    )
    first = model.requests[0]
    assert (first[0].text, first[1].text) == (TOOL_WORKER_SYSTEM, task_request(TASK, QUESTION))
    assert first[1].text.endswith('Inputs: {"query": "things"}')
    [answer] = tool_messages(model)
    assert (answer.text, answer.status, answer.tool_call_id, answer.name) == (
        "5",
        "success",
        "call_0_0",
        "add",
    )


def test_the_request_and_system_prompt_can_be_replaced() -> None:
    model = ScriptedChatModel([Reply("done")])
    worker = ToolWorker(model, [add], system="be brief", request=lambda t, q: f"{t.id}|{q}")

    result = worker.run(TASK, QUESTION, CONTEXT)

    assert (result.output, result.evidence, result.confidence) == ("done", [], 0.0)
    assert [m.text for m in model.requests[0]] == ["be brief", f"t1|{QUESTION}"]


@pytest.mark.parametrize("mode", MODES)
async def test_every_kind_of_tool_works(mode: Mode) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("add", {"a": 1, "b": 1}),
        ("echo", {"text": "hi"}),
        ("shout", {"text": "hi"}),
        ("reverse", {"text": "abc"}),
    ]
    model = ScriptedChatModel([CallTools(calls), Reply("ok")])
    structured = StructuredTool.from_function(lambda text: text, name="echo", description="Echo.")

    result = await work(ToolWorker(model, [add, structured, Shout(), reverse]), mode)

    model.assert_complete()
    assert [m.text for m in tool_messages(model)] == ["2", "hi", "HI", "cba"]
    assert {e.text for e in result.evidence} == {"2", "hi", "HI", "cba"}


@pytest.mark.parametrize("mode", MODES)
async def test_the_step_bound_keeps_what_was_found(mode: Mode) -> None:
    model = ScriptedChatModel(
        [CallTools([("add", {"a": 1, "b": 2})]), CallTools([("add", {"b": 2, "a": 1})])]
    )

    result = await work(ToolWorker(model, [add], max_steps=2), mode)

    model.assert_complete()
    assert result.status == "failed" and result.output == ""
    assert result.error == (
        "no final answer after 2 model steps (1 evidence items were found): raise the kind's "
        "max_steps or narrow the task"
    )
    assert [e.source for e in result.evidence] == [tool_source("add", {"a": 1, "b": 2})]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply("   "), "the model answered nothing: try again or use another model"),
        (
            Reply("", refusal="I can't help with that."),
            "the model refused to answer: I can't help with that.",
        ),
    ],
)
async def test_an_empty_or_refused_answer_fails_its_task(
    mode: Mode, reply: Reply, error: str
) -> None:
    result = await work(ToolWorker(ScriptedChatModel([reply]), [add]), mode)
    assert (result.status, result.error) == ("failed", error)


@pytest.mark.parametrize("mode", MODES)
async def test_model_errors_propagate(mode: Mode) -> None:
    model = ScriptedChatModel([Fail(RuntimeError("model unavailable"))])
    with pytest.raises(RuntimeError, match="model unavailable"):
        await work(ToolWorker(model, [add]), mode)


# -- tool failures become error messages ---------------------------------------------------


@tool
def boom(text: str) -> str:
    """Always fails."""
    raise ValueError(f"cannot   handle\n{text}")


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_that_raises_is_answered_with_an_error(mode: Mode) -> None:
    model = ScriptedChatModel([CallTools([("boom", {"text": "x"})]), Reply("sorry")])

    result = await work(ToolWorker(model, [boom]), mode)

    [answer] = tool_messages(model)
    assert (answer.status, answer.text) == (
        "error",
        "tool 'boom' failed: ValueError: cannot handle x",
    )
    assert (result.status, result.output, result.evidence) == ("ok", "sorry", [])


@pytest.mark.parametrize("mode", MODES)
async def test_a_sync_tool_past_its_timeout_is_an_error(
    mode: Mode, release: threading.Event
) -> None:
    def hang() -> str:
        """Wait for the end of the test."""
        release.wait(WAIT_S)
        return "late"

    model = ScriptedChatModel([CallTools([("hang", {}), ("add", {"a": 1, "b": 1})]), Reply("ok")])
    worker = ToolWorker(model, [hang, add], timeouts={"hang": 0.2})

    try:
        result = await work(worker, mode)
    finally:
        release.set()  # before the event loop closes: it waits for its executor's threads

    model.assert_complete()
    late, fine = tool_messages(model)
    assert (late.status, late.text) == ("error", "tool 'hang' timed out after 0.2 s")
    assert (fine.status, fine.text) == ("success", "2")
    assert [e.text for e in result.evidence] == ["2"]


async def test_an_async_tool_past_its_timeout_is_cancelled() -> None:
    cancelled = asyncio.Event()

    async def stall() -> str:
        """Never answers."""
        try:
            await asyncio.sleep(WAIT_S)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    stall_tool = StructuredTool.from_function(coroutine=stall, name="stall", description="Stall.")
    model = ScriptedChatModel([CallTools([("stall", {})]), Reply("ok")])

    result = await ToolWorker(model, [stall_tool], tool_timeout_s=0.2).arun(TASK, QUESTION, CONTEXT)

    assert tool_messages(model)[0].text == "tool 'stall' timed out after 0.2 s"
    assert cancelled.is_set()
    assert result.output == "ok"


async def test_a_tool_raising_its_own_timeout_error_is_a_failure() -> None:
    async def slow() -> str:
        """Times out on its own."""
        raise TimeoutError("upstream took too long")

    slow_tool = StructuredTool.from_function(coroutine=slow, name="slow", description="Slow.")
    model = ScriptedChatModel([CallTools([("slow", {})]), Reply("ok")])

    await ToolWorker(model, [slow_tool]).arun(TASK, QUESTION, CONTEXT)

    expected = "tool 'slow' failed: TimeoutError: upstream took too long"
    assert tool_messages(model)[0].text == expected


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_tool_is_refused_naming_the_known_ones(mode: Mode) -> None:
    browse = {"name": "browse", "args": {"url": "x"}, "id": "c1"}
    model = ListModel(responses=[AIMessage("", tool_calls=[browse]), AIMessage("none")])

    result = await work(ToolWorker(model, [add, echo]), mode)

    [answer] = tool_messages(model)
    assert (answer.status, answer.tool_call_id, answer.name) == ("error", "c1", "browse")
    assert answer.text == "unknown tool 'browse': the tools are add, echo"
    assert (result.output, result.evidence) == ("none", [])


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_arguments_are_refused_with_the_problems(mode: Mode) -> None:
    model = ScriptedChatModel([CallTools([("add", {"a": "two"})]), Reply("gave up")])

    result = await work(ToolWorker(model, [add]), mode)

    [answer] = tool_messages(model)
    assert answer.status == "error"
    assert answer.text == (
        "invalid arguments for tool 'add': "
        "a: Input should be a valid integer, unable to parse string as an integer; "
        "b: Field required"
    )
    assert result.evidence == []


class _Reading(BaseModel):
    value: int


@tool
def parse_reading(text: str) -> int:
    """Parse a reading (its own validation fails on bad text)."""
    return _Reading.model_validate({"value": text}).value


@pytest.mark.parametrize("mode", MODES)
async def test_a_tools_own_validation_error_is_a_failure_not_invalid_arguments(
    mode: Mode,
) -> None:
    """Only the tool's argument model refusing the call is "invalid arguments"; a validation
    error raised by the tool's work is that tool failing."""
    model = ScriptedChatModel([CallTools([("parse_reading", {"text": "x"})]), Reply("no")])

    await work(ToolWorker(model, [parse_reading]), mode)

    [answer] = tool_messages(model)
    assert answer.status == "error"
    assert answer.text.startswith("tool 'parse_reading' failed: ValidationError: 1 validation")


@pytest.mark.parametrize("mode", MODES)
async def test_unparsable_arguments_are_refused(mode: Mode) -> None:
    garbled = invalid_tool_call(name="add", args="{a: 1", id="c9", error="bad JSON")
    reply = AIMessage("", invalid_tool_calls=[garbled])
    model = ListModel(responses=[reply, AIMessage("fixed")])

    result = await work(ToolWorker(model, [add]), mode)

    [answer] = tool_messages(model)
    assert (answer.status, answer.tool_call_id) == ("error", "c9")
    assert answer.text == "invalid arguments for tool 'add': not a JSON object (bad JSON)"
    assert result.output == "fixed"


# -- outputs --------------------------------------------------------------------------------


@tool
def table(rows: int) -> dict[str, Any]:
    """A non-string output."""
    return {"rows": list(range(rows)), "name": "t"}


@tool
def cited(key: str) -> dict[str, Any]:
    """An output naming its own source."""
    return {"source": f"db:{key}", "text": f"value  of\n{key}", "score": 0.4}


@tool
def big(n: int) -> str:
    """A huge output."""
    return "x" * n


@pytest.mark.parametrize("mode", MODES)
async def test_outputs_are_rendered_capped_and_cited(mode: Mode) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("table", {"rows": 2}),
        ("cited", {"key": "k"}),
        ("big", {"n": 50}),
    ]
    model = ScriptedChatModel([CallTools(calls), Reply("ok")])

    result = await work(ToolWorker(model, [table, cited, big], max_output_chars=30), mode)

    rendered, own, capped = tool_messages(model)
    assert rendered.text == '{"rows": [0, 1], "name": "t"}'
    assert capped.text == "x" * 30 + "\n[truncated: 30 of 50 characters]"
    assert [(e.source, e.text, e.score) for e in result.evidence] == [
        (tool_source("big", {"n": 50}), "x" * 30 + " [truncated: 30 of 50 characters]", 1.0),
        (tool_source("table", {"rows": 2}), '{"rows": [0, 1], "name": "t"}', 1.0),
        ("db:k", "value of k", 0.4),
    ]
    assert own.text.startswith('{"source": "db:k"')


@pytest.mark.parametrize("mode", MODES)
async def test_passage_artifacts_are_the_evidence_best_per_source(mode: Mode) -> None:
    model = ScriptedChatModel([CallTools([("search", {"query": "q"})]), Reply("found")])

    result = await work(ToolWorker(model, [search], output_score=0.5), mode)

    assert [(e.source, e.text, e.score) for e in result.evidence] == [
        ("a.md:1", "a high", 0.9),
        ("b.md:1", "b high", 0.7),
        ("c.md:1", "c", 0.7),
    ]
    assert result.confidence == pytest.approx(0.9)
    assert tool_messages(model)[0].text == "4 passages for q"


def _artifact_tool(name: str, artifact: Any) -> BaseTool:
    def run() -> tuple[str, Any]:
        return "content", artifact

    return StructuredTool.from_function(
        run, name=name, description=name, response_format="content_and_artifact"
    )


def test_evidence_artifacts_and_the_confidence_is_clipped() -> None:
    tools = [
        _artifact_tool("records", [Evidence(source="e:1", text="one", score=1.5)]),
        _artifact_tool("nothing", []),
        _artifact_tool("mapping", {"source": "m:1"}),
        _artifact_tool("other", ["not", "evidence"]),
    ]
    calls: list[tuple[str, dict[str, Any]]] = [(t.name, {}) for t in tools]
    model = ScriptedChatModel([CallTools(calls), Reply("ok")])

    result = ToolWorker(model, tools).run(TASK, QUESTION, CONTEXT)

    assert [(e.source, e.text, e.score) for e in result.evidence] == [
        ("e:1", "one", 1.5),
        ("m:1", "content", 1.0),
        (tool_source("other", {}), "content", 1.0),
    ]
    assert result.confidence == 1.0


# -- concurrency ----------------------------------------------------------------------------


def _meeting_tools() -> list[BaseTool]:
    """Two tools that only succeed when both run at once; ``first`` also ends after ``second``."""
    barrier = threading.Barrier(2, timeout=WAIT_S)
    second_done = threading.Event()

    def first() -> str:
        """Meets second, then waits for it to end."""
        barrier.wait()
        return "first" if second_done.wait(WAIT_S) else "first alone"

    def second() -> str:
        """Meets first."""
        barrier.wait()
        second_done.set()
        return "second"

    return [tool(first), tool(second)]


@pytest.mark.parametrize("mode", MODES)
async def test_parallel_calls_run_together_and_answer_in_call_order(mode: Mode) -> None:
    model = ScriptedChatModel([CallTools([("first", {}), ("second", {})]), Reply("ok")])

    await work(ToolWorker(model, _meeting_tools()), mode)

    answers = tool_messages(model)
    assert [(m.text, m.status, m.tool_call_id) for m in answers] == [
        ("first", "success", "call_0_0"),
        ("second", "success", "call_0_1"),
    ]


async def test_parallel_async_tools_run_together() -> None:
    barrier = asyncio.Barrier(2)

    async def meet(who: str) -> str:
        """Waits for the other caller."""
        await asyncio.wait_for(barrier.wait(), WAIT_S)
        return f"{who} met"

    meet_tool = StructuredTool.from_function(coroutine=meet, name="meet", description="Meet.")
    model = ScriptedChatModel(
        [CallTools([("meet", {"who": "a"}), ("meet", {"who": "b"})]), Reply("ok")]
    )

    result = await ToolWorker(model, [meet_tool]).arun(TASK, QUESTION, CONTEXT)

    assert [m.text for m in tool_messages(model)] == ["a met", "b met"]
    assert len(result.evidence) == 2  # different arguments, different sources


# -- construction ---------------------------------------------------------------------------


def test_duplicate_tool_names_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"duplicate tool names \['add'\]"):
        ToolWorker(ScriptedChatModel(), [add, StructuredTool.from_function(reverse, name="add")])


def test_a_model_that_cannot_bind_tools_is_refused() -> None:
    model = GenericFakeChatModel(messages=iter([]))
    with pytest.raises(ConfigError, match="GenericFakeChatModel cannot bind tools"):
        ToolWorker(model, [add])


def _undocumented(text: str) -> str:
    return text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tools": []}, "at least one tool"),
        ({"tools": [_undocumented]}, "'_undocumented' cannot be a tool"),
        ({"tools": [42]}, "42 is not a tool"),
        ({"max_steps": 0}, "max_steps must be >= 1"),
        ({"tool_timeout_s": 0}, "timeout must be > 0"),
        ({"timeouts": {"nope": 1.0}}, r"timeouts name unknown tools \['nope'\]"),
        ({"max_output_chars": 0}, "max_output_chars must be >= 1"),
        ({"output_score": 2.0}, r"output_score must be in \[0, 1\]"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {"tools": [add], **kwargs}
    with pytest.raises(ConfigError, match=message):
        ToolWorker(ScriptedChatModel(), **settings)


# -- the daemon threads of sync calls ------------------------------------------------------


def test_the_pool_starts_threads_while_none_is_idle_and_ends_idle_ones() -> None:
    pool = DaemonPool(idle_s=0.01)
    barrier = threading.Barrier(3, timeout=WAIT_S)
    threads: list[threading.Thread] = []
    passed = threading.Semaphore(0)

    def meet() -> None:
        threads.append(threading.current_thread())
        barrier.wait()  # only opens with three jobs running at once: three threads
        passed.release()

    for _ in range(3):
        pool.submit(meet)
    assert all(passed.acquire(timeout=WAIT_S) for _ in range(3))
    for thread in threads:
        thread.join(WAIT_S)  # idle for 10 ms: it ends
    assert len(set(threads)) == 3
    assert all(thread.daemon and not thread.is_alive() for thread in threads)
    again = threading.Event()
    pool.submit(again.set)  # after every thread ended
    assert again.wait(WAIT_S)
