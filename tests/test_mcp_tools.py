"""Tools from MCP servers (framework.tools.mcp) against real FastMCP servers.

The servers are the scripts in ``tests/mcp_servers/``: started over stdio by the toolbox, or
started here as loopback streamable HTTP servers. Nothing of the protocol is mocked. Timeouts
that are meant to expire are small; the others are generous, and no test asserts on elapsed
time, so the tests hold under a loaded machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, ToolException
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, ToolError, ToolServerError
from framework.testing import CallTools, Reply, ScriptedChatModel
from framework.tools.mcp import McpServer, McpTool, McpToolbox, describe_tools
from framework.tools.worker import ToolWorker

SERVERS = Path(__file__).parent / "mcp_servers"
DEMO = SERVERS / "demo.py"
BROKEN = SERVERS / "broken.py"
DEMO_TOOLS = [
    "echo",
    "add",
    "forecast",
    "fail",
    "sleep",
    "sleepers",
    "pid",
    "traceparent",
    "crash",
    "garble",
]
SLOW = 120.0
"""A timeout that only a broken implementation reaches."""
DEADLINE_S = 60.0


def stdio_demo(name: str = "demo", **fields: Any) -> McpServer:
    fields.setdefault("call_timeout_s", SLOW)
    fields.setdefault("start_timeout_s", SLOW)
    return McpServer(name=name, command=sys.executable, args=[str(DEMO)], **fields)


def broken(mode: str, **fields: Any) -> McpServer:
    fields.setdefault("start_timeout_s", SLOW)
    return McpServer(
        name=f"broken-{mode}", command=sys.executable, args=[str(BROKEN), mode], **fields
    )


def by_name(toolbox: McpToolbox) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in toolbox.tools}


def call(name: str, args: dict[str, Any], call_id: str = "call-1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


async def until_in_flight(toolbox: McpToolbox, calls: int, server: str = "demo") -> None:
    """Wait until ``calls`` calls are sent to ``server`` and not answered yet."""
    deadline = time.monotonic() + DEADLINE_S
    while toolbox._links[server].in_flight < calls:
        assert time.monotonic() < deadline, f"{calls} calls never were in flight"
        await asyncio.sleep(0.01)


def gone(pid: int) -> bool:
    """Whether process ``pid`` is gone and reaped (a zombie still has its /proc entry)."""
    deadline = time.monotonic() + DEADLINE_S
    while Path(f"/proc/{pid}").exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# -- loopback HTTP servers ---------------------------------------------------------------------


class HttpDemo:
    """A demo server serving streamable HTTP on 127.0.0.1, as a subprocess of the test."""

    def __init__(self, port: int = 0) -> None:
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            [sys.executable, str(DEMO), "--http", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.port = self._announced_port()
        self._wait_accepting()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(DEADLINE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(DEADLINE_S)
        assert self.process.stdout is not None
        self.process.stdout.close()
        self.log.close()

    def _announced_port(self) -> int:
        stdout = self.process.stdout
        assert stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            if not selector.select(DEADLINE_S):
                self._fail("announced no port")
        line = stdout.readline().decode()
        if not line.startswith("PORT "):
            self._fail(f"announced {line!r}")
        return int(line.split()[1])

    def _wait_accepting(self) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5):
                    return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self._fail("never accepted a connection")
                time.sleep(0.05)

    def _fail(self, what: str) -> None:
        self.log.seek(0)
        errors = self.log.read().decode(errors="replace")[-2000:]
        self.stop(signal.SIGKILL)
        pytest.fail(f"the HTTP demo server {what}; its stderr: {errors}")


@contextmanager
def http_demo(port: int = 0) -> Iterator[HttpDemo]:
    server = HttpDemo(port)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """One HTTP demo server for the module's tests that leave it running."""
    with http_demo() as server:
        yield server.url


def http_server(url: str, name: str = "demo", **fields: Any) -> McpServer:
    fields.setdefault("call_timeout_s", SLOW)
    fields.setdefault("start_timeout_s", SLOW)
    return McpServer(name=name, transport="http", url=url, **fields)


