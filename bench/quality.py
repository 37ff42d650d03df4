"""Answer quality of the offline teams: research on text cadre did not write, conflicts, extraction.

Research: the corpus is 16 pages of HTTPX's documentation (``bench/quality/corpus``,
BSD-3-Clause, see ``bench/quality/SOURCE.md``); the cases are in
``bench/quality/research.yaml``: a question, its key facts (each with its accepted spellings)
and the ``file:lines`` that state them.

The research sets are datasets of ``cadre eval`` (``cadre eval bench/quality/research.yaml``
runs one): each question runs through the offline research team (no model, no network), each a
thread of one data home with research memory of its own. Scoring is strict, by ``cadre eval``'s
``cited`` and ``forbidden`` graders:

- a key fact counts only inside one of the answer's own statements: a bullet of its findings,
  not a heading, not the review or sources sections, not a line saying "unresolved";
- the statement that holds it must cite one of the case's sources: the right file, and a line
  inside the stated range;
- a case passes when every key fact is found that way and no wrong value is stated.

Conflicts: tiny hand-made corpora (``bench/quality/conflicts.yaml``, and
``conflicts-probe.yaml`` written after the value readers) run through the offline hypothesis
team; see ``bench/_conflict_cases.py`` for what makes a report right.

Extraction: tiny hand-made documents (``bench/quality/extraction.yaml``, and
``extraction-probe.yaml`` written before the team was run on them) through ``cadre extract``
then ``cadre ask``; see ``bench/_extraction_cases.py`` for the scoring.

Prints one line per case and a summary line per capability; ``--json PATH`` writes every
answer. Every summary counts the wrong values confirmed: answers whose own statements (the
findings, for conflicts) state a value the case lists as ``wrong`` (for a conflict left open,
either disputed value); it must be 0 on every set.

Research also runs on three more sets written before the team was run on them:
``research-starlette`` (Starlette's docs), ``research-click`` (Click's docs) and
``research-uvicorn`` (Uvicorn's docs), and on ``research-requests`` (Requests' docs). For each
project in ``_BLIND`` (Black, attrs, Flask, Django REST framework, marshmallow, Jinja, Typer,
MkDocs, pytest, Poetry, Pydantic, tox, mypy, structlog, coverage.py, Celery, Scrapy, Hatch,
Sphinx, Textual, Alembic, aiohttp, Gunicorn, Hypothesis, Falcon, Ruff, Trio, SQLModel,
urllib3, websockets, Nox, APScheduler, Loguru, RQ, Huey, Werkzeug, Flake8, Tornado, Datasette,
PDM, pipx, Invoke, AnyIO, Peewee, Quart, isort, virtualenv, cattrs, Dramatiq, cibuildwheel,
pip, msgspec, Hypercorn, Rich, Arrow, Twine, pluggy, jsonschema, Waitress, factory_boy,
schedule, Python-Markdown), someone who had not read the teams' code wrote three sets over its
documentation: ``research-<project>``, ``conflicts-<project>`` and ``extraction-<project>`` (the
corpora and licences are in ``bench/quality/SOURCE.md``).

``research-probe`` asks questions of four kinds over those corpora: a version the question
names, two facts from two pages, why, and a pronoun or "this X" sentence.

Run: ``python bench/quality.py [--capability research,research-hatch,conflicts-hatch,...]
[--only r01,c02] [--json PATH]``; every set runs when ``--capability`` is not given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from framework.database.home import DataHome
from framework.evals.dataset import read_dataset
from framework.evals.graders import stated_value
from framework.evals.results import CaseResult
from framework.evals.runner import EvalOptions, run_eval
from framework.evals.store import EvalStore
from framework.persistence.home_keys import home_cipher

try:
    from bench._conflict_cases import run_conflict_cases
    from bench._extraction_cases import answer_sentences, run_extraction_cases
except ImportError:  # run as a script: bench/ is on the path
    from _conflict_cases import run_conflict_cases  # type: ignore[no-redef]
    from _extraction_cases import answer_sentences, run_extraction_cases  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent / "quality"
Capability = tuple[str, list[dict[str, Any]]]
"""What a capability's run gives: its summary line, and every case's outcome."""
BENCH_GRADERS = ("cited", "forbidden")
"""The verdicts the research sets are scored on: every key fact cited, no wrong value."""


def wrong_stated(case: dict[str, Any], said: Sequence[str]) -> bool:
    """Whether a statement states one of the case's ``wrong`` values (none listed: False)."""
    return stated_value(case.get("wrong", []), said) is not None


