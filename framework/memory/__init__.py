"""Semantic memory: the packaged embedding model, a persistent semantic store, corpus search."""

from __future__ import annotations

from framework.memory.corpus import (
    CORPUS_NAMESPACE,
    Chunk,
    Corpus,
    IngestReport,
    Passage,
    checked_corpus_files,
    chunk_document,
    corpus_files,
    ingest_corpus,
)
from framework.memory.embeddings import Embedder, MiniLMEmbedder, default_embedder
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
    "Chunk",
    "Corpus",
    "Embedder",
    "IngestReport",
    "MiniLMEmbedder",
    "Namespace",
    "Passage",
    "PlainCodec",
    "SearchHit",
    "SemanticStore",
    "SourceRecord",
    "StoreItem",
    "ValueCodec",
    "checked_corpus_files",
    "chunk_document",
    "corpus_files",
    "default_embedder",
    "ingest_corpus",
]
