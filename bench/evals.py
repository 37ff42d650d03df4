"""The speed of ``cadre eval``: its harness against running the same questions in process as
``cadre run`` does, and a recorded model-backed case replayed against the offline team.

1. Harness overhead. For each question of a dataset (``bench/quality/research-click.yaml``,
   the offline research team), the baseline does what ``cadre run`` does in process: launch the
   team with the same :class:`~framework.runs.spec.RunSpec` (the case's team and corpus, a
   memory scope of its own, trace on as ``cadre run``'s default) and
   ``asyncio.run(arun_team(...))``, then ask for pending reviews. The eval side is
   :func:`~framework.evals.runner.run_eval` on the same questions (a launch per case, the
   callback recorder, the tree read from the checkpoints, grading, the sealed save after each
   case). Both use one data home whose corpus was indexed in a warm-up. The sides go in turn
   question by question (each question run as ``cadre run`` between two cases of the eval,
   after its case in even repeats and before it in odd ones), so both meet the same drift; the
   figures are medians of the repeats: seconds per case, and eval/run (target <= 1.1).
2. Replay. One model-backed case (the scripted answers of ``tests/test_openai_provider.py``
   over ``SMALL_CORPUS``, served on loopback by ``tests/openai_server.py``) recorded once with
   ``--record``, then replayed with no provider against the offline research team answering
   the same question over the same corpus, both through ``run_eval``, in turn: replay/offline
   (target <= 1.0).

``--phases`` times the parts of one more case (launch, run, tree read, grading, save);
``--profile FILE`` keeps a cProfile of one ``run_eval`` (its event loop's thread only).

    .venv/bin/python -m bench.evals --repeats 7 --phases
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import functools
import pstats
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import framework.evals.runner as eval_runner
import framework.runs.launch as run_launch
from framework.database.home import DataHome
from framework.evals.cases import Case
from framework.evals.dataset import Dataset, read_dataset
from framework.evals.recorder import CaseRecorder
from framework.evals.results import CaseResult, EvalRun
from framework.evals.runner import EvalOptions, run_eval
from framework.evals.store import EvalStore
from framework.persistence.home_keys import home_cipher
from framework.review import pending
from framework.runs.launch import LaunchRequest, launch
from framework.runs.observe import ObserverOptions
from framework.runs.runner import StreamOptions, arun_team, new_thread_id
from framework.runs.spec import RunSpec
from tests import test_openai_provider as provider
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.openai_server import openai_server

ROOT = Path(__file__).resolve().parent.parent
DATASET = ROOT / "bench" / "quality" / "research-click.yaml"
GONE = "openai-compatible:gpt-test@http://127.0.0.1:9/v1"
"""A provider nothing listens at: a replay that reached it would fail."""
MODEL_CASE = (
    "name: model-backed\nteam: research\ncorpus: docs\ncases:\n"
    f"  - id: protected\n    question: {provider.QUESTION}\n"
    "    facts: [AES]\n    sources: [checkpoints.md:3]\n"
)


def _store(root: Path) -> EvalStore:
    home = DataHome(root=root).create()
    return EvalStore(home, home_cipher(home))


def _subset(dataset: Dataset, cases: int | None) -> Dataset:
    return dataclasses.replace(dataset, cases=dataset.cases[:cases] if cases else dataset.cases)


class Harness:
    """Both sides of the harness figure, over one data home."""

    def __init__(self, dataset: Dataset, home: Path) -> None:
        self.dataset = dataset
        self.store = _store(home)
        self.runs = 0

    def run_one(self, case: Case) -> float:
        """Seconds to answer one question as ``cadre run`` does in process."""
        started = time.perf_counter()
        spec = RunSpec(
            team=str(case.team),
            corpus=case.corpus,
            memory_scope=("bench", str(self.runs), case.id),
            observe=ObserverOptions(),
        )
        with launch(LaunchRequest(spec=spec, home=self.store.home)) as launched:
            thread_id = new_thread_id()
            result = asyncio.run(
                arun_team(
                    launched.app,
                    {"question": case.question},
                    thread_id,
                    observer=launched.observer,
                    metadata=spec.recorded(launched.prompts.used()).metadata(),
                    options=StreamOptions(),
                )
            )
            if not pending(launched.app, thread_id) and (failure := result.failure()):
                raise failure
        return time.perf_counter() - started

    def paired(self, run_first: bool) -> tuple[list[float], list[float]]:
        """Seconds per question of both sides, question by question in turn: one
        ``run_eval`` over the questions, and each question run as ``cadre run`` runs it between
        two of its cases (after its own case, or before it with ``run_first``; on a thread of
        its own, as the eval's event loop waits in ``on_case``). A case's share of the eval
        starts when the question before it was answered (the first: the eval's own start;
        the last takes the final save too)."""
        self.runs += 1
        cases, runs, evals = self.dataset.cases, [], []

        def run(index: int) -> None:
            if index < len(cases):
                with ThreadPoolExecutor(1) as thread:
                    runs.append(thread.submit(self.run_one, cases[index]).result())

        if run_first:
            run(0)
        mark = time.perf_counter()

        def between(case: CaseResult, so_far: EvalRun) -> None:
            nonlocal mark
            evals.append(time.perf_counter() - mark)
            run(len(evals) if run_first else len(evals) - 1)
            mark = time.perf_counter()

        done = asyncio.run(
            run_eval(self.dataset, self.store.home, self.store, EvalOptions(), on_case=between)
        )
        evals[-1] += time.perf_counter() - mark
        if errors := [c for c in done.cases if c.status == "error"]:
            raise SystemExit(f"case {errors[0].case_id} did not run: {errors[0].error}")
        return runs, evals

    def eval_alone(self) -> float:
        """Seconds of one ``run_eval`` over the questions, nothing between its cases."""
        started = time.perf_counter()
        asyncio.run(run_eval(self.dataset, self.store.home, self.store, EvalOptions()))
        return time.perf_counter() - started


@contextmanager
def _phases() -> Iterator[dict[str, list[float]]]:
    """Seconds spent in each part of a case while inside, by part: the launch (the home opened,
    the corpus checked, the team compiled), the run (its reviews answered), the recorder's
    callbacks (within the run), the tree read from the checkpoints, grading and the sealed save
    of the run (functions of ``run_eval`` wrapped for as long as this lasts)."""
    spent: dict[str, list[float]] = defaultdict(list)

    def timed(part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[part].append(time.perf_counter() - started)

        return wrapper

    def atimed(part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                spent[part].append(time.perf_counter() - started)

        return wrapper

    callbacks = ("on_event", "on_chain_start", "on_tool_start", "on_chat_model_start")
    wrapped: list[tuple[Any, str, str, Callable[..., Any]]] = [
        (run_launch, "launch", "launch", timed),
        (eval_runner._CaseRunner, "_answered", "run", atimed),
        (eval_runner, "read_tree", "tree read", timed),
        (eval_runner, "grade", "grading", timed),
        (EvalStore, "save", "sealed save", timed),
        *((CaseRecorder, name, "recorder callbacks", timed) for name in callbacks),
        (CaseRecorder, "on_llm_end", "recorder callbacks", timed),
    ]
    kept = [(owner, name, getattr(owner, name)) for owner, name, _, _ in wrapped]
    for owner, name, part, wrap in wrapped:
        setattr(owner, name, wrap(part, getattr(owner, name)))
    try:
        yield spent
    finally:
        for owner, name, original in kept:
            setattr(owner, name, original)


def _alternate(
    repeats: int, first: Callable[[], list[float]], second: Callable[[], list[float]]
) -> tuple[list[list[float]], list[list[float]]]:
    """Each side's per-question seconds in every repeat, the side that goes first alternating."""
    a: list[list[float]] = []
    b: list[list[float]] = []
    for repeat in range(repeats):
        if repeat % 2 == 0:
            a.append(first())
            b.append(second())
        else:
            b.append(second())
            a.append(first())
    return a, b


def _median_total(sides: list[list[float]]) -> float:
    return statistics.median(sum(one) for one in sides)


def harness(
    dataset: Dataset, folder: Path, repeats: int, profile: Path | None, phases: bool
) -> None:
    bench = Harness(dataset, folder / "home")
    bench.paired(run_first=True)  # warm-up: the corpus indexed, the team's modules loaded
    runs: list[list[float]] = []
    evals: list[list[float]] = []
    for repeat in range(repeats):
        run_one, eval_one = bench.paired(run_first=repeat % 2 == 1)
        runs.append(run_one)
        evals.append(eval_one)
    count = len(dataset.cases)
    run_s, eval_s = _median_total(runs) / count, _median_total(evals) / count
    print(f"harness: {count} questions of {dataset.path.name}, {repeats} repeats (medians)")
    print(f"  cadre run in process  {run_s:7.3f} s/question")
    print(f"  run_eval              {eval_s:7.3f} s/case")
    print(f"  eval/run              {eval_s / run_s:7.3f}  (target <= 1.1)")
    ratios = [sum(e) / sum(r) for r, e in zip(runs, evals, strict=True)]
    print("  per repeat eval/run   " + " ".join(f"{r:.3f}" for r in ratios))
    if phases:
        with _phases() as spent:
            total = bench.eval_alone()
        print(f"  one more run_eval, {total / count:.3f} s/case, by part (ms/case):")
        for part, seconds in spent.items():
            print(f"    {part:<20} {sum(seconds) * 1000 / count:7.1f}")
    if profile is not None:
        profiler = cProfile.Profile()
        profiler.enable()
        bench.eval_alone()
        profiler.disable()
        profiler.dump_stats(profile)
        print(f"  profile of one run_eval (its event loop's thread): {profile}")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


def replay(folder: Path, repeats: int, phases: bool) -> None:
    folder.mkdir(parents=True)
    write_corpus(folder / "docs", SMALL_CORPUS)
    (folder / "model.yaml").write_text(MODEL_CASE, encoding="utf-8")
    dataset = read_dataset(folder / "model.yaml")
    store = _store(folder / "home")

    def one(options: EvalOptions) -> Callable[[], list[float]]:
        def side() -> list[float]:
            started = time.perf_counter()
            run = asyncio.run(run_eval(dataset, store.home, store, options))
            spent = time.perf_counter() - started
            [case] = run.cases
            if case.status == "error":
                raise SystemExit(f"{options.mode}: case {case.case_id}: {case.error}")
            return [spent]

        return side

    with openai_server(provider.respond) as server:
        spec = f"openai-compatible:gpt-test@{server.base_url}"
        record = one(EvalOptions(mode="record", model=spec))
        record()
        sent = len(server.requests)
    replayed, offline = one(EvalOptions(mode="replay", model=GONE)), one(EvalOptions())
    replayed()  # warm-up
    offline()
    replays, offlines = _alternate(repeats, replayed, offline)
    replay_s, offline_s = _median_total(replays), _median_total(offlines)
    print(f"replay: one model-backed case ({sent} model calls recorded), {repeats} repeats")
    print(f"  replayed (no provider)  {replay_s:7.3f} s")
    print(f"  offline research team   {offline_s:7.3f} s")
    print(f"  replay/offline          {replay_s / offline_s:7.3f}  (target <= 1.0)")
    if phases:
        for name, side in (("replayed", replayed), ("offline", offline)):
            with _phases() as spent:
                total = side()[0]
            parts = ", ".join(f"{part} {sum(s) * 1000:.0f}" for part, s in spent.items())
            print(f"  one more {name}: {total * 1000:.0f} ms; {parts} (ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=None, help="The first N questions only.")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", type=Path, default=None, help="cProfile one run_eval.")
    parser.add_argument("--replays", type=int, default=15, help="Repeats of the replay.")
    parser.add_argument("--phases", action="store_true", help="Time each part of a case.")
    parser.add_argument("--only", choices=("harness", "replay"), default=None)
    args = parser.parse_args()
    dataset = _subset(read_dataset(DATASET), args.cases)
    with tempfile.TemporaryDirectory() as folder:
        if args.only != "replay":
            harness(dataset, Path(folder) / "harness", args.repeats, args.profile, args.phases)
        if args.only != "harness":
            replay(Path(folder) / "replay", args.replays, args.phases)


if __name__ == "__main__":
    main()
