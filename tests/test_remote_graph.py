"""LangGraph's ``RemoteGraph`` (``langgraph.pregel.remote``, unmodified) against a real
``cadre serve`` over HTTP on loopback: invoke, stream, state and history, a state update, a
review resumed with ``Command(resume=...)``, stateless runs (no thread id, also through
``langgraph-sdk``), and a RemoteGraph as a node of a local graph whose remote plan review is
resumed from the local graph."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from typing import Any, TypedDict

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.pregel.remote import RemoteGraph
from langgraph.types import Command

from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints written?"
PLAN_REVIEW = {"review": ["plan"]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    tmp_path = tmp_path_factory.mktemp("remote")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    tokens = {
        "ada": ("acme", "run,review"),
        "cal": ("acme", "run"),
        "bob": ("globex", "run,review"),
    }
    with serve(tmp_path / "home", None, corpus=corpus, tokens=tokens) as server:
        yield server


def _remote(served: Served, name: str = "ada", **config: Any) -> RemoteGraph:
    return RemoteGraph(
        "meta",
        url=served.url,
        api_key=served.tokens[name],
        config={"configurable": config} if config else None,
    )


def _until_gone(served: Served, thread_id: str) -> None:
    """Wait (a few seconds at most) until the thread is deleted."""
    with served.http("ada") as http:
        for _ in range(100):
            if http.get(f"/threads/{thread_id}").status_code == 404:
                return
            time.sleep(0.05)
    raise AssertionError(f"thread {thread_id} was not deleted")


def test_remote_graph_pauses_resumes_streams_and_reads_and_updates_state(
    served: Served,
) -> None:
    remote = _remote(served)
    assert "research_team" in remote.get_graph().nodes
    thread_id = served.client("ada").threads.create()["thread_id"]
    config = {"configurable": {"thread_id": thread_id, **PLAN_REVIEW}}

    paused = remote.invoke({"question": QUESTION}, config)
    [shown] = paused["__interrupt__"]
    assert shown["value"]["kind"] == "plan"
    state = remote.get_state(config)
    assert state.next == ("research_team",)
    assert [i.id for i in state.interrupts] == [shown["id"]]

    parts = list(remote.stream(Command(resume="approve"), config, stream_mode=["values"]))
    final = parts[-1].data  # a list of modes: StreamParts
    assert final["final_answer"]
    assert remote.get_state(config).next == ()
    history = list(remote.get_state_history(config, limit=50))
    assert any(h.next == ("research_team",) for h in history)

    updated = remote.update_state(config, {"final_answer": "edited by a reviewer"})
    assert updated["configurable"]["checkpoint_id"]
    assert remote.get_state(config).values["final_answer"] == "edited by a reviewer"

    with pytest.raises(httpx.HTTPStatusError) as refused:  # goto is not supported
        remote.invoke(Command(goto="planner"), config)
    assert refused.value.response.status_code == 422
    assert "goto" in refused.value.response.json()["detail"]


def test_remote_graph_streams_messages_as_tuples(served: Served) -> None:
    remote = _remote(served)
    thread_id = str(uuid.uuid4())  # RemoteGraph makes the thread (if_not_exists: create)
    config = {"configurable": {"thread_id": thread_id}}
    chunks = list(remote.stream({"question": QUESTION}, config, stream_mode="messages"))
    assert chunks and all(isinstance(chunk, tuple) and len(chunk) == 2 for chunk in chunks)
    answer = remote.get_state(config).values["final_answer"]
    spoken = [m for m, meta in chunks if meta["langgraph_node"] == "formatter"]
    assert {m["type"] for m in spoken} == {"AIMessageChunk"}  # the answer, a few words each
    assert len(spoken) > 1 and "".join(m["content"] for m in spoken) == answer


def test_stateless_runs_get_a_thread_of_their_own_deleted_unless_kept(served: Served) -> None:
    remote = _remote(served)
    before = {t["thread_id"] for t in served.client("ada").threads.search(limit=1000)}
    final = remote.invoke({"question": QUESTION})  # POST /runs/stream, no thread id
    assert final["final_answer"]

    client = served.client("ada")
    waited = client.runs.wait(None, "meta", input={"question": QUESTION})
    assert waited["final_answer"]
    parts = list(client.runs.stream(None, "meta", input={"question": QUESTION}))
    assert parts[0].event == "metadata" and parts[-1].event == "end"
    assert parts[-2].event == "values" and parts[-2].data["final_answer"]

    run = client.runs.create(None, "meta", input={"question": QUESTION})
    assert client.runs.join(run["thread_id"], run["run_id"])["final_answer"]
    _until_gone(served, run["thread_id"])
    after = {t["thread_id"] for t in client.threads.search(limit=1000)}
    deadline = time.monotonic() + 5
    while after != before and time.monotonic() < deadline:
        time.sleep(0.05)
        after = {t["thread_id"] for t in client.threads.search(limit=1000)}
    assert after == before  # every stateless run's thread is gone

    kept = client.runs.create(None, "meta", input={"question": QUESTION}, on_completion="keep")
    client.runs.join(kept["thread_id"], kept["run_id"])
    thread = client.threads.get(kept["thread_id"])
    assert thread["values"]["final_answer"]
    with served.http("bob") as http:  # the caller's tenant's thread: not another's
        assert http.get(f"/threads/{kept['thread_id']}").status_code == 404


def test_stateless_batches_and_cancelling_many(served: Served) -> None:
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    runs = client.runs.create_batch(
        [
            {"assistant_id": "meta", "input": {"question": QUESTION}, "on_completion": "keep"},
            {"assistant_id": "meta", "input": {"question": QUESTION}, "thread_id": thread_id},
        ]
    )
    assert runs[1]["thread_id"] == thread_id and runs[0]["thread_id"] != thread_id
    for run in runs:
        assert client.runs.join(run["thread_id"], run["run_id"])["final_answer"]
    client.runs.cancel_many(thread_id=thread_id, run_ids=[runs[1]["run_id"]])  # ended: no-op
    client.runs.cancel_many(status="all")
    client.runs.delete(thread_id, runs[1]["run_id"])
    assert client.runs.list(thread_id) == []
    with served.http("ada") as http:
        bad = http.post("/runs/batch", json=[{"assistant_id": "meta", "surprise": 1}])
        assert bad.status_code == 422 and "0.surprise" in bad.json()["detail"]
        missing = http.post("/runs/cancel", json={"run_ids": ["nope"]})
        assert missing.status_code == 404


class Local(TypedDict, total=False):
    question: str
    final_answer: str


def _local_graph(remote: RemoteGraph) -> Any:
    builder = StateGraph(Local)
    builder.add_node("research", remote)
    builder.add_edge(START, "research")
    return builder.compile(checkpointer=InMemorySaver())


def test_a_remote_graph_node_pauses_the_local_graph_and_resumes_its_remote_review(
    served: Served,
) -> None:
    local = _local_graph(_remote(served, **PLAN_REVIEW))
    thread_id = str(uuid.uuid4())  # the local thread's id names the remote thread too
    config = {"configurable": {"thread_id": thread_id}}

    paused = local.invoke({"question": QUESTION}, config)
    [interrupt] = paused["__interrupt__"]
    assert interrupt.value["kind"] == "plan"
    remote_state = served.client("ada").threads.get_state(thread_id)
    assert [i["id"] for i in remote_state["interrupts"]] == [interrupt.id]

    done = local.invoke(Command(resume={interrupt.id: "approve"}), config)
    assert done["final_answer"]
    remote_state = served.client("ada").threads.get_state(thread_id)
    assert remote_state["next"] == [] and remote_state["values"]["final_answer"]
    [decided] = [e for e in remote_state["values"]["audit"] if e["decision_kind"] == "approve"]
    assert decided["reviewer"] == "ada"


def test_a_remote_review_resumed_without_its_id_or_scope_is_refused(served: Served) -> None:
    local = _local_graph(_remote(served, **PLAN_REVIEW))
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    [interrupt] = local.invoke({"question": QUESTION}, config)["__interrupt__"]
    with pytest.raises(httpx.HTTPStatusError) as unkeyed:  # the value never reaches the node
        local.invoke(Command(resume="approve"), config)
    assert unkeyed.value.response.status_code == 422
    assert "interrupt_id" in unkeyed.value.response.json()["detail"]

    thread_id = config["configurable"]["thread_id"]
    node_resume = {"__pregel_resuming": True, "__pregel_resume_map": {interrupt.id: "approve"}}
    with pytest.raises(httpx.HTTPStatusError) as refused:  # a run-only token decides no review
        served.client("cal").runs.wait(
            thread_id,
            "meta",
            input={"question": QUESTION},
            config={"configurable": node_resume},
        )
    assert refused.value.response.status_code == 403
    state = served.client("ada").threads.get_state(thread_id)
    assert [i["id"] for i in state["interrupts"]] == [interrupt.id]  # still waiting


def test_the_async_remote_graph_does_the_same(served: Served) -> None:
    remote = _remote(served)

    async def drive() -> None:
        config = {"configurable": {"thread_id": str(uuid.uuid4()), **PLAN_REVIEW}}
        assert "research_team" in (await remote.aget_graph()).nodes
        [shown] = (await remote.ainvoke({"question": QUESTION}, config))["__interrupt__"]
        assert (await remote.aget_state(config)).next == ("research_team",)
        parts = [p async for p in remote.astream(Command(resume={shown["id"]: "approve"}), config)]
        assert "compliance_check" in parts[-1]  # updates, node by node
        history = [h async for h in remote.aget_state_history(config, limit=50)]
        assert history[0].values["final_answer"]
        await remote.aupdate_state(config, {"final_answer": "edited"})
        assert (await remote.aget_state(config)).values["final_answer"] == "edited"
        assert (await remote.ainvoke({"question": QUESTION}))["final_answer"]  # stateless

    asyncio.run(drive())
    thread_config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    stream = remote.stream_events({"question": QUESTION}, thread_config, version="v3")
    with pytest.raises(httpx.HTTPStatusError) as refused:  # the v3 thread protocol: not built
        stream.__enter__()
    assert refused.value.response.status_code == 501
