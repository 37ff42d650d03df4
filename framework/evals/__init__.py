"""Evals: measure a team on a dataset of cases, offline and deterministic when asked.

A dataset (:mod:`framework.evals.dataset`) holds cases: a question, its corpus and team, the
facts expected with the files they must be cited from, values that must not be stated,
scripted answers to review pauses, limits, a trajectory, branches of the tree to grade. Each
case runs as a thread in the data home; graders (:mod:`framework.evals.graders`) give each a
verdict with its reason; the run is kept sealed in the home, compared with another, reported as
a table, JSON, JUnit XML or HTML.

It may import runs and everything below it; never the server, the fleet or the CLI. Names load
on first use."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.evals.answers import *
    from framework.evals.cases import *
    from framework.evals.check import *
    from framework.evals.dataset import *
    from framework.evals.graders import *
    from framework.evals.html import *
    from framework.evals.judge import *
    from framework.evals.recorder import *
    from framework.evals.report import *
    from framework.evals.results import *
    from framework.evals.runner import *
    from framework.evals.store import *
    from framework.evals.tree import *

__getattr__, __dir__ = lazy_exports(__name__)
