"""Semantic memory: the packaged embedding model, a persistent semantic store, corpus search,
and research memory (evidence, hypotheses, conflicts) on top of them.

Storage: it may import the engine's records, the database and persistence layers, and the
policy hooks (memory writes are governed); never runs or anything above them.
"""

from __future__ import annotations

from framework.memory._provenance import ItemProvenance
from framework.memory._research_records import (
    LEGAL_STATUS_CHANGES,
    Conflict,
    ConflictStatus,
    EvidenceRecord,
    Hypothesis,
    HypothesisChange,
    HypothesisStatus,
    MemorySummary,
    ScoredEvidence,
    evidence_id,
    normalised,
)
from framework.memory._scope_keys import SCOPE_KINDS, scope_of
from framework.memory._sentences import LIST_MARKER, prose_sentences
from framework.memory._text_files import read_text, text_of
from framework.memory.corpus import (
    CORPUS_NAMESPACE,
    Chunk,
    Corpus,
    IngestReport,
    Passage,
    SkippedFile,
    checked_corpus_files,
    chunk_document,
    corpus_files,
    ingest_corpus,
)
from framework.memory.embeddings import Embedder, MiniLMEmbedder, default_embedder
from framework.memory.langgraph_store import LangGraphStore
from framework.memory.research import RESEARCH_NAMESPACE, ResearchMemory
from framework.memory.store import (
    Namespace,
    PlainCodec,
    SearchHit,
    SemanticStore,
    SourceRecord,
    StoreItem,
    ValueCodec,
)

__all__ = [
    "CORPUS_NAMESPACE",
    "LEGAL_STATUS_CHANGES",
    "LIST_MARKER",
    "RESEARCH_NAMESPACE",
    "SCOPE_KINDS",
    "Chunk",
    "Conflict",
    "ConflictStatus",
    "Corpus",
    "Embedder",
    "EvidenceRecord",
    "Hypothesis",
    "HypothesisChange",
    "HypothesisStatus",
    "IngestReport",
    "ItemProvenance",
    "LangGraphStore",
    "MemorySummary",
    "MiniLMEmbedder",
    "Namespace",
    "Passage",
    "PlainCodec",
    "ResearchMemory",
    "ScoredEvidence",
    "SearchHit",
    "SemanticStore",
    "SkippedFile",
    "SourceRecord",
    "StoreItem",
    "ValueCodec",
    "checked_corpus_files",
    "chunk_document",
    "corpus_files",
    "default_embedder",
    "evidence_id",
    "ingest_corpus",
    "normalised",
    "prose_sentences",
    "read_text",
    "scope_of",
    "text_of",
]
