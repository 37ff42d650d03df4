"""The MetaCoordinator: intake, the research team as a subgraph, risk and compliance phases."""

from framework import lazy_exports
from teams.meta.assessors import *
from teams.meta.graph import *

__getattr__, __dir__ = lazy_exports(__name__)
