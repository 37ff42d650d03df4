"""The extraction team: offline patterns, the bounded critic loop, the confidence filter, the
saver's records, normalised model output, role prompt versions, and runs over a corpus."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.engine.middleware import NodeCall
from framework.knowledge import KnowledgeGraph
from framework.memory import Corpus, SemanticStore
from framework.runs.prompts import PromptRegistry
from framework.runs.runner import run_team
from framework.runs.teams import TeamSetup
from framework.testing import Fail, ScriptedChatModel, Structured
from teams.extraction import (
    Critique,
    Document,
    DocumentReport,
    Extraction,
    ExtractionRoles,
    ModelCartographer,
    ModelCritic,
    PatternCartographer,
    RuleCritic,
    Triple,
    build_extraction_team,
    document_of,
    extraction_team,
    model_roles,
    normalised_extraction,
    offline_roles,
)
from teams.extraction.patterns import read_sentence

NOTES = """# Runner

The runner is a small component.
It has no state of its own.

The runner uses the checkpointer. The checkpointer writes checkpoints to SQLite.
Workers can call the corpus.

- The reviewer measures coverage.

```python
scheduler = runner.uses(queue)
```

| the queue | is a | table row |
"""
"""A note with relations on lines 3, 6, 7 and 9, and code and a table that hold none."""


@pytest.fixture
def graph(store: SemanticStore) -> KnowledgeGraph:
    return KnowledgeGraph(store)


def _run(roles: ExtractionRoles, documents: Sequence[Document], **settings: Any) -> dict[str, Any]:
    app = compile_team(build_extraction_team(roles, **settings), checkpointer=InMemorySaver())
    inputs = {"question": "map the notes", "documents": [d.model_dump() for d in documents]}
    return run_team(app, inputs, "t-extract").state


def _report(state: dict[str, Any]) -> DocumentReport:
    (report,) = state["reports"]
    return DocumentReport.model_validate(report)


def test_offline_extraction_reads_the_expected_triples_on_their_lines() -> None:
    document = document_of("notes.md", NOTES)
    extraction = PatternCartographer().extract(document, None, ())
    found = {(t.subject, t.predicate, t.object, t.line, t.confidence) for t in extraction.triples}
    assert found == {
        ("runner", "is a", "small component", 3, 0.9),
        ("runner", "uses", "checkpointer", 6, 0.8),
        ("checkpointer", "writes", "checkpoint", 6, 0.8),
        ("Worker", "can call", "corpus", 7, 0.65),
        ("reviewer", "measures", "coverage", 9, 0.8),
    }
    (uses,) = [t for t in extraction.triples if t.predicate == "uses"]
    assert uses.evidence == "The runner uses the checkpointer."
    assert [(e.name, e.type) for e in extraction.entities] == [("runner", "component")]
    assert RuleCritic().review(document, extraction).passed


def test_an_offline_run_saves_accepted_relations_with_their_provenance(
    graph: KnowledgeGraph,
) -> None:
    state = _run(offline_roles(graph), [document_of("notes.md", NOTES)])
    report = _report(state)
    assert (report.revisions, report.needs_review, report.dropped) == (0, False, 0)
    (uses,) = graph.relations_of("runner", direction="out")[1:]
    assert (uses.predicate, uses.object, uses.status) == ("uses", "checkpointer", "accepted")
    ((document, line, run),) = [(p.document, p.line, p.run) for p in uses.provenance]
    assert (document, line, run) == ("notes.md", 6, "t-extract")
    entity = graph.entity("runner")
    assert entity is not None and entity.type == "component"
    assert graph.paths("runner", "checkpoint") != []
    assert state["final_answer"].startswith(
        "Extracted 1 documents: 8 entities, 5 relations, 0 dropped, 0 flagged."
    )


def test_table_rows_and_key_value_lines_are_saved_with_the_line_that_states_them(
    graph: KnowledgeGraph,
) -> None:
    text = (
        "# The Wend foundry\n\n- **Founder:** Amos Tull\n\n"
        "| Bell | Cast | Weight (kg) |\n|---|---|---|\n| Great Tom | 1861 | 900 |\n"
    )
    state = _run(offline_roles(graph), [document_of("bells.md", text)])
    report = _report(state)
    assert (report.revisions, report.needs_review, report.dropped) == (0, False, 0)
    found = {
        (r.subject, r.predicate, r.object, r.provenance[0].line, r.evidence)
        for name in ("Wend foundry", "Great Tom")
        for r in graph.relations_of(name, direction="out")
    }
    assert found == {
        ("wend foundry", "'s founder is", "amos tull", 3, "**Founder:** Amos Tull"),
        ("great tom", "cast in", "1861", 7, "Great Tom | 1861 | 900"),
        ("great tom", "'s weight (kg) is", "900", 7, "Great Tom | 1861 | 900"),
    }
    bell = graph.entity("Great Tom")
    assert bell is not None and bell.type == "bell"


def _good(evidence: str = "The runner uses the checkpointer.", **fields: Any) -> dict[str, Any]:
    triple = {
        "subject": "runner",
        "predicate": "uses",
        "object": "checkpointer",
        "confidence": 0.9,
        "evidence": evidence,
    }
    return {**triple, **fields}


def test_a_passing_extraction_stops_at_once(graph: KnowledgeGraph) -> None:
    model = ScriptedChatModel(
        [
            Structured({"triples": [_good()]}, match="Document notes.md"),
            Structured({"passed": True, "critiques": []}, match="Triples:"),
        ]
    )
    state = _run(model_roles(model, graph), [document_of("notes.md", NOTES)])
    model.assert_complete()
    assert len(model.requests) == 2  # one cartographer call, one critic call
    report = _report(state)
    assert (report.revisions, report.needs_review) == (0, False)
    (relation,) = graph.relations_of("checkpointer")
    assert relation.status == "accepted" and relation.provenance[0].line == 6


def test_the_critic_loop_stops_after_three_revisions_and_flags_the_result(
    graph: KnowledgeGraph,
) -> None:
    failing = {"triples": [_good(subject="scheduler queue", evidence="")]}
    model = ScriptedChatModel([Structured(failing) for _ in range(5)])
    roles = ExtractionRoles(cartographer=ModelCartographer(model), critic=RuleCritic(), graph=graph)
    state = _run(roles, [document_of("notes.md", NOTES)])
    assert len(model.requests) == 4  # the extraction and three revisions; the fifth step unused
    assert "Critiques to fix" in model.requests[-1][-1].text
    assert "missing evidence" in model.requests[-1][-1].text
    report = _report(state)
    assert (report.revisions, report.needs_review) == (3, True)
    (relation,) = graph.relations_of("checkpointer")
    assert relation.status == "needs_review"
    assert "missing evidence" in relation.critiques
    assert "the subject 'scheduler queue' is not in the text" in relation.critiques
    assert graph.counts().needs_review == 1
    assert (
        "1 flagged" in state["final_answer"]
        and "For manual review: notes.md" in state["final_answer"]
    )


def test_a_revision_sees_the_critiques_and_a_fixed_output_passes(graph: KnowledgeGraph) -> None:
    model = ScriptedChatModel(
        [
            Structured({"triples": [_good(evidence="")]}),
            Structured({"triples": [_good()]}, match="missing evidence"),
        ]
    )
    roles = ExtractionRoles(cartographer=ModelCartographer(model), critic=RuleCritic(), graph=graph)
    report = _report(_run(roles, [document_of("notes.md", NOTES)]))
    model.assert_complete()
    assert (report.revisions, report.needs_review) == (1, False)


@dataclass
class FixedCartographer:
    """Always answers the same triples."""

    triples: tuple[Triple, ...]
    calls: list[int] = field(default_factory=list)

    def extract(
        self, document: Document, previous: Extraction | None, critiques: Sequence[Critique]
    ) -> Extraction:
        self.calls.append(len(critiques))
        return Extraction(triples=self.triples)


def _triple(obj: str, confidence: float) -> Triple:
    return Triple(
        subject="runner",
        predicate="uses",
        object=obj,
        confidence=confidence,
        evidence="The runner uses the checkpointer.",
        line=6,
    )


@pytest.mark.parametrize(("threshold", "dropped"), [(0.5, 2), (0.3, 1)])
def test_the_filter_drops_low_confidence_triples_and_counts_them(
    graph: KnowledgeGraph, threshold: float, dropped: int
) -> None:
    triples = (_triple("checkpointer", 0.9), _triple("checkpoint", 0.4), _triple("state", 0.2))
    roles = ExtractionRoles(
        cartographer=FixedCartographer(triples), critic=RuleCritic(), graph=graph
    )
    state = _run(roles, [document_of("notes.md", NOTES)], min_confidence=threshold)
    report = _report(state)
    assert report.dropped == dropped
    assert len(report.relations) == 3 - dropped
    assert f"{dropped} dropped" in state["final_answer"]
    assert {r.object for r in graph.relations_of("runner")} == {
        t.object for t in triples if t.confidence >= threshold
    }


def test_model_output_in_any_shape_is_normalised_or_rejected_with_a_reason() -> None:
    document = document_of("notes.md", NOTES)
    as_json = normalised_extraction(json.dumps({"triples": [_good()]}), document)
    assert [(t.subject, t.line) for t in as_json.triples] == [("runner", 6)]
    assert as_json.rejected == ()
    bare = normalised_extraction(
        [["runner", "uses", "checkpointer", "85%", "The runner uses the checkpointer."]], document
    )
    assert [(t.object, t.confidence, t.line) for t in bare.triples] == [("checkpointer", 0.85, 6)]
    mixed = normalised_extraction(
        {
            "triples": [_good(confidence="high"), "runner uses checkpointer", {"subject": "x"}],
            "entities": ["runner", {"name": "SQLite", "type": "database"}, 7],
            "claims": "not a list",
            "metadata": {"model": "m", "nested": {"no": 1}},
        },
        document,
    )
    assert [t.confidence for t in mixed.triples] == [0.5]
    assert [(e.name, e.type) for e in mixed.entities] == [("runner", ""), ("SQLite", "database")]
    assert mixed.metadata == {"model": "m"}
    assert mixed.rejected == (
        "triple 0: confidence 'high' is not a number; 0.5 used",
        "triple 1 is 'runner uses checkpointer', not an object",
        "triple 2 lacks predicate and object",
        "entity '7' has no name",
        "claims must be a list of strings, got 'not a list'",
        "metadata values must be strings, numbers or booleans; others left out",
    )
    for raw, reason in [
        ("the runner uses the checkpointer", "the output is text, not JSON"),
        (42, "the output is int '42', not an object of triples"),
        ({"entities": []}, "the output has no triples list"),
    ]:
        assert normalised_extraction(raw, document).rejected[0].startswith(reason)


def test_a_malformed_or_failed_model_answer_costs_a_revision_not_the_run(
    graph: KnowledgeGraph,
) -> None:
    model = ScriptedChatModel(
        [
            Structured({"triples": "runner uses checkpointer"}),
            Fail(RuntimeError("service unavailable")),
            Structured({"triples": [_good()]}),
        ]
    )
    roles = ExtractionRoles(cartographer=ModelCartographer(model), critic=RuleCritic(), graph=graph)
    report = _report(_run(roles, [document_of("notes.md", NOTES)]))
    model.assert_complete()
    assert (report.revisions, report.needs_review, len(report.relations)) == (2, False, 1)
    assert "unusable output: triple 0 is 'runner uses checkpointer'" in model.requests[1][-1].text
    assert "the model failed: RuntimeError: service unavailable" in model.requests[2][-1].text


def test_the_model_critic_adds_its_judgement_and_falls_back_to_the_rules() -> None:
    document = document_of("notes.md", NOTES)
    extraction = normalised_extraction({"triples": [_good()]}, document)
    model = ScriptedChatModel(
        [
            Structured({"passed": False, "critiques": [{"message": "misread", "triple": 9}]}),
            Structured({"passed": "perhaps"}),
        ]
    )
    critic = ModelCritic(model)
    judged = critic.review(document, extraction)
    assert not judged.passed
    assert [(c.message, c.triple) for c in judged.critiques] == [("misread", None)]
    fallback = critic.review(document, extraction)
    assert fallback.passed and fallback.critiques == ()
    assert "ValidationError" in fallback.fallback or "OutputParser" in fallback.fallback
    model.assert_complete()


@dataclass
class Recorder:
    """Records the nodes the middleware chain wrapped."""

    nodes: list[str] = field(default_factory=list)

    def wrap(self, call: NodeCall, proceed: Callable[[], Any]) -> Any:
        self.nodes.append(call.node)
        return proceed()

    async def awrap(self, call: NodeCall, proceed: Callable[[], Awaitable[Any]]) -> Any:
        self.nodes.append(call.node)
        return await proceed()


def test_the_team_reads_its_corpus_records_prompt_versions_and_wraps_every_node(
    small_corpus: Corpus,
) -> None:
    roles = PromptRegistry.in_memory()
    roles.set("cartographer", "Map the document into triples.")
    recorder = Recorder()
    model = ScriptedChatModel(
        [Structured({"triples": []}, match="Document") for _ in range(3)]
        + [Structured({"passed": True, "critiques": []}, match="Triples:") for _ in range(3)]
    )
    setup = TeamSetup(
        corpus=small_corpus,
        store=small_corpus.store,
        model=model,
        prompts=roles,
        middleware=(recorder,),
        memory_scope=("project", "x"),
    )
    app = compile_team(extraction_team(setup), checkpointer=InMemorySaver())
    state = run_team(app, {"question": "map the corpus"}, "t-corpus").state
    assert roles.used() == {"cartographer": 2, "critic": 1}
    assert {request[0].text for request in model.requests[:1]} == {"Map the document into triples."}
    paths = sorted(DocumentReport.model_validate(r).path for r in state["reports"])
    assert paths == ["docs/checkpoints.md", "docs/retries.md", "docs/review.md"]
    assert set(recorder.nodes) == {
        "collect",
        "cartographer",
        "critic",
        "confidence_filter",
        "saver",
        "report",
    }


def test_offline_the_team_extracts_the_indexed_corpus_into_its_scope(
    small_corpus: Corpus,
) -> None:
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store, memory_scope=("p",))
    app = compile_team(extraction_team(setup), checkpointer=InMemorySaver())
    run_team(app, {"question": "map the corpus"}, "t-offline")
    graph = KnowledgeGraph(small_corpus.store, ("p",))
    (approves,) = graph.relations_of("human reviewer")
    assert (approves.predicate, approves.object) == ("approves", "plan")
    assert [(p.document, p.line) for p in approves.provenance] == [("docs/review.md", 3)]
    assert KnowledgeGraph(small_corpus.store).counts().relations == 0


def test_sentences_start_on_their_own_line_and_evidence_keeps_its_markup() -> None:
    text = (
        "# Guide\n\nThe guide opens here. The planner\nsplits the question. "
        "`The runner` uses\nthe checkpointer.\n\n- `--home` names the folder.\n"
    )
    document = document_of("guide.md", text)
    assert list(document.sentences()) == [
        (3, "The guide opens here."),
        (3, "The planner splits the question."),
        (4, "`The runner` uses the checkpointer."),
        (7, "`--home` names the folder."),
    ]
    extraction = PatternCartographer().extract(document, None, ())
    (uses,) = [t for t in extraction.triples if t.predicate == "uses"]
    assert (uses.subject, uses.object, uses.line) == ("runner", "checkpointer", 4)
    assert uses.evidence == "`The runner` uses the checkpointer."
    assert RuleCritic().review(document, extraction).passed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "# Stones\n\nVell stone is a pale limestone.\nIt is quarried only near Lake Vell.\n",
            {("Vell stone", "quarried near", "Lake Vell", 4)},
        ),
        (
            "# The Corran ferry\n\nIt carries forty cars.\n",
            {("Corran ferry", "carries", "forty car", 3)},
        ),
        (
            "# Bridges\n\nThe Harrow bridge was designed by Ada Marsh.\n",
            {("Harrow bridge", "designed by", "Ada Marsh", 3)},
        ),
        (
            "# Mills\n\nThe Corbel mill was demolished in 1962.\n",
            {("Corbel mill", "demolished in", "1962", 3)},
        ),
        (
            "# Engines\n\nThe Kestrel engine burns petrol, diesel and hydrogen.\n",
            {("Kestrel engine", "burns", fuel, 3) for fuel in ("petrol", "diesel", "hydrogen")},
        ),
        (
            "# Kit\n\nThe Osprey toolkit includes:\n\n- a compiler\n- a debugger\n",
            {
                ("Osprey toolkit", "includes", "compiler", 5),
                ("Osprey toolkit", "includes", "debugger", 6),
            },
        ),
        (
            "# People\n\nMara Quill, the city's chief engineer, approved the flood plan.\n",
            {
                ("Mara Quill", "is", "city's chief engineer", 3),
                ("Mara Quill", "approved", "flood plan", 3),
            },
        ),
        (
            "# Presses\n\nTamsin Reed founded the Lumen Press.\n",
            {("Tamsin Reed", "founded", "Lumen Press", 3)},
        ),
        (
            "# Towers\n\nBuilt in 1890, the Rook tower stands on Gull Point.\n",
            {("Rook tower", "stands on", "Gull Point", 3)},
        ),
        (
            "# Museums\n\nThe Tidewater museum opened in 1931.\nIts founder was Henry Coll.\n",
            {("Tidewater museum", "'s founder is", "Henry Coll", 4)},
        ),
        (
            "# Rail\n\nThe Wold railway serves three towns:\n\n1. Malton\n2. Whitby\n",
            {("Wold railway", "serves", "Malton", 5), ("Wold railway", "serves", "Whitby", 6)},
        ),
        (
            "# People\n\nIda Crane was born in Whitby.\nShe became a ship's engineer.\n",
            {("Ida Crane", "born in", "Whitby", 3), ("Ida Crane", "became", "ship's engineer", 4)},
        ),
        (
            "# Art\n\nThe Orchard mural was painted in 1968 by Lucy Harle.\n",
            {
                ("Orchard mural", "painted in", "1968", 3),
                ("Orchard mural", "painted by", "Lucy Harle", 3),
            },
        ),
        (
            "# Varnia\n\nVarnia is a small country. Its capital is Orlen.\n",
            {("Varnia", "is a", "small country", 3), ("Varnia", "'s capital is", "Orlen", 3)},
        ),
    ],
    ids=[
        "pronoun",
        "heading-pronoun",
        "passive-agent",
        "passive",
        "list",
        "bullets",
        "apposition",
        "verb",
        "leading-clause",
        "possessive",
        "numbered-items",
        "person-pronoun",
        "passive-date-agent",
        "short-possessive",
    ],
)
def test_offline_extraction_reads_pronouns_passives_lists_and_appositions(
    text: str, expected: set[tuple[str, str, str, int]]
) -> None:
    document = document_of("notes.md", text)
    extraction = PatternCartographer().extract(document, None, ())
    found = {(t.subject, t.predicate, t.object, t.line) for t in extraction.triples}
    assert expected <= found
    assert RuleCritic().review(document, extraction).passed  # every evidence is in the text


def test_a_negated_sentence_states_no_relation_and_the_main_clause_wins() -> None:
    assert read_sentence("The Kestrel engine never burns coal.") == []
    (main,) = read_sentence("A reviewer approves the plan while the run is paused at a point.")
    assert (main.subject, main.predicate, main.object) == ("reviewer", "approves", "plan")