@pytest.fixture(params=["stdio", "http"])
def demo(request: pytest.FixtureRequest) -> McpServer:
    """The demo server's declaration, over each transport."""
    if request.param == "stdio":
        return stdio_demo()
    return http_server(request.getfixturevalue("http_url"))


# -- declarations ------------------------------------------------------------------------------


def test_declarations_are_checked_with_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"MCP server 'files': .*needs a command"):
        McpServer(name="files")
    with pytest.raises(ConfigError, match=r"'web': .*needs a url"):
        McpServer(name="web", transport="http")
    with pytest.raises(ConfigError, match=r"command, args only apply to transport 'stdio'"):
        McpServer(name="web", transport="http", url="http://x/mcp", command="x", args=["y"])
    with pytest.raises(ConfigError, match=r"url only apply to transport 'http'"):
        McpServer(name="files", command="x", url="http://x/mcp")
    with pytest.raises(ConfigError, match=r"comand: unknown field"):
        McpServer.from_config({"name": "files", "comand": "x"})
    with pytest.raises(ConfigError, match=r"name: must start with a letter"):
        McpServer(name="my server", command="x")
    with pytest.raises(ConfigError, match=r"kinds: .*identifiers"):
        McpServer(name="files", command="x", kinds=["research worker"])
    with pytest.raises(ConfigError, match=r"call_timeout_s"):
        McpServer(name="files", command="x", call_timeout_s=0)
    with pytest.raises(ConfigError, match=r"must be a mapping"):
        McpServer.from_config(["files"])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"two MCP servers are named 'files'"):
        McpToolbox([McpServer(name="files", command="x"), {"name": "files", "command": "y"}])

    server = McpServer.from_config(
        {"name": "files", "command": "python", "args": ["s.py"], "kinds": ["research.worker"]}
    )
    assert (server.transport, server.tools, server.prefix) == ("stdio", None, False)
    assert server.kinds == ["research.worker"]
    assert McpServer.model_validate(server.model_dump()) == server
    secret = McpServer(name="web", transport="http", url="http://x/mcp", headers={"K": "s3cret"})
    assert "s3cret" not in repr(secret) and "s3cret" not in repr(stdio_demo(env={"K": "s3cret"}))


# -- listing and calls -------------------------------------------------------------------------


def test_tools_are_listed_with_their_argument_schemas(demo: McpServer) -> None:
    with McpToolbox([demo]) as toolbox:
        tools = by_name(toolbox)
        assert list(tools) == DEMO_TOOLS
        assert all(isinstance(tool, McpTool) for tool in tools.values())
        add = tools["add"]
        assert add.description == "Add two integers."
        assert add.tool_call_schema["properties"] == {  # type: ignore[index]
            "a": {"title": "A", "type": "integer"},
            "b": {"title": "B", "type": "integer"},
        }
        assert add.tool_call_schema["required"] == ["a", "b"]  # type: ignore[index]
        assert add.metadata is not None and add.metadata["mcp_server"] == "demo"

        described = {item.name: item for item in describe_tools(toolbox)}
        assert list(described) == DEMO_TOOLS
        forecast = described["forecast"]
        assert (forecast.server, forecast.server_tool) == ("demo", "forecast")
        assert forecast.input_schema["required"] == ["city"]
        assert forecast.input_schema["properties"]["days"]["default"] == 1
        assert forecast.output_schema is not None
        assert set(forecast.output_schema["properties"]) == {"city", "celsius", "sunny"}


def test_a_call_returns_the_text(demo: McpServer) -> None:
    with McpToolbox([demo]) as toolbox:
        tools = by_name(toolbox)
        assert tools["echo"].invoke({"text": "héllo"}) == "héllo"
        message = tools["add"].invoke(call("add", {"a": 2, "b": 40}))
        assert isinstance(message, ToolMessage)
        assert (message.content, message.tool_call_id, message.status) == (
            "42",
            "call-1",
            "success",
        )
        assert message.artifact == {"structured_content": {"result": 42}}


def test_a_structured_result_comes_as_the_artifact(demo: McpServer) -> None:
    with McpToolbox([demo]) as toolbox:
        message = by_name(toolbox)["forecast"].invoke(call("forecast", {"city": "Paris"}))
        assert isinstance(message, ToolMessage)
        assert message.artifact == {
            "structured_content": {"city": "Paris", "celsius": 21.5, "sunny": True}
        }
        assert '"city": "Paris"' in message.content


