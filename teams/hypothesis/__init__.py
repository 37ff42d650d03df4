"""The hypothesis team: a supervisor routes search, judge and resolve rounds over research
memory (hypotheses, conflicts, evidence kept across runs) to a cited report."""

from framework import lazy_exports
from framework.engine.records import SourceError as SourceError
from teams.hypothesis.graph import *
from teams.hypothesis.roles import *
from teams.hypothesis.rules import next_step_by_rule as next_step_by_rule
from teams.hypothesis.settings import *
from teams.hypothesis.sources import corpus_source as corpus_source
from teams.hypothesis.state import HypothesisState as HypothesisState
from teams.hypothesis.state import Step as Step

__getattr__, __dir__ = lazy_exports(__name__)
