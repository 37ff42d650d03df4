"""A small FastMCP server for cadre's MCP tests and benchmark.

Run ``python demo.py`` to serve over stdio, or ``python demo.py --http [--port N]`` to serve
streamable HTTP on 127.0.0.1 (port 0, the default, picks a free one). Over HTTP the server binds
its socket first and then prints ``PORT <n>`` on stdout, so a test knows where to connect
without racing another process for a free port.

Tools: ``echo``, ``add``, ``forecast`` (a structured result), ``fail`` (raises), ``sleep``,
``sleepers`` (how many sleep now, how many were cancelled), ``pid``, ``traceparent`` (the
W3C trace context the call came with in its ``_meta``), ``crash`` (the process exits mid-call)
and ``garble`` (writes a line that is not JSON-RPC on stdout, then never answers).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import time

from mcp.server.fastmcp import Context, FastMCP
from pydantic import BaseModel

server = FastMCP("demo", log_level="WARNING")


class Forecast(BaseModel):
    """The weather of a city."""

    city: str
    celsius: float
    sunny: bool


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def forecast(city: str, days: int = 1) -> Forecast:
    """Tomorrow's weather in a city (made up)."""
    return Forecast(city=city, celsius=20.5 + days, sunny=city != "London")


@server.tool()
def fail(message: str) -> str:
    """Always raise ValueError(message)."""
    raise ValueError(message)


SLEEPERS = {"sleeping": 0, "cancelled": 0}


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer (counted in ``sleepers``, and as cancelled if it is)."""
    SLEEPERS["sleeping"] += 1
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        SLEEPERS["cancelled"] += 1
        raise
    finally:
        SLEEPERS["sleeping"] -= 1
    return f"slept {seconds}"


@server.tool()
def sleepers() -> dict[str, int]:
    """How many ``sleep`` calls are sleeping now, and how many were cancelled."""
    return dict(SLEEPERS)


@server.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@server.tool()
def traceparent(ctx: Context) -> str:  # type: ignore[type-arg]
    """The ``traceparent`` of this call's ``_meta`` (empty without one)."""
    meta = ctx.request_context.meta
    return str(getattr(meta, "traceparent", "") or "")


@server.tool()
def crash(code: int = 3) -> str:
    """Exit the server process at once, mid-call."""
    sys.stderr.write("demo: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(code)


@server.tool()
def garble() -> str:
    """Write a line that is not JSON-RPC on stdout, then never answer."""
    os.write(1, b"this is not JSON-RPC\n")
    time.sleep(3600)
    return "unreachable"


def serve_http(port: int) -> None:
    """Serve streamable HTTP on 127.0.0.1:port from a socket bound here, announced on stdout."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    parser.add_argument("--port", type=int, default=0, help="HTTP port (0: any free one)")
    options = parser.parse_args()
    if options.http:
        serve_http(options.port)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
