"""The finish step: the final answer (the draft under the question, its sources, what to
review) and the cited evidence handed to the phases after the team."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.messages import AIMessage

from framework.engine.records import Evidence
from framework.engine.runtime import NodeContext
from teams.language.answer_layout import note_section
from teams.supervisor.draft_content import cited_sources
from teams.supervisor.rules import useful_results
from teams.supervisor.state import SupervisorState, relations_in, statement

__all__ = ["DRAFT_FAILED", "EMPTY_ANSWER", "cited_evidence", "finish_body", "render_answer"]

EMPTY_ANSWER = "The knowledge graph holds nothing on this question."
DRAFT_FAILED = "No answer could be drafted from what the lookups found: see Review."
_EXCERPT_CHARS = 160


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 3] + "..."


def _facts(state: SupervisorState) -> Iterator[tuple[str, str, float, str]]:
    """(source, text, confidence, status) of every fact found: relations, then entities."""
    results = useful_results(state)
    for relation in (relation for result in results for relation in relations_in(result)):
        text = relation["evidence"] or statement(relation)
        for source in relation["sources"]:
            yield source, text, relation["confidence"], relation["status"]
    for entity in (entity for result in results for entity in result["entities"]):
        for source in entity["sources"]:
            yield source, f"{entity['name']} ({entity['type'] or 'entity'})", 1.0, "accepted"


def cited_evidence(state: SupervisorState) -> list[Evidence]:
    """One piece of evidence per source the draft cites, in citing order: the first relation
    found there that the draft quotes (a line may hold two: "Chart: Y • Source: Z"), else the
    first relation found there, else the entity."""
    draft = state.get("draft", "")
    evidence: dict[str, Evidence] = {}
    for source, text, confidence, _ in _facts(state):
        found = evidence.get(source)
        if found is None or (found.text not in draft and text in draft):
            evidence[source] = Evidence(source=source, text=text, score=confidence)
    return [evidence[source] for source in cited_sources(draft) if source in evidence]


def _review(state: SupervisorState) -> list[str]:
    cited = set(cited_sources(state.get("draft", "")))
    flagged = {source for source, _, _, status in _facts(state) if status == "needs_review"}
    lines = [
        f"- `{source}` holds a relation flagged for review" for source in sorted(flagged & cited)
    ]
    lines += [
        f"- step {number}: the rule chose {d['step']} because {d['fallback']}"
        for number, d in enumerate(state.get("decisions") or [], start=1)
        if d["fallback"]
    ]
    lines += [f"- {error['step']} failed: {error['error']}" for error in state.get("errors") or []]
    lines += [f"- {note}" for note in state.get("notes") or []]
    return lines


def render_answer(state: SupervisorState) -> str:
    """The final answer in Markdown: claims cite ``path:line``; sources and review follow."""
    draft = state.get("draft", "")
    lines = [f"# {state.get('question', '')}", ""]
    if draft:
        sources = [f'- `{e.source}`: "{_excerpt(e.text)}"' for e in cited_evidence(state)]
        lines += [draft, "", *(note_section("Sources", sources) if sources else [])]
    else:
        reason = DRAFT_FAILED if useful_results(state) else EMPTY_ANSWER
        lines += note_section("Not answered by the corpus", [reason])
    review = _review(state)
    if review:
        lines += note_section("Review", review)
    return "\n".join(lines).rstrip() + "\n"


def finish_body() -> Any:
    """The body of the finish node: the final answer and the cited evidence."""

    def body(state: SupervisorState, context: NodeContext) -> dict[str, Any]:
        answer = render_answer(state)
        evidence = cited_evidence(state)
        context.emit("answer", sources=len(evidence), chars=len(answer))
        note = AIMessage(f"answered citing {len(evidence)} source(s)", name="finish")
        return {"final_answer": answer, "evidence": evidence, "messages": [note]}

    return body
