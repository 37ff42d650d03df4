"""Structured-output schemas of the model-backed roles, and the call that asks for one.

A draft is what a model fills in; the role validates it into a framework record. Drafts use no
literal defaults (only ``None`` and factories) and no dict fields, so they also pass as OpenAI
strict JSON schemas. Numbers are clipped by the roles rather than constrained here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, model_validator

from framework.engine.records import ReviewDecision, Task
from framework.errors import ModelError

__all__ = [
    "ClaimDraft",
    "FactDraft",
    "FactsDraft",
    "PlanDraft",
    "ReportDraft",
    "RetryDraft",
    "ReviewVerdictDraft",
    "SectionDraft",
    "StructuredCall",
    "SubQuestion",
    "to_tasks",
    "unit",
]

S = TypeVar("S", bound=BaseModel)


class SubQuestion(BaseModel):
    """A sub-question to research, with the corpus query for it."""

    id: str | None = Field(default=None, description="short id such as q0; assigned when null")
    description: str = Field(description="the sub-question")
    query: str = Field(description="a short search query for the corpus")
    kind: str | None = Field(
        default=None, description="the worker kind to run it, when kinds are listed; else null"
    )


class PlanDraft(BaseModel):
    """The planner's answer: sub-questions to research, or a direct answer."""

    goal: str = Field(description="what the research must establish")
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    direct_answer: str | None = Field(default=None, description="set only when no search is needed")
    rationale: str | None = None

    @model_validator(mode="after")
    def _plans_something(self) -> PlanDraft:
        """A plan with neither sub-questions nor a direct answer answers nothing (a small model
        gives one): refused, so the model is asked again with this reason."""
        if not self.sub_questions and not (self.direct_answer or "").strip():
            raise ValueError(
                "the plan has no sub-questions and no direct answer: give at least one "
                "sub-question to research, or a direct answer"
            )
        return self


class RetryDraft(BaseModel):
    """A task to run again, optionally with a better query."""

    task_id: str
    query: str | None = None


class ReviewVerdictDraft(BaseModel):
    """The reviewer's answer: what happens next, how confident it is, and why."""

    decision: ReviewDecision
    confidence: float = Field(description="0 to 1: how well the findings answer the question")
    reasons: list[str] = Field(default_factory=list)
    retry: list[RetryDraft] = Field(default_factory=list, description="for retry_workers")
    new_tasks: list[SubQuestion] = Field(default_factory=list, description="for dispatch")


class FactDraft(BaseModel):
    """A durable statement and the source it comes from."""

    subject: str
    predicate: str
    object: str
    confidence: float = Field(description="0 to 1")
    source: str = Field(description="one of the listed path:line sources")


class FactsDraft(BaseModel):
    """The curator's answer: the facts worth remembering."""

    facts: list[FactDraft] = Field(default_factory=list)


class ClaimDraft(BaseModel):
    """One sentence of the report and the source that supports it."""

    text: str
    source: str = Field(description="one of the listed path:line sources")


class SectionDraft(BaseModel):
    """A titled group of claims."""

    heading: str
    claims: list[ClaimDraft] = Field(default_factory=list)


class ReportDraft(BaseModel):
    """The formatter's answer: the report's sections."""

    sections: list[SectionDraft] = Field(default_factory=list)


class StructuredCall(Generic[S]):
    """Asks a chat model for one ``schema`` object under a fixed system prompt.

    Args:
        model: Any chat model with ``with_structured_output``.
        schema: The draft schema to fill.
        system: The system prompt.
    """

    def __init__(self, model: BaseChatModel, schema: type[S], system: str) -> None:
        self.schema = schema
        self.system = system
        self.runnable = model.with_structured_output(schema)

    def __call__(self, request: str) -> S:
        """The model's answer to ``request``, validated.

        Raises:
            ModelError: The model answered with no object (a refusal or a plain reply).
        """
        answer = self.runnable.invoke([SystemMessage(self.system), HumanMessage(request)])
        if answer is None:
            raise ModelError(
                f"the model gave no {self.schema.__name__}: use a model that supports "
                "structured output (tool calling or JSON schema)"
            )
        if isinstance(answer, self.schema):
            return answer
        return self.schema.model_validate(answer)


def to_tasks(
    drafts: Sequence[SubQuestion], taken: Iterable[str] = (), default_kind: str | None = None
) -> list[Task]:
    """Tasks for ``drafts``; a missing or clashing id becomes the first free ``q<n>``, a missing
    kind ``default_kind`` (the record's default when None). A kind the team's workers do not
    take is kept: that task fails naming the kinds there are.

    A draft with neither a description nor a query is skipped.
    """
    used = set(taken)
    tasks, free = [], 0
    for draft in drafts:
        description = draft.description.strip() or draft.query.strip()
        if not description:
            continue
        task_id = (draft.id or "").strip()
        if not task_id or task_id in used:
            while f"q{free}" in used:
                free += 1
            task_id = f"q{free}"
        used.add(task_id)
        query = draft.query.strip() or description
        kind = (draft.kind or "").strip() or default_kind
        extra = {"kind": kind} if kind else {}
        tasks.append(Task(id=task_id, description=description, inputs={"query": query}, **extra))
    return tasks


def unit(value: float) -> float:
    """``value`` clipped to ``[0, 1]``."""
    return max(0.0, min(1.0, value))
