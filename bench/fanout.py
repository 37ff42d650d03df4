"""Fan-out benchmark: cadre's research-team fan-out against a raw LangGraph graph.

For N async tasks of 50 ms each and a concurrency cap C, measures in one process:

- ``ideal``: ceil(N / C) * 50 ms (one wave when unbounded), computed, not run;
- ``gather``: ``asyncio.gather`` of N sleeps, under an ``asyncio.Semaphore(C)`` when capped;
- ``raw``: a LangGraph graph of the same shape written here (planner -> Send x N -> worker ->
  aggregator), capped with ``max_concurrency=C`` as a top-level key of the run config;
- ``cadre``: ``build_team`` + ``compile_team`` (no checkpointer) with bench roles whose worker
  sleeps 50 ms, capped with ``TeamSettings(max_parallel=C)``;
- ``telemetry`` (cadre + telemetry): the same team built with ``middleware=telemetry.middleware``,
  each run inside ``telemetry.run(...)``, on cadre's default JSON lines providers; the run's end
  (closing its spans, flushing spans and metrics) is inside the timed run. Target:
  telemetry/cadre <= 1.05 for N >= 100;
- ``nested``: each task run by a nested team (a ``team:`` kind, :class:`TeamWorker`) that plans
  one 50 ms task, reviews and answers; reported against ``cadre`` (the same tasks flat) as CPU
  milliseconds per task, beside the inner team's own run alone (the time of its nodes);
- durable fan-out, the cadre team compiled with a checkpointer, each run on a fresh thread id
  of one database per cell (created in a temporary folder before the clock starts):
  ``plain`` (plain sqlite): ``CadreSaver(path, cipher=None)``; ``encrypted`` (encrypted
  sqlite): ``CadreSaver(path, BlobCipher(Keyring.generate()), data_keys=...)``, what
  ``cadre run`` uses (each thread's blobs under its own data key);
  ``upstream``: LangGraph's ``AsyncSqliteSaver`` on aiosqlite (informative, the upstream
  reference). Targets: encrypted/plain <= 1.15 on every row, and encrypted/raw <= 1.2 for
  N = 1000 (reported for smaller N).

Every run is checked to return N results with at most C tasks running at once, so a broken
variant cannot look fast; after each cell the durable variants read every run's final
checkpoint back through their saver and require N ok worker results in it. Each variant is a
:class:`Variant`: a name, a column title and a ``prepare(n, cap)`` that builds what it needs
(untimed) and returns the timed ``run()``; add a variant by appending one to :data:`VARIANTS`.
Results are medians of wall time; CPU time and every sample go to ``--json``.

Run: ``python bench/fanout.py [--quick] [--markdown] [--json PATH] [--freeze-gc] [--strict]
[--variants NAMES] [--durable-repeats K]`` (see ``docs/benchmarks/fanout.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

try:  # imported as bench.fanout, or run as a script (bench/ is on sys.path)
    from bench._governed import governed_setup
except ModuleNotFoundError:
    from _governed import governed_setup  # type: ignore[no-redef, import-not-found]
from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.engine.records import MemoryFact, Plan, ReviewVerdict, Task, WorkerResult
from framework.engine.roles import Roles
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.engine.team_worker import TeamWorker
from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.persistence.checkpointer import default_serializer
from framework.persistence.cipher import BlobCipher
from framework.persistence.data_keys import DataKeys
from framework.persistence.keys import Keyring
from framework.persistence.saver import UNREADABLE, CadreSaver, key_usage
from framework.runs.runner import new_thread_id
from telemetry.instrument import Telemetry
from telemetry.settings import TelemetrySettings, build_meter_provider, build_tracer_provider

DELAY_S = 0.05
"""What one task costs: an ``asyncio.sleep`` of 50 ms."""
SIZES = (10, 100, 1000)
CAPS: tuple[int | None, ...] = (None, 10)
TARGET = 1.10
"""cadre must stay within 10% of the raw LangGraph graph."""
BASELINE, SUBJECT = "raw", "cadre"
TELEMETRY = "telemetry"
"""cadre + telemetry: the cadre variant with spans and metrics on, as ``cadre run`` records them."""
TELEMETRY_TARGET = 1.05
"""Telemetry must cost at most 5% over cadre without it ..."""
TELEMETRY_TARGET_FROM = 100
"""... for N >= 100; smaller rows are reported, not judged."""
CALLS, POLICIES = "calls", "policies"
NESTED = "nested"
POLICY_TARGET = 1.10
"""Five typical policies on every node, model call and tool call: policies/calls <= 1.10."""
PLAIN, ENCRYPTED, UPSTREAM = "plain", "encrypted", "upstream"
"""Durable fan-out: cadre on its plain and its encrypted SQLite saver, and on LangGraph's
``AsyncSqliteSaver`` (informative)."""
ENCRYPTION_TARGET = 1.15
"""Encrypted checkpointing must cost at most 15% over plain checkpointing, on every row."""
DURABLE_TARGET = 1.2
"""Durable encrypted fan-out must stay within 1.2x of raw LangGraph without a checkpointer ..."""
DURABLE_TARGET_FROM = 1000
"""... for N >= 1000; smaller rows are reported, not judged."""
ALWAYS = (BASELINE, SUBJECT)
"""Variants every run measures: the baselines of the ratios."""


@dataclass(frozen=True)
class Outcome:
    """What one run produced: its task results and the most tasks that ran at once.

    ``tail_ms`` is the part of the run spent after the graph returned (telemetry: closing the
    run's spans and flushing the providers); it is inside the timed wall time.
    """

    results: int
    peak: int
    tail_ms: float = 0.0


Run = Callable[[], Awaitable[Outcome]]
"""One timed run. A run holding resources (telemetry providers) also has ``close()`` (or an
async ``aclose()``), called after its cell, where it may check what the runs left behind; one
that needs the event loop to get ready has an async ``open()``, awaited before its warm-up."""


class Gauge:
    """Counts the tasks sleeping right now and the peak, so a cap that leaks is caught."""

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0

    def reset(self) -> None:
        self.active = self.peak = 0

    def enter(self) -> None:
        self.active += 1
        self.peak = max(self.peak, self.active)

    def leave(self) -> None:
        self.active -= 1

    async def sleep(self) -> None:
        """One task's work: 50 ms, counted."""
        self.enter()
        try:
            await asyncio.sleep(DELAY_S)
        finally:
            self.leave()

    def sleep_sync(self) -> None:
        self.enter()
        try:
            time.sleep(DELAY_S)
        finally:
            self.leave()

    async def measure(self, run: Callable[[], Awaitable[int]]) -> Outcome:
        self.reset()
        results = await run()
        return Outcome(results=results, peak=self.peak)


@dataclass(frozen=True, kw_only=True)
class Variant:
    """One measured column: ``prepare(n, cap)`` builds what it needs, untimed, and returns the
    run to time."""

    name: str
    title: str
    prepare: Callable[[int, int | None], Run]
    durable: bool = False
    """Runs with a checkpointer: reported in the durable fan-out table."""
    repeats: int | None = None
    """At most this many timed runs per cell (None: as many as the others)."""


@dataclass(frozen=True, kw_only=True)
class Repeats:
    """How often to run each measurement: ``repeats(ideal_ms)`` timed runs after ``warmup``."""

    warmup: int
    cheap: int
    costly: int
    costly_from_ms: float = 1000.0

    def repeats(self, ideal: float) -> int:
        return self.costly if ideal >= self.costly_from_ms else self.cheap


@dataclass(kw_only=True)
class Row:
    """The measurements of one (N, C) cell, in milliseconds."""

    n: int
    cap: int | None
    ideal_ms: float
    samples_ms: dict[str, list[float]] = field(default_factory=dict)
    cpu_ms: dict[str, list[float]] = field(default_factory=dict)
    tail_ms: dict[str, list[float]] = field(default_factory=dict)
    peak: dict[str, int] = field(default_factory=dict)

    def median(self, variant: str) -> float:
        return statistics.median(self.samples_ms[variant])

    def ratio(self, top: str, bottom: str) -> float:
        return self.median(top) / self.median(bottom)

    def subject_over_ideal(self) -> float:
        return self.median(SUBJECT) / self.ideal_ms

    def meets_target(self) -> bool:
        return self.ratio(SUBJECT, BASELINE) <= TARGET

    def telemetry_verdict(self) -> str:
        """PASS or MISS against :data:`TELEMETRY_TARGET`; ``info`` for rows below N=100."""
        if self.n < TELEMETRY_TARGET_FROM:
            return "info"
        return "PASS" if self.ratio(TELEMETRY, SUBJECT) <= TELEMETRY_TARGET else "MISS"

    def has(self, *variants: str) -> bool:
        return all(variant in self.samples_ms for variant in variants)

    def encryption_verdict(self) -> str:
        """PASS or MISS against :data:`ENCRYPTION_TARGET` (encrypted/plain), every row."""
        return "PASS" if self.ratio(ENCRYPTED, PLAIN) <= ENCRYPTION_TARGET else "MISS"

    def durable_verdict(self) -> str:
        """PASS or MISS against :data:`DURABLE_TARGET` (encrypted/raw); ``info`` below N=1000."""
        if self.n < DURABLE_TARGET_FROM:
            return "info"
        return "PASS" if self.ratio(ENCRYPTED, BASELINE) <= DURABLE_TARGET else "MISS"

    def verdicts(self) -> list[str]:
        """Every judged verdict of this row (PASS or MISS), for ``--strict``."""
        found = ["PASS" if self.meets_target() else "MISS"]
        if self.has(TELEMETRY):
            found.append(self.telemetry_verdict())
        if self.has(ENCRYPTED, PLAIN):
            found.append(self.encryption_verdict())
        if self.has(ENCRYPTED):
            found.append(self.durable_verdict())
        return [verdict for verdict in found if verdict != "info"]


def ideal_ms(n: int, cap: int | None) -> float:
    """The floor: waves of ``cap`` tasks, each wave one delay long."""
    waves = 1 if cap is None else math.ceil(n / cap)
    return waves * DELAY_S * 1000


# --- gather ---------------------------------------------------------------------------------


def prepare_gather(n: int, cap: int | None) -> Run:
    gauge = Gauge()

    async def one(semaphore: asyncio.Semaphore | None) -> int:
        if semaphore is None:
            await gauge.sleep()
            return 1
        async with semaphore:
            await gauge.sleep()
        return 1

    async def gather() -> int:
        semaphore = asyncio.Semaphore(cap) if cap is not None else None
        return sum(await asyncio.gather(*(one(semaphore) for _ in range(n))))

    return lambda: gauge.measure(gather)


# --- raw LangGraph ----------------------------------------------------------------------------


def merge_dicts(current: dict[str, Any] | None, update: dict[str, Any]) -> dict[str, Any]:
    return {**(current or {}), **update}


class RawState(TypedDict, total=False):
    n: int
    tasks: list[dict[str, Any]]
    results: Annotated[dict[str, Any], merge_dicts]
    summary: str


class RawWorkerInput(TypedDict):
    task: dict[str, Any]


def raw_planner(state: RawState) -> dict[str, Any]:
    return {"tasks": [{"id": f"t{i}", "description": f"task {i}"} for i in range(state["n"])]}


def raw_fan_out(state: RawState) -> list[Send]:
    return [Send("worker", RawWorkerInput(task=task)) for task in state["tasks"]]


def raw_worker(gauge: Gauge) -> Any:
    """The worker node: an async function, as LangGraph users write one."""

    async def worker(state: RawWorkerInput) -> dict[str, Any]:
        await gauge.sleep()
        task = state["task"]
        return {"results": {task["id"]: f"{task['id']}:{task['description']}"}}

    return worker


def raw_aggregator(state: RawState) -> dict[str, Any]:
    return {"summary": f"{len(state.get('results') or {})} results"}


def build_raw(gauge: Gauge) -> Any:
    graph: StateGraph[Any, Any, Any, Any] = StateGraph(RawState)
    graph.add_node("planner", raw_planner)
    graph.add_node("worker", raw_worker(gauge))
    graph.add_node("aggregator", raw_aggregator)
    graph.add_edge(START, "planner")
    graph.add_conditional_edges("planner", raw_fan_out, ["worker"])
    graph.add_edge("worker", "aggregator")
    graph.add_edge("aggregator", END)
    return graph.compile()


def prepare_raw(n: int, cap: int | None) -> Run:
    gauge = Gauge()
    app = build_raw(gauge)
    config: RunnableConfig = {} if cap is None else {"max_concurrency": cap}

    async def invoke() -> int:
        out = await app.ainvoke({"n": n}, config)
        return len(out["results"])

    return lambda: gauge.measure(invoke)


# --- cadre ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchPlanner:
    n: int

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        tasks = [Task(id=f"t{i}", description=f"task {i}") for i in range(self.n)]
        return Plan(goal=state["question"], tasks=tasks)


@dataclass(frozen=True)
class SleepingWorker:
    gauge: Gauge

    def may_pause(self, task: Task) -> bool:
        return False

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        self.gauge.sleep_sync()
        return WorkerResult(task_id=task.id, status="ok", output=f"{task.id}:{task.description}")

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        await self.gauge.sleep()
        return WorkerResult(task_id=task.id, status="ok", output=f"{task.id}:{task.description}")


class CountingAggregator:
    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        return f"{len(state.get('worker_results') or {})} results"


class FinishingReviewer:
    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        return ReviewVerdict(decision="finish", confidence=1.0)


class NoCurator:
    def curate(self, state: TeamState, context: NodeContext) -> list[MemoryFact]:
        return []


class ShortFormatter:
    def format(self, state: TeamState, context: NodeContext) -> str:
        return "done"


def bench_roles(n: int, gauge: Gauge) -> Roles:
    return Roles(
        planner=BenchPlanner(n),
        worker=SleepingWorker(gauge),
        aggregator=CountingAggregator(),
        reviewer=FinishingReviewer(),
        curator=NoCurator(),
        formatter=ShortFormatter(),
    )


def _team_run(n: int, cap: int | None, label: str, wrap: Callable[[Any], Any]) -> Run:
    """The cadre team of the bench roles, its worker passed through ``wrap``."""
    gauge = Gauge()
    settings = TeamSettings(name="research", max_parallel=cap)
    roles = bench_roles(n, gauge)
    app = compile_team(build_team(replace(roles, worker=wrap(roles.worker)), settings))

    async def invoke() -> int:
        out = await app.ainvoke({"question": f"fan out {n} tasks"})
        results = out["worker_results"]
        failed = [r.task_id for r in results.values() if r.status != "ok"]
        require(not failed, f"{label}: tasks failed: {failed[:5]}")
        return len(results)

    return lambda: gauge.measure(invoke)


def prepare_cadre(n: int, cap: int | None) -> Run:
    return _team_run(n, cap, "cadre", lambda worker: worker)


def prepare_kinds(n: int, cap: int | None) -> Run:
    """The cadre column with its worker behind :class:`WorkerKinds` (one kind): what routing
    tasks by kind costs."""
    return _team_run(
        n, cap, "kinds", lambda worker: WorkerKinds([WorkerKind(name="search", worker=worker)])
    )


async def alone_cpu_ms(runs: int = 200) -> float:
    """The CPU milliseconds of one run of the nested variant's inner team alone (the time of its
    own nodes): what nesting may add to a task at most."""
    team = compile_team(build_team(bench_roles(1, Gauge()), TeamSettings(name="inner")))
    for _ in range(runs // 10):  # warm
        await team.ainvoke({"question": "warm"})
    start = time.process_time()
    for _ in range(runs):
        await team.ainvoke({"question": "alone"})
    return (time.process_time() - start) * 1000 / runs


def prepare_nested(n: int, cap: int | None) -> Run:
    """The cadre column with each task run by a nested team (a ``team:`` kind): its own plan of
    one 50 ms task, review and answer, through :class:`TeamWorker`: what nesting costs a task."""

    def nest(worker: Any) -> Any:
        inner = replace(bench_roles(1, worker.gauge), worker=worker)
        team = compile_team(build_team(inner, TeamSettings(name="inner")))
        return WorkerKinds([WorkerKind(name="search", worker=TeamWorker(team, "inner"))])

    return _team_run(n, cap, NESTED, nest)


def _calling_run(n: int, cap: int | None, label: str, with_policies: bool) -> Run:
    """The cadre team with a worker that calls a model and a tool, under the five policies of
    :mod:`bench._governed` or none."""
    gauge = Gauge()
    worker, middleware, check = governed_setup(n, gauge.sleep, with_policies=with_policies)
    settings = TeamSettings(name="research", max_parallel=cap, middleware=middleware)
    app = compile_team(build_team(replace(bench_roles(n, gauge), worker=worker), settings))

    async def invoke() -> int:
        thread = new_thread_id()
        config: RunnableConfig = {"configurable": {"thread_id": thread}}
        out = await app.ainvoke({"question": f"fan out {n} tasks"}, config)
        results = out["worker_results"]
        failed = [r.task_id for r in results.values() if r.status != "ok"]
        require(not failed, f"{label}: tasks failed: {failed[:5]}")
        check(thread)
        return len(results)

    return lambda: gauge.measure(invoke)


def prepare_calls(n: int, cap: int | None) -> Run:
    return _calling_run(n, cap, CALLS, with_policies=False)


def prepare_policies(n: int, cap: int | None) -> Run:
    return _calling_run(n, cap, POLICIES, with_policies=True)


# --- cadre + telemetry ------------------------------------------------------------------------

SPANS_PER_RUN = 9
"""Spans of a bench run besides its N task spans: run, team, step and six node spans."""


class TelemetryRun:
    """The cadre variant with telemetry on, wired as ``cadre run`` wires it by default.

    The team is built with ``middleware=telemetry.middleware`` and each run is bracketed by
    ``telemetry.run(...)``. The providers are cadre's defaults from
    ``TelemetrySettings(exporter="jsonl")``: a ``BatchSpanProcessor`` over the JSON lines span
    exporter and a periodic reader over the JSON lines metric exporter, both writing under a
    temporary folder. The bracket closes the run's spans and flushes both providers when the
    run ends; that flush is inside the timed run (``Outcome.tail_ms`` reports its share).
    ``close()`` checks that every run exported its N task spans and its other spans.
    """

    def __init__(self, n: int, cap: int | None) -> None:
        self.n = n
        self.gauge = Gauge()
        self.folder = Path(tempfile.mkdtemp(prefix="cadre-bench-traces-"))
        settings = TelemetrySettings(exporter="jsonl", traces_dir=self.folder)
        self.telemetry = Telemetry(build_tracer_provider(settings), build_meter_provider(settings))
        team = TeamSettings(name="research", max_parallel=cap, middleware=self.telemetry.middleware)
        self.app = compile_team(build_team(bench_roles(n, self.gauge), team))
        self.runs = 0

    async def __call__(self) -> Outcome:
        self.gauge.reset()
        thread_id = new_thread_id()
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        with self.telemetry.run(thread_id=thread_id, team="research", resumed=False):
            out = await self.app.ainvoke({"question": f"fan out {self.n} tasks"}, config)
            returned = time.perf_counter()
        tail_ms = (time.perf_counter() - returned) * 1000
        self.runs += 1
        results = out["worker_results"]
        failed = [r.task_id for r in results.values() if r.status != "ok"]
        require(not failed, f"{TELEMETRY}: tasks failed: {failed[:5]}")
        return Outcome(results=len(results), peak=self.gauge.peak, tail_ms=tail_ms)

    def close(self) -> None:
        """Stop the providers, check the exported spans, remove the folder."""
        self.telemetry.close()
        try:
            with (self.folder / "spans.jsonl").open(encoding="utf-8") as lines:
                names = [json.loads(line)["name"] for line in lines]
            tasks = sum(name.startswith("cadre.task ") for name in names)
            runs = names.count("cadre.run")
            require(runs == self.runs, f"{TELEMETRY}: {runs} run spans for {self.runs} runs")
            require(tasks == self.runs * self.n, f"{TELEMETRY}: {tasks} task spans exported")
            expected = self.runs * (self.n + SPANS_PER_RUN)
            require(len(names) == expected, f"{TELEMETRY}: {len(names)} spans, not {expected}")
            require((self.folder / "metrics.jsonl").stat().st_size > 0, "no metrics exported")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def prepare_telemetry(n: int, cap: int | None) -> Run:
    return TelemetryRun(n, cap)


# --- durable fan-out: cadre with a checkpointer ---------------------------------------------

Saver = BaseCheckpointSaver[Any]
OpenSaver = Callable[[Path], Awaitable[tuple[Saver, Callable[[], Awaitable[None]]]]]
"""Opens a saver on a database in the given folder; returns it and what closes it."""


class DurableRun:
    """The cadre variant compiled with a checkpointer; each run on a fresh thread id.

    ``open()`` (untimed, before the warm-up) makes a temporary folder and opens the saver on a
    new database in it, so the file and its schema exist before the clock starts; the team is
    compiled with that saver. Each timed run is ``await app.ainvoke(..., {"configurable":
    {"thread_id": <new>}})``. ``aclose()`` reads every run's latest checkpoint back through the
    saver and requires N ok worker results in its values; ``check`` may look at the database
    too (the encrypted variant requires every blob under its key). Then it closes the saver and
    removes the folder.
    """

    def __init__(
        self,
        name: str,
        n: int,
        cap: int | None,
        open_saver: OpenSaver,
        check: Callable[[Saver], None] | None = None,
    ) -> None:
        self.name, self.n, self.cap = name, n, cap
        self.open_saver, self.check = open_saver, check
        self.gauge = Gauge()
        self.threads: list[str] = []
        self.folder: Path | None = None
        self.saver: Saver | None = None
        self.shut: Callable[[], Awaitable[None]] | None = None
        self.app: Any = None

    async def open(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=f"cadre-bench-{self.name}-"))
        self.saver, self.shut = await self.open_saver(self.folder)
        settings = TeamSettings(name="research", max_parallel=self.cap)
        team = build_team(bench_roles(self.n, self.gauge), settings)
        self.app = compile_team(team, checkpointer=self.saver)

    async def __call__(self) -> Outcome:
        self.gauge.reset()
        thread_id = new_thread_id()
        self.threads.append(thread_id)
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        out = await self.app.ainvoke({"question": f"fan out {self.n} tasks"}, config)
        results = out["worker_results"]
        failed = [r.task_id for r in results.values() if r.status != "ok"]
        require(not failed, f"{self.name}: tasks failed: {failed[:5]}")
        return Outcome(results=len(results), peak=self.gauge.peak)

    async def aclose(self) -> None:
        """Check that the database holds each run's final state, then close and clean up."""
        try:
            if self.saver is not None:
                for thread_id in self.threads:
                    await self.check_thread(self.saver, thread_id)
                if self.check is not None:
                    self.check(self.saver)
        finally:
            if self.shut is not None:
                await self.shut()
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)

    async def check_thread(self, saver: Saver, thread_id: str) -> None:
        stored = await saver.aget_tuple({"configurable": {"thread_id": thread_id}})
        require(stored is not None, f"{self.name}: no checkpoint for thread {thread_id}")
        assert stored is not None
        values = stored.checkpoint["channel_values"]
        results = values.get("worker_results") or {}
        ok = sum(isinstance(r, WorkerResult) and r.status == "ok" for r in results.values())
        require(
            len(results) == self.n and ok == self.n,
            f"{self.name}: thread {thread_id} stored {len(results)} results ({ok} ok), "
            f"not {self.n}",
        )
        require(
            values.get("final_answer") == "done",
            f"{self.name}: thread {thread_id} stored no final answer",
        )


