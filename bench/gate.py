"""What the gate costs a request: its own work per request against the request it guards.

A real ``cadre serve`` (tokens on, a fresh home, a free loopback port) answers ``GET
/threads/{id}`` to a ``langgraph-sdk``-speaking client over HTTP; in the same run the bench
times, in this process, what the gate does for such a request (resolving the caller is the
token lookup the server did before the gate existed; the gate adds the action's admission),
and for a run that continues a thread (admission, acting for the caller) and a state update
(the update checked against the state's keys and types). Each figure is the median of
``--repeats`` batches of ``--requests`` calls; the ratio is gate time over request time.

Target: the gate's share of a request within the request's own run-to-run noise (the spread of
the request medians).

Run: ``.venv/bin/python -m bench.gate [--requests 2000] [--repeats 5]`` (see
``docs/benchmarks/server.md``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from framework.engine.state import TeamState
from framework.runs.gate import Caller, acting_spec, admit, checked_update, run_action
from framework.runs.spec import RunSpec
from tests.served import serve

CHANNELS = ("question", "plan", "tasks", "final_answer", "messages", "branch:to:plan")
CALLER = Caller(tenant="acme", name="ada", scopes=frozenset({"run", "review"}))
SPEC = RunSpec(team="meta", review=("plan",), memory_scope=("tenant", "acme"))
UPDATE = {"final_answer": "forty-two", "question": "why?"}


def _per_call_us(work: Callable[[], object], calls: int) -> float:
    began = time.perf_counter()
    for _ in range(calls):
        work()
    return (time.perf_counter() - began) / calls * 1e6


def _admission() -> object:
    return admit(CALLER, run_action({"resume": "approve"}))


def _continued_run() -> object:
    return acting_spec(SPEC, admit(CALLER, "start_run"))


def _state_update() -> object:
    return checked_update(UPDATE, CHANNELS, TeamState, pending=0)


def _measure(
    works: dict[str, Callable[[], object]], requests: int, repeats: int
) -> dict[str, list[float]]:
    """Per-call µs of each work, ``repeats`` batches each, the works taking turns."""
    found: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(repeats):
        for name, work in works.items():
            found[name].append(_per_call_us(work, requests))
    return found


def _report(found: dict[str, list[float]], repeats: int) -> None:
    medians = {name: statistics.median(values) for name, values in found.items()}
    request_name = next(iter(found))
    request_us = medians[request_name]
    spread = max(found[request_name]) - min(found[request_name])
    print(f"| what | µs per call (median of {repeats}) | share of a request |")
    print("|---|---|---|")
    for name, value in medians.items():
        print(f"| {name} | {value:.1f} | {value / request_us:.4f} |")
    print(
        f"\nrequest noise: its medians spread over {spread:.1f} µs "
        f"({spread / request_us:.3f} of a request)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cadre-gate-") as folder:
        home = Path(folder) / "home"
        with serve(home, None, tokens={"ada": ("acme", "run,review")}) as served:
            headers = {"x-api-key": served.tokens["ada"]}
            with httpx.Client(base_url=served.url, headers=headers) as http:
                thread_id = http.post("/threads", json={}).json()["thread_id"]

                def request() -> object:
                    return http.get(f"/threads/{thread_id}").raise_for_status()

                for _ in range(200):  # warm the connection and the server's caches
                    request()
                works = {
                    "request: GET /threads/{id}": request,
                    "gate: admit a review decision": _admission,
                    "gate: a continued run (admit, act for the caller)": _continued_run,
                    "gate: a state update checked": _state_update,
                }
                found = _measure(works, args.requests, args.repeats)
    _report(found, args.repeats)


if __name__ == "__main__":
    main()
