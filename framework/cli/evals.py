"""``cadre eval``: measure a team on a dataset (``cadre eval DATASET``), check a dataset
against its corpora, list, report and compare eval runs.

``cadre eval DATASET`` is ``cadre eval run DATASET``. It exits 1 when a gate fails
(``--min-score``, ``--max-forbidden``, ``--no-regressions-against``) or a case did not run to
an answer (a team that failed, a replay whose request changed), 2 when the dataset or a
recording is refused (before any case runs), 130 when interrupted (every finished case kept:
the same command finishes the run).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from typer.core import TyperGroup

from framework.cli.common import EXIT_FAILED, DatabaseOption, HomeOption, one_line, use_database
from framework.database.home import resolve_home

if TYPE_CHECKING:
    from framework.evals.dataset import Dataset
    from framework.evals.results import CaseResult, EvalRun
    from framework.evals.store import EvalStore

__all__ = ["eval_app"]


class _RunByDefault(TyperGroup):
    """``cadre eval DATASET ...`` runs ``cadre eval run DATASET ...``."""

    def parse_args(self, ctx: Any, args: list[str]) -> Any:  # typer's own click types
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]  # options may come first: `cadre eval --home H DATASET`
        return super().parse_args(ctx, args)


eval_app = typer.Typer(
    cls=_RunByDefault,
    help="Measure a team on a dataset: `cadre eval DATASET`; check, runs, report, compare.",
    no_args_is_help=True,
)

DatasetArgument = Annotated[Path, typer.Argument(help="The dataset: a YAML or JSONL file.")]
TeamOption = Annotated[
    str | None, typer.Option(help="Team of the cases that name none (a name or a team file).")
]
CorpusOption = Annotated[
    Path | None, typer.Option(help="Corpus folder of the cases that name none.", readable=False)
]


def _read(dataset: Path, team: str | None, corpus: Path | None) -> Dataset:
    from framework.evals.dataset import read_dataset

    if team is not None and team.endswith((".yaml", ".yml")):
        team = str(Path(team).expanduser().resolve())  # given here: found from here
    defaults = {"team": team, "corpus": str(corpus.resolve()) if corpus else None}
    return read_dataset(dataset, defaults)


@contextmanager
def _store(home: Path | None, *, reading: bool = False) -> Iterator[EvalStore]:
    """The home's evals; ``reading``, a home that does not exist is not made (no run)."""
    from framework.errors import ConfigError
    from framework.evals.store import EvalStore
    from framework.persistence.home_keys import home_cipher

    data_home = resolve_home(home)
    if reading and not (data_home.root / "evals").is_dir():
        raise ConfigError(f"no eval runs in {data_home.root}: run `cadre eval DATASET` first")
    data_home = data_home.create()
    yield EvalStore(data_home, home_cipher(data_home))


