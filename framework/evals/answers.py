"""Reading a cited answer: its own statements, and the ``file:line`` citations each holds.

A statement is a bullet of the answer outside its ``Review`` and ``Sources`` sections, not a
heading and not a line saying something is unresolved: what the team asserts, as opposed to
what it lists or doubts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "CITATION",
    "SKIPPED_SECTIONS",
    "citations",
    "corpus_file",
    "section_lines",
    "statements",
    "words_of",
]

CITATION = re.compile(r"`?([\w./-]+\.(?:md|txt|rst|csv)):(\d+)`?")
"""A citation as answers write it: ``path/name.md:12``."""
SKIPPED_SECTIONS = ("sources", "review")


def section_lines(answer: str) -> Iterator[tuple[str, str]]:
    """``(section, line)`` of every non-blank line that is not a heading: the line stripped,
    the title of the ``##`` section it is in, lower-cased ("" before the first)."""
    section = ""
    for line in answer.splitlines():
        stripped = line.strip()
        if stripped.startswith("## "):
            section = stripped[3:].strip().lower()
        elif stripped and not stripped.startswith("#"):
            yield section, stripped


def statements(answer: str) -> list[str]:
    """The answer's own statements: bullets outside the review and sources sections."""
    return [
        line
        for section, line in section_lines(answer)
        if section not in SKIPPED_SECTIONS
        and line.startswith(("- ", "* "))
        and "unresolved" not in line.lower()
    ]


def citations(text: str) -> list[tuple[str, int]]:
    """Every ``(file, line)`` cited in ``text``, in order."""
    return [(match.group(1), int(match.group(2))) for match in CITATION.finditer(text)]


def words_of(statement: str) -> str:
    """What ``statement`` says, without its citations: a file's name ("v6.2.0.rst:67") states
    no value."""
    return CITATION.sub("", statement)


def corpus_file(corpus: Path, cited: str) -> Path | None:
    """The file of ``corpus`` a citation names: by its path (or the path's tail: answers cite
    ``corpus/name.md`` from where the run started), else the one file of that name; None when
    there is none, or several."""
    root = corpus.resolve()
    parts = [part for part in Path(cited).parts if part not in ("/", "..", ".")]
    for start in range(len(parts)):
        candidate = root.joinpath(*parts[start:]).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):  # never outside the corpus
            return candidate
    matches = [path for path in root.rglob(Path(cited).name) if path.is_file()]
    return matches[0] if len(matches) == 1 else None
