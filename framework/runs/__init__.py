"""Runs: the life of a thread. Its specification, the team and role-prompt registries, the
home's stores, launching a team for a thread, the runner, reading a thread's record back, and
run observers.

It may import the engine, models, storage (database, persistence, memory, knowledge), policy,
review and tools; never retention, the server, the fleet or the CLI. Names load on first use."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.runs.launch import POLICY_FILE_GROUP as POLICY_FILE_GROUP
    from framework.runs.launch import Launched as Launched
    from framework.runs.launch import LaunchRequest as LaunchRequest
    from framework.runs.launch import PolicySet as PolicySet
    from framework.runs.launch import TeamOptions as TeamOptions
    from framework.runs.launch import load_policies as load_policies
    from framework.runs.launch import open_team as open_team
    from framework.runs.launch import relaunch as relaunch
    from framework.runs.launch import review_points as review_points
    from framework.runs.observe import *
    from framework.runs.prompts import *
    from framework.runs.runner import *
    from framework.runs.spec import *
    from framework.runs.stores import *
    from framework.runs.teams import *
    from framework.runs.threads import *

__getattr__, __dir__ = lazy_exports(__name__)
