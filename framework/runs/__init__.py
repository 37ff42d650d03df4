"""Runs: the life of a thread. Its specification, the team and role-prompt registries, the
home's stores, launching a team for a thread, the runner, reading a thread's record back, and
run observers.

It may import the engine, models, storage (database, persistence, memory, knowledge), policy,
review and tools; never retention, the server, the fleet or the CLI. Names load on first use."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.runs.launch import *
    from framework.runs.observe import *
    from framework.runs.prompts import *
    from framework.runs.runner import *
    from framework.runs.spec import *
    from framework.runs.stores import *
    from framework.runs.teams import *
    from framework.runs.threads import *

__getattr__, __dir__ = lazy_exports(__name__)
