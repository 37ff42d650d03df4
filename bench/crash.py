"""Crash test: kill -9 ``cadre run`` during a fan-out, ``cadre resume`` it in a new process.

Each run starts ``cadre run Q --team crashy --thread tI --max-parallel P --no-trace`` over a
one-file corpus in a temporary data home (the ``crashy`` team of ``bench/crash_team.py``: N
workers that sleep 50-200 ms and then append ``TASK_ID ATTEMPT PID TIME`` to a side-effects
file). It waits until a random number K of tasks (1 to N-1) have written their line, and a
random 0-25 ms more, then sends SIGKILL: a random moment of the fan-out, while at least one
worker has not finished. Right after the kill it reads the thread's latest checkpoint with the
home's checkpointer (the one ``cadre run`` uses): the results already saved are the pending
``worker_results`` writes of the fan-out's step, the results its batches' ledgers hold (with
``--batch`` below the task count, see :mod:`framework.engine.batching`) and any results in the
checkpoint's values.
Then it runs ``cadre resume tI`` in a new process (again, up to ``--resumes`` times, until one
exits 0; a refusal, exit 2, fails the run at once) and checks:

- the resume exits 0 and prints the final answer;
- the final state holds exactly one ok result per task (no more, no less), the answer lists
  each task once, the dispatcher ran once (``metrics.dispatches == 1``) and counted N tasks;
- a task whose result was saved before the kill is never executed again (one side-effect
  line, from the killed process);
- a task that ran in the killed process but was not saved runs again exactly once, and a
  task that had not run runs exactly once (with one resume; with several, at least once);
- no process executes a task twice;
- with ``--max-save-lag S``: no result that finished more than S seconds before the kill was
  still unsaved (off by default: LangGraph's sync runner saves a fan-out's writes late, see
  ``docs/benchmarks/crash.md``);
- with ``--signal TERM`` (or ``INT``) instead of SIGKILL, a graceful stop: ``cadre run`` exits
  143 and every task it ran was saved, so the resume runs none of them again.

Each side-effect line carries the time its task finished, so every run reports how long the
oldest finished-but-unsaved result had waited when the kill came (``unsaved for``).

Every subprocess is bounded by a timeout, so the script always stops. It prints one line per
run and ``K/R passed``, and exits 1 on any failure.

Run: ``python bench/crash.py [--runs 20] [--tasks 30] [--max-parallel 4] [--batch B] [--seed S]``
(see ``docs/benchmarks/crash.md``).
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from langchain_core.runnables import RunnableConfig

from framework.database.home import DataHome
from framework.engine.ledger import LEDGER_CHANNEL
from framework.engine.records import WorkerResult
from framework.runs.stores import open_checkpointer

try:  # imported as bench.crash (the tests) or run as a script (bench/ is on sys.path)
    from bench.crash_team import (
        DEFAULT_DELAY,
        EFFECTS_VARIABLE,
        TEAM,
        Effect,
        output_of,
        read_effects,
        task_ids,
        write_crash_team,
    )
except ModuleNotFoundError:
    from crash_team import (  # type: ignore[no-redef, import-not-found]
        DEFAULT_DELAY,
        EFFECTS_VARIABLE,
        TEAM,
        Effect,
        output_of,
        read_effects,
        task_ids,
        write_crash_team,
    )

__all__ = [
    "CrashLab",
    "CrashReport",
    "CrashSettings",
    "Final",
    "Saved",
    "main",
    "read_final",
    "read_saved",
    "run_session",
]

QUESTION = "Which tasks survive a crash?"
CORPUS = {"crash.md": "# Crash safety\n\nA killed run resumes from its last checkpoint.\n"}
EXTRA_DELAY_S = 0.025
"""Up to this long (at random) between the kill's trigger and the kill: half the shortest task."""
POLL_S = 0.005
DRAWS = 3
"""How many times a run's kill moment is drawn when the kill came after the run finished."""
REFUSED = 2
"""The exit status of a ``cadre`` command refusing its input (here: a thread it will not resume)."""
STOPPED = 143
"""The exit status of a ``cadre run`` a signal stopped gracefully."""


