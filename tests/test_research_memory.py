"""Research memory over a real semantic store and the packaged embedding model."""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from framework.engine.builder import compile_team
from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, InvalidUpdate
from framework.memory import (
    LEGAL_STATUS_CHANGES,
    Corpus,
    EvidenceRecord,
    Hypothesis,
    HypothesisStatus,
    MemorySummary,
    MiniLMEmbedder,
    ResearchMemory,
    SemanticStore,
    evidence_id,
    ingest_corpus,
)
from framework.memory._near_duplicates import may_disagree
from framework.runs.teams import TeamSetup
from framework.testing import CallTools, Reply, ScriptedChatModel
from teams.research import build_research_team, model_roles, offline_roles
from teams.research.app import research_team
from teams.research.model_worker import ModelWorker
from teams.research.offline import RememberingWorker
from tests.conftest import SMALL_CORPUS, write_corpus

SLEEP = "Cats sleep for around fifteen hours a day."
SLEEP_PARAPHRASE = "Cats sleep for about fifteen hours a day."  # cosine ~0.9975
SLEEP_OTHER_NUMBER = "Cats sleep for around sixteen hours a day."  # cosine ~0.96
DIET = "Cats are obligate carnivores and need taurine in their diet."
STARS = "The Sun is the nearest star to Earth."
CONTEXT = NodeContext(node="worker", team="research", thread_id="t-mem")


def ev(text: str, source: str, **fields: Any) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=source, **fields)


@pytest.fixture
def store(embedder: MiniLMEmbedder) -> Iterator[SemanticStore]:
    with SemanticStore(":memory:", embedder=embedder) as opened:
        yield opened


@pytest.fixture
def memory(store: SemanticStore) -> ResearchMemory:
    return ResearchMemory(store)


@pytest.fixture
def stocked(memory: ResearchMemory) -> tuple[ResearchMemory, list[str]]:
    """A memory holding three pieces of evidence; their ids in order."""
    ids = memory.store_evidence(
        [ev(SLEEP, "cats.md:3"), ev(DIET, "cats.md:7"), ev(STARS, "stars.md:4")]
    )
    return memory, ids


# -- evidence ---------------------------------------------------------------------------------


def test_evidence_ids_are_stable_and_derived_from_source_and_normalised_text() -> None:
    record = ev(SLEEP, "cats.md:3")
    assert re.fullmatch(r"[0-9a-f]{16}", record.id)
    assert record.id == evidence_id("cats.md:3", SLEEP)
    assert ev("  cats SLEEP\n for around fifteen hours a day. ", "cats.md:3").id == evidence_id(
        "cats.md:3", "Cats sleep for around fifteen hours a day."
    )
    assert ev(SLEEP, "other.md:3").id != record.id
    assert ev(SLEEP, "x", id="my-id").id == "my-id"


def test_store_evidence_returns_new_ids_and_refuses_duplicates_by_id(
    memory: ResearchMemory,
) -> None:
    first = ev(SLEEP, "cats.md:3", title="Cats", date="2024-05-01", authors=["A. Cat"])
    assert memory.store_evidence([first, ev(DIET, "cats.md:7"), first]) == [
        first.id,
        evidence_id("cats.md:7", DIET),
    ]
    assert memory.store_evidence([first]) == []
    assert memory.evidence_count() == 2
    assert memory.has_evidence(first.id)
    assert not memory.has_evidence("nope")
    assert memory.evidence([first.id, first.id]) == [first]


def test_one_name_in_place_of_another_is_no_duplicate() -> None:
    assert may_disagree("The market is held on Tuesdays.", "The market is held on Thursdays.")
    assert not may_disagree(SLEEP, SLEEP_PARAPHRASE)  # "around" and "about": a paraphrase


