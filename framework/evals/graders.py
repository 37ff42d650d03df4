"""Deterministic graders: each gives a verdict on a case's outcome with the reason.

- ``answered``: a statement of the answer cites a source (for ``answerable: false``: the answer
  asserts nothing and says it found nothing);
- ``facts``: every expected fact is asserted in one of the answer's statements;
- ``cited``: ... and the statement cites one of the files (and lines) named for the fact;
- ``forbidden``: no statement states a forbidden value;
- ``citations``: every citation points at a file of the corpus and a line it has;
- ``tasks``: no task failed or was refused;
- ``limits``: tokens, cost, time and model calls within the case's limits;
- ``trajectory``: the steps that ran match the case's ``trajectory``;
- a branch's ``facts``, ``cited`` and ``forbidden``, on its own text.

A grader that has nothing to check (no facts, no limits) gives no verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from framework.engine.records import WorkerResult
from framework.evals.answers import citations, corpus_file, statements, words_of
from framework.evals.cases import Case, Fact, Limits, SourceLines, Trajectory
from framework.evals.results import Step, Usage, Verdict

__all__ = ["Outcome", "grade", "stated_value"]


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What a case's run gave, as the graders read it.

    Attributes:
        answer: The final answer.
        results: The top team's task results.
        steps: What ran, in order.
        usage: What it used.
        corpus: The corpus folder (None: citations are not checked).
        branches: Branch label -> its texts (one per place it matched).
    """

    answer: str
    results: Mapping[str, WorkerResult] = field(default_factory=dict)
    steps: Sequence[Step] = ()
    usage: Usage = field(default_factory=Usage)
    corpus: Path | None = None
    branches: Mapping[str, Sequence[str]] = field(default_factory=dict)


def grade(case: Case, outcome: Outcome) -> list[Verdict]:
    """Every verdict the case asks for, top-level ones first, then each branch's."""
    said = statements(outcome.answer)
    verdicts = [_answered(case, outcome.answer, said)]
    verdicts += _facts(case.facts, case.sources, said)
    verdicts += _forbidden(case.forbidden, said)
    verdicts += _citations(outcome.answer, outcome.corpus)
    verdicts += _tasks(outcome.results)
    verdicts += _limits(case.limits, outcome.usage)
    if case.trajectory is not None:
        verdicts.append(_trajectory(case.trajectory, outcome.steps))
    for branch in case.branches:
        texts = outcome.branches.get(branch.label, ())
        if not texts:
            verdicts.append(
                Verdict(
                    grader="branch",
                    passed=False,
                    branch=branch.label,
                    reason="no part of the tree ran there",
                )
            )
            continue
        lines = [line for text in texts for line in _branch_lines(text)]
        found = _facts(branch.facts, branch.sources, lines) + _forbidden(branch.forbidden, lines)
        verdicts += [v.model_copy(update={"branch": branch.label}) for v in found]
    return verdicts


def _branch_lines(text: str) -> list[str]:
    """A branch's statements: its bullets, or its lines when it has none (a task's output)."""
    return statements(text) or [line.strip() for line in text.splitlines() if line.strip()]


_NOTHING = re.compile(
    r"\b(no (evidence|answer|source|passage|information)|nothing (was )?found|found nothing|"
    r"(could|did) not find|not found|does not say|do not say|no finding)",
    re.IGNORECASE,
)
"""How an answer says it found nothing for the question."""


def _answered(case: Case, answer: str, said: Sequence[str]) -> Verdict:
    asserted = [line for line in said if citations(line)]
    if case.answerable:
        reason = (
            f"{len(asserted)} cited statement(s)" if asserted else "no statement cites a source"
        )
        return Verdict(grader="answered", passed=bool(asserted), reason=reason)
    if said:
        return Verdict(
            grader="answered",
            passed=False,
            reason=f"asserted {len(said)} statement(s) though the corpus does not answer it: "
            f"{said[0][:120]}",
        )
    if not _NOTHING.search(answer):
        return Verdict(
            grader="answered", passed=False, reason="the answer does not say it found nothing"
        )
    return Verdict(grader="answered", passed=True, reason="says it found nothing, as expected")


def _cited_right(statement: str, sources: Sequence[SourceLines]) -> bool:
    return any(s.cited_by(file, line) for file, line in citations(statement) for s in sources)


def _facts(
    facts: Sequence[Fact], sources: Sequence[SourceLines], said: Sequence[str]
) -> list[Verdict]:
    if not facts:
        return []
    missing, uncited, cited_checked = [], [], False
    for fact in facts:
        holding = [line for line in said if fact.found_in(words_of(line))]
        if not holding:
            missing.append(fact.describe())
            continue
        wanted = fact.cite or sources
        if wanted:
            cited_checked = True
            if not any(_cited_right(line, wanted) for line in holding):
                cited = ", ".join(f"{f}:{n}" for f, n in citations(holding[0])) or "nothing"
                uncited.append(
                    f"{fact.describe()} cites {cited}, not {', '.join(map(str, wanted))}"
                )
    asserted = len(facts) - len(missing)
    verdicts = [
        Verdict(
            grader="facts",
            passed=not missing,
            reason=f"{asserted}/{len(facts)} facts asserted"
            + (f"; missing {', '.join(missing)}" if missing else ""),
        )
    ]
    if cited_checked or any(f.cite for f in facts) or sources:
        right = asserted - len(uncited)
        reason = f"{right}/{len(facts)} facts cited from a right source"
        if uncited:
            reason += f"; {'; '.join(uncited)}"
        verdicts.append(Verdict(grader="cited", passed=not missing and not uncited, reason=reason))
    return verdicts


