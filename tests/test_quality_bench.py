"""The strict scoring of bench/quality.py: a key fact counts only in the answer's own
statements, and only with a citation of the right file and line."""

from __future__ import annotations

from bench._conflict_cases import score_conflict
from bench.quality import Source, fact_found, statements

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


def test_a_fact_needs_a_citation_of_the_right_file_and_line() -> None:
    said = statements(ANSWER)
    limits = [Source.parse("resource-limits.md:4-7")]
    assert fact_found(["100"], limits, said)
    assert not fact_found(["20"], limits, said)  # said, but citing another file
    assert not fact_found(["100"], [Source.parse("resource-limits.md:4-6")], said)


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
