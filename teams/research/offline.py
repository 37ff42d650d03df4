"""The offline research roles: a real retrieval team over a local corpus, no model needed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from framework.memory import Corpus, Passage, SemanticStore
from framework.records import (
    Evidence,
    MemoryFact,
    Plan,
    ReviewVerdict,
    Task,
    WorkerResult,
)
from framework.runtime import NodeContext
from framework.state import TeamState
from teams.research.facts import fact_provenance, remember_facts
from teams.research.report import cited_report, results_in_order
from teams.research.text import best_sentences, keywords, split_question

__all__ = [
    "CorpusSearchWorker",
    "CoverageReviewer",
    "EvidenceAggregator",
    "EvidenceCurator",
    "ReportFormatter",
    "SubQuestionPlanner",
]


class SubQuestionPlanner:
    """Splits the question into sub-questions and plans one corpus search per part."""

    def __init__(self, corpus: Corpus, max_parts: int = 4) -> None:
        self.corpus = corpus
        self.max_parts = max_parts

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """Plan the whole question plus its sub-questions; answer directly on an empty corpus."""
        question = state["question"]
        if len(self.corpus) == 0:
            return Plan(goal=question, direct_answer="The corpus is empty: nothing to search.")
        parts = [question, *split_question(question, self.max_parts)]
        tasks = [
            Task(id=f"q{index}", description=part, inputs={"query": part})
            for index, part in enumerate(parts)
        ]
        return Plan(
            goal=question,
            tasks=tasks,
            rationale=f"{len(parts) - 1} sub-questions plus the whole question",
        )


class CorpusSearchWorker:
    """Searches the corpus semantically for a task's query."""

    def __init__(self, corpus: Corpus, k: int = 4, min_score: float = 0.2) -> None:
        self.corpus = corpus
        self.k = k
        self.min_score = min_score

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Return the best passages as evidence; confidence is the best score."""
        query = str(task.inputs.get("query") or task.description)
        passages = self.corpus.search(query, k=self.k, min_score=self.min_score)
        evidence = [_evidence(passage, query) for passage in passages]
        return WorkerResult(
            task_id=task.id,
            status="ok",
            output=evidence[0].text if evidence else "",
            evidence=evidence,
            confidence=max(0.0, min(1.0, passages[0].score)) if passages else 0.0,
            attempt=task.attempt,
        )

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Search on a thread: embedding is CPU work."""
        return await asyncio.to_thread(self.run, task, question, context)


def _evidence(passage: Passage, query: str) -> Evidence:
    """The passage's most relevant sentence, cited at the line where it stands."""
    best = best_sentences(passage.text, query, limit=1)
    offset, sentence = best[0] if best else (0, " ".join(passage.text.split()))
    return Evidence(
        source=f"{passage.path}:{passage.line + offset}", text=sentence, score=passage.score
    )


class EvidenceAggregator:
    """Consolidates the evidence of every finished task, one cited line per passage."""

    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        """Deterministic text, so an unchanged round is detected as unchanged."""
        lines = []
        for task, result in results_in_order(state):
            lines.append(f"[{task.id}] {task.description}")
            lines.extend(f"  - {e.text} ({e.source})" for e in result.evidence)
        return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class CoverageReviewer:
    """Retries low-coverage tasks with reformulated queries, then finishes.

    A task has low coverage when it failed or its best passage scores under ``threshold``.
    Each retry reformulates the query: first its keywords with the question's, then the
    sub-question joined to the whole question.
    """

    threshold: float = 0.45
    max_attempts: int = 2

    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        """Verdict from coverage: retry what is weak and still has attempts left."""
        finished = results_in_order(state, include_failed=True)
        scores = [result.confidence for _, result in finished]
        confidence = sum(scores) / len(scores) if scores else 0.0
        weak = [
            task
            for task, result in finished
            if (result.status == "failed" or result.confidence < self.threshold)
            and task.attempt < self.max_attempts
        ]
        if not weak:
            return ReviewVerdict(
                decision="finish", confidence=confidence, reasons=["coverage is sufficient"]
            )
        question = state.get("question", "")
        return ReviewVerdict(
            decision="retry_workers",
            confidence=confidence,
            reasons=[f"low coverage: {', '.join(task.id for task in weak)}"],
            retry_task_ids=[task.id for task in weak],
            retry_inputs={task.id: {"query": reformulate(task, question)} for task in weak},
        )


def reformulate(task: Task, question: str) -> str:
    """A new query for a weak task, different at each attempt."""
    if task.attempt == 0:
        terms = keywords(task.description) + keywords(question)
        return " ".join(dict.fromkeys(terms))
    return f"{task.description} ({question})"


class EvidenceCurator:
    """Keeps each well-supported finding as a fact with provenance, in the semantic store."""

    def __init__(self, store: SemanticStore | None, min_score: float = 0.45) -> None:
        self.store = store
        self.min_score = min_score

    def curate(self, state: TeamState, context: NodeContext) -> Sequence[MemoryFact]:
        """Facts ``(sub-question, is supported by, sentence)`` from strong evidence."""
        facts = [
            MemoryFact(
                subject=task.description,
                predicate="is supported by",
                object=evidence.text,
                confidence=max(0.0, min(1.0, evidence.score)),
                provenance=fact_provenance(context, task.id, evidence.source),
            )
            for task, result in results_in_order(state)
            for evidence in result.evidence
            if evidence.score >= self.min_score
        ]
        remember_facts(self.store, facts)
        return facts


class ReportFormatter:
    """Writes a Markdown report in which every claim cites ``path:line``."""

    def format(self, state: TeamState, context: NodeContext) -> str:
        """The cited report of the run."""
        return cited_report(state)
