"""The MetaCoordinator: intake, the research team as a subgraph, risk and compliance phases."""

from __future__ import annotations

from teams.meta.assessors import Assessor, CitationCompliance, EvidenceRisk
from teams.meta.graph import (
    MetaState,
    Phase,
    build_coordinator,
    build_meta_coordinator,
    build_phased_coordinator,
)

__all__ = [
    "Assessor",
    "CitationCompliance",
    "EvidenceRisk",
    "MetaState",
    "Phase",
    "build_coordinator",
    "build_meta_coordinator",
    "build_phased_coordinator",
]
