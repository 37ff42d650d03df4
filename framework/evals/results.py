"""What an eval run gives: a verdict per grader, a result per case, the run with its totals.

An :class:`EvalRun` is kept in the data home (sealed with the home's keys, see
:mod:`framework.evals.store`), so ``cadre eval compare`` and the HTML report read it back, and
each case's thread stays there for ``cadre show`` and ``cadre trace``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import Field

from framework.engine.records import Record

__all__ = [
    "BranchResult",
    "CaseResult",
    "CaseStatus",
    "EvalRun",
    "Step",
    "Usage",
    "Verdict",
    "tag_scores",
]

CaseStatus = Literal["passed", "failed", "error"]
"""``passed``: every verdict passed; ``failed``: one did not; ``error``: the case did not run
to an answer (a team failure, a replay mismatch), so nothing was graded."""


class Verdict(Record):
    """One grader's verdict on one case (or one branch of it), with its reason.

    Attributes:
        grader: The grader's name (``facts``, ``cited``, ``forbidden``, ``answered``,
            ``citations``, ``tasks``, ``limits``, ``trajectory``, ``judge``).
        passed: Whether the case met it.
        reason: Why, in one sentence a reviewer can act on.
        branch: The place of the tree graded (empty: the whole answer).
    """

    grader: str
    passed: bool
    reason: str
    branch: str = ""


class Step(Record):
    """One thing that ran in a case, in the order it started.

    Attributes:
        type: ``kind`` (a task of a worker kind: a remote agent's kind too), ``team`` (a
            nested team), ``tool`` (a tool call), ``model`` (a model call).
        name: The kind, team, tool or model.
        place: Where in the tree, as reviews write it (``team top > kind legal (task q0)``);
            empty at the top.
    """

    type: Literal["kind", "team", "tool", "model"]
    name: str
    place: str = ""

    @property
    def label(self) -> str:
        """``type:name``, as datasets name steps."""
        return f"{self.type}:{self.name}"


class Usage(Record):
    """What a case used: model calls, tokens, cost (from the run's usage records) and time."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0

    def plus(self, other: Usage) -> Usage:
        """The sum of two usages."""
        return Usage(
            model_calls=self.model_calls + other.model_calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost=self.cost + other.cost,
            seconds=self.seconds + other.seconds,
        )


class BranchResult(Record):
    """A part of the tree a case graded: its place, its text, and the nested parts under it."""

    place: str
    team: str
    text: str = ""
    children: list[BranchResult] = Field(default_factory=list)


class CaseResult(Record):
    """One case's outcome.

    Attributes:
        case_id: The case's id in the dataset.
        question: What the team was asked.
        tags: The case's tags.
        status: See :data:`CaseStatus`.
        verdicts: Every grader's verdict (none for an ``error``).
        answer: The team's final answer.
        thread_id: The case's thread in the data home.
        trajectory: What ran, in order.
        usage: What the case used.
        error: Why the case did not run to an answer (``error`` only).
        tree: The branches of the team's tree, in its shape (the top team first).
    """

    case_id: str
    question: str
    tags: list[str] = Field(default_factory=list)
    status: CaseStatus
    verdicts: list[Verdict] = Field(default_factory=list)
    answer: str = ""
    thread_id: str = ""
    trajectory: list[Step] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    tree: BranchResult | None = None

    @property
    def score(self) -> float:
        """The share of verdicts passed (0 for an error, 1 for a case with no grader)."""
        if self.status == "error":
            return 0.0
        if not self.verdicts:
            return 1.0
        return sum(verdict.passed for verdict in self.verdicts) / len(self.verdicts)

    @property
    def forbidden_stated(self) -> bool:
        """Whether the answer stated a value the case forbids."""
        return any(v.grader == "forbidden" and not v.passed for v in self.verdicts)


class EvalRun(Record):
    """One eval of a dataset: how it ran and every case's result, in the dataset's order.

    Attributes:
        run_id: The run's id (``cadre eval compare`` and ``--no-regressions-against`` name it).
        dataset: The dataset file, as given.
        dataset_digest: The sha256 of the dataset's text: two runs of the same data compare.
        mode: ``live``, ``record`` (model calls kept) or ``replay`` (answered from them).
        model: The model spec the cases ran with (None: each case's own, or offline).
        judge_model: The judge's model spec for cases whose rubric names none.
        started_at: ISO time the run started.
        finished_at: ISO time it finished (empty while cases are left: it resumes).
        cases: The results so far.
    """

    run_id: str
    dataset: str
    dataset_digest: str
    mode: Literal["live", "record", "replay"] = "live"
    model: str | None = None
    judge_model: str | None = None
    started_at: str
    finished_at: str = ""
    cases: list[CaseResult] = Field(default_factory=list)

    @property
    def passed(self) -> int:
        """How many cases passed."""
        return sum(case.status == "passed" for case in self.cases)

    @property
    def score(self) -> float:
        """The share of cases passed (0 with no case)."""
        return self.passed / len(self.cases) if self.cases else 0.0

    @property
    def usage(self) -> Usage:
        """The cases' usage summed."""
        total = Usage()
        for case in self.cases:
            total = total.plus(case.usage)
        return total

    def case(self, case_id: str) -> CaseResult | None:
        """The result of ``case_id`` (None: not run yet, or not in the dataset)."""
        return next((case for case in self.cases if case.case_id == case_id), None)


def tag_scores(cases: Iterable[CaseResult]) -> Mapping[str, tuple[int, int]]:
    """``tag -> (passed, cases)``, tags sorted; cases with no tag under ``untagged``."""
    counts: dict[str, tuple[int, int]] = {}
    for case in cases:
        for tag in case.tags or ["untagged"]:
            passed, total = counts.get(tag, (0, 0))
            counts[tag] = (passed + (case.status == "passed"), total + 1)
    return dict(sorted(counts.items()))
