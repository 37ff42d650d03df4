"""Checking a dataset against its corpora (``cadre eval check``): every expected fact is stated
in the lines named for it, from the line its sentence starts on (where answers cite a
sentence), and none is given away by its question."""

from __future__ import annotations

import re
from pathlib import Path

from framework.evals.answers import corpus_file
from framework.evals.cases import Case, Fact, SourceLines
from framework.evals.dataset import Dataset

__all__ = ["check_dataset", "sentence_start"]


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
        if not fact.found_in(" ".join(lines[source.first - 1 : source.last])):
            reasons.append(f"not stated in {source}")
            continue
        starts = [
            line if _begins_before(fact, lines[line - 1]) else sentence_start(lines, line)
            for line in _lines_holding(fact, lines, source)
        ]
        if any(start >= source.first for start in starts):
            return []
        start = min(starts)
        reasons.append(
            f"the sentence stating it in {source} starts at line {start}, which an answer "
            f"cites: write {source.file}:{start}-{source.last}"
        )
    return reasons


def _lines_holding(fact: Fact, lines: list[str], source: SourceLines) -> list[int]:
    """The lines of ``source`` on which a statement of ``fact`` begins (it may run on)."""
    return [
        line
        for line in range(source.first, source.last + 1)
        if fact.found_in(" ".join(lines[line - 1 : source.last]))
        and not fact.found_in(" ".join(lines[line : source.last]))
    ]


def _begins_before(fact: Fact, text: str) -> bool:
    """Whether a sentence begins on ``text`` before the fact it states (``... simple. They are
    not thread-safe``): the sentence stating it starts on this line."""
    lowered = " ".join(text.lower().split())
    found = [lowered.find(" ".join(s.lower().split())) for s in fact.any if s.strip()]
    if fact.regex is not None and (match := re.search(fact.regex, lowered, re.IGNORECASE)):
        found.append(match.start())
    places = [place for place in found if place >= 0]
    return bool(places) and any(
        boundary.end() <= min(places) for boundary in _BOUNDARY.finditer(" ".join(text.split()))
    )


_ENDS = (".", "!", "?", ":", ";")
_BOUNDARY = re.compile(r"[.!?]\s+[A-Z`(\"']")


def sentence_start(lines: list[str], line: int) -> int:
    """The line (1-based) the sentence running through the start of ``line`` starts on: back
    over the lines of its paragraph until one ends a sentence, or a sentence begins inside the
    line above (a blank line, a heading, a list item or a table row start paragraphs)."""
    start = line
    while start > 1:
        above = lines[start - 2].strip()
        here = lines[start - 1].lstrip()
        if not above or above.startswith("#") or above.endswith(_ENDS):
            break
        if here.startswith(("- ", "* ", "|")) or here[:3].rstrip(".").isdigit():
            break
        start -= 1
        if _BOUNDARY.search(above):
            break
    return start