def test_near_duplicates_are_refused_at_the_threshold_and_kept_above_it(
    store: SemanticStore,
) -> None:
    strict = ResearchMemory(store, ("strict",))
    assert strict.store_evidence([ev(SLEEP, "a.md:1")])
    assert strict.store_evidence([ev(SLEEP_PARAPHRASE, "b.md:1")]) == []  # against stored
    batch = [ev(DIET, "c.md:1"), ev(DIET.replace("need", "require"), "d.md:1")]
    assert strict.store_evidence(batch) == [batch[0].id]  # against the batch
    assert strict.evidence_count() == 2

    loose = ResearchMemory(store, ("loose",), duplicate_threshold=0.999)
    assert len(loose.store_evidence([ev(SLEEP, "a.md:1"), ev(SLEEP_PARAPHRASE, "b.md:1")])) == 2


def test_near_duplicates_that_may_disagree_are_both_kept(memory: ResearchMemory) -> None:
    kept = memory.store_evidence(
        [
            ev(SLEEP, "a.md:1"),
            ev(SLEEP_OTHER_NUMBER, "b.md:1"),
            ev("Cats do not sleep for around fifteen hours a day.", "c.md:1"),
        ]
    )
    assert len(kept) == 3


def test_invalid_evidence_refuses_the_whole_batch(memory: ResearchMemory) -> None:
    for bad in ({"text": " ", "source": "a.md:1"}, {"text": "x", "source": "a", "date": "May"}):
        with pytest.raises(InvalidUpdate, match="not valid evidence"):
            memory.store_evidence([ev(SLEEP, "a.md:1"), bad])
    with pytest.raises(InvalidUpdate, match="EvidenceRecord objects or dicts"):
        memory.store_evidence(["just text"])  # type: ignore[list-item]
    assert memory.evidence_count() == 0
    assert memory.store_evidence([{"text": SLEEP, "source": "a.md:1", "origin": "web"}])


def test_unknown_evidence_ids_are_refused(stocked: tuple[ResearchMemory, list[str]]) -> None:
    memory, ids = stocked
    with pytest.raises(InvalidUpdate, match="unknown evidence id 'missing'"):
        memory.evidence([ids[0], "missing"])


def test_relevant_ranks_evidence_by_score(stocked: tuple[ResearchMemory, list[str]]) -> None:
    memory, ids = stocked
    found = memory.relevant("How many hours a day do cats sleep?", n=3)
    assert found[0].evidence.id == ids[0]
    assert found[0].evidence == ev(SLEEP, "cats.md:3")
    scores = [hit.score for hit in found]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > 0.5 > scores[-1]
    assert [h.evidence.id for h in memory.relevant("cat sleep", n=3, min_score=0.5)] == [ids[0]]
    assert len(memory.relevant("cats", n=1)) == 1


# -- hypotheses -------------------------------------------------------------------------------


def test_propose_records_the_step_and_returns_the_stored_hypothesis_again(
    stocked: tuple[ResearchMemory, list[str]],
) -> None:
    memory, ids = stocked
    made = memory.propose("Cats sleep most of the day.", step="judge#1", supporting=[ids[0]])
    assert re.fullmatch(r"h-[0-9a-f]{8}", made.id)
    assert (made.status, made.confidence, made.supporting) == ("proposed", 0.0, [ids[0]])
    [change] = made.history
    assert (change.step, change.status, change.confidence) == ("judge#1", "proposed", 0.0)
    again = memory.propose("  cats sleep MOST of the day. ", step="judge#2", confidence=0.9)
    assert again == made
    assert memory.hypotheses() == [made]


@pytest.mark.parametrize("confidence", [-0.01, 1.01, math.nan])
def test_confidence_outside_the_unit_range_is_refused(
    stocked: tuple[ResearchMemory, list[str]], confidence: float
) -> None:
    memory, _ = stocked
    with pytest.raises(InvalidUpdate, match=r"confidence must be in \[0, 1\]"):
        memory.propose("Cats sleep most of the day.", step="s", confidence=confidence)
    made = memory.propose("Cats sleep most of the day.", step="s")
    with pytest.raises(InvalidUpdate, match=r"confidence must be in \[0, 1\]"):
        memory.update_hypothesis(made.id, step="judge", confidence=confidence)
    assert memory.hypothesis(made.id) == made


