"""Fan-out benchmark: cadre's research-team fan-out against a raw LangGraph graph.

For N async tasks of 50 ms each and a concurrency cap C, measures in one process:

- ``ideal``: ceil(N / C) * 50 ms (one wave when unbounded), computed, not run;
- ``gather``: ``asyncio.gather`` of N sleeps, under an ``asyncio.Semaphore(C)`` when capped;
- ``raw``: a LangGraph graph of the same shape written here (planner -> Send x N -> worker ->
  aggregator), capped with ``max_concurrency=C`` as a top-level key of the run config;
- ``cadre``: ``build_team`` + ``compile_team`` (no checkpointer) with bench roles whose worker
  sleeps 50 ms, capped with ``TeamSettings(max_parallel=C)``.

Every run is checked to return N results, so a broken variant cannot look fast. Each variant is
a :class:`Variant`: a name and a ``prepare(n, cap)`` that returns the timed ``run()``; add a
variant (a checkpointer, telemetry) by appending one to :data:`VARIANTS`.

Run: ``python bench/fanout.py [--quick] [--markdown] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from framework.builder import TeamSettings, build_team, compile_team
from framework.records import Plan, ReviewVerdict, Task, WorkerResult
from framework.roles import Roles
from framework.runtime import NodeContext
from framework.state import TeamState

DELAY_S = 0.05
"""What one task costs: an ``asyncio.sleep`` of 50 ms."""
SIZES = (10, 100, 1000)
CAPS: tuple[int | None, ...] = (None, 10)
TARGET = 1.10
"""cadre must stay within 10% of the raw LangGraph graph."""
BASELINE, SUBJECT = "raw", "cadre"

Run = Callable[[], Awaitable[int]]
"""One timed run: returns how many task results it produced."""


@dataclass(frozen=True, kw_only=True)
class Variant:
    """One measured column: ``prepare(n, cap)`` builds what it needs, untimed, and returns the
    run to time."""

    name: str
    title: str
    prepare: Callable[[int, int | None], Run]


@dataclass(frozen=True, kw_only=True)
class Repeats:
    """How often to run each measurement."""

    warmup: int
    repeats: Callable[[int], int]


@dataclass(kw_only=True)
class Row:
    """The measurements of one (N, C) cell, in milliseconds."""

    n: int
    cap: int | None
    ideal_ms: float
    samples_ms: dict[str, list[float]] = field(default_factory=dict)

    def median(self, variant: str) -> float:
        return statistics.median(self.samples_ms[variant])

    def ratio(self, top: str, bottom: str) -> float:
        return self.median(top) / self.median(bottom)

    def subject_over_ideal(self) -> float:
        return self.median(SUBJECT) / self.ideal_ms

    def meets_target(self) -> bool:
        return self.ratio(SUBJECT, BASELINE) <= TARGET


def ideal_ms(n: int, cap: int | None) -> float:
    """The floor: waves of ``cap`` tasks, each wave one delay long."""
    waves = 1 if cap is None else math.ceil(n / cap)
    return waves * DELAY_S * 1000


# --- gather ---------------------------------------------------------------------------------


def prepare_gather(n: int, cap: int | None) -> Run:
    async def one(semaphore: asyncio.Semaphore | None) -> int:
        if semaphore is None:
            await asyncio.sleep(DELAY_S)
            return 1
        async with semaphore:
            await asyncio.sleep(DELAY_S)
        return 1

    async def run() -> int:
        semaphore = asyncio.Semaphore(cap) if cap is not None else None
        return sum(await asyncio.gather(*(one(semaphore) for _ in range(n))))

    return run


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


async def raw_worker(state: RawWorkerInput) -> dict[str, Any]:
    await asyncio.sleep(DELAY_S)
    task = state["task"]
    return {"results": {task["id"]: f"{task['id']}:{task['description']}"}}


def raw_aggregator(state: RawState) -> dict[str, Any]:
    return {"summary": f"{len(state.get('results') or {})} results"}


def build_raw() -> Any:
    graph = StateGraph(RawState)
    graph.add_node("planner", raw_planner)
    graph.add_node("worker", raw_worker)
    graph.add_node("aggregator", raw_aggregator)
    graph.add_edge(START, "planner")
    graph.add_conditional_edges("planner", raw_fan_out, ["worker"])
    graph.add_edge("worker", "aggregator")
    graph.add_edge("aggregator", END)
    return graph.compile()


def prepare_raw(n: int, cap: int | None) -> Run:
    app = build_raw()
    config: RunnableConfig = {} if cap is None else {"max_concurrency": cap}

    async def run() -> int:
        out = await app.ainvoke({"n": n}, config)
        return len(out["results"])

    return run


# --- cadre ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchPlanner:
    n: int

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        tasks = [Task(id=f"t{i}", description=f"task {i}") for i in range(self.n)]
        return Plan(goal=state["question"], tasks=tasks)


class SleepingWorker:
    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        time.sleep(DELAY_S)
        return WorkerResult(task_id=task.id, status="ok", output=f"{task.id}:{task.description}")

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        await asyncio.sleep(DELAY_S)
        return WorkerResult(task_id=task.id, status="ok", output=f"{task.id}:{task.description}")


class CountingAggregator:
    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        return f"{len(state.get('worker_results') or {})} results"


class FinishingReviewer:
    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        return ReviewVerdict(decision="finish", confidence=1.0)


class NoCurator:
    def curate(self, state: TeamState, context: NodeContext) -> list[Any]:
        return []


class ShortFormatter:
    def format(self, state: TeamState, context: NodeContext) -> str:
        return "done"


def bench_roles(n: int) -> Roles:
    return Roles(
        planner=BenchPlanner(n),
        worker=SleepingWorker(),
        aggregator=CountingAggregator(),
        reviewer=FinishingReviewer(),
        curator=NoCurator(),
        formatter=ShortFormatter(),
    )


def prepare_cadre(n: int, cap: int | None) -> Run:
    app = compile_team(build_team(bench_roles(n), TeamSettings(name="research", max_parallel=cap)))

    async def run() -> int:
        out = await app.ainvoke({"question": f"fan out {n} tasks"})
        results = out["worker_results"]
        failed = [r.task_id for r in results.values() if r.status != "ok"]
        assert not failed, f"cadre: tasks failed: {failed[:5]}"
        return len(results)

    return run


VARIANTS: list[Variant] = [
    Variant(name="gather", title="gather ms", prepare=prepare_gather),
    Variant(name=BASELINE, title="raw LangGraph ms", prepare=prepare_raw),
    Variant(name=SUBJECT, title="cadre ms", prepare=prepare_cadre),
]


# --- measuring --------------------------------------------------------------------------------


async def timed(name: str, run: Run, n: int) -> float:
    gc.collect()
    start = time.perf_counter()
    produced = await run()
    elapsed = (time.perf_counter() - start) * 1000
    assert produced == n, f"{name}: {produced} results for {n} tasks"
    return elapsed


async def measure(n: int, cap: int | None, variants: Sequence[Variant], plan: Repeats) -> Row:
    """Measure one cell: warm every variant up, then interleave the timed repeats."""
    runs = {variant.name: variant.prepare(n, cap) for variant in variants}
    row = Row(n=n, cap=cap, ideal_ms=ideal_ms(n, cap), samples_ms={name: [] for name in runs})
    for _ in range(plan.warmup):
        for name, run in runs.items():
            await timed(name, run, n)
    for _ in range(plan.repeats(n)):
        for name, run in runs.items():
            row.samples_ms[name].append(await timed(name, run, n))
    return row


async def measure_all(
    sizes: Sequence[int], caps: Sequence[int | None], variants: Sequence[Variant], plan: Repeats
) -> list[Row]:
    rows = []
    for n in sizes:
        for cap in caps:
            row = await measure(n, cap, variants, plan)
            print(f"  measured N={n} C={cap_label(cap)}", file=sys.stderr, flush=True)
            rows.append(row)
    return rows


# --- reporting --------------------------------------------------------------------------------


def cap_label(cap: int | None) -> str:
    return "unbounded" if cap is None else str(cap)


def table(rows: Sequence[Row], variants: Sequence[Variant]) -> tuple[list[str], list[list[str]]]:
    header = [
        "N",
        "C",
        "ideal ms",
        *(v.title for v in variants),
        f"{SUBJECT}/{BASELINE}",
        f"{SUBJECT}/ideal",
        f"target <= {TARGET:.2f}",
    ]
    body = [
        [
            str(row.n),
            cap_label(row.cap),
            f"{row.ideal_ms:.0f}",
            *(f"{row.median(v.name):.1f}" for v in variants),
            f"{row.ratio(SUBJECT, BASELINE):.3f}",
            f"{row.subject_over_ideal():.3f}",
            "PASS" if row.meets_target() else "MISS",
        ]
        for row in rows
    ]
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


def write_json(path: str, rows: Sequence[Row], env: Mapping[str, Any], plan: Repeats) -> None:
    document = {
        "environment": env,
        "delay_ms": DELAY_S * 1000,
        "target": {"ratio": f"{SUBJECT}/{BASELINE}", "max": TARGET},
        "warmup": plan.warmup,
        "rows": [
            {
                **asdict(row),
                "median_ms": {name: row.median(name) for name in row.samples_ms},
                f"{SUBJECT}_over_{BASELINE}": row.ratio(SUBJECT, BASELINE),
                f"{SUBJECT}_over_ideal": row.subject_over_ideal(),
                "meets_target": row.meets_target(),
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
    parser.add_argument("--strict", action="store_true", help="exit 1 when a row misses the target")
    return parser.parse_args(argv)


def run_plan(quick: bool) -> Repeats:
    if quick:
        return Repeats(warmup=1, repeats=lambda n: 1 if n >= 1000 else 3)
    return Repeats(warmup=1, repeats=lambda n: 3 if n >= 1000 else 5)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",")]
    caps, plan, env = parse_caps(args.caps), run_plan(args.quick), environment()
    print(
        f"fan-out bench: {DELAY_S * 1000:.0f} ms tasks; python {env['python']}, "
        f"langgraph {env['langgraph']}, {env['cpus']} cpus",
        file=sys.stderr,
    )
    started = time.perf_counter()
    rows = asyncio.run(measure_all(sizes, caps, VARIANTS, plan))
    header, body = table(rows, VARIANTS)
    print(render_markdown(header, body) if args.markdown else render_text(header, body))
    print(f"(medians; total bench time {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.json:
        write_json(args.json, rows, env, plan)
    missed = [row for row in rows if not row.meets_target()]
    print(f"{len(rows) - len(missed)}/{len(rows)} rows meet {SUBJECT}/{BASELINE} <= {TARGET:.2f}")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
