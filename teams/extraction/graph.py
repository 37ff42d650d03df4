"""``build_extraction_team``: documents fanned out to a bounded critic loop, saved to the graph.

```
START -> collect --Send x documents--> document (subgraph) --> report -> END
document subgraph
  START -> cartographer -> critic --revise (failed, revisions < max)--> cartographer
                             \\--accept (passed, or failed max times: needs review)
                                  --> confidence_filter -> saver -> END
```

Every node is a :class:`~framework.engine.nodes.team_node.TeamNode`, so the middleware (telemetry,
policies) wraps each; the cartographer and critic, which may call a model, share one
concurrency cap. The team's graph is returned uncompiled (the document subgraph is compiled
into it as a node); compile it with :func:`framework.engine.builder.compile_team`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from framework.engine.builder import compile_team
from framework.engine.concurrency import DispatchLimiter
from framework.engine.middleware import Middleware, check_middleware
from framework.engine.nodes.team_node import SyncBody, TeamNode
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.knowledge import KnowledgeGraph
from framework.memory import Corpus
from teams.extraction.cartographer import Cartographer, ModelCartographer, PatternCartographer
from teams.extraction.confidence_filter import DEFAULT_MIN_CONFIDENCE, confidence_filter_body
from teams.extraction.critic import Critic, ModelCritic, RuleCritic
from teams.extraction.documents import Document, corpus_documents
from teams.extraction.prompts import CARTOGRAPHER_SYSTEM, CRITIC_SYSTEM
from teams.extraction.report import report_text
from teams.extraction.saver import saver_body
from teams.extraction.state import (
    DocumentReport,
    DocumentState,
    Extraction,
    ExtractionState,
    Verdict,
    dump,
    read_record,
)

__all__ = [
    "DEFAULT_MAX_PARALLEL",
    "DOCUMENT_NODES",
    "NODES",
    "ExtractionRoles",
    "ExtractionSettings",
    "build_document_graph",
    "build_extraction_team",
    "model_roles",
    "offline_roles",
    "route_after_critic",
]

NODES = ("collect", "document", "report")
DOCUMENT_NODES = ("cartographer", "critic", "confidence_filter", "saver")
AfterCritic = Literal["cartographer", "confidence_filter"]
DEFAULT_MAX_PARALLEL = 8
"""Cartographer and critic executions at once, unless told otherwise."""
_MODEL_SLOTS = "model"
"""The one key of the concurrency cap shared by the cartographer and critic executions."""


@dataclass(frozen=True, kw_only=True)
class ExtractionSettings:
    """How the team runs: its name, the revision bound, the confidence threshold, the cap on
    cartographer and critic executions at once, and the middleware."""

    name: str = "extraction"
    max_revisions: int = 3
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    max_parallel: int | None = DEFAULT_MAX_PARALLEL
    middleware: tuple[Middleware, ...] = ()

    def __post_init__(self) -> None:
        if self.max_revisions < 0:
            raise ConfigError(f"max_revisions must be >= 0, got {self.max_revisions}")
        if not 0.0 <= self.min_confidence <= 1.0:
            raise ConfigError(f"min_confidence must be in [0, 1], got {self.min_confidence}")
        if self.max_parallel is not None and self.max_parallel < 1:
            raise ConfigError(f"max_parallel must be >= 1 or None, got {self.max_parallel}")
        check_middleware(self.middleware)


@dataclass(frozen=True, kw_only=True)
class ExtractionRoles:
    """Who extracts and who critiques, the graph the results go to, and the corpus a run reads
    when its input names no documents."""

    cartographer: Cartographer
    critic: Critic
    graph: KnowledgeGraph
    corpus: Corpus | None = None


def offline_roles(graph: KnowledgeGraph, corpus: Corpus | None = None) -> ExtractionRoles:
    """Sentence patterns and the critic's rules: no model."""
    return ExtractionRoles(
        cartographer=PatternCartographer(), critic=RuleCritic(), graph=graph, corpus=corpus
    )


def model_roles(
    model: BaseChatModel,
    graph: KnowledgeGraph,
    corpus: Corpus | None = None,
    *,
    cartographer_prompt: str = CARTOGRAPHER_SYSTEM,
    critic_prompt: str = CRITIC_SYSTEM,
) -> ExtractionRoles:
    """A model-backed cartographer and critic on one chat model, with these system prompts."""
    return ExtractionRoles(
        cartographer=ModelCartographer(model, cartographer_prompt),
        critic=ModelCritic(model, critic_prompt),
        graph=graph,
        corpus=corpus,
    )


def route_after_critic(state: DocumentState) -> AfterCritic:
    """Revise while the critic fails and revisions are left; then go on (flagged if failed)."""
    verdict = read_record(state, "verdict", Verdict)
    if verdict is None:
        raise ConfigError("route_after_critic runs after the critic: no verdict in the state")
    return "confidence_filter" if verdict.passed or state.get("needs_review") else "cartographer"


def _document(state: DocumentState) -> Document:
    document = read_record(state, "document", Document)
    if document is None:
        raise ConfigError("a document extraction starts from a state with a document")
    return document


