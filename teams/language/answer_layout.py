"""The layout of a cited answer: claim sections, and the note sections cadre writes itself.

Every team's final answer is Markdown: a ``# question`` title, sections of claims that cite
``path:line``, and note sections about the run (what the corpus did not answer, what a reviewer
rejected, how the review went, the sources). Writers open a note section with
:func:`note_section` and name a claim section with :func:`claim_heading`, so the two never share
a title; :func:`answer_claims` reads back the claims alone, for the compliance check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, get_args

__all__ = ["NOTE_TITLES", "NoteTitle", "answer_claims", "claim_heading", "note_section"]

NoteTitle = Literal[
    "Not answered by the corpus",
    "Rejected in review",
    "Unresolved",
    "Memory",
    "Review",
    "Sources",
    "Assessment",
]
"""The titles of cadre's note sections: what they hold is never a claim."""

NOTE_TITLES: frozenset[str] = frozenset(get_args(NoteTitle))
_NOTES = frozenset(title.casefold() for title in NOTE_TITLES)

_SECTION = re.compile(r"^##[ \t]+(.*?)[ \t#]*$")
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")


def note_section(title: NoteTitle, lines: Sequence[str]) -> list[str]:
    """The lines of a note section: its heading, a blank line, ``lines`` and a blank line."""
    return [f"## {title}", "", *lines, ""]


def claim_heading(heading: str, default: str = "Findings") -> str:
    """A claim section's title (a model's, say): ``default`` when blank, and never a note
    section's title (``Review`` becomes ``Findings: Review``)."""
    title = " ".join(heading.split()) or default
    return f"{default}: {title}" if title.casefold() in _NOTES else title


def answer_claims(answer: str) -> list[tuple[int, str]]:
    """The claims of ``answer`` as ``(line number, stripped line)``, 1-based.

    A claim is a non-blank line that is not a heading, outside the note sections (titles
    compared case-blind, so a human's edit keeps them). A section runs from its ``##`` heading
    to the next one; deeper headings stay in their section.
    """
    claims, in_notes = [], False
    for number, line in enumerate(answer.splitlines(), start=1):
        stripped = line.strip()
        if section := _SECTION.match(stripped):
            in_notes = section.group(1).casefold() in _NOTES
        elif stripped and not in_notes and not _HEADING.match(stripped):
            claims.append((number, stripped))
    return claims
