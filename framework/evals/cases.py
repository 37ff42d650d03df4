"""The records of a dataset's case: the facts expected, where they must be cited from, what must
not be said, scripted review decisions, limits, the trajectory, branches of the tree.

Each accepts the short forms a person writes (a fact as a phrase or a list of spellings, a
review decision as ``approve``) and is validated whole, so a dataset with a mistake is refused
before any case runs (:mod:`framework.evals.dataset` names the file and line).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

__all__ = [
    "CASE_ID",
    "Branch",
    "Case",
    "Fact",
    "Judge",
    "Limits",
    "ScriptedDecision",
    "SourceLines",
    "Trajectory",
]

CASE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
"""A case's id, and a dataset's name: letters, digits, ``.``, ``_`` and ``-`` (they name
files of the data home)."""
_SOURCE = re.compile(r"^\s*([^:]+?):(\d+)(?:-(\d+))?\s*$")
_STEP = re.compile(r"^(kind|team|tool|model):\S.*$")
_COUNT = re.compile(r"^\s*(\d+)?\s*(?:\.\.\s*(\d+)?)?\s*$")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class SourceLines(_Strict):
    """A file and the lines of it that may be cited for a fact (``name.md:4-7``)."""

    file: str
    first: int
    last: int

    @classmethod
    def parse(cls, text: str) -> SourceLines:
        """``FILE:LINE`` or ``FILE:FIRST-LAST``; ValueError naming the form otherwise."""
        match = _SOURCE.match(text)
        if match is None:
            raise ValueError(f"{text!r} is not a source: write FILE:LINE or FILE:FIRST-LAST")
        first = int(match.group(2))
        last = int(match.group(3) or first)
        if first < 1:
            raise ValueError(f"{text!r}: lines count from 1")
        if last < first:
            raise ValueError(f"{text!r} ends before it starts")
        return cls(file=match.group(1).strip(), first=first, last=last)

    def cited_by(self, file: str, line: int) -> bool:
        """Whether a citation of ``file:line`` points into these lines (files by name)."""
        return Path(file).name == Path(self.file).name and self.first <= line <= self.last

    def __str__(self) -> str:
        lines = str(self.first) if self.first == self.last else f"{self.first}-{self.last}"
        return f"{self.file}:{lines}"


def _sources(value: Any) -> Any:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        return [SourceLines.parse(item) if isinstance(item, str) else item for item in value]
    return value


Sources = Annotated[list[SourceLines], BeforeValidator(_sources)]
"""Sources as a person writes them: one ``FILE:LINES`` or a list of them."""


class Fact(_Strict):
    """A fact the answer must assert: any of its spellings (case and spacing ignored), or a
    regular expression; cited, when ``cite`` (or the case's ``sources``) names files."""

    any: list[str] = Field(default_factory=list)
    regex: str | None = None
    cite: Sources = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"any": [value]}
        if isinstance(value, list):
            return {"any": value}
        return value

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(
                    f"regular expression {value!r} does not compile: {error}"
                ) from None
        return value

    @model_validator(mode="after")
    def _says_something(self) -> Fact:
        if not self.regex and not [s for s in self.any if s.strip()]:
            raise ValueError("a fact needs a phrase, a list of spellings or a regex")
        return self

    def describe(self) -> str:
        """The fact as a reader knows it: its first spelling, or its regex."""
        return repr(self.any[0]) if self.any else f"/{self.regex}/"

    def found_in(self, text: str) -> bool:
        """Whether ``text`` states the fact (spellings: case and spacing ignored)."""
        if self.regex is not None and re.search(self.regex, text, re.IGNORECASE):
            return True
        flat = " ".join(text.lower().split())
        return any(" ".join(s.lower().split()) in flat for s in self.any if s.strip())


class ScriptedDecision(_Strict):
    """What the eval answers to a review pause, in order: ``approve``, ``reject`` (with a
    reason), ``edit_answer`` (with the answer), ``respond`` (with the text), ``edit_plan``
    (with the plan), ``reject_tasks`` (with task ids). ``at`` limits it to pauses of one kind
    (plan, tasks, answer, node, policy, question)."""

    kind: Literal[
        "approve", "edit_plan", "edit_tasks", "reject_tasks", "edit_answer", "reject", "respond"
    ]
    at: Literal["plan", "tasks", "answer", "node", "policy", "question"] | None = None
    reason: str = ""
    plan: dict[str, Any] | None = None
    tasks: list[dict[str, Any]] | None = None
    task_ids: list[str] = Field(default_factory=list)
    answer: str | None = None
    response: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _carries_what_it_needs(self) -> ScriptedDecision:
        """Checked as the review API checks a decision (an edited plan whole), so a bad one is
        refused with the dataset's line, not when the case pauses."""
        from framework.review.records import Decision  # noqa: PLC0415 - the review records

        Decision.model_validate(self.decision("check"))
        return self

    def decision(self, request_id: str) -> dict[str, Any]:
        """The decision for the pending request ``request_id`` (checked by the review API)."""
        fields = self.model_dump(exclude={"at"}, exclude_none=True, exclude_defaults=True)
        return {"request_id": request_id, "reviewer": "cadre-eval", "kind": self.kind, **fields}