async def open_cadre_saver(folder: Path, cipher: BlobCipher | None) -> tuple[Saver, Any]:
    """cadre's saver as ``cadre run`` opens it: encrypted, each thread under its own data key
    (kept in a key store of its own), or plain."""
    keys = DataKeys(folder / "data-keys.sqlite", cipher) if cipher is not None else None
    saver = CadreSaver(folder / "checkpoints.sqlite", cipher, data_keys=keys)

    async def shut() -> None:
        saver.close()

    return saver, shut


def check_sealed(saver: Saver) -> None:
    """Every blob of the encrypted database is sealed under a thread's data key, each wrapped
    under the bench's one key."""
    assert isinstance(saver, CadreSaver) and saver.cipher is not None
    usage = key_usage(saver)
    primary = saver.cipher.keyring.primary
    require(UNREADABLE not in usage, f"{ENCRYPTED}: {usage.get(UNREADABLE)} blobs not sealed")
    require(set(usage) == {primary} and usage[primary] > 0, f"{ENCRYPTED}: key usage {usage}")


def prepare_plain(n: int, cap: int | None) -> Run:
    return DurableRun(PLAIN, n, cap, lambda folder: open_cadre_saver(folder, None))


def prepare_encrypted(n: int, cap: int | None) -> Run:
    cipher = BlobCipher(Keyring.generate())
    return DurableRun(
        ENCRYPTED, n, cap, lambda folder: open_cadre_saver(folder, cipher), check_sealed
    )


