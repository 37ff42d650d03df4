"""The lookups a question asks for, planned against the knowledge graph.

The plan, in order: two entities named in the question -> the paths between them, then the
relations of each; one named -> its relations (when none is named whole, the one entity whose
name holds a naming run of the question's words: "tapster 3.2" names "tapster 3.2 released");
a word of the question that is an entity type -> the entities of that type; always, last, a
semantic lookup of relations like the question.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.errors import GraphBubbleUp

from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, CryptoError, brief
from framework.knowledge import Entity, KnowledgeGraph, entity_id
from teams.language.verbs import lemma
from teams.language.words import STOPWORDS, keywords, singular, stem
from teams.supervisor.state import Query, StepError, SupervisorState

__all__ = [
    "MAX_NAME_WORDS",
    "describe",
    "intake_body",
    "named_entities",
    "plan_queries",
    "type_named",
]

MAX_NAME_WORDS = 4
"""The longest entity name looked for in a question, in words."""
_WORD = re.compile(r"[\w][\w\-']*")
_MAX_TYPE_WORDS = 8


def named_entities(question: str, graph: KnowledgeGraph) -> list[Entity]:
    """The entities the question names, in order, longest names first where they overlap.

    Every run of up to :data:`MAX_NAME_WORDS` words (not stopwords only) is looked up by name.
    """
    words = _WORD.findall(question)
    taken = [False] * len(words)
    found: dict[str, tuple[int, Entity]] = {}
    for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            span = range(start, start + size)
            run = words[start : start + size]
            if any(taken[i] for i in span) or all(w.lower() in STOPWORDS for w in run):
                continue
            entity = graph.entity(" ".join(run))
            if entity is not None and entity.id not in found:
                found[entity.id] = (start, entity)
                for i in span:
                    taken[i] = True
    if not found:
        return _named_within(words, graph)
    return [entity for _, entity in sorted(found.values(), key=lambda item: item[0])]


def _named_within(words: list[str], graph: KnowledgeGraph) -> list[Entity]:
    """The one entity whose name holds a run of the question's words that names something (a
    capital or a figure in it, no stopword at either end: "tapster 3.2" of "tapster 3.2
    released"), the longest such run first; [] when none, or when more than one holds it. The
    graph's entities are read once."""
    entities: list[Entity] | None = None
    for size in range(min(MAX_NAME_WORDS, len(words)), 1, -1):
        for start in range(len(words) - size + 1):
            run = words[start : start + size]
            ends = {run[0].lower(), run[-1].lower()}
            naming = [word for at, word in enumerate(run, start) if at and _NAMING.search(word)]
            if ends & STOPWORDS or not naming:
                continue
            entities = graph.find_entities(limit=_ALL) if entities is None else entities
            wanted = entity_id(" ".join(run))
            holding = [entity for entity in entities if wanted in entity.id][:2]
            if len(holding) == 1 and not _asked_within(holding[0].name, run, words):
                return holding
    return []


_ALL = 1_000_000
"""More entities than any graph holds: every one."""


def _asked_within(name: str, run: list[str], words: list[str]) -> bool:
    """Whether ``name`` holds, beside ``run``, a word the question asks with ("builder of the
    Quarley mill" for "Who built the Quarley mill?"): the name says what is asked, and is no
    name of the thing asked about."""
    extra = set(re.split(r"[\s-]+", name.lower())) - {word.lower() for word in run}
    asked = {stem(lemma(word.lower())) for word in words}
    return any(stem(lemma(word)) in asked for word in extra if word not in STOPWORDS)


_NAMING = re.compile(r"\d|^[A-Z]")
"""A word that names something: a figure in it, or a capital (not the question's first word,
which is capitalised anyway)."""


def type_named(question: str, graph: KnowledgeGraph) -> str | None:
    """The first content word of the question (or its singular) that is an entity type."""
    for word in keywords(question)[:_MAX_TYPE_WORDS]:
        for candidate in dict.fromkeys((word, singular(word))):
            if graph.find_entities(type=candidate, limit=1):
                return candidate
    return None


def plan_queries(question: str, graph: KnowledgeGraph) -> list[Query]:
    """The lookups for ``question``, in the order the supervisor tries them."""
    names = [entity.name for entity in named_entities(question, graph)]
    queries: list[Query] = []
    if len(names) >= 2:
        queries.append(Query(kind="paths", terms=names[:2]))
    queries += [Query(kind="relations", terms=[name]) for name in names[:2]]
    if not names:
        kind = type_named(question, graph)
        if kind is not None:
            queries.append(Query(kind="entities", terms=[kind]))
    queries.append(Query(kind="semantic", terms=[question]))
    return queries


def describe(query: Query) -> str:
    """The lookup in words: ``paths from A to B``, ``relations of A``..."""
    terms = query["terms"]
    if query["kind"] == "paths":
        return f"paths from {terms[0]} to {terms[1]}"
    if query["kind"] == "relations":
        return f"relations of {terms[0]}"
    if query["kind"] == "entities":
        return f"entities of type {terms[0]}"
    return f"relations like {terms[0]!r}"


def intake_body(graph: KnowledgeGraph, max_steps: int) -> Any:
    """The body of the intake node: the question, normalised, and the lookups it asks for.

    When the graph fails while planning, the error is recorded and only the semantic lookup
    is planned.

    Raises:
        ConfigError: The question is empty.
    """

    def body(state: SupervisorState, context: NodeContext) -> dict[str, Any]:
        question = " ".join(state.get("question", "").split())
        if not question:
            raise ConfigError("the question is empty: pass the question to answer")
        errors: list[StepError] = []
        try:
            queries = plan_queries(question, graph)
        except (GraphBubbleUp, CryptoError):  # a pause, or data that must not be read past
            raise
        except Exception as error:  # the graph failed: only the semantic lookup is left to try
            queries = [Query(kind="semantic", terms=[question])]
            errors.append(StepError(step="intake", error=brief(error)))
        planned = [describe(query) for query in queries]
        context.emit("intake", question=question, lookups=planned)
        return {
            "question": question,
            "queries": queries,
            "errors": errors,
            "max_steps": state.get("max_steps") or max_steps,
            "messages": [
                HumanMessage(question, name="user"),
                AIMessage(f"planned lookups: {'; '.join(planned)}", name="intake"),
            ],
        }

    return body