@eval_app.command("run")
@one_line
def run_dataset(
    dataset: DatasetArgument,
    team: TeamOption = None,
    corpus: CorpusOption = None,
    model: Annotated[
        str | None, typer.Option(help="Chat model every case runs with (docs/models.md).")
    ] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Cases at once.")] = 1,
    judge_model: Annotated[
        str | None, typer.Option(help="Model of the judge of cases with a rubric (judge:).")
    ] = None,
    record: Annotated[
        bool, typer.Option("--record", help="Keep every model call of each case (encrypted).")
    ] = False,
    replay: Annotated[
        bool,
        typer.Option("--replay", help="Answer model calls from the recordings: no provider."),
    ] = False,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start a new run even if the last was interrupted.")
    ] = False,
    as_json: Annotated[Path | None, typer.Option("--json", help="Write the run as JSON.")] = None,
    junit: Annotated[Path | None, typer.Option(help="Write JUnit XML for CI.")] = None,
    html: Annotated[Path | None, typer.Option(help="Write the HTML report.")] = None,
    min_score: Annotated[
        float | None, typer.Option(min=0, max=1, help="Fail unless this share of cases passes.")
    ] = None,
    max_forbidden: Annotated[
        int | None, typer.Option(min=0, help="Fail when more cases state a forbidden value.")
    ] = None,
    no_regressions_against: Annotated[
        str | None, typer.Option(help="Fail when a case that passed in this run fails now.")
    ] = None,
    trace: Annotated[bool, typer.Option(help="Record each case's spans.")] = True,
    home: HomeOption = None,
    database: DatabaseOption = None,
) -> None:
    """Run every case of DATASET, grade it, keep the run; a table on stdout."""
    import asyncio

    from rich.console import Console

    from framework.cli.run import IngestPrinter
    from framework.errors import ConfigError
    from framework.evals.report import Gates, failed_gates, summary_line, table_lines
    from framework.evals.runner import EvalOptions, run_eval
    from framework.models.specs import anchored_spec

    use_database(database)
    if record and replay:
        raise ConfigError("--record and --replay exclude each other: give one")
    mode: Literal["live", "record", "replay"] = (
        "record" if record else "replay" if replay else "live"
    )
    data = _read(dataset, team, corpus)
    here = Path.cwd()
    options = EvalOptions(
        mode=mode,
        model=anchored_spec(model, here) if model else None,
        jobs=jobs,
        judge_model=anchored_spec(judge_model, here) if judge_model else None,
        trace=trace,
    )
    with _store(home) as store:
        baseline = store.load(no_regressions_against) if no_regressions_against else None
        progress = _Progress(len(data.cases))
        indexing = IngestPrinter(Console(stderr=True))
        try:
            result = asyncio.run(
                run_eval(
                    data, store.home, store, options, fresh=fresh,
                    on_start=progress.started, on_case=progress, on_ingest=indexing,
                )
            )  # fmt: skip
        except KeyboardInterrupt:
            typer.echo(
                f"{progress.done} of {len(data.cases)} cases kept in eval {progress.run_id}: "
                "run the same command again to finish it",
                err=True,
            )
            raise
    _write_reports(result, as_json, junit, html)
    typer.echo("\n".join(table_lines(result)))
    typer.echo(summary_line(result))
    gates = Gates(min_score=min_score, max_forbidden=max_forbidden, baseline=baseline)
    failed = failed_gates(result, gates)
    for gate in failed:
        typer.echo(f"gate failed: {gate}", err=True)
    errors = [case for case in result.cases if case.status == "error"]
    for case in errors:  # a case that did not run measures nothing: never a silent pass
        typer.echo(f"case {case.case_id} did not run: {case.error}", err=True)
    if failed or errors:
        raise typer.Exit(EXIT_FAILED)


class _Progress:
    """One line on stderr per finished case: a bar, the case, the running score and usage."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.run_id = ""

    def started(self, run: EvalRun) -> None:
        """The run is kept: say so when it goes on from an interrupted one."""
        self.done, self.run_id = len(run.cases), run.run_id
        if run.cases:
            typer.echo(
                f"continuing eval {run.run_id}: {len(run.cases)}/{self.total} cases done "
                "(--fresh starts anew)",
                err=True,
            )

    def __call__(self, case: CaseResult, run: EvalRun) -> None:
        self.done, self.run_id = len(run.cases), run.run_id
        filled = round(20 * self.done / max(1, self.total))
        usage = run.usage
        word = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}[case.status]
        typer.echo(
            f"[{'#' * filled}{'.' * (20 - filled)}] {self.done}/{self.total} {case.case_id} "
            f"{word}; score {run.passed}/{self.done}; {usage.model_calls} model calls, "
            f"{usage.input_tokens + usage.output_tokens} tokens"
            + (f", cost {usage.cost:.4f}" if usage.cost else ""),
            err=True,
        )


def _write_reports(
    run: EvalRun,
    as_json: Path | None,
    junit: Path | None,
    html: Path | None,
    against: EvalRun | None = None,
) -> None:
    from framework.evals.report import junit_xml

    if as_json is not None:
        _private_text(as_json, run.model_dump_json(indent=2))
    if junit is not None:
        _private_text(junit, junit_xml(run))
    if html is not None:
        from framework.evals.html import render_html

        _private_text(html, render_html(run, against))


def _private_text(path: Path, text: str) -> None:
    """Write a report readable by its owner only: it holds the questions and answers."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(path, 0o600)  # an existing file keeps its mode through O_TRUNC


