"""Answer quality of the offline teams: research on text cadre did not write, conflicts, extraction.

Research: the corpus is 16 pages of HTTPX's documentation (``bench/quality/corpus``,
BSD-3-Clause, see ``bench/quality/SOURCE.md``); the cases are in
``bench/quality/research.yaml``: a question, its key facts (each with its accepted spellings)
and the ``file:lines`` that state them.

Each question runs through the offline research team (``cadre run --team research``, no model,
no network) in one data home. Scoring is strict:

- a key fact counts only inside one of the answer's own statements: a bullet of its findings,
  not a heading, not the review or sources sections, not a line saying "unresolved";
- the statement that holds it must cite one of the case's sources: the right file, and a line
  inside the stated range;
- a case passes when every key fact is found that way.

Conflicts: tiny hand-made corpora (``bench/quality/conflicts.yaml``, and
``conflicts-probe.yaml`` written after the value readers) run through the offline hypothesis
team; see ``bench/_conflict_cases.py`` for what makes a report right.

Extraction: tiny hand-made documents (``bench/quality/extraction.yaml``, and
``extraction-probe.yaml`` written before the team was run on them) through ``cadre extract``
then ``cadre ask``; see ``bench/_extraction_cases.py`` for the scoring.

Prints one line per case and a summary line per capability; ``--json PATH`` writes every
answer. Every summary counts the wrong values confirmed: answers whose own statements (the
findings, for conflicts) state a value the case lists as ``wrong`` (for a conflict left open,
either disputed value); it must be 0 on every set.

Research also runs on three more sets written before the team was run on them:
``research-starlette`` (Starlette's docs), ``research-click`` (Click's docs) and
``research-uvicorn`` (Uvicorn's docs).

Run: ``python bench/quality.py [--capability research,research-starlette,research-click,
research-uvicorn,conflicts,conflicts-probe,extraction,extraction-probe] [--only r01,c02]
[--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from framework.database.home import DataHome
from framework.runs.launch import LaunchRequest, launch
from framework.runs.runner import new_thread_id, run_team
from framework.runs.spec import RunSpec

try:
    from bench._answers import section_lines
    from bench._conflict_cases import run_conflict_cases
    from bench._extraction_cases import answer_sentences, run_extraction_cases
except ImportError:  # run as a script: bench/ is on the path
    from _answers import section_lines  # type: ignore[no-redef]
    from _conflict_cases import run_conflict_cases  # type: ignore[no-redef]
    from _extraction_cases import answer_sentences, run_extraction_cases  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent / "quality"
CORPUS = HERE / "corpus"
STARLETTE = HERE / "corpus-starlette"
CLICK = HERE / "corpus-click"
UVICORN = HERE / "corpus-uvicorn"
Capability = tuple[str, list[dict[str, Any]]]
"""What a capability's run gives: its summary line, and every case's outcome."""
CITATION = re.compile(r"`?([\w./-]+\.(?:md|txt|rst|csv)):(\d+)`?")
SKIPPED_SECTIONS = ("sources", "review")


@dataclass(frozen=True)
class Source:
    """A file and the lines of it that state a fact."""

    file: str
    first: int
    last: int

    @classmethod
    def parse(cls, text: str) -> Source:
        name, _, lines = text.partition(":")
        first, _, last = lines.partition("-")
        return cls(name, int(first), int(last or first))

    def cited_by(self, file: str, line: int) -> bool:
        return Path(file).name == self.file and self.first <= line <= self.last


@dataclass
class Outcome:
    """One case: which facts were found with a right citation, and the answer."""

    id: str
    question: str
    passed: bool
    found: list[bool] = field(default_factory=list)
    answer: str = ""
    wrong_confirmed: bool = False


def wrong_stated(case: dict[str, Any], said: Sequence[str]) -> bool:
    """Whether a statement states one of the case's ``wrong`` values (none listed: False)."""
    wrong = [" ".join(spelling.lower().split()) for spelling in case.get("wrong", [])]
    return any(w in " ".join(line.lower().split()) for line in said for w in wrong)


def statements(answer: str) -> list[str]:
    """The answer's own statements: bullets outside the review and sources sections."""
    return [
        line
        for section, line in section_lines(answer)
        if section not in SKIPPED_SECTIONS
        and line.startswith(("- ", "* "))
        and "unresolved" not in line.lower()
    ]


def fact_found(spellings: Sequence[str], sources: Sequence[Source], said: Sequence[str]) -> bool:
    """Whether one statement holds the fact (any spelling) and cites a right source."""
    wanted = [" ".join(spelling.lower().split()) for spelling in spellings]
    for statement in said:
        flat = " ".join(statement.lower().split())
        if not any(spelling in flat for spelling in wanted):
            continue
        cited = [(m.group(1), int(m.group(2))) for m in CITATION.finditer(statement)]
        if any(source.cited_by(file, line) for file, line in cited for source in sources):
            return True
    return False


def score(case: dict[str, Any], answer: str) -> Outcome:
    sources = [Source.parse(text) for text in case["sources"]]
    said = statements(answer)
    found = [fact_found(spellings, sources, said) for spellings in case["facts"]]
    wrong = wrong_stated(case, said)
    return Outcome(case["id"], case["question"], all(found) and not wrong, found, answer, wrong)


def run_cases(cases: Sequence[dict[str, Any]], corpus: Path = CORPUS) -> list[Outcome]:
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="cadre-quality-") as folder:
        spec = RunSpec(team="research", corpus=str(corpus))
        request = LaunchRequest(spec=spec, home=DataHome(root=Path(folder)))
        with launch(request) as launched:
            for case in cases:
                result = run_team(launched.app, {"question": case["question"]}, new_thread_id())
                outcomes.append(score(case, str(result.state.get("final_answer") or "")))
    return outcomes


