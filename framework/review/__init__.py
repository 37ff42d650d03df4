"""Human review: typed review requests at review points, decisions, audit trail, time travel.

A team built with :attr:`framework.engine.builder.TeamSettings.review` pauses at its review
points with typed requests (plan, task, answer, node; a policy's, a remote agent's question).
:func:`pending` lists them, subgraphs included; :func:`decide` checks decisions against them,
resumes the run and keeps each in the thread's ``audit`` trail; :func:`history` (or
:func:`checkpoint_history`, from a checkpointer or reader) and :func:`fork` travel in time.
The checks (:func:`parse_decision`, :func:`check_decision`, :func:`check_plan`) are public,
so a client can refuse bad input the same way.

The records load with the package, the API on first use (it needs the engine's state, which
needs these records). It may import the engine, and the runner for the API that resumes runs;
never the server, the fleet or the CLI.
"""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports
from framework.review._rules import check_decision as check_decision
from framework.review._rules import check_plan as check_plan
from framework.review._rules import parse_decision as parse_decision
from framework.review._rules import tasks_of as tasks_of
from framework.review._rules import validation_message as validation_message
from framework.review._summary import call_summary as call_summary
from framework.review._summary import input_summary as input_summary
from framework.review.limits import *
from framework.review.records import *

if TYPE_CHECKING:
    from framework.review._apply import decision_entry as decision_entry
    from framework.review._history import checkpoint_history as checkpoint_history  # no graph
    from framework.review._pending import decisions_in as decisions_in  # no graph machinery
    from framework.review._pending import requests_in as requests_in
    from framework.review.api import adecide as adecide
    from framework.review.api import approve_all as approve_all
    from framework.review.api import decide as decide
    from framework.review.api import fork as fork
    from framework.review.api import history as history
    from framework.review.api import pending as pending
    from framework.review.api import thread_ids as thread_ids

__getattr__, __dir__ = lazy_exports(__name__)
