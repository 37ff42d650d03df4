"""The knowledge graph: records, saving and merging, lookups, bounded paths, semantic search,
and encryption at rest in a data home's store."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path

import pytest
from pydantic import ValidationError

from framework.database.home import DataHome
from framework.errors import ConfigError
from framework.knowledge import Entity, KnowledgeGraph, Provenance, Relation, relation_id
from framework.memory import MiniLMEmbedder, SemanticStore
from framework.runs.stores import home_cipher, home_store


def _at(line: int, document: str = "docs/a.md", run: str = "t1") -> Provenance:
    return Provenance(document=document, line=line, run=run)


def _relation(subject: str, predicate: str, object: str, **fields: object) -> Relation:
    values: dict[str, object] = {"confidence": 0.8, "evidence": f"{subject} {predicate} {object}."}
    return Relation(subject=subject, predicate=predicate, object=object, **{**values, **fields})


def _entities(*names: str) -> list[Entity]:
    return [Entity(name=name) for name in names]


@pytest.fixture
def graph(store: SemanticStore) -> KnowledgeGraph:
    return KnowledgeGraph(store)


def test_ids_are_computed_and_checked() -> None:
    entity = Entity(name="  The   Checkpointer ")
    assert entity.id == "the checkpointer"
    relation = _relation("Checkpointer", "Uses", "AES  Cipher")
    assert (relation.subject, relation.predicate, relation.object) == (
        "checkpointer",
        "uses",
        "aes cipher",
    )
    assert relation.id == relation_id("checkpointer", "uses", "aes cipher")
    with pytest.raises(ValidationError, match="leave id out"):
        Entity(id="other", name="Checkpointer")
    with pytest.raises(ValidationError, match="leave id out"):
        _relation("a", "b", "c", id="0000")
    with pytest.raises(ValidationError):
        _relation("a", "b", "c", confidence=1.5)
    with pytest.raises(ValidationError):
        Provenance(document="docs/a.md", line=0, run="t1")


def test_save_merges_provenance_critiques_and_status(graph: KnowledgeGraph) -> None:
    first = graph.save(
        [Entity(name="Runner", provenance=(_at(1),)), Entity(name="Thread", type="concept")],
        [_relation("runner", "starts", "thread", status="needs_review", critiques=("weak",))],
    )
    assert (first.entities_added, first.entities_merged) == (2, 0)
    assert (first.relations_added, first.relations_merged) == (1, 0)
    second = graph.save(
        [Entity(name="runner", type="component", provenance=(_at(1), _at(9, "docs/b.md")))],
        [_relation("Runner", "starts", "Thread", confidence=0.9, provenance=(_at(9),))],
    )
    assert (second.entities_added, second.entities_merged) == (0, 1)
    assert (second.relations_added, second.relations_merged) == (0, 1)
    runner = graph.entity("RUNNER")
    assert runner is not None
    assert runner.name == "Runner" and runner.type == "component"
    assert runner.provenance == (_at(1), _at(9, "docs/b.md"))
    (relation,) = graph.relations_of("runner")
    assert relation.status == "accepted"  # a later extraction passed its critic
    assert relation.confidence == 0.9
    assert relation.critiques == ("weak",)
    assert graph.counts().needs_review == 0


def test_a_relation_to_an_unknown_entity_is_refused_and_nothing_is_saved(
    graph: KnowledgeGraph,
) -> None:
    with pytest.raises(ConfigError, match="'ghost'"):
        graph.save(_entities("runner"), [_relation("runner", "starts", "ghost")])
    assert graph.counts().entities == 0
    with pytest.raises(ConfigError, match="sequences of Entity"):
        graph.save(["runner"], [])  # type: ignore[list-item]


def test_relations_of_follow_the_direction_and_unknown_names_give_nothing(
    graph: KnowledgeGraph,
) -> None:
    graph.save(
        _entities("runner", "thread", "checkpointer"),
        [
            _relation("runner", "starts", "thread", confidence=0.6),
            _relation("checkpointer", "saves", "runner", confidence=0.9),
        ],
    )
    assert [r.predicate for r in graph.relations_of("runner")] == ["saves", "starts"]
    assert [r.object for r in graph.relations_of("runner", direction="out")] == ["thread"]
    assert [r.subject for r in graph.relations_of("runner", direction="in")] == ["checkpointer"]
    assert graph.relations_of("nobody") == []
    assert graph.entity("nobody") is None
    assert graph.paths("nobody", "runner") == []
    with pytest.raises(ConfigError, match="direction"):
        graph.relations_of("runner", direction="up")  # type: ignore[arg-type]


def test_paths_are_bounded_shortest_first_and_go_either_way(graph: KnowledgeGraph) -> None:
    chain = ["a", "b", "c", "d", "e"]
    relations = [_relation(x, "links", y) for x, y in pairwise(chain)]
    relations.append(_relation("a", "skips to", "c"))
    graph.save(_entities(*chain), relations)

    paths = graph.paths("a", "d")
    assert [[(r.subject, r.object) for r in path] for path in paths] == [
        [("a", "c"), ("c", "d")],
        [("a", "b"), ("b", "c"), ("c", "d")],
    ]
    assert graph.paths("a", "d", limit=1) == paths[:1]
    assert graph.paths("a", "e", max_depth=2) == []  # e is three relations away
    assert len(graph.paths("a", "e", max_depth=3)) == 1
    assert [r.subject for r in graph.paths("d", "a")[0]] == ["c", "a"]  # against the arrows
    assert graph.paths("a", "a") == []
    with pytest.raises(ConfigError, match="max_depth"):
        graph.paths("a", "d", max_depth=0)


def test_find_entities_by_name_and_type(graph: KnowledgeGraph) -> None:
    graph.save(
        [
            Entity(name="encrypted checkpointer", type="component"),
            Entity(name="checkpointer", type="component"),
            Entity(name="checkpoint", type="record"),
        ],
        [],
    )
    assert [e.id for e in graph.find_entities(name="Checkpointer")] == [
        "checkpointer",
        "encrypted checkpointer",
    ]
    assert [e.id for e in graph.find_entities(type="RECORD")] == ["checkpoint"]
    assert len(graph.find_entities(name="check", limit=2)) == 2
    assert graph.find_entities(name="nothing like it") == []
    with pytest.raises(ConfigError, match="limit"):
        graph.find_entities(limit=0)


def test_search_relations_finds_them_by_meaning(graph: KnowledgeGraph) -> None:
    graph.save(
        _entities("worker", "timeout", "checkpoint", "disk"),
        [
            _relation("worker", "retries after", "timeout", evidence="Workers retry timeouts."),
            _relation("checkpoint", "is written to", "disk", evidence="Checkpoints go to disk."),
        ],
    )
    (best, score), _ = graph.search_relations("what happens when a task times out?", n=2)
    assert best.subject == "worker" and score > 0.2
    assert graph.search_relations("   ") == []
    with pytest.raises(ConfigError, match="n must be"):
        graph.search_relations("x", n=0)


def test_scopes_do_not_see_each_other(store: SemanticStore) -> None:
    KnowledgeGraph(store, ("project", "a")).save(_entities("runner"), [])
    assert KnowledgeGraph(store, ("project", "b")).entity("runner") is None
    with pytest.raises(ConfigError, match="scope"):
        KnowledgeGraph(store, "default")  # type: ignore[arg-type]


def test_the_graph_round_trips_through_the_encrypted_home_store(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = DataHome(root=tmp_path / "home").create()
    cipher = home_cipher(home)
    with home_store(home, cipher) as store:
        KnowledgeGraph(store).save(
            [Entity(name="Zanzibar Ledger", type="system", provenance=(_at(4),)), *_entities("x")],
            [_relation("zanzibar ledger", "records", "x", provenance=(_at(4),))],
        )
    with home_store(home, home_cipher(home)) as store:
        graph = KnowledgeGraph(store)
        assert graph.entity("zanzibar ledger") == Entity(
            name="Zanzibar Ledger", type="system", provenance=(_at(4),)
        )
        (relation,) = graph.relations_of("x")
        assert relation.provenance == (_at(4),)
        counts = graph.counts()
        assert (counts.entities, counts.relations, counts.needs_review) == (2, 1, 0)
    on_disk = b"".join(path.read_bytes() for path in home.root.glob("memory.sqlite*"))
    assert b"zanzibar" not in on_disk.lower()


def test_the_graph_works_the_same_on_postgresql(
    postgres_url: str, embedder: MiniLMEmbedder
) -> None:
    with SemanticStore(postgres_url, embedder=embedder) as store:
        KnowledgeGraph(store).save(
            _entities("runner", "thread", "checkpoint"),
            [_relation("runner", "starts", "thread"), _relation("thread", "has", "checkpoint")],
        )
    with SemanticStore(postgres_url, embedder=embedder) as store:
        graph = KnowledgeGraph(store)
        (path,) = graph.paths("runner", "checkpoint")
        assert [r.predicate for r in path] == ["starts", "has"]
        assert graph.counts().relations == 2


def test_saves_through_two_stores_on_one_file_lose_no_links(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """Two connections (as two processes would have) add relations to one hub entity at once:
    the store's update lock on the database keeps every link."""
    path = tmp_path / "memory.sqlite"
    stores = [SemanticStore(path, embedder=embedder) for _ in range(2)]

    def add(store: SemanticStore, side: str) -> None:
        graph = KnowledgeGraph(store)
        for n in range(12):
            name = f"{side} part {n}"
            graph.save(_entities("hub", name), [_relation("hub", "holds", name)])

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(add, stores, ["left", "right"]))
        assert len(KnowledgeGraph(stores[0]).relations_of("hub")) == 24
    finally:
        for store in stores:
            store.close()