@dataclass(frozen=True, kw_only=True)
class CrashSettings:
    """The shape of each crash run and its time limits (seconds)."""

    tasks: int = 30
    max_parallel: int = 4
    batch: int | None = None
    """The team's ``dispatch_batch`` (None: the team default)."""
    delay: tuple[float, float] = DEFAULT_DELAY
    start_timeout: float = 120.0
    """How long ``cadre run`` may take to reach the kill's trigger."""
    resume_timeout: float = 300.0
    """How long one ``cadre resume`` may take."""
    resumes: int = 3
    """How many times to try ``cadre resume`` before the run fails."""
    max_save_lag: float | None = None
    """Fail a run where a result that finished this long before the kill was not saved."""
    stop_timeout: float = 120.0
    """How long the stopped ``cadre run`` may take to exit (a graceful stop drains first)."""
    stop_signal: signal.Signals = signal.SIGKILL
    """The signal that stops ``cadre run``: SIGKILL (a crash), or SIGTERM / SIGINT (a graceful
    stop, which must exit 143 with every task that ran saved)."""


@dataclass(frozen=True, kw_only=True)
class Saved:
    """What the thread's latest checkpoint held right after the kill.

    Attributes:
        task_ids: The tasks whose results were saved (pending writes or values).
        in_fanout: The fan-out's step had not been checkpointed whole: its results, if any,
            were pending writes.
    """

    task_ids: frozenset[str]
    in_fanout: bool


@dataclass(frozen=True, kw_only=True)
class Final:
    """The thread's final state, as its latest checkpoint holds it."""

    results: Mapping[str, WorkerResult]
    answer: str
    metrics: Mapping[str, float]


@dataclass(kw_only=True)
class CrashReport:
    """What one crash run did and every problem found (none: it passed).

    Attributes:
        run: The run's number.
        thread: Its thread id.
        after_effects: The kill came once this many side-effect lines were written ...
        after_saved: ... and, when True, once as many results were saved in the checkpoint ...
        extra_delay: ... and this many seconds more.
        killed_pid: The killed process (None: no kill happened).
        kill_time: When the kill was sent (``time.time()``).
        kill_after: Seconds from the first side effect to the kill.
        ran_before_kill: Tasks the killed process had executed.
        saved: What the checkpoint held right after the kill.
        save_lag: How long the oldest finished-but-unsaved result had waited at the kill.
        reexecuted: Tasks executed more than once.
        resumes: ``cadre resume`` attempts made.
        seconds: The run's wall time.
        problems: Every broken promise found.
        missed: Why the kill tested nothing (the run had finished first); None when it did.
    """

    run: int
    thread: str
    after_effects: int = 1
    after_saved: bool = False
    extra_delay: float = 0.0
    killed_pid: int | None = None
    kill_time: float = 0.0
    kill_after: float = 0.0
    ran_before_kill: int = 0
    saved: Saved | None = None
    save_lag: float | None = None
    reexecuted: list[str] = field(default_factory=list)
    resumes: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    missed: str | None = None

    @property
    def passed(self) -> bool:
        """The kill came during the run and no problem was found."""
        return not self.problems and self.missed is None

    def line(self, tasks: int) -> str:
        """The run's one-line summary (and its problems, one per line)."""
        trigger = (
            f"run {self.run:2d} {self.thread}: kill at {self.after_effects} side effect(s)"
            f"{' and a saved result' if self.after_saved else ''}"
            f" + {self.extra_delay * 1000:.0f} ms"
        )
        if self.missed is not None:
            return f"{trigger}: MISSED: {self.missed}"
        saved = self.saved
        where = "?" if saved is None else "fan-out" if saved.in_fanout else "after fan-out"
        counts = "?" if saved is None else f"{len(saved.task_ids)}/{tasks}"
        lag = "" if self.save_lag is None else f", unsaved for {self.save_lag:.2f} s"
        head = (
            f"{trigger}, {self.kill_after:.2f} s after the first ({where}): "
            f"{self.ran_before_kill} ran, {counts} saved{lag}; {len(self.reexecuted)} "
            f"re-executed, {self.resumes} resume(s), {self.seconds:.1f} s: "
        )
        if self.passed:
            return head + "PASS"
        return head + "FAIL\n" + "\n".join(f"    - {problem}" for problem in self.problems)


