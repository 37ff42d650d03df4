"""The engine: how a team runs (state and its merge rules, records, typed routing, roles, the
builder, node middleware, node bodies, retrying, dispatch limits, stop rules, worker kinds, a
team as a worker kind and where it nests in the tree, the YAML reader of team, policy and
retention files).

It may import only :mod:`framework.errors` and the records and review points a team's state and
graph hold (:mod:`framework.review`, :mod:`framework.policy` records); never storage, runs,
retention, the server, the fleet or the CLI. Names load on first use."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.engine.builder import *
    from framework.engine.concurrency import *
    from framework.engine.config_file import *
    from framework.engine.middleware import *
    from framework.engine.nesting import *
    from framework.engine.records import *
    from framework.engine.retrying import *
    from framework.engine.roles import *
    from framework.engine.routing import *
    from framework.engine.runtime import *
    from framework.engine.state import *
    from framework.engine.stopping import *
    from framework.engine.team_worker import *
    from framework.engine.worker_kinds import *

__getattr__, __dir__ = lazy_exports(__name__)
