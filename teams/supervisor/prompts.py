"""Default prompts of the team's model-backed roles, and their requests rendered from the state.

The system prompts are defaults: a run takes the current version from the role registry
(``supervisor`` and ``supervisor.drafter``). Each request starts with a fixed first line
(``Route:``, ``Draft:``), so a scripted model in a test can match the step meant for each role.
"""

from __future__ import annotations

from collections.abc import Sequence

from teams.supervisor.messages import gist, summary
from teams.supervisor.queries import describe
from teams.supervisor.rules import pending_queries, useful_results
from teams.supervisor.state import DecisionRecord, QueryResult, SupervisorState, statement

__all__ = [
    "DRAFTER_ROLE",
    "DRAFTER_SYSTEM",
    "SUPERVISOR_ROLE",
    "SUPERVISOR_SYSTEM",
    "drafter_request",
    "facts_lines",
    "supervisor_request",
]

SUPERVISOR_ROLE = "supervisor"
DRAFTER_ROLE = "supervisor.drafter"

SUPERVISOR_SYSTEM = (
    "You supervise a team that answers questions from a knowledge graph of entities and "
    "relations extracted from documents. Choose the next step: query_memory (run the next "
    "planned lookup in the graph), draft_content (write the answer from what the lookups "
    "found) or finish (end the run with the draft, or with nothing when the graph holds "
    "nothing on the question). Query until something is found, draft once, then finish. "
    "Give a one-line reason."
)
DRAFTER_SYSTEM = (
    "Answer the question from the listed facts only: an answer, a summary of what is known "
    "about an entity, or an explanation of how a path of relations links two entities. Write "
    "short sections of claims; each claim is one sentence the facts support and cites exactly "
    "one of the listed `path:line` sources. Never invent a fact or a source."
)


def supervisor_request(state: SupervisorState, rule: DecisionRecord) -> str:
    """The question, the bounded messages (summary, then the last ones) and where the run is."""
    window = state.get("messages")
    earlier = summary(window)
    recent = [f"- {gist(message)}" for message in (window["recent"] if window else [])]
    pending = pending_queries(state)
    return "\n".join(
        [
            "Route:",
            f"Question: {state.get('question', '')}",
            "",
            *([earlier, ""] if earlier else []),
            "Recent messages:",
            *(recent or ["- none"]),
            "",
            f"Lookups run: {len(state.get('results') or [])}, "
            f"found something: {len(useful_results(state))}",
            f"Next lookup: {describe(pending[0]) if pending else 'none left'}",
            f"Draft written: {'yes' if state.get('draft') else 'no'}",
            f"Steps: {state.get('steps', 0)}",
            f"The default rule would choose {rule['step']} ({rule['reason']}).",
        ]
    )


def facts_lines(results: Sequence[QueryResult]) -> list[str]:
    """The facts of ``results``, one line each with its sources, grouped by lookup."""
    lines: list[str] = []
    for result in results:
        lines.append(f"Lookup: {describe(result['query'])}")
        for entity in result["entities"]:
            kind = f" ({entity['type']})" if entity["type"] else ""
            lines.append(f"- entity {entity['name']}{kind}: {_sources(entity['sources'])}")
        for number, path in enumerate(result["paths"], start=1):
            hops = "; ".join(f"{statement(r)} [{_sources(r['sources'])}]" for r in path)
            lines.append(f"- path {number}: {hops}")
        for relation in result["relations"]:
            lines.append(
                f"- {statement(relation)} [{_sources(relation['sources'])}] "
                f"evidence: {relation['evidence']!r}"
            )
    return lines


def _sources(sources: Sequence[str]) -> str:
    return ", ".join(f"`{source}`" for source in sources) or "no source"


def drafter_request(state: SupervisorState) -> str:
    """The question and the facts the lookups found."""
    return "\n".join(
        [
            "Draft:",
            f"Question: {state.get('question', '')}",
            "",
            *facts_lines(useful_results(state)),
        ]
    )
