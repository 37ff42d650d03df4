"""The strict scoring of bench/quality.py: a key fact counts only in the answer's own
statements, and only with a citation of the right file and line."""

from __future__ import annotations

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
