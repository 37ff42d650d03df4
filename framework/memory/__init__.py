"""Semantic memory: the packaged embedding model, a persistent semantic store, corpus search,
and research memory (evidence, hypotheses, conflicts) on top of them.

Storage: it may import the engine's records, the database and persistence layers, and the
policy hooks (memory writes are governed); never runs or anything above them.
"""

from framework._lazy import lazy_exports
from framework.memory._provenance import ItemProvenance as ItemProvenance
from framework.memory._research_records import *
from framework.memory._scope_keys import SCOPE_KINDS as SCOPE_KINDS
from framework.memory._scope_keys import scope_of as scope_of
from framework.memory._sentences import *
from framework.memory._text_files import read_text as read_text
from framework.memory._text_files import text_of as text_of
from framework.memory.corpus import *
from framework.memory.embeddings import *
from framework.memory.langgraph_store import *
from framework.memory.research import *
from framework.memory.store import *

__getattr__, __dir__ = lazy_exports(__name__)