def test_unknown_ids_and_blank_fields_are_refused(
    stocked: tuple[ResearchMemory, list[str]],
) -> None:
    memory, ids = stocked
    with pytest.raises(InvalidUpdate, match="unknown supporting evidence id"):
        memory.propose("Cats sleep most of the day.", step="s", supporting=["missing"])
    assert memory.hypotheses() == []
    made = memory.propose("Cats sleep most of the day.", step="s")
    with pytest.raises(InvalidUpdate, match="unknown contradicting evidence id"):
        memory.update_hypothesis(made.id, step="judge", contradicting=[ids[1], "missing"])
    with pytest.raises(InvalidUpdate, match="list of evidence ids"):
        memory.update_hypothesis(made.id, step="judge", supporting=ids[0])
    with pytest.raises(InvalidUpdate, match="unknown hypothesis id 'h-nope'"):
        memory.update_hypothesis("h-nope", step="judge", confidence=0.5)
    with pytest.raises(InvalidUpdate, match="name the step"):
        memory.update_hypothesis(made.id, step=" ", confidence=0.5)
    with pytest.raises(InvalidUpdate, match="unknown status 'done'"):
        memory.update_hypothesis(made.id, step="judge", status="done")  # type: ignore[arg-type]
    with pytest.raises(InvalidUpdate, match="needs a statement"):
        memory.propose(" ", step="s")
    assert memory.hypothesis(made.id) == made


def _hypothesis_in(memory: ResearchMemory, status: HypothesisStatus) -> Hypothesis:
    """A hypothesis brought to ``status`` through legal changes."""
    made = memory.propose(f"Hypothesis reaching {status}.", step="propose")
    path: dict[str, list[HypothesisStatus]] = {
        "proposed": [],
        "validating": ["validating"],
        "confirmed": ["validating", "confirmed"],
        "refuted": ["refuted"],
    }
    for step, next_status in enumerate(path[status]):
        made = memory.update_hypothesis(made.id, step=f"setup#{step}", status=next_status)
    return made


STATUSES: tuple[HypothesisStatus, ...] = get_args(HypothesisStatus)


@pytest.mark.parametrize("before", STATUSES)
@pytest.mark.parametrize("after", STATUSES)
def test_status_changes_follow_the_rules(
    memory: ResearchMemory, before: HypothesisStatus, after: HypothesisStatus
) -> None:
    made = _hypothesis_in(memory, before)
    assert made.status == before
    if after in LEGAL_STATUS_CHANGES[before]:
        changed = memory.update_hypothesis(made.id, step="judge#9", status=after)
        assert changed.status == after
        assert changed.history[-1].step == "judge#9"
        return
    with pytest.raises(InvalidUpdate, match=f"cannot go from {before} to {after}"):
        memory.update_hypothesis(made.id, step="judge#9", status=after, confidence=0.5)
    assert memory.hypothesis(made.id) == made


def test_legal_status_changes_are_the_documented_ones() -> None:
    assert {k: sorted(v) for k, v in LEGAL_STATUS_CHANGES.items()} == {
        "proposed": ["refuted", "validating"],
        "validating": ["confirmed", "refuted", "validating"],
        "confirmed": ["validating"],
        "refuted": ["validating"],
    }