def _cartographer_body(cartographer: Cartographer) -> SyncBody:
    def cartographer_node(state: DocumentState, context: NodeContext) -> dict[str, Any]:
        document = _document(state)
        verdict = read_record(state, "verdict", Verdict)
        critiques = verdict.critiques if verdict is not None and not verdict.passed else ()
        previous = read_record(state, "extraction", Extraction)
        extraction = cartographer.extract(document, previous, critiques)
        context.emit("extracted", path=document.path, triples=len(extraction.triples))
        return {"extraction": dump(extraction)}

    return cartographer_node


def _critic_body(critic: Critic, max_revisions: int) -> SyncBody:
    def critic_node(state: DocumentState, context: NodeContext) -> dict[str, Any]:
        document = _document(state)
        extraction = read_record(state, "extraction", Extraction) or Extraction()
        verdict = critic.review(document, extraction)
        revisions = state.get("revisions", 0)
        update: dict[str, Any] = {"verdict": dump(verdict)}
        if not verdict.passed and revisions < max_revisions:
            update["revisions"] = revisions + 1
        elif not verdict.passed:
            update["needs_review"] = True
        context.emit(
            "critique",
            path=document.path,
            passed=verdict.passed,
            critiques=[c.message for c in verdict.critiques],
            revisions=update.get("revisions", revisions),
            needs_review=update.get("needs_review", False),
            fallback=verdict.fallback,
        )
        return update

    return critic_node


def build_document_graph(
    roles: ExtractionRoles, settings: ExtractionSettings | None = None
) -> StateGraph[Any, Any, Any, Any]:
    """One document's extraction: the bounded critic loop, the filter, the saver."""
    settings = settings or ExtractionSettings()
    team, chain = settings.name, settings.middleware
    slots = (DispatchLimiter(settings.max_parallel), lambda _: _MODEL_SLOTS)
    graph = StateGraph(DocumentState)
    for name, body in (
        ("cartographer", _cartographer_body(roles.cartographer)),
        ("critic", _critic_body(roles.critic, settings.max_revisions)),
    ):
        graph.add_node(name, TeamNode(name, team, body, middleware=chain, slots=slots))
    for name, body in (
        ("confidence_filter", confidence_filter_body(settings.min_confidence)),
        ("saver", saver_body(roles.graph)),
    ):
        graph.add_node(name, TeamNode(name, team, body, middleware=chain))
    graph.add_edge(START, "cartographer")
    graph.add_edge("cartographer", "critic")
    graph.add_conditional_edges("critic", route_after_critic, ["cartographer", "confidence_filter"])
    graph.add_edge("confidence_filter", "saver")
    graph.add_edge("saver", END)
    return graph


def _collect_body(corpus: Corpus | None) -> SyncBody:
    def collect(state: ExtractionState, context: NodeContext) -> dict[str, Any]:
        given = state.get("documents")
        if given:
            documents = [Document.model_validate(d) for d in given]
        elif corpus is not None:
            documents = corpus_documents(corpus)
        else:
            raise ConfigError(
                "no documents to extract: pass documents in the input or give the team a corpus"
            )
        context.emit("documents", count=len(documents))
        return {"documents": [dump(d) for d in documents]}

    return collect


def _to_documents(state: ExtractionState) -> list[Send] | Literal["report"]:
    documents = state.get("documents") or []
    return [Send("document", {"document": d}) for d in documents] or "report"


def _report_body(min_confidence: float) -> SyncBody:
    def report(state: ExtractionState, context: NodeContext) -> dict[str, Any]:
        reports = [DocumentReport.model_validate(r) for r in state.get("reports") or []]
        text = report_text(reports, min_confidence)
        context.emit("extraction_report", report=text)
        return {"final_answer": text}

    return report


def build_extraction_team(
    roles: ExtractionRoles, settings: ExtractionSettings | None = None, **overrides: Any
) -> StateGraph[Any, Any, Any, Any]:
    """The extraction team's graph (uncompiled) on ``settings`` (or the defaults) +
    ``overrides``: one ``Send`` per document to the document subgraph.

    Raises:
        ConfigError: ``roles`` is not :class:`ExtractionRoles`, or a setting is invalid.
    """
    if not isinstance(roles, ExtractionRoles):
        raise ConfigError(
            f"build_extraction_team needs ExtractionRoles, got {type(roles).__name__}: use "
            "offline_roles(graph) or model_roles(model, graph)"
        )
    settings = replace(settings or ExtractionSettings(), **overrides)
    team, chain = settings.name, settings.middleware
    document = compile_team(build_document_graph(roles, settings), name="document")
    graph = StateGraph(ExtractionState)
    graph.add_node(
        "collect", TeamNode("collect", team, _collect_body(roles.corpus), middleware=chain)
    )
    graph.add_node("document", document)
    report = _report_body(settings.min_confidence)
    graph.add_node("report", TeamNode("report", team, report, middleware=chain))
    graph.add_edge(START, "collect")
    graph.add_conditional_edges("collect", _to_documents, ["document", "report"])
    graph.add_edge("document", "report")
    graph.add_edge("report", END)
    return graph