async def open_upstream_saver(folder: Path) -> tuple[Saver, Any]:
    import aiosqlite  # only this informative variant needs it
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    conn = await aiosqlite.connect(folder / "checkpoints.sqlite")
    saver = AsyncSqliteSaver(conn, serde=default_serializer())
    await saver.setup()
    return saver, conn.close


def prepare_upstream(n: int, cap: int | None) -> Run:
    return DurableRun(UPSTREAM, n, cap, open_upstream_saver)


def upstream_available() -> bool:
    try:
        import aiosqlite  # noqa: F401
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver  # noqa: F401
    except ImportError:
        return False
    return True


UPSTREAM_VARIANT = Variant(
    name=UPSTREAM, title="AsyncSqliteSaver ms", prepare=prepare_upstream, durable=True
)

VARIANTS: list[Variant] = [
    Variant(name="gather", title="gather ms", prepare=prepare_gather),
    Variant(name=BASELINE, title="raw LangGraph ms", prepare=prepare_raw),
    Variant(name=SUBJECT, title="cadre ms", prepare=prepare_cadre),
    Variant(name=TELEMETRY, title="telemetry ms", prepare=prepare_telemetry),
    Variant(name="kinds", title="worker kinds ms", prepare=prepare_kinds),
    Variant(name=NESTED, title="nested team ms", prepare=prepare_nested),
    Variant(name=CALLS, title="model+tool calls ms", prepare=prepare_calls),
    Variant(name=POLICIES, title="5 policies ms", prepare=prepare_policies),
    Variant(name=PLAIN, title="plain sqlite ms", prepare=prepare_plain, durable=True),
    Variant(name=ENCRYPTED, title="encrypted sqlite ms", prepare=prepare_encrypted, durable=True),
    *([UPSTREAM_VARIANT] if upstream_available() else []),
]


