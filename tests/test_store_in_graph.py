"""A LangGraph node written only against ``BaseStore`` reads and writes cadre's encrypted
store, on SQLite and PostgreSQL, and what it wrote is sealed at rest."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypedDict

import psycopg
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from framework.database.home import DataHome
from framework.engine.builder import compile_team
from framework.memory import SemanticStore
from framework.memory.langgraph_store import LangGraphStore
from framework.persistence.cipher import BlobCipher, row_identity
from framework.persistence.keys import Keyring
from tests.test_langgraph_store import WordEmbedder

SECRET_PREFERENCE = "prefers the night ferry to Skerry Island"


class State(TypedDict, total=False):
    user: str
    found: list[str]


def remember(state: State, runtime: Runtime[Any]) -> State:
    store: BaseStore | None = runtime.store
    assert store is not None
    store.put(("users", state["user"], "prefs"), "travel", {"text": SECRET_PREFERENCE})
    return {}


async def recall(state: State, runtime: Runtime[Any]) -> State:
    store = runtime.store
    assert store is not None
    hits = await store.asearch(("users", state["user"]), query="which ferry", limit=3)
    return {"found": [hit.value["text"] for hit in hits]}


def _graph() -> StateGraph[State, Any, State, State]:
    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    return graph


async def test_a_node_on_base_store_reads_and_writes_the_sealed_store(
    database: str | None, tmp_path: Path
) -> None:
    target = database or str(tmp_path / "memory.sqlite")
    cipher = BlobCipher(Keyring.generate())
    codec = cipher.bind(row_identity("memory", "memory"))
    with SemanticStore(target, embedder=WordEmbedder(), codec=codec) as semantic:
        app = compile_team(_graph(), store=LangGraphStore(semantic))
        result = await app.ainvoke({"user": "alice"})
        assert result["found"] == [SECRET_PREFERENCE]
        assert semantic.namespaces() == [("users", "alice", "prefs")]
    # reopened: still there, and nowhere in plaintext
    with SemanticStore(target, embedder=WordEmbedder(), codec=codec) as semantic:
        item = LangGraphStore(semantic).get(("users", "alice", "prefs"), "travel")
        assert item is not None and item.value == {"text": SECRET_PREFERENCE}
    raw = _raw_rows(database, tmp_path / "memory.sqlite")
    assert b"night ferry" not in raw and b"travel" not in raw


def _raw_rows(database: str | None, path: Path) -> bytes:
    """Every byte of the store: the SQLite file and its log, or every PostgreSQL row."""
    if database is None:
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return b"".join(p.read_bytes() for p in path.parent.glob("memory.sqlite*"))
    with psycopg.connect(database, options="-c search_path=cadre_memory") as conn:
        rows = conn.execute("SELECT * FROM items").fetchall()
    return repr(rows).encode() + b"".join(
        bytes(value) for row in rows for value in row if isinstance(value, bytes | memoryview)
    )


def test_a_launched_team_hands_its_nodes_the_store_as_a_langgraph_store(
    tmp_path: Path,
) -> None:
    from framework.runs.launch import LaunchRequest, launch
    from framework.runs.spec import RunSpec

    home = DataHome(root=tmp_path / "home")
    with launch(LaunchRequest(spec=RunSpec(team="research"), home=home)) as launched:
        assert isinstance(launched.app.store, LangGraphStore)
        assert launched.app.store.semantic is launched.store
