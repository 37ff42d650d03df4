"""The MetaCoordinator: intake, the research team as a subgraph, risk and compliance phases.

Its names load on first use, so that importing one of its modules (a role prompt) imports
nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from teams.meta.assessors import Assessor, CitationCompliance, EvidenceRisk
    from teams.meta.graph import MetaState, Phase, build_meta_coordinator, build_phased_coordinator

__all__ = [
    "Assessor",
    "CitationCompliance",
    "EvidenceRisk",
    "MetaState",
    "Phase",
    "build_meta_coordinator",
    "build_phased_coordinator",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "teams.meta.assessors": (
            "Assessor",
            "CitationCompliance",
            "EvidenceRisk",
        ),
        "teams.meta.graph": (
            "MetaState",
            "Phase",
            "build_meta_coordinator",
            "build_phased_coordinator",
        ),
    },
)