def _config(thread: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


def _latest(home: DataHome, thread: str) -> Any:
    """The latest checkpoint tuple of ``thread`` (None when there is none yet)."""
    if not home.has_checkpoints():
        return None
    with open_checkpointer(home) as checkpointer:
        return checkpointer.get_tuple(_config(thread))


def read_saved(home: DataHome, thread: str) -> Saved:
    """The results ``thread`` has saved: pending ``worker_results`` writes and values."""
    latest = _latest(home, thread)
    if latest is None:
        return Saved(task_ids=frozenset(), in_fanout=True)
    values = latest.checkpoint["channel_values"].get("worker_results") or {}
    saved = set(values)
    for _task, channel, value in latest.pending_writes or ():
        if channel == "worker_results":
            saved.update(value)
        elif channel == LEDGER_CHANNEL:  # a batch's tasks, saved as each ended
            for update in value.values():
                saved.update(update.get("worker_results") or {})
    return Saved(task_ids=frozenset(saved), in_fanout=not values)


def read_final(home: DataHome, thread: str) -> Final:
    """The final state of ``thread`` from its latest checkpoint."""
    latest = _latest(home, thread)
    values = latest.checkpoint["channel_values"] if latest is not None else {}
    return Final(
        results=dict(values.get("worker_results") or {}),
        answer=str(values.get("final_answer") or ""),
        metrics=dict(values.get("metrics") or {}),
    )


@contextmanager
def _spawned(args: Sequence[str], env: Mapping[str, str], log: Path) -> Iterator[Any]:
    """A subprocess writing to ``log``.out/.err; SIGKILLed on the way out if still running."""
    with (
        open(log.with_suffix(".out"), "wb") as out,
        open(log.with_suffix(".err"), "wb") as err,
    ):
        process = subprocess.Popen(args, env=dict(env), stdout=out, stderr=err)
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)