class Limits(_Strict):
    """What a case may use: tokens (input and output), cost, seconds, model calls."""

    tokens: int | None = Field(default=None, ge=0)
    cost: float | None = Field(default=None, ge=0)
    seconds: float | None = Field(default=None, gt=0)
    model_calls: int | None = Field(default=None, ge=0)


def _range(text: str) -> tuple[int, int | None]:
    """``N`` -> (N, N); ``N..M``, ``N..``, ``..M`` -> bounds (None: no upper bound)."""
    match = _COUNT.match(str(text))
    if match is None or not text.strip() or text.strip() == "..":
        raise ValueError(f"{text!r} is not a count: write N, N..M, N.. or ..M")
    low, high = match.group(1), match.group(2)
    if ".." not in text:
        return int(low), int(low)
    bounds = int(low or 0), int(high) if high else None
    if bounds[1] is not None and bounds[1] < bounds[0]:
        raise ValueError(f"{text!r} ends below where it starts: write N..M with N <= M")
    return bounds


class Trajectory(_Strict):
    """What must (and must not) run, as ``type:name`` steps (``kind:search``, ``tool:add``,
    ``team:legal``, ``model:gpt-4o``): ``includes`` each ran, ``excludes`` none ran, ``order``
    they first ran in this order, ``counts`` how often (``2``, ``1..3``, ``2..``)."""

    includes: list[str] = Field(default_factory=list)
    excludes: list[str] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list)
    counts: dict[str, str] = Field(default_factory=dict)

    @field_validator("includes", "excludes", "order")
    @classmethod
    def _steps(cls, value: list[str]) -> list[str]:
        for step in value:
            _check_step(step)
        return value

    @field_validator("counts", mode="before")
    @classmethod
    def _counts(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        for step, count in value.items():
            _check_step(step)
            _range(str(count))
        return {step: str(count) for step, count in value.items()}

    def bounds(self, step: str) -> tuple[int, int | None]:
        """The count ``step`` must fall in."""
        return _range(self.counts[step])


def _check_step(step: str) -> None:
    if not _STEP.match(step):
        raise ValueError(
            f"{step!r} is not a step: write kind:NAME, team:NAME, tool:NAME or model:NAME"
        )


_PLACES = ("task", "kind", "team", "phase", "where")


class Branch(_Strict):
    """A part of the tree graded on its own: a task of the top team (``task``), every task of a
    kind at any depth (``kind``), a nested team (``team``), a coordinator's phase (``phase``:
    its findings, one line each; ``risk`` and ``compliance`` name the assessors), or any place
    whose words contain ``where`` (as reviews write places: ``team top > kind legal (task
    q0)``)."""

    task: str | None = None
    phase: str | None = None
    kind: str | None = None
    team: str | None = None
    where: str | None = None
    facts: list[Fact] = Field(default_factory=list)
    sources: Sources = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names_one_place(self) -> Branch:
        named = [n for n in _PLACES if getattr(self, n)]
        if len(named) != 1:
            raise ValueError("a branch names one place: task, kind, team, phase or where")
        return self

    @property
    def label(self) -> str:
        """``kind:legal``, ``task:q0``, ``team:legal``, ``phase:compliance`` or ``where:...``."""
        name = next(n for n in _PLACES if getattr(self, n))
        return f"{name}:{getattr(self, name)}"


class Judge(_Strict):
    """A model that grades the answer against a rubric (the ``judge`` verdict): the call goes
    through the model gateway, so it is timed, retried, recorded and replayed like any other."""

    rubric: str = Field(min_length=1)
    model: str | None = None
    """A model spec (default: the command's ``--judge-model``)."""


class Case(_Strict):
    """One question of a dataset and how its answer is graded.

    Paths (``corpus``, a ``team`` file) are relative to the dataset's folder. ``sources`` are
    where every fact without its own
    ``cite`` may be cited from; ``forbidden`` (or ``wrong``) values must not be stated;
    ``answerable: false`` expects the team to say it found nothing.
    """

    id: str = Field(pattern=CASE_ID)
    question: str = Field(min_length=1, validation_alias=AliasChoices("question", "input"))
    corpus: str | None = None
    team: str | None = None
    model: str | None = None
    facts: list[Fact] = Field(default_factory=list)
    sources: Sources = Field(default_factory=list)
    forbidden: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("forbidden", "wrong")
    )
    answerable: bool = True
    review: list[str] = Field(default_factory=list)
    reviews: list[ScriptedDecision] = Field(default_factory=list)
    limits: Limits = Field(default_factory=Limits)
    trajectory: Trajectory | None = None
    branches: list[Branch] = Field(default_factory=list)
    judge: Judge | None = None
    tags: list[str] = Field(default_factory=list)

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        """``id: 7`` is the case ``7``."""
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("tags")
    @classmethod
    def _tags_once(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    @field_validator("review")
    @classmethod
    def _points(cls, value: list[str]) -> list[str]:
        unknown = [point for point in value if point not in ("plan", "tasks", "answer")]
        if unknown:
            raise ValueError(f"unknown review point {unknown[0]!r}: choose plan, tasks, answer")
        return value

    def cites_for(self, fact: Fact) -> list[SourceLines]:
        """Where ``fact`` may be cited from: its own ``cite``, else the case's ``sources``."""
        return fact.cite or self.sources
