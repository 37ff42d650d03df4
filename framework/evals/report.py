"""Reporting an eval run: a terminal table, JUnit XML, a comparison of two runs, the gates.

A comparison lists regressions first (a case that passed in the baseline and does not now),
each with the diff of its answer and of its trajectory, then fixed cases, then the rest.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from xml.etree import ElementTree

from framework.evals.results import CaseResult, EvalRun, tag_scores

__all__ = [
    "Change",
    "Gates",
    "compare",
    "failed_gates",
    "junit_xml",
    "summary_line",
    "table_lines",
]


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd]")
"""Characters XML 1.0 cannot hold (a form feed of a corpus, an escape a model wrote)."""


def _printable(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold, nor a terminal should be sent."""
    return _NOT_XML.sub("", text)


def summary_line(run: EvalRun) -> str:
    """``eval RUN: 7/9 cases passed (78%), 0 forbidden values stated; 12 model calls, ...``."""
    usage = run.usage
    forbidden = sum(case.forbidden_stated for case in run.cases)
    errors = sum(case.status == "error" for case in run.cases)
    cost = f", cost {usage.cost:.4f}" if usage.cost else ""
    return (
        f"eval {run.run_id}: {run.passed}/{len(run.cases)} cases passed ({run.score:.0%}), "
        f"{errors} error(s), {forbidden} forbidden value(s) stated; {usage.model_calls} model "
        f"call(s), {usage.input_tokens + usage.output_tokens} tokens{cost}, "
        f"{usage.seconds:.1f} s of case time"
    )


def _first_problem(case: CaseResult) -> str:
    if case.status == "error":
        return case.error or "error"
    failed = [v for v in case.verdicts if not v.passed]
    if not failed:
        return ""
    first = failed[0]
    branch = f"[{first.branch}] " if first.branch else ""
    return f"{branch}{first.grader}: {first.reason}"


def table_lines(run: EvalRun) -> list[str]:
    """One line per case (verdict, score, seconds, tokens, id, first problem), then the score
    of every tag."""
    lines = [f"{'case':<14} {'result':<6} {'score':>5} {'secs':>6} {'tokens':>7}  first problem"]
    for case in run.cases:
        word = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}[case.status]
        tokens = case.usage.input_tokens + case.usage.output_tokens
        lines.append(
            f"{case.case_id:<14} {word:<6} {case.score:>5.2f} {case.usage.seconds:>6.1f} "
            f"{tokens:>7}  {_printable(_first_problem(case))[:300]}"
        )
    tags = tag_scores(run.cases)
    if len(tags) > 1 or "untagged" not in tags:
        scores = ", ".join(f"{tag} {passed}/{total}" for tag, (passed, total) in tags.items())
        lines.append(f"by tag: {scores}")
    return lines


def junit_xml(run: EvalRun) -> str:
    """The run as JUnit XML (one test suite, a test case per case; failed verdicts are
    failures, a case that did not run is an error)."""
    suite = ElementTree.Element(
        "testsuite",
        name=f"cadre eval {run.dataset}",
        tests=str(len(run.cases)),
        failures=str(sum(c.status == "failed" for c in run.cases)),
        errors=str(sum(c.status == "error" for c in run.cases)),
        time=f"{run.usage.seconds:.3f}",
        timestamp=run.started_at,
    )
    for case in run.cases:
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"eval.{run.run_id}",
            name=case.case_id,
            time=f"{case.usage.seconds:.3f}",
        )
        if case.status == "error":
            error = _printable(case.error or "")
            ElementTree.SubElement(element, "error", message=error).text = error
        elif case.status == "failed":
            failed = [v for v in case.verdicts if not v.passed]
            text = "\n".join(f"{v.branch or 'answer'} {v.grader}: {v.reason}" for v in failed)
            problem = _printable(_first_problem(case))
            ElementTree.SubElement(element, "failure", message=problem).text = _printable(text)
        out = ElementTree.SubElement(element, "system-out")
        out.text = _printable(f"thread {case.thread_id}\n{case.answer}")
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


@dataclass(frozen=True, kw_only=True)
class Change:
    """One case of two runs: how its outcome changed, and the diffs that show why."""

    case_id: str
    change: str
    """``regressed``, ``fixed``, ``still failing``, ``still passing``, ``new``, ``gone``."""
    before: CaseResult | None
    after: CaseResult | None

    def answer_diff(self) -> list[str]:
        """The unified diff of the answer, baseline to now."""
        return _diff(
            self.before.answer if self.before else "", self.after.answer if self.after else ""
        )

    def trajectory_diff(self) -> list[str]:
        """The unified diff of the steps that ran, baseline to now."""
        return _diff(_steps(self.before), _steps(self.after))


def _steps(case: CaseResult | None) -> str:
    if case is None:
        return ""
    return "\n".join(
        f"{step.label}" + (f" @ {step.place}" if step.place else "") for step in case.trajectory
    )


def _diff(before: str, after: str) -> list[str]:
    return list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), "baseline", "now", lineterm="", n=1
        )
    )


_ORDER = ("regressed", "gone", "fixed", "new", "still failing", "still passing")


def compare(baseline: EvalRun, now: EvalRun) -> list[Change]:
    """Every case of either run, regressions first."""
    ids = list(dict.fromkeys([c.case_id for c in now.cases] + [c.case_id for c in baseline.cases]))
    changes = []
    for case_id in ids:
        before, after = baseline.case(case_id), now.case(case_id)
        changes.append(
            Change(case_id=case_id, change=_change(before, after), before=before, after=after)
        )
    return sorted(changes, key=lambda change: _ORDER.index(change.change))


def _change(before: CaseResult | None, after: CaseResult | None) -> str:
    if after is None:
        return "gone"
    if before is None:
        return "new"
    was, now = before.status == "passed", after.status == "passed"
    if was and not now:
        return "regressed"
    if now and not was:
        return "fixed"
    return "still passing" if now else "still failing"


@dataclass(frozen=True, kw_only=True)
class Gates:
    """What an eval must meet for its command to succeed (None: not checked)."""

    min_score: float | None = None
    max_forbidden: int | None = None
    baseline: EvalRun | None = None


def failed_gates(run: EvalRun, gates: Gates) -> list[str]:
    """Each gate the run fails, in words (empty: it passes them all)."""
    failed = []
    if gates.min_score is not None and run.score < gates.min_score:
        failed.append(f"score {run.score:.2f} is below --min-score {gates.min_score:.2f}")
    forbidden = sum(case.forbidden_stated for case in run.cases)
    if gates.max_forbidden is not None and forbidden > gates.max_forbidden:
        failed.append(
            f"{forbidden} case(s) stated a forbidden value (--max-forbidden {gates.max_forbidden})"
        )
    if gates.baseline is not None:
        regressed: Sequence[str] = [
            c.case_id for c in compare(gates.baseline, run) if c.change == "regressed"
        ]
        if regressed:
            failed.append(
                f"{len(regressed)} regression(s) against {gates.baseline.run_id}: "
                f"{', '.join(regressed[:8])}"
            )
    return failed
