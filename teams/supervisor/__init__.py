"""The memory supervisor team: a supervisor routing between querying the knowledge graph and
drafting an answer from what it found, citing the documents.

Its names load on first use, so that importing one of its modules (a command) imports
nothing else.
"""

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.supervisor.draft_content import Drafted as Drafted
    from teams.supervisor.draft_content import ModelWriter as ModelWriter
    from teams.supervisor.draft_content import TemplateWriter as TemplateWriter
    from teams.supervisor.draft_content import Writer as Writer
    from teams.supervisor.graph import *
    from teams.supervisor.query_memory import MemoryQuery as MemoryQuery
    from teams.supervisor.rules import RuleSupervisor as RuleSupervisor
    from teams.supervisor.rules import next_step_by_rule as next_step_by_rule
    from teams.supervisor.state import STEPS as STEPS
    from teams.supervisor.state import Step as Step
    from teams.supervisor.state import SupervisorState as SupervisorState
    from teams.supervisor.supervisor import ModelSupervisor as ModelSupervisor
    from teams.supervisor.supervisor import Supervisor as Supervisor

__getattr__, __dir__ = lazy_exports(__name__)
