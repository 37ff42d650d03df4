"""Running a dataset: each case a thread in the data home, graded, kept after it finishes.

Every case runs on its own compiled team with research memory of its own (scope ``eval/RUN/
CASE``), so no case learns from another and the order cases finish in changes nothing. Review
pauses are answered with the case's scripted decisions. With a cassette mode, each case's model
calls are recorded, or answered from the recording with no provider reached (see
:mod:`framework.models.cassette`). The run is kept after every case, so an interrupted eval
goes on where it stopped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from framework.database.home import DataHome
from framework.errors import CadreError, ConfigError
from framework.evals.cases import Case
from framework.evals.dataset import Dataset
from framework.evals.graders import Outcome, grade
from framework.evals.judge import judge_answer
from framework.evals.recorder import CaseRecorder
from framework.evals.results import CaseResult, EvalRun, Verdict
from framework.evals.store import EvalStore
from framework.evals.tree import branch_texts, read_tree
from framework.memory.corpus import ProgressCallback
from framework.models.cassette import Cassette, use_cassette
from framework.runs.observe import EvalPart, GradedCase, ObserverOptions, load_observer
from framework.runs.runner import RunResult, StreamOptions, arun_team, new_thread_id
from framework.runs.spec import RunSpec

__all__ = ["EvalOptions", "check_judges", "check_recordings", "run_eval"]

Mode = Literal["live", "record", "replay"]
CaseHandler = Callable[[CaseResult, EvalRun], None]


@dataclass(frozen=True, kw_only=True)
class EvalOptions:
    """How a dataset is run.

    Attributes:
        mode: ``live``; ``record`` (keep every model call); ``replay`` (answer from them).
        model: A model spec every case runs with (None: each case's own, else offline).
        jobs: Cases at once.
        judge_model: The model spec of the judge of cases whose ``judge`` names none.
        trace: Record each case's spans in the home (``cadre trace THREAD``).
    """

    mode: Mode = "live"
    model: str | None = None
    jobs: int = 1
    judge_model: str | None = None
    trace: bool = True


JUDGE_MODEL_MISSING = "the case has a judge but no model: give judge.model or --judge-model"


def check_judges(dataset: Dataset, options: EvalOptions) -> None:
    """Refuse a case with a judge and no model for it, before any case runs.

    Raises:
        ConfigError: ``FILE:LINE: ...`` for the first such case.
    """
    for case in dataset.cases:
        if case.judge is not None and case.judge.model is None and options.judge_model is None:
            raise ConfigError(f"{dataset.at(case.id)}: case {case.id}: {JUDGE_MODEL_MISSING}")


def check_recordings(dataset: Dataset, store: EvalStore) -> None:
    """Refuse a replay whose recordings are missing, before any case runs.

    Raises:
        ConfigError: ``FILE:LINE: case ID has no recording``, for the first such case.
    """
    for case in dataset.cases:
        if not store.cassette_path(dataset.name, case.id).is_file():
            raise ConfigError(
                f"{dataset.at(case.id)}: case {case.id} has no recording to replay: run "
                f"`cadre eval {dataset.path} --record` first"
            )


async def run_eval(
    dataset: Dataset,
    home: DataHome,
    store: EvalStore,
    options: EvalOptions,
    *,
    fresh: bool = False,
    on_start: Callable[[EvalRun], None] | None = None,
    on_case: CaseHandler | None = None,
    on_ingest: ProgressCallback | None = None,
) -> EvalRun:
    """Run every case of ``dataset`` and keep the run; an interrupted run of the same data,
    mode and models is finished instead (its finished cases kept), unless ``fresh``.

    Args:
        dataset: The checked dataset.
        home: The data home the cases' threads live in.
        store: Where the run (and recordings) are kept.
        options: How to run.
        fresh: Start a new run even when the last one was interrupted.
        on_start: Told of the run before any case runs (kept already: interrupted now, it
            is finished by the same call).
        on_case: Told of every finished case, with the run so far.
        on_ingest: Told of every batch of corpus chunks indexed (the first case of a corpus
            indexes it; the others find it unchanged).

    Raises:
        ConfigError: A case's judge has no model, or (replay) a case has no recording; no case
            has run.
    """
    check_judges(dataset, options)
    if options.mode == "replay":
        check_recordings(dataset, store)
    run = EvalRun(
        run_id=store.new_run_id(dataset.name),
        dataset=str(dataset.path),
        dataset_digest=dataset.digest,
        mode=options.mode,
        model=options.model,
        judge_model=options.judge_model,
        started_at=_now(),
    )
    run = (None if fresh else store.unfinished(run)) or run
    store.save(run)
    if on_start is not None:
        on_start(run)
    done = {case.case_id: case for case in run.cases}
    left = [case for case in dataset.cases if case.id not in done]
    gate, saving = asyncio.Semaphore(max(1, options.jobs)), asyncio.Lock()
    runner = _CaseRunner(dataset, home, store, options, run.run_id, on_ingest=on_ingest)
    with _observed(home, options, run.run_id, dataset) as observed:

        async def one(case: Case) -> None:
            async with gate:
                result = await runner.run(case)
            async with saving:
                nonlocal run
                done[case.id] = result
                ordered = [done[c.id] for c in dataset.cases if c.id in done]
                run = run.model_copy(update={"cases": ordered})
                store.save(run)
            if observed is not None:
                observed.case(
                    GradedCase(
                        case_id=result.case_id,
                        thread_id=result.thread_id,
                        status=result.status,
                        score=result.score,
                        seconds=result.usage.seconds,
                        tags=tuple(result.tags),
                    )
                )
            if on_case is not None:
                on_case(result, run)

        await asyncio.gather(*(one(case) for case in left))
    run = run.model_copy(update={"finished_at": _now()})
    store.save(run)
    return run


@contextmanager
def _observed(
    home: DataHome, options: EvalOptions, run_id: str, dataset: Dataset
) -> Iterator[EvalPart | None]:
    """The eval's span over its cases (None when not traced, or no telemetry is installed)."""
    observer = load_observer(home, ObserverOptions()) if options.trace else None
    if observer is None:
        yield None
        return
    try:
        with observer.evaluation(
            run_id=run_id, dataset=dataset.name, cases=len(dataset.cases)
        ) as part:
            yield part
    finally:
        observer.close()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class _CaseRunner:
    """Runs one case: launch its team, run it with its scripted reviews, read and grade it."""

    def __init__(
        self,
        dataset: Dataset,
        home: DataHome,
        store: EvalStore,
        options: EvalOptions,
        run_id: str,
        *,
        on_ingest: ProgressCallback | None,
    ) -> None:
        self.dataset = dataset
        self.home = home
        self.store = store
        self.options = options
        self.run_id = run_id
        self.on_ingest = on_ingest

    def spec(self, case: Case) -> RunSpec:
        """The run spec of a case (its own memory scope: no case learns from another)."""
        return RunSpec(
            team=str(case.team),
            corpus=case.corpus,
            model=self.options.model or case.model,
            review=tuple(case.review),
            memory_scope=("eval", self.run_id, case.id),
            observe=ObserverOptions() if self.options.trace else None,
        )

    async def run(self, case: Case) -> CaseResult:
        thread_id = new_thread_id()
        base = CaseResult(
            case_id=case.id,
            question=case.question,
            tags=case.tags,
            status="error",
            thread_id=thread_id,
        )
        try:
            return await self._graded(case, thread_id, base)
        except Exception as error:  # one case's failure, whatever it is, is that case's only
            said = " ".join(str(error).split())
            if not isinstance(error, CadreError):
                said = f"unexpected {type(error).__name__}: {said}"
            return base.model_copy(update={"error": said})

    async def _graded(self, case: Case, thread_id: str, base: CaseResult) -> CaseResult:
        from framework.runs.launch import LaunchRequest, launch  # noqa: PLC0415 - the teams

        spec = self.spec(case)
        request = LaunchRequest(spec=spec, home=self.home)
        with self._cassette(case) as cassette:  # entered first: a replayed model is not built
            try:
                with launch(request, on_ingest=self.on_ingest) as launched:
                    recorder = CaseRecorder(spec.team, self.dataset.prices)
                    result = await self._answered(launched, case, thread_id, recorder, spec)
                    answer = str(result.state.get("final_answer") or "")
                    judged = await self._judged(case, answer)
                    tree = read_tree(launched.checkpointer, thread_id, recorder.top_team)
            finally:
                self._settle(case, cassette)
        outcome = Outcome(
            answer=answer,
            results=dict(result.state.get("worker_results") or {}),
            steps=tuple(recorder.steps),
            usage=recorder.usage(),
            corpus=Path(case.corpus) if case.corpus else None,
            branches=branch_texts(tree, case.branches),
        )
        verdicts = grade(case, outcome) + judged
        return base.model_copy(
            update={
                "status": "passed" if all(v.passed for v in verdicts) else "failed",
                "verdicts": verdicts,
                "answer": answer,
                "trajectory": list(recorder.steps),
                "usage": outcome.usage,
                "tree": tree.result(),
            }
        )

    def _settle(self, case: Case, cassette: Cassette | None) -> None:
        """Keep a recording, even of a case that failed (its replay fails the same way);
        fail a replayed case on its first mismatch, with what changed (a worker turns the
        error into a failed task; the error itself does not say what changed)."""
        if cassette is None:
            return
        if self.options.mode == "record":
            self.store.save_cassette(self.dataset.name, case.id, cassette.to_bytes())
        elif cassette.mismatches:
            raise ConfigError(cassette.mismatches[0])

    async def _judged(self, case: Case, answer: str) -> list[Verdict]:
        """The model judge's verdict, when the case has a rubric."""
        if case.judge is None:
            return []
        model = case.judge.model or self.options.judge_model
        if model is None:  # checked before any case runs; kept here for callers of run_eval
            raise ConfigError(f"{self.dataset.at(case.id)}: {JUDGE_MODEL_MISSING}")
        return [await judge_answer(case.question, answer, case.judge.rubric, model)]

    def _cassette(self, case: Case) -> AbstractContextManager[Cassette | None]:
        """The case's cassette made current (none in ``live`` mode)."""
        if self.options.mode == "live":
            return use_cassette(None)
        label = f"case {case.id} of {self.dataset.path.name}"
        if self.options.mode == "record":
            return use_cassette(Cassette("record", label))
        data = self.store.load_cassette(self.dataset.name, case.id)
        if data is None:
            raise ConfigError(f"{self.dataset.at(case.id)}: {label} has no recording to replay")
        return use_cassette(Cassette.from_bytes(data, "replay", label))

    async def _answered(
        self, launched: Any, case: Case, thread_id: str, recorder: CaseRecorder, spec: RunSpec
    ) -> RunResult:
        """Run the case, answering its review pauses with its scripted decisions in order."""
        from framework.review import adecide, pending  # noqa: PLC0415 - the review API

        options = StreamOptions(callbacks=(recorder,))
        metadata = spec.recorded(launched.prompts.used()).metadata()
        result = await arun_team(
            launched.app,
            {"question": case.question},
            thread_id,
            on_event=recorder.on_event,
            observer=launched.observer,
            metadata=metadata,
            options=options,
        )
        script = list(case.reviews)
        while requests := pending(launched.app, thread_id):
            decisions = []
            for request in requests:
                index = next(
                    (i for i, d in enumerate(script) if d.at in (None, request.kind)), None
                )
                if index is None:
                    raise ConfigError(
                        f"{self.dataset.at(case.id)}: case {case.id} paused for a {request.kind} "
                        f"review ({request.place}) with no scripted decision left: add one to "
                        "its reviews"
                    )
                decisions.append(script.pop(index).decision(request.id))
            result = await adecide(
                launched.app,
                thread_id,
                decisions,
                on_event=recorder.on_event,
                observer=launched.observer,
                metadata=metadata,
                options=options,
            )
        if (failure := result.failure()) is not None:
            raise failure
        return result
