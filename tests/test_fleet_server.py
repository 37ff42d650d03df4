"""``cadre serve --queue`` in front of ``cadre worker`` processes, driven by ``langgraph-sdk``:
a run waits, pauses for plan review, resumes after a decision (the continuation queued too),
streams events relayed through the database from whichever worker runs it, and is cancelled
across processes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.fleet_lab import FleetLab
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, make_tokens, start

QUESTION = "How are checkpoints written?"


@pytest.fixture
def fleet(
    tmp_path: Path, postgres_url: str, embedder: MiniLMEmbedder
) -> Iterator[tuple[Served, FleetLab]]:
    lab = FleetLab(tmp_path / "fleet", postgres_url, tasks=4, delay=1.0, max_parallel=1)
    for _ in range(2):
        lab.start_worker(concurrency=2)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    served = Served(url="", home=lab.home.root, database=postgres_url)
    served.tokens = make_tokens(served.home, postgres_url, {"ada": ("acme", "run,review")})
    try:
        with start(served, corpus=corpus, env=lab.env, options=["--queue"]):
            yield served, lab
    finally:
        lab.close()


def test_runs_through_the_queue_wait_review_stream_and_cancel(
    fleet: tuple[Served, FleetLab],
) -> None:
    served, lab = fleet
    client = served.client("ada")

    thread_id = client.threads.create()["thread_id"]
    config = {"configurable": {"review": ["plan"]}}
    waited = client.runs.wait(thread_id, "meta", input={"question": QUESTION}, config=config)
    [shown] = waited["__interrupt__"]
    assert shown["value"]["kind"] == "plan"
    assert client.threads.get(thread_id)["status"] == "interrupted"
    done = client.runs.wait(thread_id, "meta", command={"resume": "approve"})
    assert "checkpoint" in done["final_answer"].lower()
    runs = client.runs.list(thread_id)
    assert [run["status"] for run in runs] == ["success", "success"]

    refused = client.threads.create()["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as bad:
        client.runs.create(
            refused, "fleety", input={"question": "q"}, config={"configurable": {"priority": 0}}
        )
    assert bad.value.response.status_code == 422 and "priority" in bad.value.response.text
    assert client.runs.list(refused) == []  # nothing recorded, nothing queued

    streamed = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(streamed, "fleety", input={"question": "q"}, stream_mode="updates")
    )
    events = [part.event for part in parts]
    assert events[0] == "metadata" and parts[0].data["worker"]
    assert events.count("updates") >= 4  # planner, the workers, ... each as it happened

    slow = client.threads.create()["thread_id"]
    one_at_a_time = {"configurable": {"max_parallel": 1}}  # four calls of 1 s, in turn
    run = client.runs.create(slow, "fleety", input={"question": "slow"}, config=one_at_a_time)
    deadline = time.monotonic() + 60
    while client.runs.get(slow, run["run_id"])["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    client.runs.cancel(slow, run["run_id"])
    client.runs.join(slow, run["run_id"])
    assert client.runs.get(slow, run["run_id"])["status"] == "interrupted"
    assert len([c for c in lab.calls() if c.thread_id == slow]) < 4  # it stopped early


def test_a_worker_writing_a_runs_events_wakes_the_servers_followers(postgres_url: str) -> None:
    import asyncio

    from framework.database import open_database
    from framework.fleet.queued import _Listener
    from framework.server._tables import RUN_EVENTS_CHANNEL

    async def follow() -> None:
        listener = _Listener(postgres_url, asyncio.get_running_loop())
        waker = listener.waker("run-1")
        writer = open_database(postgres_url, schema="cadre_server")
        try:
            for _ in range(50):  # until the listener's LISTEN is in place
                writer.notify(RUN_EVENTS_CHANNEL, "run-1")
                try:
                    await asyncio.wait_for(waker.wait(), 0.2)
                    return
                except TimeoutError:
                    continue
            raise AssertionError("no notification reached the follower")
        finally:
            listener.close()
            writer.close()

    asyncio.run(follow())


def test_a_queued_run_continues_the_callers_trace_on_the_worker_that_runs_it(
    fleet: tuple[Served, FleetLab],
) -> None:
    """The trace a caller names at the door travels with the queued run to the fleet worker:
    the worker's run span is the caller's span's child, and every span of it is in its trace."""
    served, lab = fleet
    trace_id, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    with served.http("ada") as http:
        answer = http.post(
            "/runs/wait",
            json={"assistant_id": "fleety", "input": {"question": QUESTION}},
            headers={"traceparent": f"00-{trace_id}-{caller}-01"},
        )
    assert answer.status_code == 200, answer.text
    spans = [
        json.loads(line)
        for line in (served.home / "traces" / "spans.jsonl").read_text().splitlines()
        if line
    ]
    joined = [span for span in spans if span["trace_id"] == trace_id]
    [run] = [span for span in joined if span["parent_span_id"] == caller]
    assert run["name"] == "cadre.run"  # a worker's: with --queue the server runs nothing
    assert {span["attributes"].get("cadre.span.kind") for span in joined} >= {"run", "task"}
    assert all(worker.alive() for worker in lab.workers)
