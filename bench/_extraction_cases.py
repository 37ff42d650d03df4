"""The extraction cases of ``bench/quality.py``: ``cadre extract`` then ``cadre ask``, offline.

Each case (``bench/quality/extraction.yaml``) is written to its own folder, extracted into its
own data home, and asked its question. An answer is right when every key fact is in one of its
own sentences (not a heading, not the "Sources" or "Review" notes) that cites a right file and
line; a case that asks what the files do not say is right when the answer says it found
nothing for the question and cites nothing.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from framework.cli.app import app
from framework.evals.answers import SKIPPED_SECTIONS, citations, section_lines
from framework.evals.cases import SourceLines

try:
    from bench._answers import case_folder
except ImportError:  # run as a script: bench/ is on the path
    from _answers import case_folder  # type: ignore[no-redef]

__all__ = ["ExtractionOutcome", "answer_sentences", "run_extraction_cases", "score_answer"]

_NOTHING = ("nothing", "no answer", "not answered", "found no")


@dataclass
class ExtractionOutcome:
    """One extraction case: which facts were stated with a right citation, and the answer."""

    id: str
    question: str
    passed: bool
    found: list[bool] = field(default_factory=list)
    answer: str = ""


def answer_sentences(answer: str) -> list[str]:
    """The answer's own lines, their spacing made single: not headings, not blank, not in the
    Sources or Review notes (their case kept: a citation names a file as written)."""
    return [
        " ".join(line.split())
        for section, line in section_lines(answer)
        if section not in SKIPPED_SECTIONS
    ]


def _cites(line: str, sources: Sequence[str]) -> bool:
    """Whether ``line`` cites one of ``sources`` (``file:lines``), as ``cadre eval`` reads a
    citation."""
    wanted = [SourceLines.parse(text) for text in sources]
    return any(source.cited_by(file, n) for file, n in citations(line) for source in wanted)


def score_answer(case: dict[str, Any], answer: str) -> ExtractionOutcome:
    """Score one answer against its case."""
    said = answer_sentences(answer)
    if case.get("expect") == "nothing":
        cites = "`" in "".join(said) and ".md:" in "".join(said)
        nothing = any(word in line.lower() for line in said for word in _NOTHING)
        passed = nothing and not cites and "empty" not in answer.lower()
        return ExtractionOutcome(case["id"], case["question"], passed, [passed], answer)
    found = [
        any(
            any(spelling.lower() in line.lower() for spelling in spellings)
            and _cites(line, case["sources"])
            for line in said
        )
        for spellings in case["facts"]
    ]
    return ExtractionOutcome(case["id"], case["question"], all(found), found, answer)


def run_extraction_cases(cases: Sequence[dict[str, Any]]) -> list[ExtractionOutcome]:
    """Extract each case's files into a data home of its own and ask its question."""
    runner = CliRunner()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="cadre-extraction-") as folder:
        for case in cases:
            files = case_folder(Path(folder), case)
            home = str(Path(folder) / f"{case['id']}-home")
            extracted = runner.invoke(app, ["extract", str(files), "--home", home, "--no-trace"])
            if extracted.exit_code != 0:
                raise RuntimeError(f"{case['id']}: cadre extract failed: {extracted.output}")
            asked = runner.invoke(
                app, ["ask", case["question"], "--home", home, "--json", "--no-trace"]
            )
            if asked.exit_code != 0:
                raise RuntimeError(f"{case['id']}: cadre ask failed: {asked.output}")
            answer = str(json.loads(asked.stdout[asked.stdout.index("{") :])["final_answer"])
            outcomes.append(score_answer(case, answer))
    return outcomes
