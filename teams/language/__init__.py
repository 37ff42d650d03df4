"""The offline readers' shared language: words and their stems (:mod:`~teams.language.words`),
questions and their parts (:mod:`~teams.language.questions`), the sentences that answer a
query best (:mod:`~teams.language.sentence_choice`), values and their normal forms (figures,
units, money, fractions, ordinals, ranges, dates in every common written form), Markdown table
rows and relative dates read as statements, lists counted, relative changes computed, verbs,
contradiction between statements, and the layout of a cited answer. Imports only the
framework."""

from framework import lazy_exports
from teams.language.answer_layout import *
from teams.language.contradiction import DEFAULT_OVERLAP as DEFAULT_OVERLAP
from teams.language.contradiction import Claim as Claim
from teams.language.contradiction import agrees as agrees
from teams.language.contradiction import claim_of as claim_of
from teams.language.contradiction import correction_of as correction_of
from teams.language.contradiction import differing_names as differing_names
from teams.language.contradiction import disagreement as disagreement
from teams.language.contradiction import rejects as rejects
from teams.language.contradiction import same_subject as same_subject
from teams.language.relative_dates import *
from teams.language.tables import table_statements as table_statements
from teams.language.values import *
from teams.language.verbs import IRREGULAR as IRREGULAR
from teams.language.verbs import lemma as lemma

__getattr__, __dir__ = lazy_exports(__name__)
