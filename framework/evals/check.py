"""Checking a dataset against its corpora (``cadre eval check``): every expected fact is stated
in the lines named for it, and none is given away by its question."""

from __future__ import annotations

from pathlib import Path

from framework.evals.answers import corpus_file
from framework.evals.cases import Case, Fact, SourceLines
from framework.evals.dataset import Dataset

__all__ = ["check_dataset"]


def check_dataset(dataset: Dataset) -> list[str]:
    """Every problem found, each ``FILE:LINE: case ID: ...`` (empty: the data holds)."""
    problems = []
    for case in dataset.cases:
        at = f"{dataset.at(case.id)}: case {case.id}"
        facts = [(fact, case.cites_for(fact)) for fact in case.facts]
        facts += [
            (fact, fact.cite or branch.sources) for branch in case.branches for fact in branch.facts
        ]
        for number, (fact, sources) in enumerate(facts, start=1):
            if fact.found_in(case.question):
                problems.append(f"{at}: fact {number} ({fact.describe()}) is in the question")
            problems += [
                f"{at}: fact {number} ({fact.describe()}): {problem}"
                for problem in _sourced(fact, sources, case)
            ]
        for value in case.forbidden:
            if Fact(any=[value]).found_in(case.question):
                problems.append(f"{at}: forbidden value {value!r} is in the question")
    return problems


def _sourced(fact: Fact, sources: list[SourceLines], case: Case) -> list[str]:
    """Why ``fact`` is not found in the lines named for it (one reason per source; empty when
    one of them states it, or none is named)."""
    if not sources or case.corpus is None:
        return []
    reasons = []
    for source in sources:
        path = corpus_file(Path(case.corpus), source.file)
        if path is None:
            reasons.append(f"{source.file} is not in the corpus {case.corpus}")
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if source.last > len(lines):
            reasons.append(f"{source} is past the end of the file ({len(lines)} lines)")
            continue
        if fact.found_in(" ".join(lines[source.first - 1 : source.last])):
            return []
        reasons.append(f"not stated in {source}")
    return reasons