@dataclass
class Outcome:
    """One research case: whether every key fact was cited right, and the answer."""

    id: str
    question: str
    passed: bool
    found: list[bool] = field(default_factory=list)
    answer: str = ""
    wrong_confirmed: bool = False


def bench_outcome(case: CaseResult) -> Outcome:
    """A case of ``cadre eval`` scored as this benchmark scores it (its cited and forbidden
    verdicts; the other graders are reported by ``cadre eval`` itself)."""
    verdicts = {v.grader: v for v in case.verdicts if not v.branch}
    cited, forbidden = verdicts.get("cited"), verdicts.get("forbidden")
    wrong = forbidden is not None and not forbidden.passed
    found = [cited is not None and cited.passed]
    return Outcome(case.case_id, case.question, all(found) and not wrong, found, case.answer, wrong)


def run_dataset(path: Path, wanted: set[str]) -> list[Outcome]:
    """Run a research dataset with ``cadre eval``'s runner in a new data home."""
    dataset = read_dataset(path)
    if wanted:
        dataset = replace(dataset, cases=tuple(c for c in dataset.cases if c.id in wanted))
    with tempfile.TemporaryDirectory(prefix="cadre-quality-") as folder:
        home = DataHome(root=Path(folder)).create()
        store = EvalStore(home, home_cipher(home))
        run = asyncio.run(run_eval(dataset, home, store, EvalOptions(trace=False)))
    return [bench_outcome(case) for case in run.cases]


def _tally(outcomes: Sequence[Any], line: Callable[[Any], str]) -> str:
    """Print a line per outcome; return how many passed as "N/M (P%)"."""
    for outcome in outcomes:
        print(line(outcome))
    passed = sum(outcome.passed for outcome in outcomes)
    share = passed / len(outcomes) if outcomes else 0.0
    return f"{passed}/{len(outcomes)} ({share:.0%})"


def _with_facts(outcome: Any) -> str:
    facts = "".join("+" if found else "-" for found in outcome.found)
    return f"{outcome.id}  {_verdict(outcome)}  {facts:4}  {outcome.question}"


def _verdict(outcome: Any) -> str:
    return "PASS" if outcome.passed else "MISS"


def _cases(cases_file: str, wanted: set[str]) -> list[dict[str, Any]]:
    cases = yaml.safe_load((HERE / cases_file).read_text(encoding="utf-8"))
    return [case for case in cases if not wanted or case["id"] in wanted]


def _research(name: str, cases_file: str, wanted: set[str]) -> Capability:
    """Run the research dataset ``cases_file``; print a line per case; return the summary
    line and the answers."""
    outcomes = run_dataset(HERE / cases_file, wanted)
    count = _tally(outcomes, _with_facts)
    wrong = sum(outcome.wrong_confirmed for outcome in outcomes)
    summary = f"{name}: {count} questions with every key fact cited; {wrong} wrong values confirmed"
    return summary, [asdict(o) for o in outcomes]