def test_updates_merge_evidence_and_record_each_step_in_history(
    stocked: tuple[ResearchMemory, list[str]],
) -> None:
    memory, ids = stocked
    made = memory.propose("Cats sleep most of the day.", step="search#1", supporting=[ids[0]])
    memory.update_hypothesis(
        made.id, step="judge#2", status="validating", confidence=0.4, supporting=[ids[0], ids[1]]
    )
    kept = memory.update_hypothesis(made.id, step="judge#3", contradicting=[ids[2]], note="hmm")
    final = memory.update_hypothesis(made.id, step="judge#4", status="confirmed", confidence=0.9)
    assert (final.status, final.confidence) == ("confirmed", 0.9)
    assert final.supporting == [ids[0], ids[1]]
    assert final.contradicting == [ids[2]]
    assert [(c.step, c.status, c.confidence) for c in final.history] == [
        ("search#1", "proposed", 0.0),
        ("judge#2", "validating", 0.4),
        ("judge#3", "validating", 0.4),
        ("judge#4", "confirmed", 0.9),
    ]
    assert kept.history[-1].note == "hmm"
    times = [c.at for c in final.history]
    assert times == sorted(times)
    assert memory.hypothesis(made.id) == final
    assert memory.hypotheses("confirmed") == [final]
    assert memory.hypotheses("proposed") == []


# -- conflicts --------------------------------------------------------------------------------


def test_conflicts_need_known_distinct_evidence_and_are_one_per_pair(
    stocked: tuple[ResearchMemory, list[str]],
) -> None:
    memory, ids = stocked
    with pytest.raises(InvalidUpdate, match="unknown conflicting evidence id 'missing'"):
        memory.open_conflict("sleep hours differ", ids[0], "missing")
    with pytest.raises(InvalidUpdate, match="two different pieces"):
        memory.open_conflict("sleep hours differ", ids[0], ids[0])
    with pytest.raises(InvalidUpdate, match="needs a description"):
        memory.open_conflict(" ", ids[0], ids[1])
    assert memory.conflicts() == []
    opened = memory.open_conflict("sleep hours differ", ids[0], ids[1])
    assert re.fullmatch(r"c-[0-9a-f]{8}", opened.id)
    assert (opened.status, opened.resolution, opened.resolved_by) == ("open", None, None)
    assert memory.open_conflict("said the other way round", ids[1], ids[0]) == opened
    assert memory.conflicts() == [opened] == memory.conflicts("open")


def test_a_conflict_is_resolved_only_with_a_resolution_text(
    stocked: tuple[ResearchMemory, list[str]],
) -> None:
    memory, ids = stocked
    opened = memory.open_conflict("sleep hours differ", ids[0], ids[1])
    for blank in ("", "   "):
        with pytest.raises(InvalidUpdate, match="without a resolution text"):
            memory.resolve_conflict(opened.id, blank, resolved_by=ids[2])
    with pytest.raises(InvalidUpdate, match="unknown resolved_by evidence id"):
        memory.resolve_conflict(opened.id, "stars.md agrees with cats.md", resolved_by="x")
    with pytest.raises(InvalidUpdate, match="unknown conflict id 'c-nope'"):
        memory.resolve_conflict("c-nope", "whatever")
    assert memory.conflicts() == [opened]

    resolved = memory.resolve_conflict(opened.id, "c agrees with a", resolved_by=ids[2])
    assert (resolved.status, resolved.resolution, resolved.resolved_by) == (
        "resolved",
        "c agrees with a",
        ids[2],
    )
    assert memory.conflicts("open") == []
    assert memory.conflicts("resolved") == [resolved]
    judged = memory.open_conflict("diet vs stars", ids[1], ids[2])
    judgment = memory.resolve_conflict(judged.id, "a judgment call: prefer the newer source")
    assert judgment.resolved_by is None


# -- persistence, scopes, overview ------------------------------------------------------------


