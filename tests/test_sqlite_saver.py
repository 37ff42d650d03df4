"""cadre's SQLite checkpointer: team runs round-trip, resume, refuse altered rows, keep secrets
out of the file, and rotate keys. Storage growth and deltas: ``test_sqlite_saver_storage.py``."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from bench.storage import reviewer_loop
from framework.engine.builder import build_team, compile_team
from framework.engine.records import ReviewVerdict, Task, WorkerResult
from framework.errors import (
    ConfigError,
    PlaintextBlobError,
    TamperError,
    UnknownKeyError,
    WrongKeyError,
)
from framework.memory import Corpus
from framework.persistence.checkpointer import RECORD_TYPES, default_serializer
from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring, retire, rotate
from framework.persistence.saver import (
    PUBLIC_METADATA_KEYS,
    UNREADABLE,
    CadreSaver,
    key_usage,
    reencrypt_all,
)
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from teams.research import build_research_team, offline_roles
from tests.roles import ProgrammableWorker, ScriptedReviewer, make_roles

Graph = CompiledStateGraph[Any, Any, Any, Any]
QUESTION = "what is cadre?"


def keyring(*ids: str) -> Keyring:
    """A keyring of fresh random keys, the first primary."""
    return Keyring(primary=ids[0], keys={key_id: os.urandom(32) for key_id in ids})


def config(thread_id: str) -> Any:
    return {"configurable": {"thread_id": thread_id}}


@pytest.fixture(params=["plain", "encrypted"])
def cipher(request: pytest.FixtureRequest) -> BlobCipher | None:
    return BlobCipher(keyring("k1")) if request.param == "encrypted" else None


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def team(saver: CadreSaver, reviewer: ScriptedReviewer | None = None, **kw: Any) -> Graph:
    roles = make_roles(worker=kw.pop("worker", None), reviewer=reviewer)
    return compile_team(build_team(roles), checkpointer=saver, **kw)


def invoke(app: Graph, mode: str, inputs: Any, thread_id: str) -> dict[str, Any]:
    if mode == "sync":
        return app.invoke(inputs, config(thread_id))  # type: ignore[no-any-return]
    return asyncio.run(app.ainvoke(inputs, config(thread_id)))  # type: ignore[no-any-return]


def state_of(app: Graph, mode: str, thread_id: str) -> Any:
    if mode == "sync":
        return app.get_state(config(thread_id))
    return asyncio.run(app.aget_state(config(thread_id)))


# -- round trips and resume --------------------------------------------------------------------


def test_team_state_round_trips_with_cadre_records(
    tmp_path: Path, cipher: BlobCipher | None, mode: str
) -> None:
    path = tmp_path / "checkpoints.sqlite"
    reviewer = ScriptedReviewer(
        [
            ReviewVerdict(decision="retry_workers", retry_task_ids=["t1"]),
            ReviewVerdict(decision="dispatch", new_tasks=[Task(id="n1", description="more")]),
        ]
    )
    with CadreSaver(path, cipher) as saver:
        app = team(saver, reviewer)
        final = invoke(app, mode, {"question": QUESTION}, "t")
        assert state_of(app, mode, "t").values == final
        history = [snapshot.values for snapshot in app.get_state_history(config("t"))]
    assert set(final["worker_results"]) == {"t0", "t1", "t2", "n1"}
    assert all(isinstance(r, WorkerResult) for r in final["worker_results"].values())
    assert all(isinstance(t, Task) for t in final["tasks"].values())
    assert final["final_answer"].startswith("ANSWER")
    with CadreSaver(path, cipher) as reopened:  # another process, nothing remembered
        app = team(reopened)
        assert app.get_state(config("t")).values == final
        assert [snapshot.values for snapshot in app.get_state_history(config("t"))] == history


def test_run_paused_at_an_interrupt_resumes_from_a_new_saver(
    tmp_path: Path, cipher: BlobCipher | None, mode: str
) -> None:
    path = tmp_path / "checkpoints.sqlite"
    with CadreSaver(path, cipher) as saver:
        app = team(saver, interrupt_before=["reviewer"])
        invoke(app, mode, {"question": QUESTION}, "paused")
        assert state_of(app, mode, "paused").next == ("reviewer",)
    worker = ProgrammableWorker()
    with CadreSaver(path, cipher) as saver:
        app = team(saver, worker=worker, interrupt_before=["reviewer"])
        final = invoke(app, mode, None, "paused")
        assert state_of(app, mode, "paused").next == ()
    assert final["final_answer"].startswith("ANSWER")
    assert set(final["worker_results"]) == {"t0", "t1", "t2"}
    assert worker.calls == []  # the checkpointed results were not computed again


def test_async_graph_can_use_the_saver(tmp_path: Path) -> None:
    async def go() -> dict[str, Any]:
        with CadreSaver(tmp_path / "a.sqlite", BlobCipher(keyring("k1"))) as saver:
            app = team(saver)
            final: dict[str, Any] = await app.ainvoke({"question": QUESTION}, config("a"))
            assert (await app.aget_state(config("a"))).values == final
            assert len([s async for s in app.aget_state_history(config("a"))]) > 5
            return final

    assert asyncio.run(go())["final_answer"].startswith("ANSWER")


def test_nested_team_keeps_its_checkpoints_in_their_namespace(
    tmp_path: Path, small_corpus: Corpus
) -> None:
    path, cipher = tmp_path / "meta.sqlite", BlobCipher(keyring("k1"))
    research = build_research_team(offline_roles(small_corpus, small_corpus.store))
    meta = build_meta_coordinator(research, EvidenceRisk(), CitationCompliance())
    with CadreSaver(path, cipher) as saver:
        app = compile_team(meta, checkpointer=saver, interrupt_after=["research_team"])
        app.invoke({"question": "How do workers retry transient errors?"}, config("meta"))
        assert app.get_state(config("meta")).next == ("risk_assessment",)
        namespaces = {t.config["configurable"]["checkpoint_ns"] for t in saver.list(config("meta"))}
    assert any(ns.startswith("research_team:") for ns in namespaces)
    with CadreSaver(path, cipher) as saver:
        app = compile_team(meta, checkpointer=saver, interrupt_after=["research_team"])
        state = app.invoke(None, config("meta"))
    assert "docs/retries.md:3" in state["final_answer"]
    assert set(state["findings"]) == {"intake", "risk_assessment", "compliance_check"}


# -- refusals at the row level -----------------------------------------------------------------


@pytest.fixture
def two_threads(tmp_path: Path) -> Iterator[tuple[Path, Keyring]]:
    """An encrypted database with the bench's reviewer loop run on threads ``a`` and ``b``."""
    path, ring = tmp_path / "enc.sqlite", keyring("k1")
    with CadreSaver(path, BlobCipher(ring)) as saver:
        for thread_id in ("a", "b"):
            app = reviewer_loop().compile(checkpointer=saver)
            app.invoke({"question": "q", "iterations": 3}, config(thread_id))
    yield path, ring