# --- measuring --------------------------------------------------------------------------------


class BenchError(AssertionError):
    """A variant did not do the work it is timed for; its time would mean nothing."""


def require(condition: bool, message: str) -> None:
    """Check a run's work; unlike ``assert`` it holds under ``python -O`` too."""
    if not condition:
        raise BenchError(message)


async def timed(name: str, run: Run, n: int, cap: int | None) -> tuple[float, float, Outcome]:
    """Run once; return wall ms, CPU ms and the outcome, after checking the work."""
    gc.collect()
    cpu, start = time.process_time(), time.perf_counter()
    outcome = await run()
    wall, cpu = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
    require(outcome.results == n, f"{name}: {outcome.results} results for {n} tasks")
    require(cap is None or outcome.peak <= cap, f"{name}: {outcome.peak} ran at once, cap {cap}")
    return wall, cpu, outcome


async def measure(
    n: int, cap: int | None, variants: Sequence[Variant], plan: Repeats, freeze_gc: bool
) -> Row:
    """Measure one cell: warm every variant up, then interleave the timed repeats (a variant
    with fewer ``repeats`` sits out the last rounds)."""
    runs = {variant.name: variant.prepare(n, cap) for variant in variants}
    repeats = plan.repeats(ideal_ms(n, cap))
    limits = {v.name: repeats if v.repeats is None else min(repeats, v.repeats) for v in variants}
    row = Row(n=n, cap=cap, ideal_ms=ideal_ms(n, cap))
    try:
        await open_runs(runs.values())
        for _ in range(plan.warmup):
            for name, run in runs.items():
                await timed(name, run, n, cap)
        if freeze_gc:
            gc.collect()
            gc.freeze()
        for round_ in range(repeats):
            for name, run in runs.items():
                if round_ >= limits[name]:
                    continue
                wall, cpu, outcome = await timed(name, run, n, cap)
                row.samples_ms.setdefault(name, []).append(wall)
                row.cpu_ms.setdefault(name, []).append(cpu)
                row.tail_ms.setdefault(name, []).append(outcome.tail_ms)
                row.peak[name] = max(row.peak.get(name, 0), outcome.peak)
    finally:
        if freeze_gc:
            gc.unfreeze()
        await close_runs(runs.values())
    return row


