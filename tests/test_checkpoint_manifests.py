"""Deleted checkpoint rows are seen: each checkpoint's sealed manifest names its parent and the
writes recorded on it, and its sealed body names every channel value; a missing one is an
``IncompleteCheckpointError`` naming the thread, the checkpoint and what is missing. Deletions
cadre makes itself (prune, retention, runs) leave what remains readable."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from framework.engine.builder import build_team, compile_team
from framework.engine.records import ReviewVerdict
from framework.errors import IncompleteCheckpointError, TamperError
from framework.memory import Corpus
from framework.persistence._schema import SCHEMA_VERSION
from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from teams.research import build_research_team, offline_roles
from tests.roles import ScriptedReviewer, make_roles

THREAD = "t"


def _config(thread_id: str = THREAD, checkpoint_id: str | None = None) -> Any:
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


@pytest.fixture
def target(tmp_path: Path, database: str | None) -> str:
    """A checkpoint database: a SQLite file, or a fresh PostgreSQL database."""
    return database or str(tmp_path / "checkpoints.sqlite")


@pytest.fixture
def cipher() -> BlobCipher:
    return BlobCipher(Keyring(primary="k1", keys={"k1": os.urandom(32)}))


@pytest.fixture
def saver(target: str, cipher: BlobCipher) -> Iterator[CadreSaver]:
    """A saver holding one finished run of a team with a review loop (several rounds)."""
    reviewer = ScriptedReviewer([ReviewVerdict(decision="retry_workers", retry_task_ids=["t1"])])
    with CadreSaver(target, cipher) as opened:
        app = compile_team(build_team(make_roles(reviewer=reviewer)), checkpointer=opened)
        app.invoke({"question": "what is cadre?"}, _config())
        yield opened


def _alter(saver: CadreSaver, sql: str, *params: Any) -> int:
    with saver.lock, saver.db.write_transaction():
        return saver.db.execute(sql, params).rowcount


def _history(saver: CadreSaver, thread_id: str = THREAD) -> list[Any]:
    return list(saver.list(_config(thread_id)))


def _ids(saver: CadreSaver, thread_id: str = THREAD, namespace: str = "") -> list[str]:
    with saver.lock:
        rows = saver.db.execute(
            "SELECT checkpoint_id FROM cadre_checkpoints WHERE thread_id = ? "
            "AND checkpoint_ns = ? ORDER BY checkpoint_id",
            (thread_id, namespace),
        ).fetchall()
    return [row[0] for row in rows]


def test_a_finished_run_reads_whole(saver: CadreSaver) -> None:
    history = _history(saver)
    assert len(history) > 5
    assert history[0].checkpoint["channel_values"]["final_answer"]


def test_a_deleted_middle_checkpoint_is_named_by_its_child(saver: CadreSaver) -> None:
    ids = _ids(saver)
    middle = ids[len(ids) // 2]
    _alter(saver, "DELETE FROM cadre_checkpoints WHERE checkpoint_id = ?", middle)
    with pytest.raises(IncompleteCheckpointError) as caught:
        _history(saver)
    message = str(caught.value)
    assert f"parent checkpoint {middle} is missing" in message
    assert f"thread {THREAD}" in message
    assert ids[ids.index(middle) + 1] in message  # the child that names it


def test_the_newest_checkpoints_parent_is_checked_when_the_thread_is_opened(
    saver: CadreSaver,
) -> None:
    ids = _ids(saver)
    _alter(saver, "DELETE FROM cadre_checkpoints WHERE checkpoint_id = ?", ids[-2])
    with pytest.raises(IncompleteCheckpointError, match=ids[-2]):
        saver.get_tuple(_config())


def test_deleting_only_the_newest_checkpoint_rows_is_not_a_silent_roll_back(
    saver: CadreSaver,
) -> None:
    """The newest checkpoints deleted, their manifests, values and writes left: the thread
    would read as stopped earlier (a done run as interrupted, its last steps run again)."""
    ids = _ids(saver)
    for newest in ids[-2:]:
        _alter(saver, "DELETE FROM cadre_checkpoints WHERE checkpoint_id = ?", newest)
    with pytest.raises(IncompleteCheckpointError) as caught:
        saver.get_tuple(_config())
    message = str(caught.value)
    assert f"checkpoint {ids[-1]} of thread {THREAD}" in message
    assert "manifest remains" in message and f"roll it back to {ids[-3]}" in message
    assert saver.get_tuple(_config(THREAD, ids[-3])) is not None  # an older one, asked by id


def test_a_deleted_final_answer_is_not_an_empty_answer(saver: CadreSaver) -> None:
    removed = _alter(saver, "DELETE FROM cadre_blobs WHERE channel = ?", "final_answer")
    assert removed >= 1
    with pytest.raises(IncompleteCheckpointError, match=r"channel 'final_answer'.*missing"):
        saver.get_tuple(_config())


def test_deleted_writes_of_a_finished_task_are_seen_not_run_again(saver: CadreSaver) -> None:
    with saver.lock:
        checkpoint_id, task_id = saver.db.execute(
            "SELECT checkpoint_id, task_id FROM cadre_writes WHERE thread_id = ? "
            "AND channel = 'worker_results' ORDER BY checkpoint_id LIMIT 1",
            (THREAD,),
        ).fetchone()
    _alter(
        saver,
        "DELETE FROM cadre_writes WHERE checkpoint_id = ? AND task_id = ?",
        checkpoint_id,
        task_id,
    )
    with pytest.raises(IncompleteCheckpointError) as caught:
        saver.get_tuple(_config(checkpoint_id=checkpoint_id))
    assert f"task {task_id}" in str(caught.value)
    assert checkpoint_id in str(caught.value)


def test_writes_of_a_paused_step_are_checked_on_resume(target: str, cipher: BlobCipher) -> None:
    """Writes stored on the newest checkpoint (a step that stopped half done) are what a
    resume relies on to skip finished tasks: deleting them is refused, not re-run."""
    with CadreSaver(target, cipher) as saver:
        saver.put(
            _config("paused"),
            {
                "v": 4,
                "id": "1ef00000-0000-6000-8000-000000000001",
                "ts": "2026-01-01T00:00:00+00:00",
                "channel_values": {"x": 1},
                "channel_versions": {"x": "1"},
                "versions_seen": {},
                "updated_channels": None,
            },
            {"source": "loop", "step": 1, "parents": {}},
            {"x": "1"},
        )
        at = _config("paused", "1ef00000-0000-6000-8000-000000000001")
        at["configurable"]["checkpoint_ns"] = ""
        saver.put_writes(at, [("worker_results", {"a": 1}), ("branch:to:next", None)], "task-a")
        saver.put_writes(at, [("worker_results", {"b": 2})], "task-b")
        assert len(saver.get_tuple(at).pending_writes) == 3  # type: ignore[union-attr]
        _alter(saver, "DELETE FROM cadre_writes WHERE task_id = 'task-a'")
        with pytest.raises(IncompleteCheckpointError, match=r"task task-a: 2 of 2 writes"):
            saver.get_tuple(at)


def test_a_deleted_manifest_is_named(saver: CadreSaver) -> None:
    newest = _ids(saver)[-1]
    _alter(saver, "DELETE FROM cadre_manifests WHERE checkpoint_id = ?", newest)
    with pytest.raises(IncompleteCheckpointError, match=r"its manifest is missing"):
        saver.get_tuple(_config())


def test_a_manifest_moved_from_another_checkpoint_is_refused(saver: CadreSaver) -> None:
    ids = _ids(saver)
    _alter(
        saver,
        "UPDATE cadre_manifests SET value = (SELECT value FROM cadre_manifests "
        "WHERE checkpoint_id = ?) WHERE checkpoint_id = ?",
        ids[0],
        ids[-1],
    )
    with pytest.raises(TamperError, match=r"manifest row"):
        saver.get_tuple(_config())


def test_a_subgraphs_deleted_worker_results_are_seen(
    target: str, cipher: BlobCipher, small_corpus: Corpus
) -> None:
    research = build_research_team(offline_roles(small_corpus, small_corpus.store))
    meta = build_meta_coordinator(research, EvidenceRisk(), CitationCompliance())
    with CadreSaver(target, cipher) as saver:
        app = compile_team(meta, checkpointer=saver, interrupt_after=["research_team"])
        app.invoke({"question": "How do workers retry transient errors?"}, _config("meta"))
        removed = _alter(
            saver,
            "DELETE FROM cadre_blobs WHERE thread_id = 'meta' AND checkpoint_ns <> '' "
            "AND channel = 'worker_results'",
        )
        assert removed >= 1
        with pytest.raises(IncompleteCheckpointError, match=r"namespace research_team:"):
            list(saver.list(_config("meta")))


# -- deletions cadre makes itself ---------------------------------------------------------------


def test_prune_keep_latest_leaves_a_readable_thread(saver: CadreSaver) -> None:
    saver.prune([THREAD])
    [only] = _history(saver)
    assert only.parent_config is not None  # the row still names its pruned parent
    assert only.checkpoint["channel_values"]["final_answer"]


def test_deleting_middle_checkpoints_relinks_to_the_nearest_kept_ancestor(
    saver: CadreSaver,
) -> None:
    ids = _ids(saver)
    gone = ids[2:-2]
    saver.delete_checkpoints(THREAD, "", gone)
    assert [t.config["configurable"]["checkpoint_id"] for t in _history(saver)] == [
        *reversed(ids[-2:]),
        *reversed(ids[:2]),
    ]
    _alter(saver, "DELETE FROM cadre_checkpoints WHERE checkpoint_id = ?", ids[1])
    with pytest.raises(IncompleteCheckpointError, match=rf"parent checkpoint {ids[1]} is missing"):
        _history(saver)


def test_a_copied_thread_reads_whole(saver: CadreSaver) -> None:
    saver.copy_thread(THREAD, "copy")
    assert len(_history(saver, "copy")) == len(_history(saver))
    _alter(saver, "DELETE FROM cadre_manifests WHERE thread_id = 'copy'")
    with pytest.raises(IncompleteCheckpointError, match="thread copy"):
        saver.get_tuple(_config("copy"))


def test_a_schema_1_database_is_upgraded_when_opened(target: str, cipher: BlobCipher) -> None:
    with CadreSaver(target, cipher) as saver:
        _alter(saver, "DROP TABLE cadre_manifests")
        _alter(saver, "DROP TABLE cadre_chunks")
        _alter(saver, "UPDATE cadre_meta SET value = '1' WHERE key = 'schema'")
    with CadreSaver(target, cipher) as saver:
        with saver.lock:
            (schema,) = saver.db.execute(
                "SELECT value FROM cadre_meta WHERE key = 'schema'"
            ).fetchone()
        assert schema == SCHEMA_VERSION
        app = compile_team(build_team(make_roles()), checkpointer=saver)
        app.invoke({"question": "what is cadre?"}, _config())
        assert _history(saver)[0].checkpoint["channel_values"]["final_answer"]
