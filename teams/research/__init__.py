"""The research team: planner -> parallel corpus workers -> reviewer loop -> cited report."""

from framework import lazy_exports
from teams.research.graph import *

__getattr__, __dir__ = lazy_exports(__name__)