def _conflicts(name: str, cases_file: str, wanted: set[str]) -> Capability:
    """Run conflict cases; print a line per case; return the summary line and reports."""
    outcomes = run_conflict_cases(_cases(cases_file, wanted))
    count = _tally(outcomes, lambda o: f"{o.id}  {_verdict(o)}  {o.question}  ({o.why})")
    wrong = sum(outcome.wrong_confirmed for outcome in outcomes)
    flagged = sum(outcome.control_flagged for outcome in outcomes)
    summary = (
        f"{name}: {count} cases right; {wrong} wrong values confirmed; {flagged} controls flagged"
    )
    return summary, [asdict(o) for o in outcomes]


def _extraction(name: str, cases_file: str, wanted: set[str]) -> Capability:
    """Run extraction cases; print a line per case; return the summary line and answers."""
    cases = _cases(cases_file, wanted)
    outcomes = run_extraction_cases(cases)
    count = _tally(outcomes, _with_facts)
    wrong = sum(
        wrong_stated(case, answer_sentences(outcome.answer))
        for case, outcome in zip(cases, outcomes, strict=True)
    )
    summary = f"{name}: {count} questions answered right; {wrong} wrong values confirmed"
    return summary, [asdict(o) for o in outcomes]


_BLIND = (
    "black", "attrs", "flask", "drf", "marshmallow", "jinja", "typer", "mkdocs", "pytest",
    "poetry", "pydantic", "tox", "mypy", "structlog", "coverage", "celery", "scrapy", "hatch",
    "sphinx", "textual", "alembic", "aiohttp", "gunicorn", "hypothesis", "falcon", "ruff",
    "trio", "sqlmodel", "urllib3", "websockets", "nox", "apscheduler", "loguru", "rq", "huey",
    "werkzeug", "flake8", "tornado", "datasette", "pdm", "pipx", "invoke", "anyio",
    "peewee", "quart", "isort", "virtualenv", "cattrs", "dramatiq", "cibuildwheel", "pip",
    "msgspec", "hypercorn", "rich", "arrow", "twine", "pluggy", "jsonschema", "waitress",
    "factoryboy", "schedule", "markdown",
)  # fmt: skip
"""The projects with one set of each kind, written blind over their documentation."""
_RESEARCH = ("starlette", "click", "uvicorn", "probe", *_BLIND[:4], "requests", *_BLIND[4:])
"""The research sets beside ``research``: the probe, and one per project."""


def _sets(
    kind: str, run: Callable[[str, str, set[str]], Capability], projects: Sequence[str]
) -> dict[str, Callable[[set[str]], Capability]]:
    """Each project's set of ``kind``, named and filed ``<kind>-<project>``."""
    return {f"{kind}-{p}": partial(run, f"{kind}-{p}", f"{kind}-{p}.yaml") for p in projects}


CAPABILITIES: dict[str, Callable[[set[str]], Capability]] = {
    "research": partial(_research, "research", "research.yaml"),
    **_sets("research", _research, _RESEARCH),
    "conflicts": partial(_conflicts, "conflicts", "conflicts.yaml"),
    **_sets("conflicts", _conflicts, ("probe", *_BLIND)),
    "extraction": partial(_extraction, "extraction/ask", "extraction.yaml"),
    **_sets("extraction", _extraction, ("probe", *_BLIND)),
}
"""Each capability: its summary name and cases file (see the module's docstring)."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--capability", default=",".join(CAPABILITIES), help="which, comma-separated"
    )
    parser.add_argument("--only", default="", help="case ids, comma-separated")
    parser.add_argument("--json", type=Path, help="write every answer here")
    args = parser.parse_args(argv)
    wanted = {part for part in args.only.split(",") if part}
    chosen = [part for part in args.capability.split(",") if part]
    unknown = [part for part in chosen if part not in CAPABILITIES]
    if unknown:
        parser.error(f"unknown capability {unknown[0]!r}; choose from {', '.join(CAPABILITIES)}")
    summaries, answers = [], {}
    for name in chosen:
        summary, answers[name] = CAPABILITIES[name](wanted)
        summaries.append(summary)
    print("\n".join(summaries))
    if args.json:
        args.json.write_text(json.dumps(answers, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