async def open_runs(runs: Iterable[Run]) -> None:
    """Await each run's ``open()``, where it has one (untimed)."""
    for run in runs:
        opener = getattr(run, "open", None)
        if opener is not None:
            await opener()


async def close_runs(runs: Iterable[Run]) -> None:
    """Close each run (``aclose()`` or ``close()``), where it has one; the first check that
    failed is raised once every run is closed."""
    failed: BaseException | None = None
    for run in runs:
        aclose, close = getattr(run, "aclose", None), getattr(run, "close", None)
        try:
            if aclose is not None:
                await aclose()
            elif close is not None:
                close()
        except Exception as exc:
            failed = failed or exc
    if failed is not None:
        raise failed


async def measure_all(
    sizes: Sequence[int],
    caps: Sequence[int | None],
    variants: Sequence[Variant],
    plan: Repeats,
    freeze_gc: bool = False,
) -> list[Row]:
    rows = []
    for n in sizes:
        for cap in caps:
            row = await measure(n, cap, variants, plan, freeze_gc)
            print(f"  measured N={n} C={cap_label(cap)}", file=sys.stderr, flush=True)
            rows.append(row)
    return rows


# --- reporting --------------------------------------------------------------------------------


def cap_label(cap: int | None) -> str:
    return "unbounded" if cap is None else str(cap)


