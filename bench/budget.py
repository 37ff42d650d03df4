"""Budget enforcement under parallel workers: is a run's token budget ever exceeded?

A team node fans out to 100 async workers at once; each makes model calls (a canned model:
12 input and 3 output tokens per call, reported as usage) until the budget refuses one. The
run's budget is ``--tokens``; the budget policy reserves each call's estimated input plus
``max_output_tokens`` before it runs and settles what it used after. Each of ``--runs`` runs
records the tokens used and the calls made and refused; overshoot is ``used - limit`` when
positive. Target: overshoot 0 in every run.

Run: ``python bench/budget.py [--runs 20] [--workers 100] [--tokens 5000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from framework.engine.nodes.team_node import TeamNode
from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.engine.state import GovernedState
from framework.errors import PolicyDenied
from framework.policy import PolicyMiddleware, governed
from policies.budgets import Budget, Limits

try:  # imported as bench.budget, or run as a script (bench/ is on sys.path)
    from bench._governed import CannedModel
except ModuleNotFoundError:
    from _governed import CannedModel  # type: ignore[no-redef, import-not-found]


class State(GovernedState, total=False):
    question: str


class Payload(TypedDict):
    task: Task


def build(workers: int, budget: Budget, calls: list[int], refused: list[int]) -> Any:
    model = governed(CannedModel())
    chain = (PolicyMiddleware([budget]),)

    async def work(payload: Payload, context: NodeContext) -> dict[str, Any]:
        while True:
            try:
                await model.ainvoke(f"{payload['task'].id}: one more step")
            except PolicyDenied:
                refused.append(1)
                return {}
            calls.append(1)

    graph = StateGraph(State)
    tasks = [Task(id=f"t{i}", description="work") for i in range(workers)]
    graph.add_node("start", TeamNode("start", "bench", lambda s, c: {}, middleware=chain))
    graph.add_node("worker", TeamNode("worker", "bench", lambda p, c: {}, work, middleware=chain))
    graph.add_edge(START, "start")
    graph.add_conditional_edges("start", lambda s: [Send("worker", {"task": t}) for t in tasks])
    graph.add_edge("worker", END)
    return graph.compile()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=100)
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--max-output-tokens", type=int, default=8)
    args = parser.parse_args(argv)
    worst = 0.0
    for run in range(args.runs):
        budget = Budget(run=Limits(tokens=args.tokens), max_output_tokens=args.max_output_tokens)
        calls: list[int] = []
        refused: list[int] = []
        app = build(args.workers, budget, calls, refused)
        thread = f"run{run}"
        asyncio.run(app.ainvoke({"question": "q"}, {"configurable": {"thread_id": thread}}))
        used = budget.used(thread).get("run/tokens", 0.0)
        overshoot = max(0.0, used - args.tokens)
        worst = max(worst, overshoot)
        print(
            f"run {run:2d}: {len(calls)} calls, {len(refused)} refused, {used:.0f} of "
            f"{args.tokens} tokens used, overshoot {overshoot:.0f}"
        )
    verdict = "PASS" if worst == 0 else "MISS"
    print(f"{args.runs} runs x {args.workers} workers: worst overshoot {worst:.0f} {verdict}")
    return 0 if worst == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
