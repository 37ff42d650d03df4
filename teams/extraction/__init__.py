"""The knowledge-graph extraction team: a cartographer and a critic in a bounded revision loop,
a confidence filter and a saver, one document subgraph per document.

Its names load on first use, so that importing one of its modules (a command) imports
nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.extraction.app import extraction_team
    from teams.extraction.cartographer import Cartographer, ModelCartographer, PatternCartographer
    from teams.extraction.critic import Critic, ModelCritic, RuleCritic
    from teams.extraction.documents import Document, Section, document_of, read_documents
    from teams.extraction.graph import (
        ExtractionRoles,
        ExtractionSettings,
        build_document_graph,
        build_extraction_team,
        model_roles,
        offline_roles,
    )
    from teams.extraction.normalise import normalised_extraction
    from teams.extraction.report import ExtractionTotals
    from teams.extraction.state import (
        Critique,
        DocumentReport,
        Extraction,
        ExtractionState,
        Triple,
        Verdict,
    )

__all__ = [
    "Cartographer",
    "Critic",
    "Critique",
    "Document",
    "DocumentReport",
    "Extraction",
    "ExtractionRoles",
    "ExtractionSettings",
    "ExtractionState",
    "ExtractionTotals",
    "ModelCartographer",
    "ModelCritic",
    "PatternCartographer",
    "RuleCritic",
    "Section",
    "Triple",
    "Verdict",
    "build_document_graph",
    "build_extraction_team",
    "document_of",
    "extraction_team",
    "model_roles",
    "normalised_extraction",
    "offline_roles",
    "read_documents",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "teams.extraction.app": ("extraction_team",),
        "teams.extraction.cartographer": (
            "Cartographer",
            "ModelCartographer",
            "PatternCartographer",
        ),
        "teams.extraction.critic": (
            "Critic",
            "ModelCritic",
            "RuleCritic",
        ),
        "teams.extraction.documents": (
            "Document",
            "Section",
            "document_of",
            "read_documents",
        ),
        "teams.extraction.graph": (
            "ExtractionRoles",
            "ExtractionSettings",
            "build_document_graph",
            "build_extraction_team",
            "model_roles",
            "offline_roles",
        ),
        "teams.extraction.normalise": ("normalised_extraction",),
        "teams.extraction.report": ("ExtractionTotals",),
        "teams.extraction.state": (
            "Critique",
            "DocumentReport",
            "Extraction",
            "ExtractionState",
            "Triple",
            "Verdict",
        ),
    },
)
