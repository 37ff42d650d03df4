"""MCP servers that cannot start, for cadre's MCP tests: ``python broken.py MODE``.

- ``exit``: writes a reason on stderr and exits with status 2 at once;
- ``silent``: reads stdin until it closes and never answers (an initialize times out);
- ``banner``: prints a banner on stdout (not JSON-RPC), then serves MCP over stdio.
"""

from __future__ import annotations

import sys


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "exit"
    if mode == "exit":
        sys.exit("broken: DEMO_API_KEY is not set")
    if mode == "silent":
        for _line in sys.stdin:
            pass
        return
    if mode == "banner":
        print("Welcome to the banner server 1.0", flush=True)
        from mcp.server.fastmcp import FastMCP

        server = FastMCP("banner", log_level="WARNING")

        @server.tool()
        def hello() -> str:
            """Say hello."""
            return "hello"

        server.run("stdio")
    sys.exit(f"broken: unknown mode {mode!r}")


if __name__ == "__main__":
    main()