def test_extracting_a_document_again_keeps_one_place_per_line(graph: KnowledgeGraph) -> None:
    for run, line in (("t1", 3), ("t2", 3), ("t3", 9)):
        graph.save(
            [Entity(name="Runner", provenance=(_at(line, run=run),)), Entity(name="Thread")],
            [_relation("runner", "starts", "thread", provenance=(_at(line, run=run),))],
        )
    entity = graph.entity("runner")
    assert entity is not None
    assert entity.provenance == (_at(3, run="t2"), _at(9, run="t3"))
    [relation] = graph.relations_of("runner")
    assert relation.provenance == (_at(3, run="t2"), _at(9, run="t3"))


def test_replacing_a_document_forgets_what_it_no_longer_states(graph: KnowledgeGraph) -> None:
    a, b = "docs/a.md", "docs/b.md"

    def stated(document: str, *triples: tuple[str, str, str]) -> None:
        names = {name for subject, _, obj in triples for name in (subject, obj)}
        graph.replace_document(
            document,
            [Entity(name=name, provenance=(_at(1, document),)) for name in sorted(names)],
            [_relation(*triple, provenance=(_at(1, document),)) for triple in triples],
        )

    stated(a, ("runner", "starts", "thread"), ("runner", "uses", "pool"))
    stated(b, ("runner", "uses", "pool"))
    stated(a, ("runner", "starts", "worker"))  # a no longer states the thread or the pool
    assert {r.object for r in graph.relations_of("runner")} == {"worker", "pool"}
    [pool] = [r for r in graph.relations_of("runner") if r.object == "pool"]
    assert pool.provenance == (_at(1, b),)  # still stated by b
    assert graph.entity("thread") is None  # read nowhere any more
    runner = graph.entity("runner")
    assert runner is not None and {p.document for p in runner.provenance} == {a, b}
    assert graph.paths("thread", "runner") == []
    stated(b)  # b states nothing now
    assert [r.object for r in graph.relations_of("runner")] == ["worker"]
    assert graph.entity("pool") is None
    assert graph.counts().relations == 1
    with pytest.raises(ConfigError):
        graph.replace_document(" ", [], [])
