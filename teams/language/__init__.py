"""The offline readers' shared language: words and their stems (:mod:`~teams.language.words`),
questions and their parts (:mod:`~teams.language.questions`), the sentences that answer a
query best (:mod:`~teams.language.sentence_choice`), values and their normal forms (figures,
units, money, fractions, ordinals, ranges, dates), Markdown table rows and relative dates read
as statements, verbs, contradiction between statements, and the layout of a cited answer.
Imports only the framework."""

from __future__ import annotations

from teams.language.answer_layout import (
    NOTE_TITLES,
    NoteTitle,
    answer_claims,
    claim_heading,
    note_section,
)
from teams.language.contradiction import (
    DEFAULT_OVERLAP,
    Claim,
    agrees,
    claim_of,
    correction_of,
    differing_names,
    disagreement,
    rejects,
    same_subject,
)
from teams.language.relative_dates import resolve_relative_dates
from teams.language.tables import table_statements
from teams.language.values import (
    CATEGORIES,
    Value,
    stated_date,
    value_words,
    values_agree,
    values_in,
)
from teams.language.verbs import (
    IRREGULAR,
    lemma,
)

__all__ = [
    "CATEGORIES",
    "DEFAULT_OVERLAP",
    "IRREGULAR",
    "NOTE_TITLES",
    "Claim",
    "NoteTitle",
    "Value",
    "agrees",
    "answer_claims",
    "claim_heading",
    "claim_of",
    "correction_of",
    "differing_names",
    "disagreement",
    "lemma",
    "note_section",
    "rejects",
    "resolve_relative_dates",
    "same_subject",
    "stated_date",
    "table_statements",
    "value_words",
    "values_agree",
    "values_in",
]