def raw(path: Path, sql: str, *params: Any) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(sql, params)


def latest(thread_id: str) -> str:
    return (
        f"(SELECT max(checkpoint_id) FROM cadre_checkpoints WHERE thread_id = '{thread_id}' "
        "AND checkpoint_ns = '')"
    )


def latest_notes(thread_id: str) -> str:
    return (
        f"(SELECT max(version) FROM cadre_blobs WHERE thread_id = '{thread_id}' "
        "AND channel = 'notes')"
    )


ALTERATIONS = {
    "checkpoint row copied to another thread": (
        "INSERT INTO cadre_checkpoints SELECT 'c', checkpoint_ns, checkpoint_id, parent_id, "
        "metadata, body FROM cadre_checkpoints WHERE thread_id = 'a'",
        "c",
    ),
    "checkpoint body of thread a over thread b's": (
        "UPDATE cadre_checkpoints SET body = (SELECT body FROM cadre_checkpoints WHERE "
        f"thread_id = 'a' AND checkpoint_id = {latest('a')}) WHERE thread_id = 'b' "
        f"AND checkpoint_id = {latest('b')}",
        "b",
    ),
    "channel value of thread a over thread b's": (
        "UPDATE cadre_blobs SET value = (SELECT value FROM cadre_blobs WHERE thread_id = 'a' "
        f"AND channel = 'notes' AND version = {latest_notes('a')}) WHERE thread_id = 'b' "
        f"AND channel = 'notes' AND version = {latest_notes('b')}",
        "b",
    ),
    "channel value moved to another version": (
        "UPDATE cadre_blobs SET value = (SELECT value FROM cadre_blobs WHERE thread_id = 'b' "
        "AND channel = 'draft' ORDER BY version LIMIT 1) WHERE thread_id = 'b' "
        "AND channel = 'draft' AND version = (SELECT max(version) FROM cadre_blobs "
        "WHERE thread_id = 'b' AND channel = 'draft')",
        "b",
    ),
    "delta pointed at another base": (
        "UPDATE cadre_blobs SET base_version = (SELECT min(version) FROM cadre_blobs WHERE "
        "thread_id = 'b' AND channel = 'notes') WHERE thread_id = 'b' AND channel = 'notes' "
        f"AND version = {latest_notes('b')}",
        "b",
    ),
    "plaintext metadata column edited": (
        "UPDATE cadre_checkpoints SET metadata = json_set(metadata, '$.step', 99) "
        f"WHERE thread_id = 'b' AND checkpoint_id = {latest('b')}",
        "b",
    ),
    "pending write moved to another task": (
        "UPDATE cadre_writes SET task_id = 'someone-else' WHERE thread_id = 'b'",
        "b",
    ),
}


