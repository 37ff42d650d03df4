"""The hypothesis team: conflicting sources found and resolved, memory across runs, routing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.engine.records import SourceError
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.memory import (
    Conflict,
    Corpus,
    EvidenceRecord,
    Hypothesis,
    HypothesisStatus,
    MiniLMEmbedder,
    Passage,
    ResearchMemory,
    SemanticStore,
    evidence_id,
    ingest_corpus,
)
from framework.persistence.checkpointer import sqlite_checkpointer
from framework.runs.teams import TeamSetup, load_team
from framework.testing import Fail, ScriptedChatModel, Structured
from teams.hypothesis import (
    HypothesisRoles,
    HypothesisSettings,
    build_hypothesis_team,
    model_roles,
    next_step_by_rule,
    offline_roles,
)
from teams.hypothesis._control import route_next
from teams.hypothesis.events import (
    ConflictFound,
    ConflictResolved,
    ReportWritten,
    Started,
    parse_event,
    stream_events,
)
from teams.hypothesis.resolving import DecisiveSourceResolver
from teams.hypothesis.rules import RuleSupervisor
from teams.hypothesis.schemas import (
    ClaimDraft,
    ConflictDraft,
    HypothesisDraft,
    JudgmentDraft,
    QueriesDraft,
    ResolutionDraft,
    RouteDraft,
    SummaryDraft,
)
from teams.hypothesis.sources import passage_evidence
from teams.hypothesis.state import Step, keep_first
from teams.hypothesis.verdicts import side_of, standing_note
from teams.language.contradiction import (
    agrees,
    claim_of,
    correction_of,
    disagreement,
    notice_of_error,
    without_rejected,
)
from teams.language.standing import written_since
from teams.language.values import stated_date
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from tests.conftest import write_corpus

CORPUS = {
    "almanac.md": "# Harbor Bridge\n\nThe Harbor Bridge opened to traffic in 1932.\n",
    "gazette.md": "# Harbor Bridge\n\nThe Harbor Bridge opened to traffic in 1936.\n",
    "archive.md": "# City archive\n\n"
    "City records confirm that the Harbor Bridge opened to traffic in 1932.\n",
    "ferry.md": "# Ferry\n\nThe old ferry across the harbor carried about 400 passengers a day.\n",
}
"""Two sources disagree on the year (1932, 1936); the archive agrees with the almanac."""
QUESTION = "When did the Harbor Bridge open to traffic?"
ALMANAC, GAZETTE, ARCHIVE = "docs/almanac.md:3", "docs/gazette.md:3", "docs/archive.md:3"
FIRST = "The Harbor Bridge opened to traffic in 1932."
SECOND = "The Harbor Bridge opened to traffic in 1936."
CITED = re.compile(r"`(docs/[\w.]+):(\d+)`")
EVENTS = (
    "started",
    "searching",
    "evidence_found",
    "hypothesis_updated",
    "conflict_found",
    "conflict_resolved",
    "report",
)
Mode = Literal["sync", "async"]


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs", CORPUS)


@pytest.fixture
def store(tmp_path: Path, corpus_dir: Path, embedder: MiniLMEmbedder) -> Iterator[SemanticStore]:
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as opened:
        ingest_corpus(corpus_dir, opened)
        yield opened


def _memory(store: SemanticStore, scope: str = "test") -> ResearchMemory:
    return ResearchMemory(store, scope=(scope,))


def _app(store: SemanticStore, *extra: BaseTool, **settings: Any) -> Any:
    roles = offline_roles(_memory(store), Corpus(store), extra_sources=extra)
    return compile_team(build_hypothesis_team(roles, **settings), checkpointer=InMemorySaver())


async def _run(app: Any, mode: Mode, thread: str = "t1", **inputs: Any) -> Any:
    config = {"configurable": {"thread_id": thread}}
    state = {"question": QUESTION, **inputs}
    if mode == "async":
        return await app.ainvoke(state, config)
    return app.invoke(state, config)


def _by_statement(state: Any) -> dict[str, Hypothesis]:
    return {h.statement: h for h in state["hypotheses"].values()}


def _the_conflict(state: Any) -> Conflict:
    conflicts: list[Conflict] = list(state["conflicts"].values())
    assert len(conflicts) == 1, conflicts
    return conflicts[0]


def _assert_cites_real_lines(report: str, root: Path) -> None:
    """Every `path:line` of the report names a line of the corpus that holds text."""
    cited = CITED.findall(report)
    assert cited
    for path, line in cited:
        text = (root.parent / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        assert text.strip() and not text.startswith("#")


# -- the conflict scenario, offline -------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_the_conflict_is_found_and_resolved_by_a_third_source(
    store: SemanticStore, corpus_dir: Path, mode: Mode
) -> None:
    state = await _run(_app(store), mode)
    conflict = _the_conflict(state)
    assert {conflict.source_a, conflict.source_b} == {
        evidence_id(ALMANAC, FIRST),
        evidence_id(GAZETTE, SECOND),
    }
    assert conflict.status == "resolved"
    archive = "City records confirm that the Harbor Bridge opened to traffic in 1932."
    assert conflict.resolved_by == evidence_id(ARCHIVE, archive)
    assert conflict.resolution == f"{ARCHIVE} agrees with {ALMANAC}: {archive}"
    hypotheses = _by_statement(state)
    assert hypotheses[FIRST].status == "confirmed" and hypotheses[FIRST].confidence == 0.8
    assert hypotheses[SECOND].status == "refuted"
    history = [(c.step, c.status) for c in hypotheses[FIRST].history]
    assert history == [("judge#2", "proposed"), ("judge#2", "validating"), ("judge#4", "confirmed")]
    report = state["final_answer"]
    assert report == state["report"]
    assert f"- {FIRST} (confirmed, confidence 0.80; `{ALMANAC}`, `{ARCHIVE}`)" in report
    assert f"Resolution: {ARCHIVE} agrees with {ALMANAC}" in report
    assert f"decided by `{ARCHIVE}`" in report
    assert "## Ruled out" in report and SECOND in report.split("## Ruled out")[1]
    assert "1936" not in report.split("## Findings")[1].split("## Ruled out")[0]
    _assert_cites_real_lines(report, corpus_dir)
    assert state["question"] == QUESTION
    assert state["errors"] == []


def test_events_tell_the_story_in_order(store: SemanticStore) -> None:
    config = {"configurable": {"thread_id": "events"}}
    chunks = _app(store).stream({"question": QUESTION}, config, stream_mode="custom")
    kinds = [event["event"] for event in chunks]
    firsts = [kinds.index(kind) for kind in EVENTS]
    assert firsts == sorted(firsts), kinds
    assert kinds.count("conflict_found") == kinds.count("conflict_resolved") == 1


def test_typed_events_for_uis(store: SemanticStore) -> None:
    config: Any = {"configurable": {"thread_id": "typed"}}
    events = list(stream_events(_app(store), {"question": QUESTION}, config))
    assert isinstance(events[0], Started) and events[0].question == QUESTION
    assert isinstance(events[-1], ReportWritten) and events[-1].confirmed >= 1
    [found] = [e for e in events if isinstance(e, ConflictFound)]
    [resolved] = [e for e in events if isinstance(e, ConflictResolved)]
    assert resolved.id == found.id and resolved.resolved_by is not None
    assert "1932" in resolved.resolution
    assert all(e.team == "hypothesis" for e in events)
    assert parse_event({"event": "plan", "tasks": []}) is None  # another team's event


def test_the_question_is_never_overwritten(store: SemanticStore) -> None:
    assert keep_first("first", "second") == "first"
    assert keep_first("", "second") == "second"
    app = _app(store)
    _ = app.invoke({"question": QUESTION}, {"configurable": {"thread_id": "q"}})
    again = app.invoke(
        {"question": "Who painted the bridge?"}, {"configurable": {"thread_id": "q"}}
    )
    assert again["question"] == QUESTION


# -- a failing source ------------------------------------------------------------------------


def _flaky_source() -> BaseTool:
    """A source that answers the first call with nothing, then raises: it fails mid-run."""
    calls: list[str] = []

    def flaky(query: str) -> str:
        """Search the flaky archive."""
        calls.append(query)
        if len(calls) > 1:
            raise RuntimeError("archive server went away")
        return json.dumps([])

    return StructuredTool.from_function(flaky)


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_source_that_raises_mid_run_is_an_error_entry(
    store: SemanticStore, mode: Mode
) -> None:
    state = await _run(_app(store, _flaky_source()), mode)
    assert state["errors"]
    assert all(isinstance(error, SourceError) for error in state["errors"])
    assert {error.source for error in state["errors"]} == {"flaky"}
    assert state["errors"][0].error == "RuntimeError: archive server went away"
    assert _the_conflict(state).status == "resolved"
    assert _by_statement(state)[FIRST].status == "confirmed"
    assert "Source flaky failed on" in state["final_answer"].split("## Unresolved")[1]


# -- memory across runs ----------------------------------------------------------------------


def test_a_second_run_starts_from_the_first_runs_memory(
    tmp_path: Path, corpus_dir: Path, embedder: MiniLMEmbedder
) -> None:
    path = tmp_path / "memory.sqlite"
    with SemanticStore(path, embedder=embedder) as store:
        ingest_corpus(corpus_dir, store)
        first = _app(store).invoke({"question": QUESTION}, {"configurable": {"thread_id": "a"}})
    assert first["memory_note"] == "Started from an empty memory (research/test)."
    with SemanticStore(path, embedder=embedder) as store:
        second = _app(store).invoke({"question": QUESTION}, {"configurable": {"thread_id": "b"}})
        other_scope = ResearchMemory(store, scope=("someone-else",))
        assert other_scope.evidence_count() == 0
    note = second["memory_note"]
    assert note.startswith("Started from memory research/test: 4 evidence, 2 hypotheses")
    assert "recalled" in note and "2 hypotheses and 1 conflicts" in note
    assert f"## Memory\n\n{note}" in second["final_answer"]
    recalled = [m.content for m in second["messages"] if m.name == "recall"]
    assert recalled == [note]
    assert _by_statement(second)[FIRST].status == "confirmed"
    assert _the_conflict(second).status == "resolved"
    assert not [m for m in second["messages"] if m.name in ("judge", "resolve")]


# -- the supervisor's routing ---------------------------------------------------------------


def _hypothesis(status: str, supporting: tuple[str, ...] = ("e1",)) -> Hypothesis:
    return Hypothesis.model_validate(
        {
            "id": f"h-{status}",
            "statement": f"claim {status}",
            "status": status,
            "supporting": list(supporting),
        }
    )


OPEN = Conflict(id="c-1", description="years differ", source_a="e1", source_b="e2")
SEARCHED = {"question": "q", "searched": ["q"], "max_iterations": 5}
ROUTES: list[tuple[str, dict[str, Any], str]] = [
    ("nothing searched yet", {"question": "q"}, "search"),
    ("iteration bound", {**SEARCHED, "iteration": 5, "conflicts": {"c-1": OPEN}}, "synthesize"),
    ("open conflict", {**SEARCHED, "conflicts": {"c-1": OPEN}, "new_evidence": 3}, "resolve"),
    (
        "hypothesis lacking evidence",
        {**SEARCHED, "hypotheses": {"h": _hypothesis("proposed", ())}, "new_evidence": 2},
        "search",
    ),
    (
        "new evidence",
        {**SEARCHED, "hypotheses": {"h": _hypothesis("validating")}, "new_evidence": 1},
        "judge",
    ),
    (
        "all decided",
        {**SEARCHED, "hypotheses": {"a": _hypothesis("confirmed"), "b": _hypothesis("refuted")}},
        "synthesize",
    ),
    (
        "nothing left to do",
        {**SEARCHED, "hypotheses": {"h": _hypothesis("validating")}},
        "synthesize",
    ),
    (
        "a searched hypothesis without evidence",
        {
            **SEARCHED,
            "searched": ["q", "claim proposed"],
            "hypotheses": {"h": _hypothesis("proposed", ())},
        },
        "synthesize",
    ),
]


@pytest.mark.parametrize(("state", "step"), [r[1:] for r in ROUTES], ids=[r[0] for r in ROUTES])
def test_the_rule_routes_each_state(state: dict[str, Any], step: str) -> None:
    assert next_step_by_rule(state).step == step  # type: ignore[arg-type]


def test_enough_new_and_the_default_bound_are_settings() -> None:
    state: Any = {**SEARCHED, "hypotheses": {"h": _hypothesis("validating")}, "new_evidence": 1}
    assert next_step_by_rule(state, enough_new=2).step == "synthesize"
    del state["max_iterations"]
    state["iteration"] = 2
    assert next_step_by_rule(state, max_iterations=2).step == "synthesize"


def test_the_router_refuses_an_unknown_step() -> None:
    assert route_next({"next_step": "judge"}) == "judge"
    with pytest.raises(ConfigError, match="next_step 'dance' is not one of"):
        route_next({"next_step": "dance"})  # type: ignore[typeddict-item]


def test_the_iteration_bound_forces_the_report(store: SemanticStore) -> None:
    state = _app(store, max_iterations=2).invoke(
        {"question": QUESTION}, {"configurable": {"thread_id": "bound"}}
    )
    assert state["iteration"] == 2
    assert _the_conflict(state).status == "open"
    assert "Open conflict:" in state["final_answer"].split("## Unresolved")[1]
    routes = [m.content for m in state["messages"] if m.name == "supervisor"]
    assert routes[-1] == "supervisor: synthesize (reached the bound of 2 iterations)"


# -- the model-backed roles --------------------------------------------------------------------


def _judgment(
    first: HypothesisStatus, second: HypothesisStatus, *conflicts: ConflictDraft
) -> Structured:
    return Structured(
        JudgmentDraft(
            hypotheses=[
                HypothesisDraft(
                    statement=FIRST,
                    status=first,
                    confidence=0.9 if first == "confirmed" else 0.6,
                    supporting=[ALMANAC, ARCHIVE],
                    contradicting=[GAZETTE],
                ),
                HypothesisDraft(
                    statement=SECOND,
                    status=second,
                    confidence=0.1,
                    supporting=[GAZETTE],
                    contradicting=[ALMANAC, "docs/x.md:9"],
                ),
            ],
            conflicts=list(conflicts),
        ),
        match="Judge:",
    )


def _route(step: Step) -> Structured:
    return Structured(RouteDraft(step=step, reason=f"go {step}"), match="Route:")


def _script() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            _route("search"),
            Structured(QueriesDraft(queries=["Harbor Bridge opening year"]), match="Search:"),
            Structured({"step": "dance", "reason": "bad"}, match="Route:"),  # the rule: judge
            _judgment(
                "validating",
                "validating",
                ConflictDraft(source_a=ALMANAC, source_b=GAZETTE, description="1932 or 1936"),
            ),
            _route("resolve"),
            Structured(
                ResolutionDraft(
                    decisive_source=ARCHIVE, resolution="The city archive agrees with 1932."
                ),
                match="Resolve:",
            ),
            Fail(RuntimeError("model down"), match="Route:"),  # the rule: judge
            _judgment("confirmed", "refuted"),
            _route("synthesize"),
            Structured(
                SummaryDraft(
                    claims=[
                        ClaimDraft(text="It opened in 1932.", source=ALMANAC),
                        ClaimDraft(text="Invented.", source="docs/nowhere.md:1"),
                    ]
                ),
                match="Summarise:",
            ),
        ]
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_the_conflict_scenario_with_the_scripted_model(
    store: SemanticStore, corpus_dir: Path, mode: Mode
) -> None:
    model = _script()
    roles = model_roles(model, _memory(store), Corpus(store))
    app = compile_team(build_hypothesis_team(roles), checkpointer=InMemorySaver())
    state = await _run(app, mode)
    model.assert_complete()
    conflict = _the_conflict(state)
    assert conflict.status == "resolved"
    assert conflict.resolution == "The city archive agrees with 1932."
    assert conflict.resolved_by == evidence_id(
        ARCHIVE, "City records confirm that the Harbor Bridge opened to traffic in 1932."
    )
    hypotheses = _by_statement(state)
    assert (hypotheses[FIRST].status, hypotheses[FIRST].confidence) == ("confirmed", 0.9)
    assert hypotheses[SECOND].status == "refuted"
    report = state["final_answer"]
    assert f"## Summary\n\n- It opened in 1932. (`{ALMANAC}`)\n" in report
    assert "Invented." not in report and "1 summary claim(s) left out" in report
    _assert_cites_real_lines(report, corpus_dir)
    notes = [m.content for m in state["messages"] if m.name in ("supervisor", "judge")]
    fallbacks = [n for n in notes if "the rule decided because" in n]
    assert len(fallbacks) == 2
    assert "ValidationError" in fallbacks[0] or "OutputParser" in fallbacks[0]
    assert "RuntimeError: model down" in fallbacks[1]
    assert any("dropped unknown source(s) docs/x.md:9" in n for n in notes)


def test_the_model_supervisor_is_not_asked_at_the_bound(store: SemanticStore) -> None:
    model = ScriptedChatModel([])
    roles = model_roles(model, _memory(store), Corpus(store))
    app = compile_team(build_hypothesis_team(roles, max_iterations=1))
    state = app.invoke({"question": QUESTION, "iteration": 1})
    assert state["next_step"] == "synthesize" and model.requests == []


# -- as the research phase of the MetaCoordinator ------------------------------------------


def test_the_meta_coordinator_runs_the_hypothesis_team_as_its_research_phase(
    store: SemanticStore, tmp_path: Path
) -> None:
    research = build_hypothesis_team(offline_roles(_memory(store), Corpus(store)))
    meta = build_meta_coordinator(research, EvidenceRisk(), CitationCompliance())
    checkpointer = sqlite_checkpointer(tmp_path / "checkpoints.sqlite")
    app = compile_team(meta, checkpointer=checkpointer)
    config: Any = {"configurable": {"thread_id": "meta"}}
    events: list[Any] = list(
        app.stream({"question": f"  {QUESTION} "}, config, stream_mode="custom", subgraphs=True)
    )
    state = app.get_state(config).values
    assert state["question"] == QUESTION
    assert f"Resolution: {ARCHIVE} agrees with {ALMANAC}" in state["final_answer"]
    compliance = state["findings"]["compliance_check"]
    assert [(f.severity, f.message) for f in compliance] == [
        ("info", "all 3 claims cite their sources")
    ]
    risks = [f.message for f in state["findings"]["risk_assessment"]]
    assert any("may conflict: different dates (1932, 1936)" in m for m in risks)
    assert {e.source for e in state["evidence"]} >= {ALMANAC, GAZETTE, ARCHIVE}
    assert "hypotheses" not in state
    nested = [event["event"] for namespace, event in events if namespace]
    assert nested[0] == "started" and nested[-1] == "report"
    checkpointer.conn.close()


# -- checkpoints, the registry, build-time checks ---------------------------------------------


def test_a_run_pauses_and_resumes_through_sqlite_checkpoints(
    store: SemanticStore, tmp_path: Path
) -> None:
    checkpointer = sqlite_checkpointer(tmp_path / "checkpoints.sqlite")
    roles = offline_roles(_memory(store), Corpus(store))
    graph = build_hypothesis_team(roles)
    app = compile_team(graph, checkpointer=checkpointer, interrupt_before=["resolve"])
    config: Any = {"configurable": {"thread_id": "pause"}}
    app.invoke({"question": QUESTION}, config)
    paused = app.get_state(config)
    assert paused.next == ("resolve",)
    assert all(isinstance(h, Hypothesis) for h in paused.values["hypotheses"].values())
    assert _the_conflict(paused.values).status == "open"
    state = app.invoke(None, config)
    assert _the_conflict(state).status == "resolved"
    assert _by_statement(state)[FIRST].status == "confirmed"
    checkpointer.conn.close()


def test_the_team_is_registered_and_built_from_a_setup(store: SemanticStore) -> None:
    factory = load_team("hypothesis")
    setup = TeamSetup(corpus=Corpus(store), store=store, max_parallel=1, memory_scope=("p", "x"))
    state = compile_team(factory(setup)).invoke({"question": QUESTION})
    assert _by_statement(state)[FIRST].status == "confirmed"
    assert ResearchMemory(store, scope=("p", "x")).summary().resolved_conflicts == 1


def _roles(store: SemanticStore, **override: Any) -> HypothesisRoles:
    roles = offline_roles(_memory(store), Corpus(store))
    fields = {name: getattr(roles, name) for name in ("memory", "supervisor", "searcher", "judge")}
    fields |= {"resolver": roles.resolver, "synthesizer": roles.synthesizer}
    return HypothesisRoles(**(fields | override))


def _tool(name: str, query_arg: str = "query") -> BaseTool:
    def search(**kwargs: str) -> str:
        return "[]"

    schema = {"type": "object", "properties": {query_arg: {"type": "string"}}}
    return StructuredTool.from_function(search, name=name, description="x", args_schema=schema)


BAD_BUILDS: list[tuple[str, dict[str, Any], str]] = [
    ("no memory", {"memory": object()}, "memory is a object: pass ResearchMemory"),
    ("a role without methods", {"judge": object()}, r"lacks the Judge methods \['judge'\]"),
    ("a missing role", {"resolver": None}, "role 'resolver' is missing: pass HypothesisRoles"),
]


@pytest.mark.parametrize(
    ("override", "message"), [b[1:] for b in BAD_BUILDS], ids=[b[0] for b in BAD_BUILDS]
)
def test_bad_roles_are_refused_with_the_fix(
    store: SemanticStore, override: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        _roles(store, **override)


def test_bad_sources_and_settings_are_refused_with_the_fix(store: SemanticStore) -> None:
    memory, corpus = _memory(store), Corpus(store)
    with pytest.raises(ConfigError, match="takes \\['q'\\], not a 'query'"):
        offline_roles(memory, corpus, extra_sources=[_tool("web", "q")])
    with pytest.raises(ConfigError, match="two sources are named 'corpus'"):
        offline_roles(memory, corpus, extra_sources=[_tool("corpus")])
    with pytest.raises(ConfigError, match="max_iterations must be >= 1"):
        HypothesisSettings(max_iterations=0)
    with pytest.raises(ConfigError, match="lacks wrap"):
        HypothesisSettings(middleware=(object(),))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="needs HypothesisRoles"):
        build_hypothesis_team(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="interrupt points \\['review'\\]"):
        compile_team(build_hypothesis_team(_roles(store)), interrupt_before=["review"])


def test_the_offline_supervisor_follows_the_rule() -> None:
    rule = next_step_by_rule({"question": "q"})
    context = NodeContext(node="supervisor", team="hypothesis")
    assert RuleSupervisor().decide({"question": "q"}, rule, context) is rule


# -- the offline heuristics --------------------------------------------------------------------


def test_disagreement_is_a_negation_or_other_values_on_the_same_subject() -> None:
    assert disagreement(FIRST, SECOND) == "different dates (1932, 1936)"
    negated = "The Harbor Bridge never opened to traffic in 1932."
    assert disagreement(FIRST, negated) == "one negates what the other states"
    detail = "The Harbor Bridge opened to traffic in 1932 after 6 years of work."
    assert disagreement(FIRST, detail) is None and agrees(FIRST, detail)
    may = "The Harbor Bridge opened to traffic in May 1932."
    assert disagreement(may, "The Harbor Bridge opened to traffic in June 1932.") == (
        "different dates (1932-05, 1932-06)"
    )
    assert disagreement(may, FIRST) is None
    assert disagreement(FIRST, CORPUS["ferry.md"]) is None


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        ("The mill has six wheels.", "The mill has nine wheels.", "numbers (six wheels, nine"),
        ("The mill has eleven wheels.", "The mill has 14 wheels.", "numbers (eleven wheels, 14"),
        ("The mill race is 1.2 km long.", "The mill race is 800 metres long.", "figures"),
        ("The mill is painted red.", "The mill is painted green.", "colours (red, green)"),
        ("The mill roof is slate.", "The mill roof is copper.", "materials (slate, copper)"),
        ("The mill engine burns coal.", "The mill engine burns diesel.", "fuels (coal, diesel)"),
        ("The mill bell weighs two tonnes.", "The mill bell weighs 900 kg.", "figures"),
        ("The mill fair is held in June.", "The mill fair is held in July.", "months"),
        ("The mill opens on Tuesdays.", "The mill opens on Thursdays.", "weekdays"),
        ("The mill closes at 17:00.", "The mill closes at 7 pm.", "times (17:00, 19:00)"),
        ("The mill was built by Ada Marsh.", "The mill was built by John Rennie.", "names"),
    ],
)
def test_values_in_words_units_and_categories_disagree(first: str, second: str, why: str) -> None:
    assert why in (disagreement(first, second) or "")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The choir has 30 singers.", "The choir has thirty singers."),
        ("The tower is 3 km from the harbour.", "The tower is 3000 metres from the harbour."),
        ("The well is 40 feet deep.", "The well is about 12 metres deep."),
        ("The pass is shut in winter.", "The pass is not open in winter."),
        ("The gate is painted blue.", "The gate has a blue coat of paint."),
        ("The canal opened in March 1881.", "The canal opened in 1881."),
        ("The fair lasts three days.", "The fair lasts 72 hours."),
        ("The tower has 300 steps.", "The tower has three hundred steps."),
        ("The museum gets 1.5 million visitors.", "The museum gets 1,500,000 visitors."),
    ],
)
def test_the_same_value_in_other_words_agrees(first: str, second: str) -> None:
    assert disagreement(first, second) is None and agrees(first, second)


def test_a_correction_upholds_one_side_and_is_no_claim() -> None:
    old, new = "The canal opened in March 1881.", "The canal opened in 1887."
    confused = "Some guides give 1881, but they confused the canal with the lock."
    assert correction_of(confused, old, new) == new
    corrected = "The first edition gave 1887; this was corrected to 1881 for the canal."
    assert correction_of(corrected, old, new) == old
    assert correction_of("The canal opened in 1887.", old, new) is None
    assert disagreement(confused, new) is None and not agrees(confused, old)


def test_an_errata_line_states_its_reading_and_rejects_the_printed_one() -> None:
    printed, right = "The ferry carries 240 cars.", "The ferry carries 420 cars."
    errata = "Section 4, the ferry: for 240 cars read 420 cars."
    assert correction_of(errata, printed, right) == right
    assert disagreement(errata, printed) is not None and disagreement(errata, right) is None
    assert correction_of("For the timetable read the notice board.", printed, right) is None
    # "for ... read" in ordinary prose is no errata: a value on each side, of one kind, needed
    waits = "By default the client waits for 30 seconds before a read times out."
    assert agrees(waits, "The client waits 30 seconds before a read times out.")
    assert not claim_of("For each of the 3 nodes read 2 values.").rejected
    contrast = "The span is 31 metres, not 37 metres; for details read the survey."
    assert [value.label for value in claim_of(contrast).rejected] == ["37 metres"]


def test_a_change_from_one_value_to_another_states_the_new_one_and_rejects_the_old() -> None:
    old, new = "The Tarr hall has 250 seats.", "The Tarr hall has 310 seats."
    change = "- 2021-06-02: Tarr hall seating increased from 250 seats to 310 seats."
    assert [value.label for value in claim_of(change).rejected] == ["250 seats"]
    assert disagreement(change, old) is not None and disagreement(change, new) is None
    assert without_rejected(change) == "- 2021-06-02: Tarr hall seating increased … to 310 seats."
    assert without_rejected("Errata: for 250 seats read 310 seats.") == "Errata: … 310 seats."
    for kept in (
        "The hall is open from 9 am to 5 pm.",
        "The hall moved from Leeds to 310 Kirk Road.",
    ):
        assert not claim_of(kept).rejected and without_rejected(kept) == kept


def test_a_notice_that_another_text_was_wrong_upholds_what_its_own_document_states() -> None:
    guide, notice = "The mill wheel is made of oak.", "The mill wheel is made of elm."
    assert notice_of_error(
        "A previous leaflet mistakenly gave the wood of the mill wheel.", guide, notice
    )
    assert not notice_of_error("This was a misprint.", guide, notice)  # points back
    assert not notice_of_error("A previous leaflet mistakenly gave oak.", guide, notice)
    records = [
        EvidenceRecord(text=guide, source="leaflet.md:3", path="leaflet.md"),
        EvidenceRecord(text=notice, source="errata.md:4", path="errata.md"),
    ]
    wrong = EvidenceRecord(
        text="A previous leaflet mistakenly gave the wood of the mill wheel.",
        source="errata.md:3",
        path="errata.md",
    )
    assert side_of(wrong, *records) is records[1]


def test_a_notice_that_another_text_was_changed_upholds_what_follows_it() -> None:
    old, new = "The toll on the Wrey causeway is 40p.", "The toll on the Wrey causeway is 55p."
    for notice in ("Order 7 is amended as follows.", "The Gazette withdraws its issue 3 notice."):
        assert claim_of(notice).correction  # numbers that name a text are no values
        assert notice_of_error(notice, old, new)
    assert not claim_of("The order was amended in 2020 to set the toll at 55p.").correction
    for statement in ("The certificate is revoked.", "Around 40 trains were withdrawn."):
        assert not claim_of(statement).correction  # no text named: a statement, no notice
    records = [
        EvidenceRecord(text=old, source="order-7.md:3", path="order-7.md"),
        EvidenceRecord(text=new, source="amendment.md:4", path="amendment.md"),
    ]
    notice = EvidenceRecord(
        text="Order 7 is amended as follows.", source="amendment.md:3", path="amendment.md"
    )
    assert side_of(notice, *records) is records[1]  # the line right before it, whatever its words


def test_a_correction_stating_only_the_right_value_is_a_claim_that_upholds_itself() -> None:
    printed = "The Orme tramway climbs 150 metres."
    errata = "Page 9 should read: the Orme tramway climbs 172 metres."
    assert claim_of(errata).corrects and not claim_of(errata).correction
    assert disagreement(printed, errata) is not None
    assert correction_of(errata, printed, errata) == errata
    named = "The first edition gave 150 metres; this should read 172 metres."
    assert claim_of(named).correction and not claim_of(named).corrects
    wrong_then_right = "The climb given in the guide is wrong: the tramway climbs 0.17 km."
    assert claim_of(wrong_then_right).corrects
    assert correction_of(wrong_then_right, printed, wrong_then_right) == wrong_then_right


def test_a_correction_cited_as_a_passage_brings_the_sentence_it_corrects_to() -> None:
    passage = Passage(
        source="errata.md:3",
        path="errata.md",
        line=3,
        heading="Errata",
        text="An older leaflet wrongly gave the wood of the mill wheel. The wheel is made of elm.",
        score=0.9,
    )
    cited = [
        sentence
        for _, sentence in passage_evidence(passage, "What wood is the mill wheel made of?")
    ]
    assert "The wheel is made of elm." in cited


def test_a_statement_opening_with_the_date_it_holds_from_is_dated_so() -> None:
    assert stated_date("", "From 05/07/2023, the ferry leaves every 20 minutes.") == "2023-05-07"
    assert stated_date("", "As of May 2019, the ferry leaves hourly.") == "2019-05"
    assert stated_date("", "It counts from 12 sources, in all.") is None
    assert stated_date("", "In 2012 the library held 32,000 books.") == "2012"  # a year opens it
    assert stated_date("", "Its hall opened. In March 2019, the hall moved.") == "2019-03"
    assert stated_date("", "The hall was built in 2012 by the town.") is None  # not opening
    assert stated_date("", "Since June 1998, the bridge has carried trains.") is None  # history
    assert stated_date("Harbour survey, Aug '98", "") == "1998"  # as strptime's %y reads it
    assert stated_date("Harbour survey, Aug '11", "") == "2011"
    assert stated_date("", "It seats 80.\n\n© 2021 Orme Trust") == "2021"  # a copyright line
    assert stated_date("", "Copyright (c) 2009-2014 Orme Trust") == "2014"
    assert stated_date("", "In 2012 it seated 80.\n\n© 2021 Orme Trust") == "2012"  # weaker
    why = disagreement(
        "As of May 2019, the ferry leaves every 30 minutes.",
        "From 05/07/2023, the ferry leaves every 20 minutes.",
    )
    assert why is not None and why.startswith("different figures")


@pytest.mark.parametrize(
    ("dates", "expected", "winner"),
    [
        (("1950-01-01", "1990-05-01"), "no third source decides; the newer source", 1),
        ((None, None), None, None),
    ],
)
def test_without_a_third_source_the_newer_source_decides_or_the_conflict_stays_open(
    store: SemanticStore,
    dates: tuple[str | None, str | None],
    expected: str | None,
    winner: int | None,
) -> None:
    memory = _memory(store, "judgment")
    records = [
        EvidenceRecord(text=FIRST, source="old.md:1", date=dates[0]),
        EvidenceRecord(text=SECOND, source="new.md:1", date=dates[1]),
    ]
    memory.store_evidence(records)
    conflict = memory.open_conflict("years differ", records[0].id, records[1].id)
    context = NodeContext(node="resolve", team="hypothesis")
    old, new = records
    resolution = DecisiveSourceResolver(memory).resolve(conflict, old, new, context)
    if expected is None:
        assert resolution is None
        return
    assert resolution is not None and resolution.resolution.startswith(expected)
    assert resolution.resolved_by is None
    if winner is not None:
        assert f"{records[winner].source} ({dates[winner]}) is preferred" in resolution.resolution


@pytest.mark.parametrize(("third", "decides"), [("survey.md:3", True), ("old.md:4", False)])
def test_a_third_source_decides_only_from_another_document(
    store: SemanticStore, third: str, decides: bool
) -> None:
    memory = _memory(store, f"independent-{decides}")
    old, new = (
        EvidenceRecord(text=FIRST, source="old.md:1"),
        EvidenceRecord(text=SECOND, source="new.md:1"),
    )
    agreeing = EvidenceRecord(
        text="The Harbor Bridge first opened to traffic in 1932.", source=third
    )
    memory.store_evidence([old, new, agreeing])
    conflict = memory.open_conflict("years differ", old.id, new.id)
    context = NodeContext(node="resolve", team="hypothesis")
    resolution = DecisiveSourceResolver(memory).resolve(conflict, old, new, context)
    if decides:
        assert resolution is not None and resolution.resolved_by == agreeing.id
    else:
        assert resolution is None


@pytest.mark.parametrize(
    ("files", "question", "values"),
    [
        (
            {
                "old.md": "# The Rook gallery (old page)\n\nThis page is archived and no longer "
                "updated.\n\nThe Rook gallery has 9 rooms.\n",
                "gallery.md": "# The Rook gallery\n\nThe Rook gallery has 12 rooms.\n",
            },
            "How many rooms does the Rook gallery have?",
            ("12 rooms", "9 rooms"),
        ),
        (
            {
                "second.md": "# Hiker's guide to the Lune fells, second edition\n\nThe Lune "
                "ridge path is 22 km long.\n",
                "fourth.md": "# Hiker's guide to the Lune fells, 4th edition\n\nThe Lune ridge "
                "path is 25 km long.\n",
            },
            "How long is the Lune ridge path?",
            ("25 km", "22 km"),
        ),
        (
            {
                "spire.md": "# The Tarn spire\n\nThe Tarn spire is 71 metres tall [2].\n\n[2] "
                "Corrected figure: an earlier printing of this page gave 67 metres.\n",
                "county.md": "# Churches of the county\n\nThe Tarn spire is 67 metres tall.\n",
            },
            "How tall is the Tarn spire?",
            ("71 metres", "67 metres"),
        ),
        (
            {
                "notes.md": "# Mill notes, 1998\n\nThe Fenwick mill has 4 sails.\n",
                "visit.md": "# A visit\n\nThe Dunmore mill, renamed from the Fenwick mill when "
                "it was restored in 2006, has 6 sails.\n",
            },
            "How many sails does the Fenwick mill have?",
            ("6 sails", "4 sails"),
        ),
        (
            {
                "issue-4.md": "# Dock bulletin, Issue 4\n\nThe Hollin dock has 60 berths.\n",
                "issue-12.md": "# Dock bulletin, Issue 12\n\nThe Hollin dock has 85 berths.\n",
            },
            "How many berths does the Hollin dock have?",
            ("85 berths", "60 berths"),
        ),
        (
            {
                "leaflet.md": "# Hollin leaflet (2009)\n\nThe Hollin crane is 40 metres tall.\n",
                "crane.md": "# The Hollin crane\n\nThe Hollin crane is 36 metres tall.\n\n"
                "_Page last updated on 2 March 2021._\n",
            },
            "How tall is the Hollin crane?",
            ("36 metres", "40 metres"),
        ),
        (
            {
                "guide.md": "# Guide to the Hollin quay\n\nThe Hollin quay is 180 metres long.\n",
                "errata.md": "# Errata to the Guide to the Hollin quay\n\n"
                "| Page | Printed | Should read |\n| --- | --- | --- |\n"
                "| 9 | The Hollin quay is 180 m long. | The Hollin quay is 210 m long. |\n",
            },
            "How long is the Hollin quay?",
            ("210 m", "180 metres"),
        ),
        (
            {
                "a.md": "---\ntitle: Hollin harbour notes\nversion: 2.10\n---\n\n# Slipways\n\n"
                "The Hollin slipway is 48 metres long.\n",
                "b.md": "---\ntitle: Hollin harbour notes\nversion: 2.9\n---\n\n# Slipways\n\n"
                "The Hollin slipway is 41 metres long.\n",
            },
            "How long is the Hollin slipway?",
            ("48 metres", "41 metres"),
        ),
        (
            {
                "a.md": "---\ndate: 2022-09-14\n---\n\n# Moorings\n\n"
                "The Hollin basin has 75 moorings.\n",
                "b.md": "---\ndate: 2016-04-02\n---\n\n# The basin\n\n"
                "The Hollin basin has 52 moorings.\n",
            },
            "How many moorings does the Hollin basin have?",
            ("75 moorings", "52 moorings"),
        ),
        (
            {
                "old.md": "# The Hollin boathouse\n\nThe Hollin boathouse holds 14 boats.\n\n"
                "© 2008 Hollin Rowing Club\n",
                "new.md": "# Rowing at Hollin\n\nThe Hollin boathouse holds 22 boats.\n\n"
                "© 2020 Hollin Rowing Club\n",
            },
            "How many boats does the Hollin boathouse hold?",
            ("22 boats", "14 boats"),
        ),
        (
            {
                "survey.md": "# Hollin survey\n\nThe Hollin mole is 650 metres long.\n",
                "note.md": "# Note on the Hollin survey\n\nThe length of the Hollin mole given "
                "in the survey is incorrect: the Hollin mole is 0.72 km long.\n",
            },
            "How long is the Hollin mole?",
            ("0.72 km", "650 metres"),
        ),
        (
            {
                "notes.md": "# Hollin quay notes\n\nThis page replaces the Old guide to Hollin "
                "quay.\n\nThe Hollin quay has 16 cranes.\n",
                "old.md": "# Old guide to Hollin quay\n\nThe Hollin quay has 11 cranes.\n",
            },
            "How many cranes does the Hollin quay have?",
            ("16 cranes", "11 cranes"),
        ),
        (
            {
                "a.md": "# docs.hollin.example/v9/pier\n\nThe Hollin pier has 38 bollards.\n",
                "b.md": "# docs.hollin.example/v4/pier\n\nThe Hollin pier has 30 bollards.\n",
            },
            "How many bollards does the Hollin pier have?",
            ("38 bollards", "30 bollards"),
        ),
        (
            {
                "a.md": "# Hollin pool hours\n\nStatus: draft, not approved.\n\n"
                "The Hollin pool opens for 40 hours a week.\n",
                "b.md": "# Hollin pool hours\n\nStatus: final, approved by the board.\n\n"
                "The Hollin pool opens for 46 hours a week.\n",
            },
            "How many hours a week does the Hollin pool open?",
            ("46 hours", "40 hours"),
        ),
        (
            {
                "dam.md": "# The Hollin dam\n\nThe Hollin dam is 14.5 metres high.\n\n"
                "## Changes\n\n- 2022-03-07: height of the dam revised after the new survey.\n",
                "tour.md": "# Touring Hollin\n\nPublished June 2019.\n\n"
                "The Hollin dam is 12.8 metres high.\n",
            },
            "How high is the Hollin dam?",
            ("14.5 metres", "12.8 metres"),
        ),
    ],
    ids=[
        "archived-page",
        "later-edition",
        "corrected-figure",
        "telling-of-a-later-year",
        "later-issue",
        "updated-on-a-day",
        "errata-table",
        "later-version-in-front-matter",
        "later-date-in-front-matter",
        "later-copyright-year",
        "wrong-then-right-in-another-unit",
        "replaced-by-title",
        "later-version-in-an-address",
        "draft-against-final",
        "dated-update-note-after-the-other-page",
    ],
)
def test_a_document_out_of_date_an_older_edition_a_corrected_figure_or_an_earlier_account_loses(
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    files: dict[str, str],
    question: str,
    values: tuple[str, str],
) -> None:
    right, wrong = values
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(write_corpus(tmp_path / "docs", files), store)
        state = _app(store).invoke({"question": question}, {"configurable": {"thread_id": "t"}})
    findings = state["final_answer"].split("## Findings")[1].split("\n## ")[0]
    assert right in findings and wrong not in findings, state["final_answer"]
    assert _the_conflict(state).status == "resolved"


def test_a_page_stands_over_another_only_by_its_title_and_a_draft_only_against_a_final_page(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    assert standing_note("This page replaces the Old guide to Tarn quay.", "Old guide to Tarn quay")
    assert standing_note("This page replaces the Old guide.", "Old guide to Tarn quay") is None
    assert standing_note("Status: draft, for comment.", "") == "draft"
    assert standing_note("Status: final, approved.", "") == "final"
    assert standing_note("The draft status of the plan was lifted.", "") is None
    files = {
        "a.md": "# Tarn pool hours\n\nStatus: draft, for comment.\n\n"
        "The Tarn pool opens for 40 hours a week.\n",
        "b.md": "# Tarn pool hours\n\nThe Tarn pool opens for 46 hours a week.\n",
    }
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(write_corpus(tmp_path / "docs", files), store)
        state = _app(store).invoke(
            {"question": "How many hours a week does the Tarn pool open?"},
            {"configurable": {"thread_id": "t"}},
        )
    report = state["final_answer"]
    assert "## Findings" not in report and "Open conflict" in report, report


def test_a_dated_update_note_upholds_its_page_only_after_the_other_and_without_a_figure() -> None:
    ours = EvidenceRecord(text="The Tarn dam is 14.5 metres high.", source="d.md:3", path="d.md")
    theirs = EvidenceRecord(
        text="The Tarn dam is 12.8 metres high.", source="t.md:5", path="t.md", date="2019-06"
    )

    def note(text: str) -> EvidenceRecord:
        return EvidenceRecord(text=text, source="d.md:7", path="d.md")

    assert side_of(note("- 2022-03-07: height of the dam revised."), ours, theirs) is ours
    assert side_of(note("- 2018-03-07: height of the dam revised."), ours, theirs) is None
    assert side_of(note("- 2022-03-07: height of the dam revised to 13 m."), ours, theirs) is None
    assert side_of(note("- 2022-03-07: opening hours revised."), ours, theirs) is None
    assert side_of(note("- 2022-03-07: height of the dam checked."), ours, theirs) is None


def test_a_sentence_tells_of_a_year_it_was_written_after_only_in_the_past_tense() -> None:
    assert written_since("The mill was restored in 2006 and has 6 sails.") == 2006
    assert written_since("The mill will be restored in 2026.") is None
    assert written_since("The mill has 6 sails and turned in 1999 and 2003.") == 2003
    assert written_since("The mill has 6 sails.") is None


def test_a_heading_dated_to_the_day_orders_two_dates_of_one_year() -> None:
    assert stated_date("Inspection of 14/09/2022", "") == "2022-09-14"  # only day first reads
    assert stated_date("Inspection of 10/20/2022", "") == "2022-10-20"  # only month first reads
    assert stated_date("Inspection of 03/04/2022", "") == "2022"  # either: the year alone


def test_a_clause_calling_a_value_wrong_rejects_it_and_two_sides_rejecting_each_other_stay_open(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    first = "The Orme beacon is 31 metres tall, not 27 metres as some guides say."
    second = "The Orme beacon is 27 metres tall; the harbour guide is wrong to give 31 metres."
    assert [value.label for value in claim_of(second).rejected] == ["31 metres"]
    assert correction_of(second, first, second) == second
    files = {
        "harbour.md": f"# Harbour guide\n\n{first}\n",
        "club.md": f"# Club notes\n\n{second}\n",
    }
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(write_corpus(tmp_path / "docs", files), store)
        state = _app(store).invoke(
            {"question": "How tall is the Orme beacon?"}, {"configurable": {"thread_id": "t"}}
        )
    report = state["final_answer"]
    assert "## Findings" not in report and "Open conflict" in report, report


def test_a_footnote_the_value_points_to_is_read_with_it() -> None:
    text = (
        "Lake Kell is 51 metres deep.[^2]\n\n[^2]: Corrected figure. The first printing gave "
        "44 metres, a misreading of the survey.\n"
    )
    passage = Passage(
        source="lake.md:3", path="lake.md", line=3, heading="Lake Kell", text=text, score=0.9
    )
    cited = passage_evidence(passage, "How deep is Lake Kell?")
    assert cited[0] == ("lake.md:3", "Lake Kell is 51 metres deep.[^2]")
    assert ("lake.md:5", "The first printing gave 44 metres, a misreading of the survey.") in cited
    assert claim_of(cited[-1][1]).correction


@pytest.mark.parametrize(
    ("texts", "question", "stays_open"),
    [
        (
            (
                "The Hallam bus runs every 20 minutes.",
                "The Hallam bus no longer runs every 20 minutes.",
            ),
            "How often does the Hallam bus run?",
            True,
        ),
        (
            (
                "The Hallam library is open on Sundays.",
                "The Hallam library is not open on Sundays.",
            ),
            "Is the Hallam library open on Sundays?",
            False,
        ),
    ],
    ids=["a-figure-denied", "a-day-denied"],
)
def test_a_newer_source_that_only_denies_a_figure_leaves_the_question_open(
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    texts: tuple[str, str],
    question: str,
    stays_open: bool,
) -> None:
    older, newer = texts
    files = {
        "guide.md": f"# Town guide, 2015\n\n{older}\n",
        "notice.md": f"# Town notice, 2023\n\n{newer}\n",
    }
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(write_corpus(tmp_path / "docs", files), store)
        state = _app(store).invoke({"question": question}, {"configurable": {"thread_id": "t"}})
    report = state["final_answer"]
    if stays_open:  # how often, then? The notice does not say
        assert "## Findings" not in report and "Open conflict" in report, report
    else:  # the denial answers the question
        assert f"- {newer} (confirmed" in report, report


def test_an_update_note_states_the_value_its_page_now_holds() -> None:
    update = "Update, March 2024: after the refit, the Hallam lido is 40 metres long."
    old, new = "The Hallam lido is 25 metres long.", "The Hallam lido is 40 metres long."
    assert claim_of(update).corrects and not claim_of(update).correction
    assert correction_of(update, old, new) == new
    assert not claim_of("The Hallam lido was updated in 2024 and is 40 metres long.").corrects
