"""Teams composed from a team file (``cadre run --team-config FILE``): the research team's
roles with the worker kinds, tools, MCP servers and models the file declares."""

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.configured.app import *
    from teams.configured.planning import *

__getattr__, __dir__ = lazy_exports(__name__)
