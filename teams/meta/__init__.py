"""The MetaCoordinator: intake, the research team as a subgraph, risk and compliance phases."""

from __future__ import annotations

from teams.meta.assessors import Assessor, CitationCompliance, EvidenceRisk
from teams.meta.graph import MetaState, build_meta_coordinator

__all__ = ["Assessor", "CitationCompliance", "EvidenceRisk", "MetaState", "build_meta_coordinator"]