def stated_value(values: Sequence[str], said: Sequence[str]) -> tuple[str, str] | None:
    """The first of ``values`` a line of ``said`` states (case and spacing ignored, citations
    left out), with the line; None when none does."""
    wanted = [" ".join(value.lower().split()) for value in values]
    for line in said:
        flat = " ".join(words_of(line).lower().split())
        stated = next((value for value in wanted if value in flat), None)
        if stated is not None:
            return stated, line
    return None


def _forbidden(values: Sequence[str], said: Sequence[str]) -> list[Verdict]:
    if not values:
        return []
    found = stated_value(values, said)
    if found is not None:
        value, line = found
        return [Verdict(grader="forbidden", passed=False, reason=f"states {value!r}: {line[:160]}")]
    return [Verdict(grader="forbidden", passed=True, reason=f"none of {len(values)} stated")]


def _citations(answer: str, corpus: Path | None) -> list[Verdict]:
    cited = citations(answer)
    if corpus is None or not cited:
        return []
    lengths: dict[str, int | None] = {}
    wrong = []
    for file, line in dict.fromkeys(cited):
        if file not in lengths:
            lengths[file] = _line_count(corpus, file)
        count = lengths[file]
        if count is None:
            wrong.append(f"{file}:{line} (no such file in the corpus)")
        elif not 1 <= line <= count:
            wrong.append(f"{file}:{line} (the file has {count} lines)")
    reason = (
        f"{len(set(cited))} citation(s), all of real lines"
        if not wrong
        else f"{len(wrong)} citation(s) point nowhere: {', '.join(wrong[:3])}"
    )
    return [Verdict(grader="citations", passed=not wrong, reason=reason)]


def _line_count(corpus: Path, cited: str) -> int | None:
    """The number of lines of the corpus file ``cited`` names, or None."""
    path = corpus_file(corpus, cited)
    if path is None:
        return None
    return len(path.read_text(encoding="utf-8", errors="replace").splitlines())


def _tasks(results: Mapping[str, WorkerResult]) -> list[Verdict]:
    if not results:
        return []
    bad = [r for r in results.values() if r.status == "failed"]
    if not bad:
        return [Verdict(grader="tasks", passed=True, reason=f"{len(results)} task(s) ok")]
    first = bad[0]
    what = "refused" if first.refused else "failed"
    return [
        Verdict(
            grader="tasks",
            passed=False,
            reason=f"{len(bad)}/{len(results)} task(s) failed or refused; {first.task_id} "
            f"{what}: {(first.error or '')[:160]}",
        )
    ]


def _limits(limits: Limits, usage: Usage) -> list[Verdict]:
    checks = [
        ("tokens", limits.tokens, usage.input_tokens + usage.output_tokens),
        ("cost", limits.cost, usage.cost),
        ("seconds", limits.seconds, usage.seconds),
        ("model calls", limits.model_calls, usage.model_calls),
    ]
    over = [
        f"{name} {used:g} > {limit:g}"
        for name, limit, used in checks
        if limit is not None and used > limit
    ]
    if all(limit is None for _, limit, _ in checks):
        return []
    within = ", ".join(
        f"{name} {used:g}/{limit:g}" for name, limit, used in checks if limit is not None
    )
    reason = f"over: {', '.join(over)}" if over else f"within: {within}"
    return [Verdict(grader="limits", passed=not over, reason=reason)]


def _trajectory(wanted: Trajectory, steps: Sequence[Step]) -> Verdict:
    labels = [step.label for step in steps]
    problems = [f"{step} never ran" for step in wanted.includes if step not in labels]
    problems += [f"{step} ran" for step in wanted.excludes if step in labels]
    firsts = [labels.index(step) for step in wanted.order if step in labels]
    if len(firsts) < len(wanted.order):
        missing = [step for step in wanted.order if step not in labels]
        problems.append(f"order: {', '.join(missing)} never ran")
    elif firsts != sorted(firsts):
        problems.append(f"order: ran {' -> '.join(sorted(wanted.order, key=labels.index))}")
    for step in wanted.counts:
        low, high = wanted.bounds(step)
        count = labels.count(step)
        if count < low or (high is not None and count > high):
            problems.append(f"{step} ran {count} time(s), not {wanted.counts[step]}")
    ran = ", ".join(f"{label} x{labels.count(label)}" for label in dict.fromkeys(labels))
    reason = "; ".join(problems) if problems else f"as expected ({ran or 'nothing ran'})"
    return Verdict(grader="trajectory", passed=not problems, reason=reason[:400])
