"""Every stream mode of ``runs.stream`` through ``langgraph-sdk`` (unmodified) against a real
``cadre serve``, in the shapes LangGraph's server sends and the SDK parses: ``messages``
(``messages/metadata``, ``messages/partial``, ``messages/complete``), ``messages-tuple``,
``events`` (astream_events v2), ``debug``, ``tasks`` and ``checkpoints``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph_sdk import get_client
from langgraph_sdk.schema import StreamPart

from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints written?"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    tmp_path = tmp_path_factory.mktemp("modes")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    with serve(tmp_path / "home", None, corpus=corpus, tokens={"ada": ("acme", "run")}) as s:
        yield s


def _streamed(served: Served, mode: str | list[str], **options: Any) -> tuple[str, list[Any]]:
    """A new thread's run streamed in ``mode``: the thread and the parts between metadata
    and end."""
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread_id, "meta", input={"question": QUESTION}, stream_mode=mode, **options
        )
    )
    assert parts[0].event == "metadata" and parts[-1].event == "end"
    assert not [p for p in parts if p.event == "error"]
    return thread_id, parts[1:-1]


def _answer(served: Served, thread_id: str) -> str:
    answer: str = served.client("ada").threads.get_state(thread_id)["values"]["final_answer"]
    return answer


def test_messages_come_as_metadata_then_partials_and_whole_messages(served: Served) -> None:
    thread_id, parts = _streamed(served, "messages")
    assert {p.event for p in parts} == {
        "messages/metadata",
        "messages/partial",
        "messages/complete",
    }
    metadata: dict[str, Any] = {}
    completed, partials = [], []
    for part in parts:
        if part.event == "messages/metadata":
            [(message_id, entry)] = part.data.items()
            metadata[message_id] = entry["metadata"]
            continue
        [message] = part.data
        assert message["id"] in metadata  # its metadata came first
        (partials if part.event == "messages/partial" else completed).append(message)
    assert completed and all(m["id"] not in {p["id"] for p in partials} for m in completed)
    last = [m["id"] for m in partials if metadata[m["id"]]["langgraph_node"] == "formatter"][-1]
    spoken = [m for m in partials if m["id"] == last]
    formatter = spoken[-1]  # a streamed message ends with its last partial, as LangGraph's
    assert formatter["type"] == "ai" and {m["name"] for m in spoken} == {"formatter"}
    assert formatter["content"] == _answer(served, thread_id)  # the answer, as a chat message
    assert metadata[formatter["id"]]["langgraph_node"] == "formatter"
    assert len(spoken) > 3  # it came a few words at a time, each the text so far
    assert all(formatter["content"].startswith(m["content"]) for m in spoken)
    with served.http("ada") as http:  # a mode LangGraph does not have is still refused
        answer = http.post(
            f"/threads/{thread_id}/runs/stream",
            json={"assistant_id": "meta", "stream_mode": "everything"},
        )
    assert answer.status_code == 422 and "stream_mode" in answer.json()["detail"]


def test_messages_tuple_pairs_each_message_with_its_metadata(served: Served) -> None:
    thread_id, parts = _streamed(served, "messages-tuple")
    assert {p.event for p in parts} == {"messages"}
    pairs = [p.data for p in parts]
    assert all(len(pair) == 2 for pair in pairs)
    message, metadata = pairs[-1]
    assert metadata["langgraph_node"] == "formatter"
    chunks = [m["content"] for m, _ in pairs if m["id"] == message["id"]]
    assert message["type"] == "AIMessageChunk" and len(chunks) > 3
    assert "".join(chunks) == _answer(served, thread_id)  # the answer, in chunks


def test_events_are_astream_events_v2(served: Served) -> None:
    _, parts = _streamed(served, ["events", "updates"])
    events = [p.data for p in parts if p.event == "events"]
    assert {"event", "name", "run_id", "data", "metadata"} <= set(events[0])
    assert (events[0]["event"], events[0]["name"]) == ("on_chain_start", "meta")
    assert (events[-1]["event"], events[-1]["name"]) == ("on_chain_end", "meta")
    started = {e["name"] for e in events if e["event"] == "on_chain_start"}
    assert {"intake", "research_team", "formatter"} <= started
    assert [p for p in parts if p.event == "updates"]  # the other modes still come


def test_tasks_start_and_end(served: Served) -> None:
    _, parts = _streamed(served, "tasks")
    assert {p.event for p in parts} == {"tasks"}
    started = {p.data["id"]: p.data for p in parts if "triggers" in p.data}
    ended = {p.data["id"]: p.data for p in parts if "result" in p.data}
    assert started and started.keys() == ended.keys()
    assert {"id", "name", "input", "triggers"} <= set(next(iter(started.values())))
    assert all(e["error"] is None and e["interrupts"] == [] for e in ended.values())
    assert "intake" in {t["name"] for t in started.values()}


def test_checkpoints_carry_config_and_checkpoint(served: Served) -> None:
    thread_id, parts = _streamed(served, "checkpoints")
    assert {p.event for p in parts} == {"checkpoints"}
    last = parts[-1].data
    assert {"config", "parent_config", "values", "metadata", "next", "tasks"} <= set(last)
    assert last["next"] == [] and last["values"]["final_answer"]
    state = served.client("ada").threads.get_state(thread_id)
    assert last["checkpoint"] == state["checkpoint"]
    assert last["config"]["configurable"]["checkpoint_id"] == state["checkpoint"]["checkpoint_id"]
    assert last["parent_checkpoint"] == state["parent_checkpoint"]


def test_debug_wraps_checkpoints_and_tasks(served: Served) -> None:
    _, parts = _streamed(served, "debug")
    assert {p.event for p in parts} == {"debug"}
    kinds = {p.data["type"] for p in parts}
    assert kinds == {"checkpoint", "task", "task_result"}
    assert all({"step", "timestamp", "type", "payload"} <= set(p.data) for p in parts)
    checkpoint = next(p.data["payload"] for p in parts if p.data["type"] == "checkpoint")
    assert checkpoint["checkpoint"]["checkpoint_id"]


def test_subgraph_messages_are_named_by_namespace_and_join_replays_them(
    served: Served,
) -> None:
    client = served.client("ada")
    thread_id, parts = _streamed(served, ["messages", "updates"], stream_subgraphs=True)
    named = [p.event for p in parts if p.event.startswith("messages/complete|")]
    assert named and all(e.split("|")[1].startswith("research_team:") for e in named)
    [run] = client.runs.list(thread_id)
    joined = list(client.runs.join_stream(thread_id, run["run_id"], stream_mode="messages"))
    assert [p.event for p in joined[1:-1]] == [
        p.event for p in parts if p.event.startswith("messages/")
    ]


def test_the_async_client_parses_stream_parts_v2(served: Served) -> None:
    async def stream() -> list[Any]:
        client = get_client(url=served.url, api_key=served.tokens["ada"])
        thread = await client.threads.create()
        return [
            part
            async for part in client.runs.stream(
                thread["thread_id"],
                "meta",
                input={"question": QUESTION},
                stream_mode=["messages", "tasks"],
                version="v2",
            )
        ]

    parts = asyncio.run(stream())
    types = {part["type"] for part in parts}
    assert {"metadata", "messages/metadata", "messages/complete", "tasks"} <= types
    assert all(part["ns"] == [] for part in parts)


def test_tokens_add_up_to_partial_messages() -> None:
    """A model's tokens (a model-backed team's) come as the message so far."""
    from framework.server.run_path.stream_modes import ApiEvents

    events = ApiEvents(["messages"], subgraphs=False)
    meta = {"langgraph_node": "formatter"}
    sent = []
    for token in ("Hel", "lo"):
        chunk = AIMessageChunk(content=token, id="m1")
        sent += events.of_chunk(("team:1",), "messages", (chunk, meta))
    sent += events.of_chunk((), "messages", (AIMessage(content="Hello", id="m1"), meta))
    names = [name for name, _ in sent]
    assert names == [
        "messages/metadata",
        "messages/partial",
        "messages/partial",
        "messages/complete",
    ]
    assert [data[0]["content"] for _, data in sent[1:]] == ["Hel", "Hello", "Hello"]
    assert sent[1][1][0]["type"] == "ai"  # the message so far, not a chunk
    assert StreamPart(event=names[0], data=sent[0][1]).data == {"m1": {"metadata": meta}}