def test_a_second_run_starts_from_the_first_runs_memory(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    path = tmp_path / "memory.sqlite"
    with SemanticStore(path, embedder=embedder) as store:
        first = ResearchMemory(store, ("project", "cats"))
        ids = first.store_evidence([ev(SLEEP, "cats.md:3"), ev(SLEEP_OTHER_NUMBER, "vet.md:9")])
        made = first.propose("Cats sleep most of the day.", step="run1", supporting=[ids[0]])
        made = first.update_hypothesis(made.id, step="run1/judge", status="validating")
        conflict = first.open_conflict("hours differ", ids[0], ids[1])
        other = ResearchMemory(store, ("project", "dogs"))
        other.store_evidence([ev(STARS, "stars.md:4")])

    with SemanticStore(path, embedder=embedder) as store:
        second = ResearchMemory(store, ("project", "cats"))
        assert second.evidence_count() == 2
        assert second.relevant("how long do cats sleep", n=1)[0].evidence.id == ids[0]
        assert second.hypotheses() == [made]
        assert second.conflicts("open") == [conflict]
        assert second.store_evidence([ev(SLEEP, "cats.md:3")]) == []
        assert second.store_evidence([ev(SLEEP_PARAPHRASE, "blog.md:1")]) == []
        updated = second.update_hypothesis(made.id, step="run2/judge", status="confirmed")
        assert [c.step for c in updated.history] == ["run1", "run1/judge", "run2/judge"]
        assert second.related_hypotheses("cat sleeping habits", n=1) == [updated]

        dogs = ResearchMemory(store, ("project", "dogs"))
        assert dogs.evidence_count() == 1
        assert dogs.hypotheses() == [] and dogs.conflicts() == []
        assert ResearchMemory(store, ("someone-else",)).describe() == (
            "memory research/someone-else: 0 evidence, 0 hypotheses, 0 open conflicts"
        )


def test_summary_and_describe(stocked: tuple[ResearchMemory, list[str]]) -> None:
    memory, ids = stocked
    confirmed = _hypothesis_in(memory, "confirmed")
    memory.propose("Cats sleep most of the day.", step="s")
    _hypothesis_in(memory, "validating")
    memory.open_conflict("hours", ids[0], ids[1])
    assert memory.summary() == MemorySummary(
        evidence=3,
        hypotheses={"proposed": 1, "validating": 1, "confirmed": 1, "refuted": 0},
        open_conflicts=1,
        resolved_conflicts=0,
    )
    assert memory.describe() == (
        "memory research/default: 3 evidence, 3 hypotheses (1 confirmed), 1 open conflict"
    )
    memory.update_hypothesis(confirmed.id, step="s", status="validating")
    memory.resolve_conflict(memory.conflicts()[0].id, "a wins")
    memory.open_conflict("x", ids[1], ids[2])
    memory.open_conflict("y", ids[0], ids[2])
    assert memory.describe() == (
        "memory research/default: 3 evidence, 3 hypotheses, 2 open conflicts, 1 resolved"
    )


def test_bad_scopes_and_thresholds_are_config_errors(store: SemanticStore) -> None:
    for scope in ((), ("a/b",), ("",), "default"):
        with pytest.raises(ConfigError):
            ResearchMemory(store, scope)  # type: ignore[arg-type]
    for threshold in (0.0, 1.5):
        with pytest.raises(ConfigError, match="duplicate_threshold"):
            ResearchMemory(store, duplicate_threshold=threshold)


# -- threads ----------------------------------------------------------------------------------


def test_eight_threads_updating_one_hypothesis_lose_no_change(memory: ResearchMemory) -> None:
    ids = memory.store_evidence(
        [ev(f"Observation number {n} of the cat.", f"n.md:{n}") for n in range(8)]
    )
    made = memory.propose("Cats are observed.", step="propose")
    other = ResearchMemory(memory.store)  # another memory on the same store shares the lock
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def update(n: int) -> None:
        try:
            barrier.wait()
            target = memory if n % 2 else other
            target.update_hypothesis(made.id, step=f"worker#{n}", supporting=[ids[n]])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=update, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    final = memory.hypothesis(made.id)
    assert sorted(final.supporting) == sorted(ids)
    assert sorted(c.step for c in final.history[1:]) == sorted(f"worker#{n}" for n in range(8))


def test_threads_storing_the_same_evidence_store_it_once(memory: ResearchMemory) -> None:
    barrier = threading.Barrier(8)
    stored: list[list[str]] = []

    def store_it() -> None:
        barrier.wait()
        stored.append(memory.store_evidence([ev(SLEEP, "cats.md:3")]))

    threads = [threading.Thread(target=store_it) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(len, stored)) == [0] * 7 + [1]
    assert memory.evidence_count() == 1


# -- the research team ------------------------------------------------------------------------


@pytest.fixture
def corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Corpus]:
    root = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield Corpus(store)


