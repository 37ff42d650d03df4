"""A database outage never strands a run: PostgreSQL stopped for 15 s under running fleet
workers, and under ``cadre serve`` executing runs in its own process; every run ends, and
every thread takes a new run afterwards."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.fleet_lab import FleetLab
from bench.fleet_team import write_fleet_team
from framework.policy import Principal
from framework.server.langgraph_api._expiry import SWEEP_INTERVAL_S
from tests.conftest import new_database
from tests.postgres_server import PostgresServer, find_bin_dir, started_server
from tests.served import Served, start

OUTAGE_S = 15.0
ENDED_WITHIN_S = 300.0


@pytest.fixture
def server(postgres_server_url: str) -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own, to stop (skipped as the session's is)."""
    bin_dir = find_bin_dir()
    assert bin_dir is not None
    with started_server(bin_dir) as made:
        yield made


def _outage(server: PostgresServer) -> None:
    server.stop()
    time.sleep(OUTAGE_S)
    server.start()


def _wait_for(condition: object, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def _status(client: Any, thread_id: str, run_id: str) -> str | None:
    """The run's status; None while the server cannot say (it answers 5xx in an outage)."""
    try:
        return str(client.runs.get(thread_id, run_id)["status"])
    except httpx.HTTPError:
        return None


def test_fleet_runs_end_and_threads_take_new_runs_after_an_outage(
    tmp_path: Path, server: PostgresServer
) -> None:
    lab = FleetLab(tmp_path / "fleet", new_database(server.url), tasks=8, delay=0.5)
    try:
        workers = [lab.start_worker(concurrency=3) for _ in range(2)]
        rows = lab.submit(6)
        _wait_for(lambda: len(lab.calls()) >= 4, "no run got going")
        _outage(server)  # runs were executing: their checkpoint writes fail
        statuses = lab.wait_all(timeout=ENDED_WITHIN_S)
        assert statuses == {"success": 6}, statuses
        assert all(worker.alive() for worker in workers)
        for worker in workers:  # each heartbeat (every 2 s) met the 15 s outage: the table's lines
            log = worker.log.read_text()
            assert "Traceback" not in log
            assert re.search(
                r"^cadre worker: the database \S+ does not answer \(.+\): retrying in \d+ s$",
                log,
                re.MULTILINE,
            ), log
            assert re.search(r"^cadre worker: the database answers again$", log, re.MULTILINE)
        principal = Principal(user="bench", tenant="default", scopes=frozenset())
        again = [
            lab.submitter.submit(
                "fleety", {"question": "again"}, principal=principal, thread_id=row.thread_id
            )
            for row in rows
        ]
        lab.runs = again
        assert lab.wait_all(timeout=ENDED_WITHIN_S) == {"success": 6}
    finally:
        lab.close()


def test_served_runs_end_and_threads_take_new_runs_after_an_outage(
    tmp_path: Path, server: PostgresServer
) -> None:
    env = write_fleet_team(tmp_path / "team", tmp_path / "calls.txt", tasks=8, delay=0.5)
    served = Served(url="", home=tmp_path / "home", database=new_database(server.url))
    with start(served, env=env, options=["--workers", "4"]):
        client = served.client()
        threads = [client.threads.create()["thread_id"] for _ in range(4)]
        runs = [client.runs.create(thread, "fleety", input={"question": "q"}) for thread in threads]
        calls = tmp_path / "calls.txt"
        _wait_for(lambda: calls.exists() and len(calls.read_text().splitlines()) >= 4, "idle")
        _outage(server)
        for thread, run in zip(threads, runs, strict=True):
            _wait_for(
                lambda t=thread, r=run: _status(client, t, r["run_id"]) == "success",
                f"run {run['run_id']} never ended",
                ENDED_WITHIN_S,
            )
        for thread in threads:
            again = client.runs.wait(thread, "fleety", input={"question": "again"})
            assert again["final_answer"], again
        assert served.log is not None
        assert "the database went away" in served.log.read_text()


def test_an_outage_under_an_idle_server_is_two_log_lines_not_a_traceback_per_sweep(
    tmp_path: Path, server: PostgresServer
) -> None:
    """The sweep of expired threads runs every 5 s: an outage is one line with the retry
    schedule when the first sweep fails, one when a sweep succeeds again; no traceback."""
    served = Served(url="", home=tmp_path / "home", database=new_database(server.url))
    with start(served):
        assert served.log is not None
        log = served.log
        server.stop()
        _wait_for(lambda: "does not answer" in log.read_text(), "no sweep failed", 120)
        time.sleep(SWEEP_INTERVAL_S * 3)  # the outage goes on: sweeps keep failing meanwhile
        server.start()
        _wait_for(lambda: "answers again" in log.read_text(), "no sweep after the outage", 120)
        said = log.read_text()
    lines = [line for line in said.splitlines() if "expired threads" in line]
    assert len(lines) == 2, said
    assert re.search(
        r"cadre: the database does not answer \(.+\); the sweep of expired threads is tried "
        rf"again every {SWEEP_INTERVAL_S:g} s until it does$",
        lines[0],
    ), lines[0]
    assert re.search(
        r"cadre: the database \S+ answers again after \d+ s; expired threads are swept$", lines[1]
    ), lines[1]
    assert "Traceback" not in said, said