@eval_app.command("check")
@one_line
def check(dataset: DatasetArgument, team: TeamOption = None, corpus: CorpusOption = None) -> None:
    """Check DATASET against its corpora: each fact where it says, none in its question.

    Exit 2 on a problem, each printed ``FILE:LINE: case ID: ...``."""
    from framework.errors import ConfigError
    from framework.evals.check import check_dataset

    data = _read(dataset, team, corpus)
    problems = check_dataset(data)
    for problem in problems:
        typer.echo(problem, err=True)
    if problems:
        raise ConfigError(f"{len(problems)} problem(s) in {dataset}: see above")
    facts = [(case, fact) for case in data.cases for fact in case.facts]
    unsourced = sum(1 for case, fact in facts if not case.cites_for(fact) or case.corpus is None)
    typer.echo(
        f"{dataset}: {len(data.cases)} cases, {len(facts)} facts: {len(facts) - unsourced} "
        f"found where they say, {unsourced} naming no source to check"
    )


@eval_app.command("runs")
@one_line
def runs(home: HomeOption = None) -> None:
    """List the eval runs kept in the home, oldest first."""
    with _store(home, reading=True) as store:
        for run_id in store.run_ids():
            run = store.load(run_id)
            left = "" if run.finished_at else " (interrupted)"
            typer.echo(
                f"{run.run_id}  {run.passed}/{len(run.cases)} passed  {run.mode}  "
                f"{run.dataset}{left}"
            )


@eval_app.command("report")
@one_line
def report(
    run_id: Annotated[str, typer.Argument(help="The eval run.")],
    as_json: Annotated[Path | None, typer.Option("--json", help="Write it as JSON.")] = None,
    junit: Annotated[Path | None, typer.Option(help="Write JUnit XML.")] = None,
    html: Annotated[Path | None, typer.Option(help="Write the HTML report.")] = None,
    home: HomeOption = None,
) -> None:
    """Show a kept eval run as a table (and write it as JSON, JUnit XML or HTML)."""
    from framework.evals.report import summary_line, table_lines

    with _store(home, reading=True) as store:
        run = store.load(run_id)
    _write_reports(run, as_json, junit, html)
    typer.echo("\n".join(table_lines(run)))
    typer.echo(summary_line(run))


@eval_app.command("compare")
@one_line
def compare_runs(
    baseline: Annotated[str, typer.Argument(help="The run to compare against.")],
    now: Annotated[str, typer.Argument(help="The run compared.")],
    html: Annotated[Path | None, typer.Option(help="Write the HTML report of both.")] = None,
    home: HomeOption = None,
) -> None:
    """Compare two eval runs, regressions first; exit 1 when a case regressed.

    Each regressed or fixed case shows the diff of its answer and of its trajectory."""
    from framework.evals.report import compare

    with _store(home, reading=True) as store:
        before, after = store.load(baseline), store.load(now)
    if before.dataset_digest != after.dataset_digest:
        typer.echo(
            f"warning: {baseline} ran {before.dataset} and {now} ran {after.dataset}, with "
            "other data or settings: cases are compared by id",
            err=True,
        )
    _write_reports(after, None, None, html, against=before)
    changes = compare(before, after)
    for change in changes:
        typer.echo(f"{change.change:<14} {change.case_id}")
        if change.change in ("regressed", "fixed"):
            _print_diff("answer", change.answer_diff())
            _print_diff("trajectory", change.trajectory_diff())
    typer.echo(
        f"{baseline} {before.passed}/{len(before.cases)} -> {now} {after.passed}/"
        f"{len(after.cases)}; "
        + ", ".join(f"{sum(c.change == k for c in changes)} {k}" for k in ("regressed", "fixed"))
    )
    if any(change.change == "regressed" for change in changes):
        raise typer.Exit(EXIT_FAILED)


def _print_diff(what: str, lines: list[str], *, limit: int = 40) -> None:
    if not lines:
        typer.echo(f"    {what}: unchanged")
        return
    typer.echo(f"    {what}:")
    for line in lines[:limit]:
        typer.echo(f"      {line}")
    if len(lines) > limit:
        typer.echo(f"      ... {len(lines) - limit} more line(s)")
