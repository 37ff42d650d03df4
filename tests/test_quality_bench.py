"""The strict scoring of bench/quality.py: a key fact counts only in the answer's own
statements, and only with a citation of the right file and line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bench._conflict_cases import score_conflict
from bench.quality import bench_outcome
from framework.cli.app import app
from framework.evals.answers import statements
from framework.evals.cases import Case
from framework.evals.graders import Outcome, grade
from framework.evals.results import CaseResult

ANSWER = """# How many connections?

## Findings

### How many connections?

- The pool allows 100 connections. (`corpus/resource-limits.md:7`)
- Unresolved: 20 or 30 keep-alive connections. (`corpus/resource-limits.md:5`)
- It keeps 20 keep-alive connections. (`corpus/timeouts.md:5`)

## Sources

- 20 keep-alive connections (`corpus/resource-limits.md:5`)
"""


def test_only_the_answers_own_statements_count() -> None:
    said = statements(ANSWER)
    assert said == [
        "- The pool allows 100 connections. (`corpus/resource-limits.md:7`)",
        "- It keeps 20 keep-alive connections. (`corpus/timeouts.md:5`)",
    ]


def _cited(facts: list[str], sources: str) -> tuple[bool, str]:
    case = Case(id="c", question="q", facts=facts, sources=[sources])
    [verdict] = [v for v in grade(case, Outcome(answer=ANSWER)) if v.grader == "cited"]
    return verdict.passed, verdict.reason


def test_a_fact_needs_a_citation_of_the_right_file_and_line() -> None:
    assert _cited(["100"], "resource-limits.md:4-7") == (
        True,
        "1/1 facts cited from a right source",
    )
    said, why = _cited(["20"], "resource-limits.md:4-7")  # said, but citing another file
    assert not said
    assert why.endswith("'20' cites corpus/timeouts.md:5, not resource-limits.md:4-7")
    assert not _cited(["100"], "resource-limits.md:4-6")[0]


CASE = {
    "id": "c",
    "question": "How many arches?",
    "expect": "confirmed",
    "value": ["14 arches"],
    "cite": ["register.md:3"],
    "wrong": ["eleven arches"],
    "refuting": ["guide.md"],
}
RIGHT = """# How many arches?

## Findings

- The viaduct has 14 arches. (confirmed, confidence 0.67; `c/register.md:3`)

## Ruled out

- The viaduct has eleven arches. (refuted, confidence 0.00; contradicted by `c/register.md:3`)
"""


def test_a_conflict_report_is_right_only_with_the_value_cited_and_nothing_wrong_confirmed() -> None:
    assert score_conflict(CASE, RIGHT).passed
    cited_refuter = RIGHT.replace(
        "`c/register.md:3`)\n\n##", "`c/register.md:3`, `c/guide.md:3`)\n\n##"
    )
    outcome = score_conflict(CASE, cited_refuter)
    assert not outcome.passed and outcome.why == "a refuting file is cited as support"
    wrong = RIGHT.replace("14 arches. (confirmed", "14 arches, not eleven arches. (confirmed")
    assert score_conflict(CASE, wrong).wrong_confirmed


def test_an_open_case_needs_the_conflict_left_open_and_a_control_needs_none() -> None:
    open_case = {**CASE, "expect": "open"}
    undecided = "# q\n\n## Unresolved\n\n- Open conflict: a and b disagree (`a`, `b`)\n"
    assert score_conflict(open_case, undecided).passed
    assert not score_conflict(open_case, RIGHT).passed
    control = {**CASE, "expect": "agreement"}
    assert score_conflict(control, RIGHT).passed
    flagged = score_conflict(control, RIGHT + undecided)
    assert not flagged.passed and flagged.control_flagged


def test_a_research_set_is_a_dataset_cadre_eval_scores_as_documented(tmp_path: Path) -> None:
    """The Click set through ``cadre eval``: 14/15 with every key fact cited (the figure of
    docs/benchmarks/quality.md), no wrong value, every case a thread of the home."""
    dataset = Path(__file__).resolve().parent.parent / "bench" / "quality" / "research-click.yaml"
    as_json = tmp_path / "run.json"
    ran = CliRunner().invoke(
        app, ["eval", str(dataset), "--home", str(tmp_path / "home"), "--jobs", "2",
              "--json", str(as_json), "--no-trace"],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    outcomes = [bench_outcome(CaseResult.model_validate(case))
                for case in json.loads(as_json.read_text())["cases"]]  # fmt: skip
    assert sum(outcome.passed for outcome in outcomes) >= 14
    assert not any(outcome.wrong_confirmed for outcome in outcomes)
