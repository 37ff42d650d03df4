"""The model-backed assessors of the MetaCoordinator: risk assessment and compliance check."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from framework.engine.records import Finding, WorkerResult
from framework.engine.runtime import NodeContext
from teams.language.answer_layout import answer_claims
from teams.meta.assessors import found_evidence
from teams.research.prompts import evidence_lines
from teams.research.schemas import StructuredCall

__all__ = ["FindingDraft", "FindingsDraft", "ModelCompliance", "ModelRisk"]

RISK_SYSTEM = (
    "You assess the risk of a research run's findings. Report failed tasks, weak evidence "
    "(low scores, off-topic passages) and passages that contradict each other. Name the task id "
    "or the `path:line` source a finding is about."
)
COMPLIANCE_SYSTEM = (
    "You check a research report. Every claim line must cite a `path:line` source, and every "
    "cited source must be one of the listed sources the workers found. Report each violation "
    "as an error naming its line; when all is cited, report one info finding saying so."
)


class FindingDraft(BaseModel):
    """One thing an assessor noticed."""

    severity: Literal["info", "warning", "error"]
    message: str
    task_id: str | None = None
    source: str | None = Field(default=None, description="a path:line source")


class FindingsDraft(BaseModel):
    """An assessor's answer."""

    findings: list[FindingDraft] = Field(default_factory=list)


def _results(state: Mapping[str, Any]) -> list[tuple[str, WorkerResult]]:
    return sorted((state.get("worker_results") or {}).items())


class _ModelAssessor(ABC):
    """Asks the model for the findings of one phase about the run's state."""

    phase: str
    system: str

    def __init__(self, model: BaseChatModel) -> None:
        self._ask = StructuredCall(model, FindingsDraft, self.system)

    @abstractmethod
    def request(self, state: Mapping[str, Any]) -> str:
        """The prompt for ``state``."""

    def assess(self, state: Mapping[str, Any], context: NodeContext) -> list[Finding]:
        """The model's findings, validated, under this assessor's phase."""
        draft = self._ask(self.request(state))
        return [Finding(phase=self.phase, **item.model_dump()) for item in draft.findings]


class ModelRisk(_ModelAssessor):
    """Asks the model which tasks failed, which evidence is weak, and which sources conflict."""

    phase = "risk_assessment"
    system = RISK_SYSTEM

    def request(self, state: Mapping[str, Any]) -> str:
        """The question and every task's outcome with its evidence."""
        lines = [f"Question: {state.get('question', '')}", "", "Task results:"]
        for task_id, result in _results(state):
            if result.status == "failed":
                lines.append(f"[{task_id}] failed: {result.error}")
                continue
            lines.append(f"[{task_id}] confidence {result.confidence:.2f}")
            lines += evidence_lines(result.evidence) or ["- no evidence"]
        handed_over = state.get("evidence") or []
        if handed_over:
            lines += ["", "Evidence:", *evidence_lines(handed_over)]
        return "\n".join(lines)


class ModelCompliance(_ModelAssessor):
    """Asks the model whether every claim of the final answer cites a source a worker found."""

    phase = "compliance_check"
    system = COMPLIANCE_SYSTEM

    def request(self, state: Mapping[str, Any]) -> str:
        """The answer's claims, numbered by their line, and the sources the workers found."""
        known = sorted({item.source for item in found_evidence(state)})
        claims = answer_claims(state.get("final_answer") or "")
        numbered = [f"{number}: {line}" for number, line in claims]
        return "\n".join(
            [
                "Sources the workers found:",
                *([f"- {source}" for source in known] or ["- none"]),
                "",
                "Claims of the report (line: text):",
                *numbered,
            ]
        )
