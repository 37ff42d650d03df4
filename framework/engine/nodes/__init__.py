"""Node bodies shared by every planner-workers-reviewer team, and :class:`TeamNode`, the
node that runs a body through the middleware chain. Part of the engine: imports only the engine."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.engine.nodes.aggregator import *
    from framework.engine.nodes.closing import *
    from framework.engine.nodes.dispatcher import *
    from framework.engine.nodes.planner import *
    from framework.engine.nodes.reviewer import *
    from framework.engine.nodes.team_node import *
    from framework.engine.nodes.worker import *

__getattr__, __dir__ = lazy_exports(__name__)