def table(rows: Sequence[Row], variants: Sequence[Variant]) -> tuple[list[str], list[list[str]]]:
    """The fan-out table: the variants without a checkpointer, cadre/raw and telemetry/cadre."""
    telemetry = any(v.name == TELEMETRY for v in variants)
    variants = [v for v in variants if not v.durable]
    header = [
        "N",
        "C",
        "ideal ms",
        *(v.title for v in variants),
        f"{SUBJECT}/{BASELINE}",
        f"{SUBJECT}/ideal",
        f"target <= {TARGET:.2f}",
    ]
    if telemetry:
        header += [
            f"{TELEMETRY} end ms",
            f"{TELEMETRY}/{SUBJECT}",
            f"{TELEMETRY} target <= {TELEMETRY_TARGET:.2f}",
        ]
    body = []
    for row in rows:
        cells = [
            str(row.n),
            cap_label(row.cap),
            f"{row.ideal_ms:.0f}",
            *(f"{row.median(v.name):.1f}" for v in variants),
            f"{row.ratio(SUBJECT, BASELINE):.3f}",
            f"{row.subject_over_ideal():.3f}",
            "PASS" if row.meets_target() else "MISS",
        ]
        if telemetry:
            cells += [
                f"{statistics.median(row.tail_ms[TELEMETRY]):.1f}",
                f"{row.ratio(TELEMETRY, SUBJECT):.3f}",
                row.telemetry_verdict(),
            ]
        body.append(cells)
    return header, body


