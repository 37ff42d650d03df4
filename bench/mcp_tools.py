"""MCP tool calls through cadre's toolbox: throughput and latency against a loopback server.

Starts the demo FastMCP server of the tests (``tests/mcp_servers/demo.py``) over each transport
(``stdio``: started by the toolbox; ``http``: a streamable HTTP server on 127.0.0.1 started
here), opens an :class:`framework.tools.mcp.McpToolbox` on it (untimed), and makes ``--calls``
calls of its ``echo`` tool, each with a text of its own, from ``--concurrency`` concurrent
callers:

- ``async``: asyncio tasks awaiting ``tool.ainvoke`` (an async graph's way);
- ``sync``: threads calling ``tool.invoke`` (a sync graph's way: LangGraph runs sync nodes on
  threads);
- ``sdk`` (the reference): asyncio tasks calling ``ClientSession.call_tool`` on a bare MCP SDK
  session of their own loop, without cadre or LangChain: what the SDK and the server allow.

Each run is checked: every call must come back with its own text; a call lost (no result), a
wrong result or an error is counted and fails the bench (exit 1). Reported per row: calls per
second over the run's wall time, and the p50 / p99 latency of one call as its caller saw it;
medians over ``--repeats`` runs (after one warm-up run), on one toolbox per transport, so one
persistent session serves every run.

Run: ``python bench/mcp_tools.py [--calls N] [--concurrency C] [--repeats K]
[--transports stdio,http] [--modes async,sync] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import selectors
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, contextmanager
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

from langchain_core.tools import BaseTool

from framework.tools.mcp import McpServer, McpToolbox

DEMO = Path(__file__).resolve().parent.parent / "tests" / "mcp_servers" / "demo.py"
TIMEOUT_S = 60.0
CALLERS = {
    "async": "asyncio tasks",
    "sync": "threads",
    "sdk": "bare SDK session (reference)",
}


@dataclass(frozen=True)
class Run:
    """One run's outcome: its wall time, each call's latency, and what did not come back."""

    wall_s: float
    latencies_s: list[float]
    lost: int
    wrong: int
    errors: list[str]

    @property
    def ok(self) -> bool:
        return not (self.lost or self.wrong or self.errors)


@dataclass(frozen=True)
class Row:
    transport: str
    mode: str
    calls: int
    concurrency: int
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    lost: int
    wrong: int
    errors: int
    start_s: float | None
    """How long the toolbox took to start the server and list its tools (untimed runs)."""
    first_error: str | None


def expected(index: int) -> str:
    return f"call-{index:05d}"


def account(results: dict[int, object], calls: int, wall_s: float, latencies: list[float]) -> Run:
    """Check every call's result: its own text back, or an error; nothing missing."""
    lost = sum(1 for index in range(calls) if index not in results)
    errors = [str(value) for value in results.values() if isinstance(value, BaseException)]
    wrong = sum(
        1
        for index, value in results.items()
        if not isinstance(value, BaseException) and value != expected(index)
    )
    return Run(wall_s, latencies, lost, wrong, errors)


async def run_async(tool: BaseTool, calls: int, concurrency: int) -> Run:
    """``calls`` calls from ``concurrency`` asyncio tasks, each taking the next index."""

    async def echo(text: str) -> object:
        return await tool.ainvoke({"text": text})

    return await run_tasks(echo, calls, concurrency)


async def run_tasks(echo: Callable[[str], Awaitable[object]], calls: int, concurrency: int) -> Run:
    results: dict[int, object] = {}
    latencies: list[float] = []
    indexes = iter(range(calls))

    async def caller() -> None:
        for index in indexes:
            began = time.perf_counter()
            try:
                results[index] = await echo(expected(index))
            except Exception as error:
                results[index] = error
            latencies.append(time.perf_counter() - began)

    began = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(concurrency)))
    return account(results, calls, time.perf_counter() - began, latencies)


def run_sync(tool: BaseTool, calls: int, concurrency: int) -> Run:
    """``calls`` calls from ``concurrency`` threads, each taking the next index."""
    results: dict[int, object] = {}
    latencies: list[float] = []
    indexes = iter(range(calls))
    lock = threading.Lock()

    def caller() -> None:
        while True:
            with lock:
                index = next(indexes, None)
            if index is None:
                return
            began = time.perf_counter()
            try:
                value: object = tool.invoke({"text": expected(index)})
            except Exception as error:
                value = error
            elapsed = time.perf_counter() - began
            with lock:
                results[index] = value
                latencies.append(elapsed)

    began = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        for future in [pool.submit(caller) for _ in range(concurrency)]:
            future.result()
    return account(results, calls, time.perf_counter() - began, latencies)


