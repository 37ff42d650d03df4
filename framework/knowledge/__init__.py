"""The knowledge graph: entities and relations with confidence, evidence and provenance, kept
in the (encrypted) semantic store of a data home.

Storage: it may import the engine's records and memory; never runs or anything above them.
"""

from framework._lazy import lazy_exports
from framework.knowledge.graph import *
from framework.knowledge.records import *

__getattr__, __dir__ = lazy_exports(__name__)