def nesting_table(rows: Sequence[Row]) -> tuple[list[str], list[list[str]]]:
    """What a nested team costs each task: the nested column against the same tasks flat
    (``cadre``), as a ratio and as CPU milliseconds per task (flat across N when nesting adds
    no per-task cost that grows with the number of tasks)."""
    header = ["N", "C", "cadre ms", "nested ms", f"{NESTED}/{SUBJECT}", "nesting CPU ms per task"]
    body = []
    for row in rows:
        cpu = statistics.median(row.cpu_ms[NESTED]) - statistics.median(row.cpu_ms[SUBJECT])
        body.append(
            [
                str(row.n),
                cap_label(row.cap),
                f"{row.median(SUBJECT):.1f}",
                f"{row.median(NESTED):.1f}",
                f"{row.ratio(NESTED, SUBJECT):.3f}",
                f"{cpu / row.n:.2f}",
            ]
        )
    return header, body


def durable_table(
    rows: Sequence[Row], variants: Sequence[Variant]
) -> tuple[list[str], list[list[str]]]:
    """The durable fan-out table: raw and cadre without a checkpointer, cadre with each saver,
    what checkpointing costs cadre (plain/cadre), encrypted/plain and encrypted/raw."""
    shown = [v for v in variants if v.durable or v.name in ALWAYS]
    names = {v.name for v in shown}
    plain = PLAIN in names
    encrypted = ENCRYPTED in names
    header = ["N", "C", *(v.title for v in shown)]
    if plain:
        header.append(f"{PLAIN}/{SUBJECT}")
    if plain and encrypted:
        header += [f"{ENCRYPTED}/{PLAIN}", f"target <= {ENCRYPTION_TARGET:.2f}"]
    if encrypted:
        header += [
            f"{ENCRYPTED}/{BASELINE}",
            f"target <= {DURABLE_TARGET:.2f} (N >= {DURABLE_TARGET_FROM})",
        ]
    body = []
    for row in rows:
        cells = [str(row.n), cap_label(row.cap), *(f"{row.median(v.name):.1f}" for v in shown)]
        if plain:
            cells.append(f"{row.ratio(PLAIN, SUBJECT):.3f}")
        if plain and encrypted:
            cells += [f"{row.ratio(ENCRYPTED, PLAIN):.3f}", row.encryption_verdict()]
        if encrypted:
            cells += [f"{row.ratio(ENCRYPTED, BASELINE):.3f}", row.durable_verdict()]
        body.append(cells)
    return header, body


def render_markdown(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" for _ in header) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


def render_text(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.rjust(width) for cell, width in zip(cells, widths, strict=True))
        for cells in [header, *body]
    )


def environment() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "langgraph": metadata.version("langgraph"),
        "langchain_core": metadata.version("langchain-core"),
        "cpus": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


def durable_json(row: Row) -> dict[str, Any]:
    """The durable ratios and verdicts of a row, for those of its variants that ran."""
    out: dict[str, Any] = {}
    for durable in (PLAIN, ENCRYPTED, UPSTREAM):
        if row.has(durable):
            out[f"{durable}_over_{SUBJECT}"] = row.ratio(durable, SUBJECT)
            out[f"{durable}_over_{BASELINE}"] = row.ratio(durable, BASELINE)
    if row.has(ENCRYPTED, PLAIN):
        out[f"{ENCRYPTED}_over_{PLAIN}"] = row.ratio(ENCRYPTED, PLAIN)
        out["encryption_verdict"] = row.encryption_verdict()
    if row.has(ENCRYPTED):
        out["durable_verdict"] = row.durable_verdict()
    return out


def write_json(  # noqa: PLR0917 - one document of everything measured
    path: str,
    rows: Sequence[Row],
    variants: Sequence[Variant],
    env: Mapping[str, Any],
    plan: Repeats,
    freeze_gc: bool,
) -> None:
    document = {
        "environment": env,
        "delay_ms": DELAY_S * 1000,
        "target": {"ratio": f"{SUBJECT}/{BASELINE}", "max": TARGET},
        "telemetry_target": {
            "ratio": f"{TELEMETRY}/{SUBJECT}",
            "max": TELEMETRY_TARGET,
            "from_n": TELEMETRY_TARGET_FROM,
        },
        "encryption_target": {"ratio": f"{ENCRYPTED}/{PLAIN}", "max": ENCRYPTION_TARGET},
        "durable_target": {
            "ratio": f"{ENCRYPTED}/{BASELINE}",
            "max": DURABLE_TARGET,
            "from_n": DURABLE_TARGET_FROM,
        },
        "repeats": asdict(plan),
        "variant_repeats": {v.name: v.repeats for v in variants if v.repeats is not None},
        "freeze_gc": freeze_gc,
        "rows": [
            {
                **asdict(row),
                "median_ms": {name: row.median(name) for name in row.samples_ms},
                "median_cpu_ms": {name: statistics.median(v) for name, v in row.cpu_ms.items()},
                f"{SUBJECT}_over_{BASELINE}": row.ratio(SUBJECT, BASELINE),
                f"{SUBJECT}_over_ideal": row.subject_over_ideal(),
                "meets_target": row.meets_target(),
                "median_tail_ms": {name: statistics.median(v) for name, v in row.tail_ms.items()},
                **(
                    {
                        f"{TELEMETRY}_over_{SUBJECT}": row.ratio(TELEMETRY, SUBJECT),
                        f"{TELEMETRY}_verdict": row.telemetry_verdict(),
                    }
                    if TELEMETRY in row.samples_ms
                    else {}
                ),
                **durable_json(row),
            }
            for row in rows
        ],
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")


# --- entry point ------------------------------------------------------------------------------


def parse_caps(text: str) -> list[int | None]:
    return [None if part in ("none", "unbounded") else int(part) for part in text.split(",")]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="task counts N")
    parser.add_argument("--caps", default="none,10", help="caps C; 'none' is unbounded")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a row misses a target")
    parser.add_argument(
        "--variants",
        help="comma-separated variants to measure besides raw and cadre (default: all of "
        f"{', '.join(v.name for v in VARIANTS)})",
    )
    parser.add_argument(
        "--durable-repeats",
        type=int,
        metavar="K",
        help="at most K timed runs per cell for the checkpointed variants",
    )
    parser.add_argument(
        "--freeze-gc",
        action="store_true",
        help="gc.freeze() after the warm-up, so full collections skip the imported modules",
    )
    return parser.parse_args(argv)


