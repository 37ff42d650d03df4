"""The A2A project's conformance kit (TCK, github.com/a2aproject/a2a-tck) against a running
``cadre serve``: its mandatory category over the JSON-RPC binding, the only one cadre serves.

The TCK stays outside this repository: check it out and install it in a virtual environment of
its own (``python -m venv VENV && VENV/bin/pip install -e TCK``). The TCK reads the card at the
server's root (``/.well-known/agent-card.json``: the default team's) and sends its raw JSON-RPC
calls to the address it is given: the JSON-RPC endpoint that card names. The token (as a bearer
token) and the protocol version (:data:`VERSION`) go in the headers the TCK adds to each call.
docs/protocols.md records the last result.

Run: ``python bench/a2a_tck.py TCK_DIR http://127.0.0.1:8123 --token TOKEN
[--python VENV/bin/python] [--report FILE.json]``; it prints the TCK's pytest summary and
exits with the TCK's status (0: the mandatory category passed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import httpx

VERSION = {"A2A-Version": "1.0"}
"""The protocol version header, added to every request the TCK sends: it sends none of its own,
and A2A 1.0 reads a request without one as a 0.3 client's (which cadre does not serve)."""


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tck", type=Path, help="The TCK's checkout.")
    parser.add_argument("url", help="The server's address, e.g. http://127.0.0.1:8123.")
    parser.add_argument("--token", required=True, help="A cadre API token (scopes run,review).")
    parser.add_argument(
        "--python",
        type=Path,
        help="The Python of the TCK's virtual environment (default: TCK/.venv/bin/python).",
    )
    parser.add_argument(
        "--report", type=Path, help="Where to write pytest's JSON report (the TCK's reports/)."
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the TCK's mandatory category against the server; the TCK's exit status."""
    args = _arguments(argv)
    tck = args.tck.resolve()
    python = args.python or tck / ".venv" / "bin" / "python"
    if not (tck / "run_tck.py").is_file():
        sys.exit(f"{tck} is not a checkout of the A2A TCK (no run_tck.py)")
    if not python.is_file():
        sys.exit(f"{python} is not there: give the TCK's Python with --python")
    card = httpx.get(f"{args.url.rstrip('/')}/.well-known/agent-card.json", timeout=30)
    card.raise_for_status()
    [endpoint] = [
        interface["url"]
        for interface in card.json()["supportedInterfaces"]
        if interface["protocolBinding"] == "JSONRPC"
    ]
    command = [
        str(python),
        "run_tck.py",
        "--sut-url",
        endpoint,
        "--category",
        "mandatory",
        "--transports",
        "jsonrpc",
    ]
    if args.report is not None:
        command += ["--compliance-report", str(args.report.resolve())]
    headers = {"Authorization": f"Bearer {args.token}", **VERSION}
    environment = {**os.environ, "A2A_AUTH_HEADERS": json.dumps(headers)}
    return subprocess.run(command, cwd=tck, env=environment, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
