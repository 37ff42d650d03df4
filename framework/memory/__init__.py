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
from framework.memory.corpus import CORPUS_NAMESPACE as CORPUS_NAMESPACE
from framework.memory.corpus import Chunk as Chunk
from framework.memory.corpus import Corpus as Corpus
from framework.memory.corpus import IngestReport as IngestReport
from framework.memory.corpus import Passage as Passage
from framework.memory.corpus import SkippedFile as SkippedFile
from framework.memory.corpus import checked_corpus_files as checked_corpus_files
from framework.memory.corpus import chunk_document as chunk_document
from framework.memory.corpus import corpus_files as corpus_files
from framework.memory.corpus import ingest_corpus as ingest_corpus
from framework.memory.embeddings import Embedder as Embedder
from framework.memory.embeddings import MiniLMEmbedder as MiniLMEmbedder
from framework.memory.embeddings import default_embedder as default_embedder
from framework.memory.langgraph_store import *
from framework.memory.research import *
from framework.memory.store import Namespace as Namespace
from framework.memory.store import PlainCodec as PlainCodec
from framework.memory.store import SearchHit as SearchHit
from framework.memory.store import SemanticStore as SemanticStore
from framework.memory.store import SourceRecord as SourceRecord
from framework.memory.store import StoreItem as StoreItem
from framework.memory.store import ValueCodec as ValueCodec

__getattr__, __dir__ = lazy_exports(__name__)