def test_the_allowlist_and_the_prefix() -> None:
    server = stdio_demo(tools=["add", "echo"], prefix=True)
    with McpToolbox([server]) as toolbox:
        tools = by_name(toolbox)
        assert list(tools) == ["demo_echo", "demo_add"]  # in the server's order
        assert tools["demo_add"].invoke({"a": 1, "b": 2}) == "3"
        assert [item.server_tool for item in describe_tools(toolbox)] == ["echo", "add"]

    toolbox = McpToolbox([stdio_demo(tools=["add", "multiply"])])
    with pytest.raises(ConfigError, match=r"'demo' has no tool named 'multiply'.*offers: add"):
        toolbox.start()
    assert toolbox._loop.thread is not None and not toolbox._loop.thread.is_alive()


def test_two_servers_with_one_tool_name_are_refused() -> None:
    servers = [stdio_demo("first", tools=["echo"]), stdio_demo("second", tools=["add", "echo"])]
    with pytest.raises(ConfigError, match=r"'first' and 'second' both expose a tool named 'echo'"):
        McpToolbox(servers).start()

    servers[1] = stdio_demo("second", tools=["add", "echo"], prefix=True)
    with McpToolbox(servers) as toolbox:
        assert list(by_name(toolbox)) == ["echo", "second_echo", "second_add"]
        assert by_name(toolbox)["second_echo"].invoke({"text": "b"}) == "b"


def test_tools_for_a_worker_kind() -> None:
    servers = [
        stdio_demo("any", tools=["echo"]),
        stdio_demo("only", tools=["add"], kinds=["research.worker"]),
    ]
    with McpToolbox(servers) as toolbox:
        assert [tool.name for tool in toolbox.tools_for("research.worker")] == ["echo", "add"]
        assert [tool.name for tool in toolbox.tools_for("critic")] == ["echo"]


# -- failures ----------------------------------------------------------------------------------


def test_a_tool_that_raises_on_the_server_is_a_tool_error(demo: McpServer) -> None:
    with McpToolbox([demo]) as toolbox:
        tools = by_name(toolbox)
        with pytest.raises(ToolError) as caught:
            tools["fail"].invoke({"message": "the disk is full"})
        assert not isinstance(caught.value, ToolException | ToolServerError)
        assert "'fail' on server 'demo'" in str(caught.value)
        assert "the disk is full" in str(caught.value)
        # a ToolCall fails the same way: no error message made here, the worker makes it
        with pytest.raises(ToolError, match="the disk is full"):
            tools["fail"].invoke(call("fail", {"message": "the disk is full"}))
        with pytest.raises(ToolError, match=r"(?s)'add' on server 'demo'.*b\s+Field required"):
            tools["add"].invoke({"a": 1})
        assert tools["echo"].invoke({"text": "still fine"}) == "still fine"


def test_a_call_past_its_timeout_is_a_tool_error(demo: McpServer) -> None:
    server = demo.model_copy(update={"call_timeout_s": 0.3})
    with McpToolbox([server]) as toolbox:
        tools = by_name(toolbox)
        before = patiently(tools["pid"])
        sleepers = json.loads(patiently(tools["sleepers"]))  # the HTTP server is shared
        with pytest.raises(ToolError) as caught:
            tools["sleep"].invoke({"seconds": 30})
        assert not isinstance(caught.value, ToolServerError)
        text = str(caught.value)
        assert "'sleep' on server 'demo'" in text and "0.3 s (call_timeout_s)" in text
        assert patiently(tools["pid"]) == before  # the same server, the session lives on
        one_more_cancelled(tools["sleepers"], sleepers)  # the server was told to stop it


def test_a_workers_tool_timeout_cancels_the_call_on_the_server(demo: McpServer) -> None:
    """An async worker that stops waiting for an MCP tool tells the server to stop the call."""
    with McpToolbox([demo]) as toolbox:
        tools = by_name(toolbox)
        sleepers = json.loads(patiently(tools["sleepers"]))
        model = ScriptedChatModel([CallTools([("sleep", {"seconds": 30})]), Reply("gave up")])
        worker = ToolWorker(model, [tools["sleep"]], tool_timeout_s=0.3)
        task = Task(id="t1", description="sleep")
        result = asyncio.run(worker.arun(task, "sleep?", NodeContext(node="w", team="t")))
        assert result.output == "gave up"
        one_more_cancelled(tools["sleepers"], sleepers)