def _wait_for(ready: Callable[[], bool], process: Any, timeout: float) -> bool:
    """Wait until ``ready()``; False when the process ended first or time ran out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return True
        if process.poll() is not None:
            return False
        time.sleep(POLL_S)
    return False


def _tail(path: Path, lines: int = 5) -> str:
    text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    return " | ".join(text.strip().splitlines()[-lines:])


class CrashLab:
    """A temporary workspace for crash runs: the crashy team, a corpus and one data home.

    Args:
        root: The workspace folder (created).
        settings: The runs' shape and limits.
    """

    def __init__(self, root: Path, settings: CrashSettings | None = None) -> None:
        self.root = root
        self.settings = settings or CrashSettings()
        self.home = DataHome(root=root / "home")
        self.corpus = root / "corpus"
        self.logs = root / "logs"
        for folder in (self.corpus, self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        for name, text in CORPUS.items():
            (self.corpus / name).write_text(text, encoding="utf-8")
        self.env = write_crash_team(
            root / "team",
            tasks=self.settings.tasks,
            delay=self.settings.delay,
            batch=self.settings.batch,
        )
        self.cadre = [str(Path(sys.executable).with_name("cadre"))]

    @property
    def graceful(self) -> bool:
        """Whether the stop is a signal ``cadre run`` handles (it drains, saving every task)."""
        return self.settings.stop_signal != signal.SIGKILL

    def _run_args(self, thread: str) -> list[str]:
        return [
            *self.cadre,
            "run",
            QUESTION,
            "--team",
            TEAM,
            "--corpus",
            str(self.corpus),
            "--home",
            str(self.home.root),
            "--thread",
            thread,
            "--max-parallel",
            str(self.settings.max_parallel),
            "--no-trace",
        ]

    def crash(
        self,
        run: int,
        *,
        after_effects: int = 1,
        after_saved: bool = False,
        extra_delay: float = 0.0,
        thread: str | None = None,
    ) -> CrashReport:
        """Start a thread, kill it, resume it and check it.

        Args:
            run: The run's number.
            after_effects: Kill once this many side-effect lines are written ...
            after_saved: ... and, when True, as many results are saved in the checkpoint ...
            extra_delay: ... and this many seconds more.
            thread: The thread id (default ``t<run>``).

        Returns:
            What happened, with every problem found; ``missed`` when the run finished before
            the kill came (nothing was tested).
        """
        thread = thread or f"t{run}"
        report = CrashReport(
            run=run,
            thread=thread,
            after_effects=after_effects,
            after_saved=after_saved,
            extra_delay=extra_delay,
        )
        effects = self.root / f"effects-{thread}.txt"
        env = {**self.env, EFFECTS_VARIABLE: str(effects)}
        started = time.monotonic()
        try:
            if self._start_and_kill(report, env, effects):
                report.saved = read_saved(self.home, thread)
                report.ran_before_kill = len(read_effects(effects))
                if self._resume(report, env):
                    final = read_final(self.home, thread)
                    _check(report, read_effects(effects), final, self.settings)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            report.problems.append(f"{type(error).__name__}: {error}")
        report.seconds = time.monotonic() - started
        return report

    def _trigger(self, report: CrashReport, effects: Path) -> Callable[[], bool]:
        """When to kill (then after ``extra_delay``): enough side effects and, if asked, as many
        saved results (a result is saved a moment after its side effect is written)."""

        def ready() -> bool:
            written = effects.read_bytes().count(b"\n") if effects.exists() else 0
            if written < report.after_effects:
                return False
            if not report.after_saved:
                return True
            return len(read_saved(self.home, report.thread).task_ids) >= report.after_effects

        return ready

    def _start_and_kill(self, report: CrashReport, env: Mapping[str, str], effects: Path) -> bool:
        log = self.logs / f"{report.thread}-run"
        with _spawned(self._run_args(report.thread), env, log) as process:
            if not _wait_for(self._trigger(report, effects), process, self.settings.start_timeout):
                report.problems.append(
                    f"`cadre run` never reached the kill's trigger (exit {process.poll()}): "
                    f"{_tail(log.with_suffix('.err'))}"
                )
                return False
            time.sleep(report.extra_delay)
            if process.poll() is not None:
                report.missed = f"`cadre run` ended (exit {process.returncode}) before the kill"
                return False
            report.kill_time = time.time()
            process.send_signal(self.settings.stop_signal)
            self._signalled(report)
            process.wait(timeout=self.settings.stop_timeout)
            report.killed_pid = process.pid
            if self.graceful and process.returncode != STOPPED:
                report.problems.append(
                    f"`cadre run` exited {process.returncode} after "
                    f"{self.settings.stop_signal.name}, not {STOPPED}: "
                    f"{_tail(log.with_suffix('.err'))}"
                )
        if read_final(self.home, report.thread).answer:
            report.missed = "the run had answered before the kill (its process was exiting)"
            return False
        first = min((effect.at for effect in read_effects(effects)), default=report.kill_time)
        report.kill_after = report.kill_time - first
        return True

    def _signalled(self, report: CrashReport) -> None:
        """Right after the stop signal was sent to the run of ``report`` (a lab whose workers
        wait on a condition releases them here)."""

    def _resume(self, report: CrashReport, env: Mapping[str, str]) -> bool:
        """``cadre resume`` in new processes until one exits 0 (False: none did); a refusal
        (exit 2) is not tried again."""
        args = [*self.cadre, "resume", report.thread, "--home", str(self.home.root)]
        for attempt in range(1, self.settings.resumes + 1):
            report.resumes = attempt
            done = subprocess.run(
                args,
                env=dict(env),
                capture_output=True,
                text=True,
                timeout=self.settings.resume_timeout,
                check=False,
            )
            log = self.logs / f"{report.thread}-resume{attempt}"
            log.with_suffix(".out").write_text(done.stdout, encoding="utf-8")
            log.with_suffix(".err").write_text(done.stderr, encoding="utf-8")
            if done.returncode == 0:
                if f"thread {report.thread} finished; its answer:\n\nANSWER" not in done.stdout:
                    report.problems.append(f"resume printed no final answer: {done.stdout!r}")
                return True
            report.problems.append(
                f"resume {attempt} exited {done.returncode}: {_tail(log.with_suffix('.err'))}"
            )
            if done.returncode == REFUSED:
                report.problems.append(self._refusal(report.thread))
                break  # a refusal is not transient
        return False

    def _refusal(self, thread: str) -> str:
        """Why ``cadre resume`` refusing ``thread`` is wrong, from what its checkpoint holds."""
        if read_final(self.home, thread).answer:
            return "the thread had answered before the kill, yet the kill was not seen as missed"
        return (
            "cadre resume refused a thread that has not answered: when the kill comes after "
            "every task of a step has saved its writes but before the next checkpoint is "
            "written, get_state().next is empty although the run has steps left"
        )


def _check(
    report: CrashReport, effects: list[Effect], final: Final, settings: CrashSettings
) -> None:
    """Record every broken promise of the run in ``report.problems``."""
    expected = task_ids(settings.tasks)
    report.problems.extend(_check_state(final, expected))
    report.problems.extend(_check_effects(report, effects, expected))
    if settings.stop_signal != signal.SIGKILL:  # a graceful stop saves every task that ran
        saved = report.saved.task_ids if report.saved is not None else frozenset()
        lost = sorted({e.task_id for e in effects if e.pid == report.killed_pid} - saved)
        if lost:
            problems = f"ran before {settings.stop_signal.name} and not saved: {lost}"
            report.problems.append(problems)
    report.problems.extend(_check_lag(report, effects, settings.max_save_lag))


def _check_state(final: Final, expected: list[str]) -> list[str]:
    """One ok result per task, each task once in the answer, one dispatch of every task."""
    problems = []
    if sorted(final.results) != expected:
        missing = sorted(set(expected) - set(final.results))
        extra = sorted(set(final.results) - set(expected))
        problems.append(f"results: missing {missing}, unexpected {extra}")
    bad = sorted(tid for tid, result in final.results.items() if result.status != "ok")
    if bad:
        problems.append(f"results not ok: {bad}")
    lines = Counter(final.answer.splitlines())
    wrong = [tid for tid in expected if lines[output_of(tid)] != 1]
    if not final.answer.startswith("ANSWER") or wrong:
        problems.append(f"the answer does not list these tasks exactly once: {wrong}")
    counted = {name: final.metrics.get(name) for name in ("dispatches", "tasks_dispatched")}
    if counted != {"dispatches": 1, "tasks_dispatched": len(expected)}:
        problems.append(f"dispatcher metrics {counted}: expected 1 dispatch of {len(expected)}")
    if final.metrics.get("tasks_ok") != len(expected):
        problems.append(f"tasks_ok {final.metrics.get('tasks_ok')}, expected {len(expected)}")
    return problems


def _check_effects(report: CrashReport, effects: list[Effect], expected: list[str]) -> list[str]:
    """Saved tasks ran once (before the kill); the others ran again as they should."""
    saved = report.saved.task_ids if report.saved is not None else frozenset()
    killed = {e.task_id for e in effects if e.pid == report.killed_pid}
    runs = Counter(e.task_id for e in effects)
    per_process = Counter((e.task_id, e.pid) for e in effects)
    report.reexecuted = sorted(tid for tid, count in runs.items() if count > 1)
    problems = []
    twice = sorted(f"{tid}@{pid}" for (tid, pid), count in per_process.items() if count > 1)
    if twice:
        problems.append(f"a process executed a task twice: {twice}")
    if saved - killed:
        problems.append(
            f"saved results with no side effect before the kill: {sorted(saved - killed)}"
        )
    again = sorted(tid for tid in saved if runs[tid] != 1)
    if again:
        problems.append(f"saved before the kill, executed again: {again}")
    for tid in expected:
        want = 2 if tid in killed and tid not in saved else 1
        got = runs[tid]
        if got < want or (report.resumes == 1 and got != want):
            problems.append(f"{tid} executed {got} time(s), expected {want}")
    if any(e.attempt != 0 for e in effects):
        problems.append("a task ran with an attempt other than 0 (nothing asked for a retry)")
    return problems


def _check_lag(report: CrashReport, effects: list[Effect], limit: float | None) -> list[str]:
    """How long the oldest finished-but-unsaved result waited; a problem past ``limit``."""
    saved = report.saved.task_ids if report.saved is not None else frozenset()
    unsaved = [e.at for e in effects if e.pid == report.killed_pid and e.task_id not in saved]
    report.save_lag = report.kill_time - min(unsaved) if unsaved else None
    if limit is None or report.save_lag is None or report.save_lag <= limit:
        return []
    return [
        f"a result finished {report.save_lag:.2f} s before the kill and was still not saved "
        f"(limit {limit:.2f} s): the fan-out's finished work was not checkpointed as it finished"
    ]


def run_session(
    lab: CrashLab, runs: int, seed: int | None = None, out: TextIO = sys.stdout
) -> list[CrashReport]:
    """``runs`` crash runs killed at random moments of their fan-outs; print a line per run and
    the summary."""
    chooser = random.Random(seed)
    reports = []
    missed = 0
    for run in range(1, runs + 1):
        for draw in range(1, DRAWS + 1):  # a kill that came after the run's end is drawn again
            report = lab.crash(
                run,
                after_effects=chooser.randint(1, max(1, lab.settings.tasks - 1)),
                extra_delay=chooser.uniform(0.0, EXTRA_DELAY_S),
                thread=f"t{run}" if draw == 1 else f"t{run}-{draw}",
            )
            print(report.line(lab.settings.tasks), file=out, flush=True)
            if report.missed is None:
                break
            missed += 1
        reports.append(report)
    print(_summary(reports, missed), file=out, flush=True)
    return reports


def _summary(reports: Sequence[CrashReport], missed: int) -> str:
    """``K/R passed`` and what the kills did, over every run."""
    passed = sum(report.passed for report in reports)
    ran = sum(report.ran_before_kill for report in reports)
    saved = [r.saved.task_ids if r.saved is not None else frozenset() for r in reports]
    saved_again = sum(len(s & set(r.reexecuted)) for s, r in zip(saved, reports, strict=True))
    again = sum(len(report.reexecuted) for report in reports)
    lags = [report.save_lag for report in reports if report.save_lag is not None]
    worst = f"; the longest a finished result waited unsaved: {max(lags):.2f} s" if lags else ""
    redrawn = f" ({missed} kill(s) came after the run's end and were drawn again)" if missed else ""
    return (
        f"{passed}/{len(reports)} passed{redrawn}. Before the kills {ran} tasks ran and "
        f"{sum(map(len, saved))} results were saved ({saved_again} of these ran again); "
        f"{again} tasks ran again on resume{worst}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the crash session; exit 1 when a run fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--max-parallel", type=int, default=4)
    parser.add_argument(
        "--batch", type=int, help="the team's dispatch_batch (default: the team default)"
    )
    parser.add_argument("--seed", type=int, help="seed of the kill delays (default: random)")
    parser.add_argument("--resumes", type=int, default=3, help="resume attempts per run")
    parser.add_argument(
        "--max-save-lag",
        type=float,
        help="fail a run where a result finished this many seconds before the kill was unsaved",
    )
    parser.add_argument(
        "--signal",
        choices=("KILL", "TERM", "INT"),
        default="KILL",
        help="how to stop `cadre run`: KILL (a crash) or TERM / INT (a graceful stop)",
    )
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (logs)")
    args = parser.parse_args(argv)
    settings = CrashSettings(
        tasks=args.tasks,
        max_parallel=args.max_parallel,
        batch=args.batch,
        resumes=args.resumes,
        max_save_lag=args.max_save_lag,
        stop_signal=signal.Signals[f"SIG{args.signal}"],
    )
    print(
        f"crash test: {args.runs} runs, {settings.tasks} tasks, --max-parallel "
        f"{settings.max_parallel}, SIG{args.signal} after 1-{max(1, settings.tasks - 1)} side "
        "effects "
        f"+ 0-{EXTRA_DELAY_S * 1000:.0f} ms",
        flush=True,
    )
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        reports = run_session(CrashLab(args.keep, settings), args.runs, args.seed)
    else:
        with tempfile.TemporaryDirectory(prefix="cadre-crash-") as folder:
            reports = run_session(CrashLab(Path(folder), settings), args.runs, args.seed)
    return 0 if all(report.passed for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