def run_plan(quick: bool) -> Repeats:
    """Cells under a second are cheap and noisy: they get more repeats than the 5 s cell."""
    if quick:
        return Repeats(warmup=1, cheap=3, costly=1)
    return Repeats(warmup=1, cheap=9, costly=3)


def select_variants(names: str | None, durable_repeats: int | None) -> list[Variant]:
    """The variants named (raw and cadre always), in :data:`VARIANTS` order."""
    known = {v.name for v in VARIANTS}
    wanted = known if names is None else {part.strip() for part in names.split(",") if part}
    unknown = sorted(wanted - known)
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; choose from {sorted(known)}")
    if durable_repeats is not None and durable_repeats < 1:
        raise SystemExit(f"--durable-repeats must be at least 1, got {durable_repeats}")
    chosen = [v for v in VARIANTS if v.name in wanted or v.name in ALWAYS]
    if durable_repeats is None:
        return chosen
    return [replace(v, repeats=durable_repeats) if v.durable else v for v in chosen]


def report_verdicts(rows: Sequence[Row]) -> None:
    """One line per target: how many judged rows meet it (and the policy ratio per row)."""
    for row in rows:
        if row.has(POLICIES, CALLS):
            ratio = row.ratio(POLICIES, CALLS)
            verdict = "PASS" if ratio <= POLICY_TARGET else "MISS"
            print(
                f"N={row.n} C={cap_label(row.cap)}: {POLICIES}/{CALLS} {ratio:.3f} "
                f"(target <= {POLICY_TARGET:.2f}) {verdict}"
            )
    missed = [row for row in rows if not row.meets_target()]
    print(f"{len(rows) - len(missed)}/{len(rows)} rows meet {SUBJECT}/{BASELINE} <= {TARGET:.2f}")
    judged = [r for r in rows if r.has(TELEMETRY) and r.telemetry_verdict() != "info"]
    if any(row.has(TELEMETRY) for row in rows):
        over = [row for row in judged if row.telemetry_verdict() == "MISS"]
        print(
            f"{len(judged) - len(over)}/{len(judged)} rows with N >= {TELEMETRY_TARGET_FROM} "
            f"meet {TELEMETRY}/{SUBJECT} <= {TELEMETRY_TARGET:.2f}"
        )
    judged = [r for r in rows if r.has(ENCRYPTED, PLAIN)]
    if judged:
        over = [row for row in judged if row.encryption_verdict() == "MISS"]
        print(
            f"{len(judged) - len(over)}/{len(judged)} rows meet "
            f"{ENCRYPTED}/{PLAIN} <= {ENCRYPTION_TARGET:.2f}"
        )
    judged = [r for r in rows if r.has(ENCRYPTED) and r.durable_verdict() != "info"]
    if judged:
        over = [row for row in judged if row.durable_verdict() == "MISS"]
        print(
            f"{len(judged) - len(over)}/{len(judged)} rows with N >= {DURABLE_TARGET_FROM} meet "
            f"{ENCRYPTED}/{BASELINE} <= {DURABLE_TARGET:.2f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",")]
    caps, plan, env = parse_caps(args.caps), run_plan(args.quick), environment()
    variants = select_variants(args.variants, args.durable_repeats)
    print(
        f"fan-out bench: {DELAY_S * 1000:.0f} ms tasks; python {env['python']}, "
        f"langgraph {env['langgraph']}, {env['cpus']} cpus",
        file=sys.stderr,
        flush=True,
    )
    started = time.perf_counter()
    rows = asyncio.run(measure_all(sizes, caps, variants, plan, args.freeze_gc))
    render = render_markdown if args.markdown else render_text
    print(render(*table(rows, variants)))
    if any(v.durable for v in variants):
        print()
        print(render(*durable_table(rows, variants)))
    if any(v.name == NESTED for v in variants):
        print()
        print(render(*nesting_table(rows)))
        alone = asyncio.run(alone_cpu_ms())
        print(f"the inner team run alone (its own nodes): {alone:.2f} CPU ms per run")
    elapsed = time.perf_counter() - started
    print(f"(medians of wall time; bench took {elapsed:.0f} s)", file=sys.stderr)
    if args.json:
        write_json(args.json, rows, variants, env, plan, args.freeze_gc)
    report_verdicts(rows)
    missed = any(verdict == "MISS" for row in rows for verdict in row.verdicts())
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
