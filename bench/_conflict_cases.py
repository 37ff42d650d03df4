"""The conflict cases of ``bench/quality.py``: tiny corpora run through the hypothesis team.

Each case (``bench/quality/conflicts.yaml``) is written to its own corpus folder and run
offline. A report is right when:

- ``confirmed``: a finding states the value citing a right file and line, and no finding states
  a wrong value or cites a refuting file;
- ``open``: a conflict stays open and no finding states either value;
- ``agreement`` (a control): no conflict is reported and a finding states the value.

"Wrong confirmed" counts reports whose findings state a value the gold says is wrong: one of
``wrong``, or, in an ``open`` case, either disputed value; "controls flagged" counts controls
that report a conflict.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from framework.database.home import DataHome
from framework.evals.answers import section_lines
from framework.runs.launch import LaunchRequest, launch
from framework.runs.runner import new_thread_id, run_team
from framework.runs.spec import RunSpec

try:
    from bench._answers import case_folder
except ImportError:  # run as a script: bench/ is on the path
    from _answers import case_folder  # type: ignore[no-redef]

__all__ = ["ConflictOutcome", "findings", "run_conflict_cases", "score_conflict"]


@dataclass
class ConflictOutcome:
    """One conflict case: right or not, why, and the report."""

    id: str
    question: str
    passed: bool
    why: str
    wrong_confirmed: bool
    control_flagged: bool
    answer: str = ""


def findings(report: str) -> list[str]:
    """The bullets of the report's "Findings" section: what it states as confirmed."""
    return [
        " ".join(line.lower().split())
        for section, line in section_lines(report)
        if section == "findings" and line.startswith("- ")
    ]


def _states(said: Sequence[str], spellings: Sequence[str]) -> list[str]:
    return [line for line in said if any(s.lower() in line for s in spellings)]


def _cites(line: str, files: Sequence[str]) -> bool:
    return any(f"{file.lower()}`" in line or f"{file.lower()}:" in line for file in files)


def score_conflict(case: dict[str, Any], report: str) -> ConflictOutcome:
    """Score one report against its case."""
    said = findings(report)
    value, wrong = case.get("value", []), case.get("wrong", [])
    flagged = "open conflict" in report.lower() or "\n## Conflicts" in report
    expect = case["expect"]
    disputed = [*wrong, *value] if expect == "open" else wrong
    wrong_confirmed = bool(_states(said, disputed))
    if expect == "confirmed":
        stating = _states(said, value)
        cited = [line for line in stating if _cites(line, case["cite"])]
        refuting = [line for line in said if _cites(line, case.get("refuting", []))]
        checks = [
            (bool(stating), "no finding states the value"),
            (bool(cited), "the value is not cited to a right file:line"),
            (not wrong_confirmed, "a wrong value is stated as confirmed"),
            (not refuting, "a refuting file is cited as support"),
        ]
    elif expect == "open":
        checks = [
            ("open conflict" in report.lower(), "no conflict is left open"),
            (not wrong_confirmed, "a disputed value is stated as confirmed"),
        ]
    else:
        checks = [
            (not flagged, "a conflict is reported between agreeing sources"),
            (bool(_states(said, value)), "no finding states the value"),
        ]
    failed = [why for ok, why in checks if not ok]
    return ConflictOutcome(
        id=case["id"],
        question=case["question"],
        passed=not failed,
        why="; ".join(failed) or "right",
        wrong_confirmed=wrong_confirmed,
        control_flagged=expect == "agreement" and flagged,
        answer=report,
    )


def run_conflict_cases(cases: Sequence[dict[str, Any]]) -> list[ConflictOutcome]:
    """Run every case on its own corpus through the offline hypothesis team."""
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="cadre-conflicts-") as folder:
        for case in cases:
            corpus = case_folder(Path(folder), case)
            home = DataHome(root=Path(folder) / f"{case['id']}-home")
            request = LaunchRequest(spec=RunSpec(team="hypothesis", corpus=str(corpus)), home=home)
            with launch(request) as launched:
                result = run_team(launched.app, {"question": case["question"]}, new_thread_id())
            report = str(result.state.get("final_answer") or "")
            outcomes.append(score_conflict(case, report))
    return outcomes
