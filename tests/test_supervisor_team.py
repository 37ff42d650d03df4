"""The memory supervisor team: routing, lookups in the knowledge graph, drafting, fallbacks,
and the bounded messages the supervisor reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage

from framework.engine.builder import compile_team
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.knowledge import Entity, KnowledgeGraph, Provenance, Relation
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.runs.prompts import PromptRegistry
from framework.runs.teams import TeamSetup
from framework.testing import Fail, ScriptedChatModel, Structured
from teams.research.schemas import ClaimDraft, ReportDraft, SectionDraft
from teams.supervisor import (
    MemoryQuery,
    SupervisorRoles,
    TemplateWriter,
    build_supervisor_team,
    model_roles,
    offline_roles,
)
from teams.supervisor.answering import answering_chains, relation_sentence
from teams.supervisor.app import supervisor_team
from teams.supervisor.decision import RouteDecision
from teams.supervisor.messages import SUMMARY_GISTS, WINDOW, add_to_window, summary
from teams.supervisor.prompts import (
    DRAFTER_ROLE,
    DRAFTER_SYSTEM,
    SUPERVISOR_ROLE,
    SUPERVISOR_SYSTEM,
)
from teams.supervisor.queries import plan_queries
from teams.supervisor.rules import RuleSupervisor

QUESTION = "How is the dispatcher linked to the checkpointer?"
PATH_SOURCES = ("docs/dispatch.md:3", "docs/workers.md:5")


def _at(document: str, line: int) -> Provenance:
    return Provenance(document=document, line=line, run="extract-1")


def save_sample_graph(graph: KnowledgeGraph) -> None:
    """Six entities and four relations from four documents; the SQLite one needs review."""
    facts = [
        ("Dispatcher", "sends tasks to", "Worker pool", "docs/dispatch.md", 3, "accepted"),
        ("Worker pool", "writes results to", "Checkpointer", "docs/workers.md", 5, "accepted"),
        ("Checkpointer", "stores data in", "SQLite", "docs/persistence.md", 2, "needs_review"),
        ("Tracer", "exports spans to", "Collector", "docs/telemetry.md", 4, "accepted"),
    ]
    types = {"SQLite": "database", "Collector": "service"}
    entities: dict[str, Entity] = {}
    relations = []
    for subject, predicate, object_, document, line, status in facts:
        where = (_at(document, line),)
        for name in (subject, object_):
            known = entities.get(name)
            provenance = (*known.provenance, *where) if known else where
            entities[name] = Entity(
                name=name, type=types.get(name, "component"), provenance=provenance
            )
        relations.append(
            Relation(
                subject=subject,
                predicate=predicate,
                object=object_,
                confidence=0.8,
                evidence=f"The {subject.lower()} {predicate} the {object_.lower()}.",
                status=status,  # type: ignore[arg-type]
                provenance=where,
            )
        )
    graph.save(list(entities.values()), relations)


@pytest.fixture
def store(embedder: MiniLMEmbedder) -> Iterator[SemanticStore]:
    with SemanticStore(":memory:", embedder=embedder) as opened:
        yield opened


@pytest.fixture
def graph(store: SemanticStore) -> KnowledgeGraph:
    knowledge = KnowledgeGraph(store)
    save_sample_graph(knowledge)
    return knowledge


def _run(roles: SupervisorRoles, question: str = QUESTION, **inputs: Any) -> dict[str, Any]:
    app = compile_team(build_supervisor_team(roles))
    state: dict[str, Any] = app.invoke({"question": question, **inputs})
    return state


def _steps(state: dict[str, Any]) -> list[str]:
    return [decision["step"] for decision in state["decisions"]]


def test_offline_run_queries_then_drafts_then_finishes(graph: KnowledgeGraph) -> None:
    state = _run(offline_roles(graph))
    assert _steps(state) == ["query_memory"] * 4 + ["draft_content", "finish"]
    assert all(decision["fallback"] is None for decision in state["decisions"])
    assert state["results"][0]["query"] == {
        "kind": "paths",
        "terms": ["Dispatcher", "Checkpointer"],
    }
    answer = state["final_answer"]
    assert answer.startswith(f"# {QUESTION}\n")
    assert (
        "Dispatcher reaches Checkpointer in 2 step(s): the dispatcher sends tasks to the worker "
        "pool (`docs/dispatch.md:3`); then the worker pool writes results to the checkpointer "
        "(`docs/workers.md:5`)."
    ) in answer
    assert "## Sources" in answer and "## Review" not in answer
    assert [e.source for e in state["evidence"]] == list(PATH_SOURCES)


@pytest.mark.parametrize(
    ("question", "kinds", "cited"),
    [
        (QUESTION, ["paths", "relations", "relations", "semantic"], "docs/workers.md:5"),
        ("What does the tracer do?", ["relations", "semantic"], "docs/telemetry.md:4"),
        ("Which databases are there?", ["entities", "semantic"], "docs/persistence.md:2"),
        ("Where are spans exported?", ["semantic"], "docs/telemetry.md:4"),
    ],
)
def test_the_question_picks_the_lookups(
    graph: KnowledgeGraph, question: str, kinds: list[str], cited: str
) -> None:
    assert [query["kind"] for query in plan_queries(question, graph)] == kinds
    state = _run(offline_roles(graph), question)
    assert f"`{cited}`" in state["final_answer"]


def test_path_queries_are_bounded_in_depth(graph: KnowledgeGraph) -> None:
    query: Any = {"kind": "paths", "terms": ["Dispatcher", "SQLite"]}
    found = MemoryQuery(graph=graph).run(query)
    assert [[(r["subject"], r["object"]) for r in path] for path in found["paths"]] == [
        [("Dispatcher", "Worker pool"), ("Worker pool", "Checkpointer"), ("Checkpointer", "SQLite")]
    ]
    assert found["paths"][0][2]["status"] == "needs_review"
    assert [e["name"] for e in found["entities"]] == ["Dispatcher", "SQLite"]
    assert MemoryQuery(graph=graph, max_depth=2).run(query)["paths"] == []
    with pytest.raises(ConfigError, match="max_depth"):
        MemoryQuery(graph=graph, max_depth=0)


def test_a_path_that_is_not_there_moves_on_to_the_relations(graph: KnowledgeGraph) -> None:
    state = _run(offline_roles(graph), "How is the tracer linked to the dispatcher?")
    kinds = [r["query"]["kind"] for r in state["results"]]
    assert kinds == ["paths", "relations", "relations", "semantic"]
    assert state["results"][0]["paths"] == []
    assert _steps(state) == ["query_memory"] * 4 + ["draft_content", "finish"]
    answer = state["final_answer"]
    assert "Nothing in the knowledge graph answers this question: it holds" in answer
    assert "about Tracer and Dispatcher, none on linked." in answer and "`docs/" not in answer


def test_a_failing_graph_gives_empty_results_and_the_run_still_finishes(
    graph: KnowledgeGraph,
) -> None:
    query: Any = {"kind": "relations", "terms": ["Tracer"]}
    graph.store.close()
    found = MemoryQuery(graph=graph).run(query)
    assert (found["entities"], found["relations"], found["paths"]) == ([], [], [])
    assert found["error"].startswith("ProgrammingError: ")
    state = _run(offline_roles(graph), "What does the tracer do?")
    assert [error["step"] for error in state["errors"]] == ["intake", "query_memory"]
    assert _steps(state) == ["query_memory", "finish"]
    answer = state["final_answer"]
    assert "The knowledge graph holds nothing on this question." in answer
    assert "- query_memory failed: ProgrammingError" in answer


def test_a_question_the_graph_knows_nothing_about_finishes_empty(graph: KnowledgeGraph) -> None:
    state = _run(offline_roles(graph), "zzzz qqqq?")
    assert _steps(state) == ["query_memory", "finish"]
    assert "## Not answered by the corpus" in state["final_answer"]
    assert state["evidence"] == []


def _route(step: str, reason: str = "scripted") -> Structured:
    return Structured(RouteDecision(step=step, reason=reason), match="Route:")  # type: ignore[arg-type]


def _claims(*claims: tuple[str, str]) -> Structured:
    section = SectionDraft(
        heading="Answer", claims=[ClaimDraft(text=text, source=source) for text, source in claims]
    )
    return Structured(ReportDraft(sections=[section]), match="Draft:")


def test_the_rule_decides_when_the_model_gives_an_invalid_step_malformed_json_or_fails(
    graph: KnowledgeGraph,
) -> None:
    model = ScriptedChatModel(
        [
            Structured({"step": "search_web", "reason": "not a step"}, match="Route:"),
            Fail(OutputParserException("Invalid json output: {step: draft"), match="Route:"),
            _route("draft_content", "enough to draft"),
            _claims(
                ("The dispatcher hands tasks to the worker pool.", "docs/dispatch.md:3"),
                ("It runs on a mainframe.", "docs/nowhere.md:1"),
            ),
            Fail(TimeoutError("the model timed out"), match="Route:"),
        ]
    )
    state = _run(model_roles(model, graph))
    model.assert_complete()
    assert _steps(state) == ["query_memory", "query_memory", "draft_content", "finish"]
    fallbacks = [decision["fallback"] for decision in state["decisions"]]
    assert fallbacks[0] is not None and "search_web" in fallbacks[0]
    assert fallbacks[1].startswith("OutputParserException: Invalid json output: {step: draft")
    assert fallbacks[2] is None
    assert fallbacks[3] == "TimeoutError: the model timed out"
    answer = state["final_answer"]
    assert "The dispatcher hands tasks to the worker pool (`docs/dispatch.md:3`)." in answer
    assert "mainframe" not in answer
    assert "- step 4: the rule chose finish because TimeoutError: the model timed out" in answer
    assert "- 1 drafted claim(s) left out: they cite no listed source" in answer


def test_a_model_step_that_cannot_run_now_is_replaced_by_the_rule(graph: KnowledgeGraph) -> None:
    model = ScriptedChatModel(
        [
            _route("draft_content", "draft right away"),
            _route("query_memory"),
            _route("finish", "the answer is drafted below"),
        ]
    )
    roles = SupervisorRoles(
        memory=MemoryQuery(graph=graph),
        supervisor=model_roles(model, graph).supervisor,
        writer=TemplateWriter(),
    )
    state = _run(roles)
    model.assert_complete()
    assert _steps(state) == ["query_memory", "query_memory", "finish"]
    assert state["decisions"][0]["fallback"] == (
        "the model chose draft_content with nothing found to draft from"
    )
    assert state["decisions"][1] == {"step": "query_memory", "reason": "scripted", "fallback": None}
    assert "## Not answered by the corpus" in state["final_answer"]


def test_a_drafting_error_is_reported_and_the_run_goes_on(graph: KnowledgeGraph) -> None:
    model = ScriptedChatModel(
        [
            _route("query_memory"),
            _route("draft_content"),
            Fail(RuntimeError("the drafter is down"), match="Draft:"),
            _route("draft_content", "try again"),
            Fail(RuntimeError("the drafter is down"), match="Draft:"),
            _route("finish"),
        ]
    )
    state = _run(model_roles(model, graph))
    model.assert_complete()
    assert _steps(state) == ["query_memory", "draft_content", "draft_content", "finish"]
    assert [e["error"] for e in state["errors"]] == ["RuntimeError: the drafter is down"] * 2
    answer = state["final_answer"]
    assert "No answer could be drafted from what the lookups found" in answer
    assert answer.count("- draft_content failed: RuntimeError: the drafter is down") == 2


def test_the_rule_finishes_after_two_failed_drafts(graph: KnowledgeGraph) -> None:
    class BrokenWriter:
        calls = 0

        def draft(self, state: Any, context: NodeContext) -> Any:
            BrokenWriter.calls += 1
            raise ValueError("no template")

    roles = SupervisorRoles(
        memory=MemoryQuery(graph=graph), supervisor=RuleSupervisor(), writer=BrokenWriter()
    )
    state = _run(roles)
    assert BrokenWriter.calls == 2
    assert _steps(state) == ["query_memory"] * 4 + ["draft_content", "draft_content", "finish"]
    assert state["decisions"][-1]["reason"] == "drafting failed 2 times"


def test_messages_stay_bounded_over_a_long_loop(graph: KnowledgeGraph) -> None:
    redrafts = 15
    script = [_route("query_memory")]
    for number in range(redrafts):
        script += [
            _route("draft_content", f"redraft {number}"),
            _claims((f"Draft {number}: the dispatcher feeds the pool.", "docs/dispatch.md:3")),
        ]
    script.append(_route("finish"))
    model = ScriptedChatModel(script)
    state = _run(model_roles(model, graph), max_steps=40)
    model.assert_complete()
    assert len(state["decisions"]) == redrafts + 2
    window = state["messages"]
    assert len(window["recent"]) == WINDOW
    assert len(window["gists"]) == SUMMARY_GISTS
    # the question and the plan, one message per decision and per step run, and the answer
    written = 2 + len(state["decisions"]) + (len(state["decisions"]) - 1) + 1
    assert window["folded"] == written - WINDOW
    last_route = model.requests[-1][-1].text  # asked before its own message and finish's
    recent = last_route.split("Recent messages:\n")[1].split("\n\n")[0].splitlines()
    assert len(recent) == WINDOW
    assert f"{written - 2 - WINDOW} earlier message(s), the" in last_route
    assert (
        "Draft 14: the dispatcher feeds the pool (`docs/dispatch.md:3`)." in state["final_answer"]
    )


def test_the_window_keeps_the_last_ten_and_a_summary_of_the_rest() -> None:
    window = None
    for number in range(23):
        window = add_to_window(window, [AIMessage(f"message {number}", name="node")])
    assert window is not None
    assert [m.text for m in window["recent"]] == [f"message {n}" for n in range(13, 23)]
    assert window["folded"] == 13
    assert window["gists"] == [f"node: message {n}" for n in range(8, 13)]
    assert summary(window).splitlines()[0] == "13 earlier message(s), the 8 oldest not shown:"
    assert summary(None) == ""


def test_an_empty_question_and_bad_roles_are_refused(graph: KnowledgeGraph) -> None:
    with pytest.raises(ConfigError, match="question is empty"):
        _run(offline_roles(graph), "   ")
    with pytest.raises(ConfigError, match="needs SupervisorRoles"):
        build_supervisor_team(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="role 'writer'"):
        SupervisorRoles(
            memory=MemoryQuery(graph=graph),
            supervisor=RuleSupervisor(),
            writer=object(),  # type: ignore[arg-type]
        )


def test_the_team_takes_its_prompts_from_the_role_registry(
    graph: KnowledgeGraph, store: SemanticStore
) -> None:
    roles = PromptRegistry.in_memory()
    roles.prompt(SUPERVISOR_ROLE, SUPERVISOR_SYSTEM)
    roles.set(SUPERVISOR_ROLE, "Route carefully: query, draft, finish.")
    model = ScriptedChatModel(
        [
            _route("query_memory"),
            _route("draft_content"),
            _claims(("The dispatcher feeds the worker pool.", "docs/dispatch.md:3")),
            _route("finish"),
        ]
    )
    setup = TeamSetup(corpus=Corpus(store), store=store, model=model, prompts=roles)
    state = compile_team(supervisor_team(setup)).invoke({"question": QUESTION})
    model.assert_complete()
    assert roles.used() == {SUPERVISOR_ROLE: 2, DRAFTER_ROLE: 1}
    systems = [request[0].text for request in model.requests]
    assert systems[0] == "Route carefully: query, draft, finish."
    assert systems[2] == DRAFTER_SYSTEM
    assert "(`docs/dispatch.md:3`)" in state["final_answer"]
    offline = PromptRegistry.in_memory()
    supervisor_team(TeamSetup(corpus=Corpus(store), store=store, prompts=offline))
    assert offline.used() == {}  # the offline team has no prompts


def _found(subject: str, predicate: str, object_: str, evidence: str) -> Any:
    return {
        "subject": subject,
        "predicate": predicate,
        "object": object_,
        "evidence": evidence,
        "confidence": 0.8,
        "status": "accepted",
        "sources": ["docs/a.md:1"],
    }


def test_the_answer_is_the_relations_that_answer_the_question_or_a_chain_of_two() -> None:
    founded = _found(
        "Tamsin Reed", "founded", "Lumen Press", "Tamsin Reed founded the Lumen Press."
    )
    publishes = _found(
        "Lumen Press",
        "publishes",
        "Harbour Review",
        "The Lumen Press publishes the Harbour Review.",
    )
    cottage = _found("Lark house", "is a", "stone cottage", "The Lark house is a stone cottage.")
    question = "What does the press that Tamsin Reed founded publish?"
    assert answering_chains(question, ["Tamsin Reed"], [founded], [(founded, publishes)]) == [
        (founded, publishes)
    ]
    assert answering_chains("Who painted the Lark house?", ["Lark house"], [cottage]) == []
    assert answering_chains("What is the Lark house?", ["Lark house"], [cottage]) == [(cottage,)]
    assert relation_sentence(publishes) == "The Lumen Press publishes the Harbour Review"
    designed = _found("Harrow bridge", "designed by", "Ada Marsh", "It was designed by Ada Marsh.")
    assert relation_sentence(designed) == "Harrow bridge was designed by Ada Marsh"
    evidence = "The Harrow bell, once credited to Ivo Hart, was in fact cast by Ada Marsh."
    cast = _found("Harrow bell", "cast by", "Ada Marsh", evidence)
    assert relation_sentence(cast) == "The Harrow bell was cast by Ada Marsh"  # "was in fact"


def test_a_relation_about_another_entity_of_the_kind_never_answers() -> None:
    other = _found("Kell mill", "'s miller is", "Ned Lowe", "Kell mill (Ned Lowe, 1790)")
    asked = _found("Oswy mill", "'s miller is", "Rosa Venn", "Oswy mill (Rosa Venn, 1802)")
    question = "Who was the miller of the Oswy mill?"
    assert answering_chains(question, [], [other]) == []
    assert answering_chains(question, ["Oswy mill"], [other, asked]) == [(asked,)]


def test_a_question_asked_by_a_synonym_or_phrasal_verb_of_making_finds_the_deed() -> None:
    founded = _found("Nell Hay", "founded", "Kell guild", "Nell Hay founded the Kell guild.")
    for question in ("Who set up the Kell guild?", "Who established the Kell guild?"):
        assert answering_chains(question, ["Kell guild"], [founded]) == [(founded,)]
    assert answering_chains("Who ran the Kell guild?", ["Kell guild"], [founded]) == []
    set_up = _found("Kell guild", "set up in", "1790", "The Kell guild was set up in 1790.")
    assert answering_chains("When was the Kell guild set up?", ["Kell guild"], [set_up]) == [
        (set_up,)
    ]