async def run_sdk(server: McpServer, calls: int, concurrency: int, repeats: int) -> list[Run]:
    """The reference: the same calls on a bare MCP SDK session (warm-up run, then repeats)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        if server.transport == "stdio":
            params = StdioServerParameters(command=server.command or "", args=server.args)
            read, write = await stack.enter_async_context(stdio_client(params))
        else:
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(server.url or "")
            )
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        await session.list_tools()

        async def echo(text: str) -> object:
            result = await session.call_tool("echo", {"text": text})
            block = result.content[0]
            return getattr(block, "text", block)

        runs = [await run_tasks(echo, calls, concurrency) for _ in range(repeats + 1)]
    return runs[1:]


@contextmanager
def http_server() -> Iterator[str]:
    """The demo server on 127.0.0.1 over streamable HTTP; yields its url."""
    process = subprocess.Popen(
        [sys.executable, str(DEMO), "--http"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            if not selector.select(TIMEOUT_S):
                raise SystemExit("the HTTP demo server announced no port")
        port = int(process.stdout.readline().decode().split()[1])
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


@contextmanager
def declared(transport: str) -> Iterator[McpServer]:
    limits = {"call_timeout_s": TIMEOUT_S, "start_timeout_s": TIMEOUT_S, "tools": ["echo"]}
    if transport == "stdio":
        yield McpServer(name="demo", command=sys.executable, args=[str(DEMO)], **limits)
        return
    with http_server() as url:
        yield McpServer(name="demo", transport="http", url=url, **limits)


def measure(transport: str, modes: list[str], args: argparse.Namespace) -> list[Row]:
    rows = []
    with declared(transport) as server:
        began = time.perf_counter()
        with McpToolbox([server]) as toolbox:
            start_s = time.perf_counter() - began
            (tool,) = toolbox.tools
            for mode in [mode for mode in modes if mode != "sdk"]:
                run: Callable[[], Run]
                if mode == "async":

                    def run() -> Run:
                        return asyncio.run(run_async(tool, args.calls, args.concurrency))
                else:

                    def run() -> Run:
                        return run_sync(tool, args.calls, args.concurrency)

                run()  # warm-up
                runs = [run() for _ in range(args.repeats)]
                rows.append(summarize(transport, mode, runs, args, start_s))
        if "sdk" in modes:
            runs = asyncio.run(run_sdk(server, args.calls, args.concurrency, args.repeats))
            rows.append(summarize(transport, "sdk", runs, args, None))
    return rows


def summarize(
    transport: str, mode: str, runs: list[Run], args: argparse.Namespace, start_s: float | None
) -> Row:
    def percentile(values: list[float], share: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]

    return Row(
        transport=transport,
        mode=mode,
        calls=args.calls,
        concurrency=args.concurrency,
        calls_per_s=statistics.median(args.calls / run.wall_s for run in runs),
        p50_ms=statistics.median(percentile(run.latencies_s, 0.50) for run in runs) * 1000,
        p99_ms=statistics.median(percentile(run.latencies_s, 0.99) for run in runs) * 1000,
        lost=sum(run.lost for run in runs),
        wrong=sum(run.wrong for run in runs),
        errors=sum(len(run.errors) for run in runs),
        start_s=start_s,
        first_error=next((error for run in runs for error in run.errors), None),
    )


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print the table; 1 when a call was lost, wrong or failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per run (1000)")
    parser.add_argument("--concurrency", type=int, default=100, help="concurrent callers (100)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per row (5)")
    parser.add_argument("--transports", default="stdio,http", help="stdio,http")
    parser.add_argument("--modes", default="async,sync,sdk", help="async,sync,sdk")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here too")
    args = parser.parse_args(argv)
    modes = [mode for mode in args.modes.split(",") if mode]
    transports = [transport for transport in args.transports.split(",") if transport]
    if set(modes) - set(CALLERS) or set(transports) - {"stdio", "http"}:
        parser.error("modes are async, sync, sdk; transports are stdio, http")

    print(
        f"Python {platform.python_version()}, mcp {metadata.version('mcp')}, "
        f"langchain-mcp-adapters {metadata.version('langchain-mcp-adapters')}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs; {args.calls} calls of `echo` from "
        f"{args.concurrency} concurrent callers, median of {args.repeats} runs\n"
    )
    print("| transport | callers | calls/s | p50 ms | p99 ms | lost | wrong | errors | start s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    rows: list[Row] = []
    for transport in transports:
        for row in measure(transport, modes, args):
            rows.append(row)
            print(
                f"| {row.transport} | {CALLERS[row.mode]} | {row.calls_per_s:,.0f} | "
                f"{row.p50_ms:.1f} | {row.p99_ms:.1f} | {row.lost} | {row.wrong} | "
                f"{row.errors} | {'-' if row.start_s is None else f'{row.start_s:.2f}'} |"
            )
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(row) for row in rows], indent=2) + "\n")
    failed = any(row.lost or row.wrong or row.errors for row in rows)
    if failed:
        first = next((row.first_error for row in rows if row.first_error), None)
        print(f"\nFAIL: some calls were lost, wrong or failed (first error: {first})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