@pytest.mark.parametrize("alteration", list(ALTERATIONS))
def test_altered_or_moved_rows_are_tamper(
    two_threads: tuple[Path, Keyring], alteration: str
) -> None:
    path, ring = two_threads
    sql, thread_id = ALTERATIONS[alteration]
    raw(path, sql)
    with CadreSaver(path, BlobCipher(ring)) as saver:
        with pytest.raises(TamperError):
            for _ in saver.list(config(thread_id)):  # every checkpoint, with its writes
                pass
        assert saver.get_tuple(config("a")) is not None  # thread a is untouched


def test_plaintext_row_in_an_encrypted_database_is_refused(
    two_threads: tuple[Path, Keyring],
) -> None:
    path, ring = two_threads
    frame = b"\x07msgpack" + b"\xa5hello"  # what a plaintext database would store
    raw(path, "UPDATE cadre_blobs SET value = ? WHERE channel = 'notes' AND thread_id = 'b'", frame)
    with CadreSaver(path, BlobCipher(ring)) as saver, pytest.raises(PlaintextBlobError):
        saver.get_tuple(config("b"))
    with CadreSaver(path, BlobCipher(ring)) as saver:
        assert key_usage(saver)[UNREADABLE] > 0


def test_wrong_key_and_unknown_key_are_named(two_threads: tuple[Path, Keyring]) -> None:
    path, _ = two_threads
    same_id_other_key = BlobCipher(keyring("k1"))
    with (
        CadreSaver(path, same_id_other_key) as saver,
        pytest.raises(WrongKeyError, match="'k1'"),
    ):
        saver.get_tuple(config("a"))
    with (
        CadreSaver(path, BlobCipher(keyring("k9"))) as saver,
        pytest.raises(UnknownKeyError, match="'k1'"),
    ):
        saver.get_tuple(config("a"))