def _tally(outcomes: Sequence[Any], line: Callable[[Any], str]) -> str:
    """Print a line per outcome; return how many passed as "N/M (P%)"."""
    for outcome in outcomes:
        print(line(outcome))
    passed = sum(outcome.passed for outcome in outcomes)
    share = passed / len(outcomes) if outcomes else 0.0
    return f"{passed}/{len(outcomes)} ({share:.0%})"


def _with_facts(outcome: Any) -> str:
    facts = "".join("+" if found else "-" for found in outcome.found)
    return f"{outcome.id}  {_verdict(outcome)}  {facts:4}  {outcome.question}"


def _verdict(outcome: Any) -> str:
    return "PASS" if outcome.passed else "MISS"


def _cases(cases_file: str, wanted: set[str]) -> list[dict[str, Any]]:
    cases = yaml.safe_load((HERE / cases_file).read_text(encoding="utf-8"))
    return [case for case in cases if not wanted or case["id"] in wanted]


def _research(name: str, cases_file: str, corpus: Path, wanted: set[str]) -> Capability:
    """Run research cases over ``corpus``; print a line per case; return the summary line and
    the answers."""
    outcomes = run_cases(_cases(cases_file, wanted), corpus)
    count = _tally(outcomes, _with_facts)
    wrong = sum(outcome.wrong_confirmed for outcome in outcomes)
    summary = f"{name}: {count} questions with every key fact cited; {wrong} wrong values confirmed"
    return summary, [asdict(o) for o in outcomes]


def research(wanted: set[str]) -> Capability:
    """The HTTPX questions (``research.yaml``)."""
    return _research("research", "research.yaml", CORPUS, wanted)


def research_starlette(wanted: set[str]) -> Capability:
    """The Starlette questions (``research-starlette.yaml``), written before any run on them."""
    return _research("research-starlette", "research-starlette.yaml", STARLETTE, wanted)


def _conflicts(name: str, cases_file: str, wanted: set[str]) -> Capability:
    """Run conflict cases; print a line per case; return the summary line and reports."""
    outcomes = run_conflict_cases(_cases(cases_file, wanted))
    count = _tally(outcomes, lambda o: f"{o.id}  {_verdict(o)}  {o.question}  ({o.why})")
    wrong = sum(outcome.wrong_confirmed for outcome in outcomes)
    flagged = sum(outcome.control_flagged for outcome in outcomes)
    summary = (
        f"{name}: {count} cases right; {wrong} wrong values confirmed; {flagged} controls flagged"
    )
    return summary, [asdict(o) for o in outcomes]


def conflicts(wanted: set[str]) -> Capability:
    """The conflict cases (``conflicts.yaml``)."""
    return _conflicts("conflicts", "conflicts.yaml", wanted)


def conflicts_probe(wanted: set[str]) -> Capability:
    """The probe conflict cases (``conflicts-probe.yaml``), written after the value readers."""
    return _conflicts("conflicts-probe", "conflicts-probe.yaml", wanted)


def _extraction(name: str, cases_file: str, wanted: set[str]) -> Capability:
    """Run extraction cases; print a line per case; return the summary line and answers."""
    cases = _cases(cases_file, wanted)
    outcomes = run_extraction_cases(cases)
    count = _tally(outcomes, _with_facts)
    wrong = sum(
        wrong_stated(case, answer_sentences(outcome.answer))
        for case, outcome in zip(cases, outcomes, strict=True)
    )
    summary = f"{name}: {count} questions answered right; {wrong} wrong values confirmed"
    return summary, [asdict(o) for o in outcomes]


def extraction(wanted: set[str]) -> Capability:
    """The extraction cases (``extraction.yaml``)."""
    return _extraction("extraction/ask", "extraction.yaml", wanted)


def extraction_probe(wanted: set[str]) -> Capability:
    """The probe extraction cases (``extraction-probe.yaml``), written before any run on them."""
    return _extraction("extraction-probe", "extraction-probe.yaml", wanted)


def research_click(wanted: set[str]) -> Capability:
    """The Click questions (``research-click.yaml``), written before any run on them."""
    return _research("research-click", "research-click.yaml", CLICK, wanted)


def research_uvicorn(wanted: set[str]) -> Capability:
    """The Uvicorn questions (``research-uvicorn.yaml``), written before any run on them."""
    return _research("research-uvicorn", "research-uvicorn.yaml", UVICORN, wanted)


CAPABILITIES = {
    "research": research,
    "research-starlette": research_starlette,
    "research-click": research_click,
    "research-uvicorn": research_uvicorn,
    "conflicts": conflicts,
    "conflicts-probe": conflicts_probe,
    "extraction": extraction,
    "extraction-probe": extraction_probe,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--capability", default=",".join(CAPABILITIES), help="which, comma-separated"
    )
    parser.add_argument("--only", default="", help="case ids, comma-separated")
    parser.add_argument("--json", type=Path, help="write every answer here")
    args = parser.parse_args(argv)
    wanted = {part for part in args.only.split(",") if part}
    chosen = [part for part in args.capability.split(",") if part]
    unknown = [part for part in chosen if part not in CAPABILITIES]
    if unknown:
        parser.error(f"unknown capability {unknown[0]!r}; choose from {', '.join(CAPABILITIES)}")
    summaries, answers = [], {}
    for name in chosen:
        summary, answers[name] = CAPABILITIES[name](wanted)
        summaries.append(summary)
    print("\n".join(summaries))
    if args.json:
        args.json.write_text(json.dumps(answers, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
