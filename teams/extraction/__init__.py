"""The knowledge-graph extraction team: a cartographer and a critic in a bounded revision loop,
a confidence filter and a saver, one document subgraph per document.

Its names load on first use, so that importing one of its modules (a command) imports
nothing else.
"""

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.extraction.app import *
    from teams.extraction.cartographer import Cartographer as Cartographer
    from teams.extraction.cartographer import ModelCartographer as ModelCartographer
    from teams.extraction.cartographer import PatternCartographer as PatternCartographer
    from teams.extraction.critic import Critic as Critic
    from teams.extraction.critic import ModelCritic as ModelCritic
    from teams.extraction.critic import RuleCritic as RuleCritic
    from teams.extraction.documents import Document as Document
    from teams.extraction.documents import Section as Section
    from teams.extraction.documents import document_of as document_of
    from teams.extraction.documents import read_documents as read_documents
    from teams.extraction.graph import ExtractionRoles as ExtractionRoles
    from teams.extraction.graph import ExtractionSettings as ExtractionSettings
    from teams.extraction.graph import build_document_graph as build_document_graph
    from teams.extraction.graph import build_extraction_team as build_extraction_team
    from teams.extraction.graph import model_roles as model_roles
    from teams.extraction.graph import offline_roles as offline_roles
    from teams.extraction.normalise import *
    from teams.extraction.report import ExtractionTotals as ExtractionTotals
    from teams.extraction.state import Critique as Critique
    from teams.extraction.state import DocumentReport as DocumentReport
    from teams.extraction.state import Extraction as Extraction
    from teams.extraction.state import ExtractionState as ExtractionState
    from teams.extraction.state import Triple as Triple
    from teams.extraction.state import Verdict as Verdict

__getattr__, __dir__ = lazy_exports(__name__)