QUESTION = "How are checkpoints protected, and how do workers handle timeouts?"


def test_the_research_team_stores_its_evidence_in_memory(corpus: Corpus) -> None:
    memory = ResearchMemory(corpus.store, ("team",))
    app: Any = compile_team(build_research_team(offline_roles(corpus, corpus.store, memory)))
    state = app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "run-1"}})

    cited = {e.source for r in state["worker_results"].values() for e in r.evidence}
    found = memory.relevant("checkpoint encryption", n=10)
    assert {hit.evidence.source for hit in found} <= cited
    assert memory.evidence_count() >= 2
    top = found[0].evidence
    assert (top.source, top.path, top.origin, top.stored_by, top.title) == (
        "docs/checkpoints.md:3",
        "docs/checkpoints.md",
        "corpus",
        "run-1",
        "Checkpoints",
    )
    assert "encrypted at rest" in top.text

    count = memory.evidence_count()
    app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "run-2"}})
    assert memory.evidence_count() == count  # the second run found nothing new
    assert memory.relevant("checkpoint encryption", n=1)[0].evidence.stored_by == "run-1"


def test_the_research_team_without_memory_stores_no_evidence(corpus: Corpus) -> None:
    app: Any = compile_team(build_research_team(offline_roles(corpus, corpus.store)))
    app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "t"}})
    assert ResearchMemory(corpus.store).evidence_count() == 0


def test_the_research_app_uses_the_setups_memory_scope(corpus: Corpus) -> None:
    setup = TeamSetup(corpus=corpus, store=corpus.store, memory_scope=("user", "ada"))
    app: Any = compile_team(research_team(setup))
    app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "ada-1"}})
    assert ResearchMemory(corpus.store, ("user", "ada")).evidence_count() > 0
    assert ResearchMemory(corpus.store).evidence_count() == 0


async def test_the_model_worker_stores_the_passages_it_found(corpus: Corpus) -> None:
    memory = ResearchMemory(corpus.store, ("model",))
    model = ScriptedChatModel(
        [
            CallTools([("search_corpus", {"query": "checkpoint encryption"})]),
            Reply("Checkpoints are encrypted (docs/checkpoints.md:3)."),
        ]
    )
    worker = model_roles(model, corpus, corpus.store, memory).worker
    assert isinstance(worker, RememberingWorker)
    assert isinstance(worker.worker, ModelWorker)
    task = Task(id="q0", description="How are checkpoints protected?")
    result = await worker.arun(task, QUESTION, CONTEXT)

    model.assert_complete()
    assert result.evidence
    stored = memory.evidence([evidence_id(e.source, e.text) for e in result.evidence])
    assert stored[0].source == "docs/checkpoints.md:3"
    assert (stored[0].path, stored[0].origin, stored[0].stored_by) == (
        "docs/checkpoints.md",
        "corpus",
        "t-mem",
    )


def test_a_failed_result_stores_nothing(memory: ResearchMemory) -> None:
    class Failing:
        def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
            evidence = [Evidence(source="a.md:1", text=SLEEP)]
            return WorkerResult(task_id=task.id, status="failed", evidence=evidence, error="x")

        async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
            return self.run(task, question, context)

    worker = RememberingWorker(Failing(), memory)
    assert worker.run(Task(id="t", description="d"), "q", CONTEXT).status == "failed"
    assert memory.evidence_count() == 0