def one_more_cancelled(sleepers_tool: BaseTool, before: dict[str, int]) -> None:
    """Wait until the demo server counts one more cancelled ``sleep`` and none still sleeping
    beyond ``before`` (up to a deadline)."""
    deadline = time.monotonic() + DEADLINE_S
    cancelled = {**before, "cancelled": before["cancelled"] + 1}
    while (counts := json.loads(patiently(sleepers_tool))) != cancelled:
        assert time.monotonic() < deadline, f"the server still sleeps: {counts}"
        time.sleep(0.05)


def patiently(tool: BaseTool) -> Any:
    """``tool.invoke({})``, tried again while it times out (a loaded machine can be slower
    than a short ``call_timeout_s``), up to a deadline."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        try:
            return tool.invoke({})
        except ToolError as error:
            if "call_timeout_s" not in str(error) or time.monotonic() > deadline:
                raise


def test_a_crashed_stdio_server_fails_its_calls_and_restarts() -> None:
    with McpToolbox([stdio_demo()]) as toolbox:
        tools = by_name(toolbox)
        first = int(tools["pid"].invoke({}))
        with pytest.raises(ToolServerError) as caught:
            tools["crash"].invoke({})
        text = str(caught.value)
        assert "MCP server 'demo' failed during the call to 'crash'" in text
        assert "the server process exited" in text and "crashing on purpose" in text
        assert "next call starts it again" in text
        assert gone(first)  # reaped, not a zombie

        second = int(tools["pid"].invoke({}))
        assert second != first
        assert tools["echo"].invoke({"text": "back"}) == "back"


async def test_a_crash_fails_every_call_in_flight_and_the_next_task_goes_on() -> None:
    async with McpToolbox([stdio_demo()]) as toolbox:
        tools = by_name(toolbox)
        first = int(await tools["pid"].ainvoke({}))
        sleepers = [
            asyncio.ensure_future(tools["sleep"].ainvoke({"seconds": 60})) for _ in range(5)
        ]
        await until_in_flight(toolbox, 5)
        outcomes = await asyncio.gather(
            tools["crash"].ainvoke({}), *sleepers, return_exceptions=True
        )
        assert all(isinstance(outcome, ToolServerError) for outcome in outcomes), outcomes
        assert "call to 'sleep'" in str(outcomes[-1])
        assert int(await tools["pid"].ainvoke({})) != first
        assert gone(first)


def test_an_http_server_that_dies_fails_the_call_and_is_reconnected_later() -> None:
    with http_demo() as server, McpToolbox([http_server(server.url)]) as toolbox:
        tools = by_name(toolbox)
        assert tools["echo"].invoke({"text": "up"}) == "up"
        with ThreadPoolExecutor(1) as pool:
            sleeping = pool.submit(tools["sleep"].invoke, {"seconds": 60})
            asyncio.run(until_in_flight(toolbox, 1))
            server.stop(signal.SIGKILL)
            with pytest.raises(ToolServerError) as caught:
                sleeping.result(DEADLINE_S)
        assert "MCP server 'demo' failed during the call to 'sleep'" in str(caught.value)
        assert "HTTP connection" in str(caught.value)

        with pytest.raises(ToolServerError, match=r"'demo' could not start: .*connect"):
            tools["echo"].invoke({"text": "down"})

        with http_demo(server.port):
            assert tools["echo"].invoke({"text": "up again"}) == "up again"


def test_a_server_writing_garbage_on_stdout_fails_the_call_not_hangs() -> None:
    with McpToolbox([stdio_demo()]) as toolbox:
        tools = by_name(toolbox)
        first = int(tools["pid"].invoke({}))
        with pytest.raises(ToolServerError) as caught:
            tools["garble"].invoke({})
        text = str(caught.value)
        assert "during the call to 'garble'" in text
        assert "not an MCP message: 'this is not JSON-RPC'" in text
        assert "must write only MCP messages on stdout" in text
        assert int(tools["pid"].invoke({})) != first
        assert gone(first)


def test_a_server_that_prints_a_banner_cannot_start() -> None:
    with pytest.raises(ToolServerError) as caught:
        McpToolbox([broken("banner")]).start()
    text = str(caught.value)
    assert "MCP server 'broken-banner' could not start" in text
    assert "'Welcome to the banner server 1.0'" in text
    assert "log only to stderr" in text


def test_a_bad_command_cannot_start() -> None:
    server = McpServer(name="ghost", command="/nonexistent/mcp-server", args=["--stdio"])
    with pytest.raises(ToolServerError) as caught:
        McpToolbox([server]).start()
    text = str(caught.value)
    assert "MCP server 'ghost' could not start: the command could not be run" in text
    assert "/nonexistent/mcp-server" in text and "Check its command" in text


def test_a_server_that_exits_at_once_says_why() -> None:
    with pytest.raises(ToolServerError) as caught:
        McpToolbox([broken("exit")]).start()
    text = str(caught.value)
    assert "MCP server 'broken-exit' could not start" in text
    assert "DEMO_API_KEY is not set" in text  # from its stderr
    assert "broken.py exit`" in text  # how to run it by hand


def test_a_server_that_never_answers_the_initialize_times_out() -> None:
    with pytest.raises(ToolServerError) as caught:
        McpToolbox([broken("silent", start_timeout_s=0.5)]).start()
    text = str(caught.value)
    assert "'broken-silent' could not start" in text
    assert "did not answer the MCP initialize within 0.5 s (start_timeout_s)" in text


def test_nothing_listening_at_the_url_cannot_start() -> None:
    with socket.socket() as reserved:  # bound, never listening: connections are refused
        reserved.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{reserved.getsockname()[1]}/mcp"
        with pytest.raises(ToolServerError) as caught:
            McpToolbox([http_server(url, name="web", start_timeout_s=5)]).start()
    text = str(caught.value)
    assert "MCP server 'web' could not start" in text and "connect" in text
    assert f"serves MCP at {url}" in text


def test_every_server_that_fails_is_named_and_the_good_one_is_closed() -> None:
    threads = set(threading.enumerate())
    toolbox = McpToolbox([stdio_demo(), broken("exit"), broken("banner")])
    with pytest.raises(ToolServerError) as caught:
        toolbox.start()
    text = str(caught.value)
    assert text.startswith("2 MCP servers could not start")
    assert "'broken-exit'" in text and "'broken-banner'" in text
    assert toolbox._loop.thread is not None and not toolbox._loop.thread.is_alive()
    assert _settled(threads)


# -- sync and async use, closing ---------------------------------------------------------------


async def test_async_use_with_many_concurrent_calls(demo: McpServer) -> None:
    async with McpToolbox([demo]) as toolbox:
        add = by_name(toolbox)["add"]
        sums = await asyncio.gather(*(add.ainvoke({"a": i, "b": 1}) for i in range(100)))
        assert sums == [str(i + 1) for i in range(100)]
        message = await add.ainvoke(call("add", {"a": 1, "b": 1}))
        assert isinstance(message, ToolMessage) and message.content == "2"


def test_sync_use_from_many_threads(demo: McpServer) -> None:
    with McpToolbox([demo]) as toolbox, ThreadPoolExecutor(16) as pool:
        echo = by_name(toolbox)["echo"]
        texts = list(pool.map(lambda i: echo.invoke({"text": f"t{i}"}), range(64)))
        assert texts == [f"t{i}" for i in range(64)]


class _State(TypedDict):
    text: str
    out: str


def test_a_graph_calls_the_tools_sync_and_async() -> None:
    with McpToolbox([stdio_demo()]) as toolbox:
        echo = by_name(toolbox)["echo"]

        def node(state: _State) -> dict[str, str]:
            return {"out": echo.invoke({"text": state["text"]})}

        graph = StateGraph(_State)
        graph.add_node("echo", node)
        graph.add_edge(START, "echo")
        graph.add_edge("echo", END)
        assert graph.compile().invoke({"text": "sync", "out": ""})["out"] == "sync"

        tool_graph = StateGraph(MessagesState)
        tool_graph.add_node("tools", ToolNode(toolbox.tools))
        tool_graph.add_edge(START, "tools")
        tool_graph.add_edge("tools", END)
        compiled = tool_graph.compile()
        request = AIMessage("", tool_calls=[call("add", {"a": 1, "b": 2}, "c1")])
        message = compiled.invoke({"messages": [request]})["messages"][-1]
        assert (message.content, message.tool_call_id) == ("3", "c1")
        message = asyncio.run(compiled.ainvoke({"messages": [request]}))["messages"][-1]
        assert (message.content, message.artifact) == ("3", {"structured_content": {"result": 3}})


def test_closing_reaps_the_servers_and_stops_the_thread() -> None:
    threads = set(threading.enumerate())
    toolbox = McpToolbox([stdio_demo("one"), stdio_demo("two", prefix=True)])
    with pytest.raises(ConfigError, match="exist while it is started"):
        _ = toolbox.tools
    with toolbox:
        tools = by_name(toolbox)
        pids = [int(tools["pid"].invoke({})), int(tools["two_pid"].invoke({}))]
        thread = toolbox._loop.thread
        assert thread is not None and thread.is_alive()
    assert all(gone(pid) for pid in pids)
    assert not thread.is_alive()
    assert _settled(threads)
    with pytest.raises(ToolServerError, match=r"'pid' of server 'one' cannot be called"):
        tools["pid"].invoke({})
    with pytest.raises(ToolServerError, match="cannot be called"):
        asyncio.run(tools["pid"].ainvoke({}))
    with pytest.raises(ConfigError, match="was closed"):
        toolbox.start()
    toolbox.close()  # idempotent


async def test_closing_with_calls_in_flight_fails_them() -> None:
    toolbox = await McpToolbox([stdio_demo()]).astart()
    sleep = by_name(toolbox)["sleep"]
    pid = int(await by_name(toolbox)["pid"].ainvoke({}))
    sleeping = asyncio.ensure_future(sleep.ainvoke({"seconds": 60}))
    await until_in_flight(toolbox, 1)
    await toolbox.aclose()
    with pytest.raises(ToolServerError, match="the toolbox was closed"):
        await sleeping
    assert gone(pid)


def _settled(before: set[threading.Thread]) -> bool:
    """Whether every thread started since ``before`` has ended (polled up to a deadline: the
    child watcher's threads end just after the processes they reap)."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not extra:
            return True
        if time.monotonic() > deadline:
            print("threads left:", extra, file=sys.stderr)
            return False
        time.sleep(0.05)


def test_server_environment_and_cwd_are_passed(tmp_path: Path) -> None:
    script = tmp_path / "env_server.py"
    script.write_text(
        "import os\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "server = FastMCP('env', log_level='WARNING')\n"
        "@server.tool()\n"
        "def where() -> str:\n"
        "    '''The working folder and DEMO_SETTING.'''\n"
        "    return os.getcwd() + ' ' + os.environ.get('DEMO_SETTING', '-')\n"
        "server.run('stdio')\n",
        encoding="utf-8",
    )
    server = McpServer(
        name="env",
        command=sys.executable,
        args=["env_server.py"],
        cwd=str(tmp_path),
        env={"DEMO_SETTING": "on"},
        start_timeout_s=SLOW,
    )
    with McpToolbox([server]) as toolbox:
        assert by_name(toolbox)["where"].invoke({}) == f"{os.path.realpath(tmp_path)} on"


def test_a_result_that_breaks_its_output_schema_is_a_tool_error() -> None:
    liar = McpServer(
        name="liar",
        command=sys.executable,
        args=[str(SERVERS / "liar.py")],
        start_timeout_s=SLOW,
        call_timeout_s=SLOW,
    )
    with McpToolbox([liar]) as toolbox:
        forecast = by_name(toolbox)["forecast"]
        for _ in range(2):  # the schema's validator is built once, then reused
            with pytest.raises(ToolError) as caught:
                forecast.invoke({"city": "Paris"})
            assert not isinstance(caught.value, ToolServerError)
            assert "'forecast' on server 'liar' answered wrongly" in str(caught.value)
            assert "does not match its output schema: 'warm' is not of type 'number'" in str(
                caught.value
            )
