"""Retention: what the threads of a home are doing, pruning old checkpoints, retention rules and
purging a scope (checkpoints, memory and traces). It may import runs and everything below
them; never the server, the fleet or the CLI. Names load on first use."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.retention.pruning import *
    from framework.retention.purge import ERASER_GROUP as ERASER_GROUP
    from framework.retention.purge import SCOPE_KINDS as SCOPE_KINDS
    from framework.retention.purge import DataScope as DataScope
    from framework.retention.purge import PurgeReport as PurgeReport
    from framework.retention.rules import *

__getattr__, __dir__ = lazy_exports(__name__)