def test_database_refuses_to_be_opened_the_other_way(tmp_path: Path) -> None:
    encrypted, plain = tmp_path / "enc.sqlite", tmp_path / "plain.sqlite"
    CadreSaver(encrypted, BlobCipher(keyring("k1"))).close()
    CadreSaver(plain).close()
    with pytest.raises(ConfigError, match="is encrypted; open it with its keys"):
        CadreSaver(encrypted)
    with pytest.raises(ConfigError, match="created without encryption"):
        CadreSaver(plain, BlobCipher(keyring("k1")))
    raw(plain, "UPDATE cadre_meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(ConfigError, match="schema '99'"):
        CadreSaver(plain)
    notes = tmp_path / "notes.sqlite"
    notes.write_text("not a database " * 100)
    with pytest.raises(ConfigError, match="is not a SQLite database"):
        CadreSaver(notes)


# -- nothing secret in the file ----------------------------------------------------------------

SECRET_QUESTION = "How are checkpoints encrypted for project NIGHTJAR-7731, and who reviews?"
SECRET_CONFIG = {"api_user": "alice.secret-user-4242", "tenant": "tenant-ZEBRA-0091"}
SECRET_METADATA = {"requester": "requester-OCELOT-5510"}


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a state value (records, dicts, lists), long enough to be telling."""
    if isinstance(value, str):
        if len(value) >= 12:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple | set):
        for item in value:
            yield from strings_in(item)
    elif hasattr(value, "model_dump"):
        yield from strings_in(value.model_dump())


def research_run(
    path: Path, corpus: Corpus, cipher: BlobCipher | None
) -> tuple[dict[str, Any], set[str]]:
    """Run the offline research team; its final state and the ids of its checkpoints."""
    with CadreSaver(path, cipher) as saver:
        app = compile_team(
            build_research_team(offline_roles(corpus, corpus.store)), checkpointer=saver
        )
        run_config: Any = {
            "configurable": {"thread_id": "research", **SECRET_CONFIG},
            "metadata": SECRET_METADATA,
        }
        state: dict[str, Any] = app.invoke({"question": SECRET_QUESTION}, run_config)
        tup = saver.get_tuple(config("research"))
        assert tup is not None
        assert tup.metadata["api_user"] == SECRET_CONFIG["api_user"]  # merged back on read
        assert tup.metadata["requester"] == SECRET_METADATA["requester"]
        ids = {t.config["configurable"]["checkpoint_id"] for t in saver.list(None)}
    return state, ids


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_no_question_configurable_or_state_value_in_the_encrypted_file(
    tmp_path: Path, small_corpus: Corpus
) -> None:
    plain = tmp_path / "plain.sqlite"
    research_run(plain, small_corpus, None)
    assert SECRET_QUESTION.encode() in file_bytes(plain)  # the check sees plaintext

    path = tmp_path / "enc.sqlite"
    state, checkpoint_ids = research_run(path, small_corpus, BlobCipher(keyring("k1")))
    data = file_bytes(path)
    secrets = {SECRET_QUESTION, *SECRET_CONFIG.values(), *SECRET_METADATA.values()}
    values = set(strings_in(state)) - checkpoint_ids  # ids are plaintext by design (provenance)
    assert len(values) > 10 and state["final_answer"] in values
    leaked = sorted(s for s in secrets | values if s.encode() in data)
    assert leaked == []
    with closing(sqlite3.connect(path)) as conn:
        columns = [
            json.loads(row[0]) for row in conn.execute("SELECT metadata FROM cadre_checkpoints")
        ]
    assert {key for metadata in columns for key in metadata} <= set(PUBLIC_METADATA_KEYS)


# -- metadata allowlist ------------------------------------------------------------------------


def test_metadata_column_keeps_only_the_allowlist(
    tmp_path: Path, cipher: BlobCipher | None
) -> None:
    path = tmp_path / "m.sqlite"
    with CadreSaver(path, cipher) as saver:
        app = reviewer_loop().compile(checkpointer=saver)
        run_config: Any = {
            "configurable": {"thread_id": "m", "user": "secret-user"},
            "metadata": {"cadre_team": "research", "score": 7},
        }
        app.invoke({"question": "q", "iterations": 2}, run_config)
        with closing(sqlite3.connect(path)) as conn:
            stored = [
                json.loads(r[0]) for r in conn.execute("SELECT metadata FROM cadre_checkpoints")
            ]
        assert {key for metadata in stored for key in metadata} == {"source", "step", "parents"}
        listed = list(saver.list(config("m")))
        assert all(t.metadata["user"] == "secret-user" for t in listed)
        assert all(
            t.metadata["cadre_team"] == "research" and t.metadata["score"] == 7 for t in listed
        )
        assert len(list(saver.list(config("m"), filter={"user": "secret-user"}))) == len(listed)
        assert list(saver.list(config("m"), filter={"user": "someone-else"})) == []
        inputs = list(saver.list(config("m"), filter={"source": "input"}))
        assert [t.metadata["step"] for t in inputs] == [-1]
        two = list(saver.list(None, filter={"user": "secret-user", "source": "loop"}, limit=2))
        assert [t.metadata["step"] for t in two] == [4, 3]


# -- keys: status, rotation, re-encryption -----------------------------------------------------


def test_rotate_reencrypt_then_retire_leaves_every_thread_readable(tmp_path: Path) -> None:
    path, ring = tmp_path / "keys.sqlite", keyring("k1")
    threads = [f"thread-{i}" for i in range(4)]
    with CadreSaver(path, BlobCipher(ring)) as saver:
        for thread_id in threads:
            run_loop_on(saver, thread_id)
        before = {t: saver.get_tuple(config(t)).checkpoint["channel_values"] for t in threads}  # type: ignore[union-attr]
        total = sum(key_usage(saver).values())
        assert key_usage(saver) == {"k1": total}
    rotated = rotate(ring, "k2")
    with CadreSaver(path, BlobCipher(rotated)) as saver:
        run_loop_on(saver, "after-rotation")  # new blobs under k2, old ones still under k1
        usage = key_usage(saver)
        assert usage["k1"] == total and usage["k2"] > 0
        _interrupt_after(saver, calls=total // 3)  # a killed re-encryption keeps its batches
        partial = key_usage(saver)
        assert 0 < partial["k1"] < total
        done = reencrypt_all(saver, batch=7)
        assert done == partial["k1"]
        assert key_usage(saver) == {"k2": sum(usage.values())}
        assert reencrypt_all(saver) == 0  # nothing left: a rerun is a no-op
    with CadreSaver(path, BlobCipher(retire(rotated, "k1"))) as saver:
        for thread_id in threads:
            tup = saver.get_tuple(config(thread_id))
            assert tup is not None and tup.checkpoint["channel_values"] == before[thread_id]
            assert len(list(saver.list(config(thread_id)))) > 3


def run_loop_on(saver: CadreSaver, thread_id: str) -> None:
    app = reviewer_loop().compile(checkpointer=saver)
    app.invoke({"question": "q", "iterations": 4}, config(thread_id))


def _interrupt_after(saver: CadreSaver, calls: int) -> None:
    """Run :func:`reencrypt_all` and stop it like a kill after ``calls`` blobs."""
    assert saver.cipher is not None
    original = saver.cipher.reencrypt
    seen = 0

    def reencrypt(blob: bytes, associated_data: bytes) -> bytes:
        nonlocal seen
        seen += 1
        if seen > calls:
            raise KeyboardInterrupt
        return original(blob, associated_data)

    saver.cipher.reencrypt = reencrypt  # type: ignore[method-assign]
    try:
        with pytest.raises(KeyboardInterrupt):
            reencrypt_all(saver, batch=5)
    finally:
        del saver.cipher.reencrypt


def test_key_helpers_refuse_a_plain_database(tmp_path: Path) -> None:
    with CadreSaver(tmp_path / "plain.sqlite") as saver:
        with pytest.raises(ConfigError, match="not encrypted"):
            key_usage(saver)
        with pytest.raises(ConfigError, match="not encrypted"):
            reencrypt_all(saver)


# -- async writes share transactions -----------------------------------------------------------


def test_concurrent_async_writes_are_committed_together(tmp_path: Path) -> None:
    with CadreSaver(tmp_path / "w.sqlite", BlobCipher(keyring("k1"))) as saver:
        stored = saver.put(
            {"configurable": {"thread_id": "w", "checkpoint_ns": ""}},
            empty_checkpoint(),
            {"step": 0},
            {},
        )
        commits: list[int] = []
        original = saver._writer.commit_writes

        def counting(batch: Any) -> None:
            commits.append(len(batch))
            original(batch)

        saver._writer.commit_writes = counting  # type: ignore[method-assign]

        async def write_all() -> None:
            await asyncio.gather(
                *(saver.aput_writes(stored, [("ch", i)], f"task-{i}") for i in range(200))
            )

        asyncio.run(write_all())
        tup = saver.get_tuple(stored)
    assert tup is not None and sorted(value for _, _, value in tup.pending_writes or []) == list(
        range(200)
    )
    assert sum(commits) == 200 and len(commits) < 20


def test_a_failed_group_commit_fails_every_caller_of_its_batch(tmp_path: Path) -> None:
    with CadreSaver(tmp_path / "f.sqlite") as saver:
        stored = saver.put(
            {"configurable": {"thread_id": "f", "checkpoint_ns": ""}},
            empty_checkpoint(),
            {"step": 0},
            {},
        )

        def broken(batch: Any) -> None:
            raise sqlite3.OperationalError("disk I/O error")

        saver._writer.commit_writes = broken  # type: ignore[method-assign]

        async def write_all() -> list[BaseException | None]:
            return await asyncio.gather(
                *(saver.aput_writes(stored, [("ch", i)], f"task-{i}") for i in range(5)),
                return_exceptions=True,
            )

        outcomes = asyncio.run(write_all())
    assert all(isinstance(outcome, sqlite3.OperationalError) for outcome in outcomes)


def test_sends_are_stored_as_langgraph_stores_them() -> None:
    """cadre's serializer packs ``Send``s ahead of LangGraph's encoder: the same bytes."""
    ours = default_serializer()
    theirs = JsonPlusSerializer(allowed_msgpack_modules=list(RECORD_TYPES))
    task = Task(id="t1", description="find the cipher")
    plain = Send("worker", {"task": task, "question": QUESTION})
    timed = Send("worker", {"n": 1}, timeout=2.5)
    for value in (plain, timed, [plain, timed, "other"], {"send": plain}):
        stored = ours.dumps_typed(value)
        assert stored == theirs.dumps_typed(value)
        assert ours.loads_typed(stored) == value
