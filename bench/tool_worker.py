"""Tool worker overhead: ``ToolWorker`` against calling the model and the tool in a plain loop.

In one process, a scripted chat model (no network: it calls the ``lookup`` tool ``--steps``
times, one call per reply, then answers) and a trivial tool are driven two ways:

- ``direct`` (the baseline): a plain loop of ``model.invoke`` and ``tool.invoke(call)`` (or
  ``ainvoke``) over a growing message list, stopping at the first reply without tool calls;
- ``worker``: :class:`framework.tools.worker.ToolWorker` ``run`` or ``arun`` on a task, with the
  same model, tool and number of calls (``max_steps = steps + 1``).

Rows: ``sync`` (no tool timeout: calls run inline), ``sync+timeout`` (a 30 s timeout: each call
runs on its own thread), ``async`` (``arun``; the tool has a coroutine, so no executor). A batch
runs ``--tasks`` tasks through both variants in alternating chunks of ``--chunk`` tasks, so a
burst of load on the machine hits both alike; a cell is the median over ``--repeats`` batches,
reported per tool call: ``direct`` and ``worker`` are the medians of each, ``overhead`` and
``ratio`` the medians of the batches' worker minus direct and worker / direct. Every task's
result is checked (``steps`` evidence items and the final answer), so a broken variant cannot
look fast.

Run: ``python bench/tool_worker.py [--quick] [--tasks N] [--steps S] [--repeats K] [--chunk C]
[--markdown] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.tool import ToolMessage, tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, StructuredTool

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.tools.worker import ToolWorker

CONTEXT = NodeContext(node="worker", team="bench")
QUESTION = "What are the values?"


class LoopModel(BaseChatModel):
    """Calls ``lookup`` once per reply until ``steps`` tool answers are in its input, then
    answers "done". Stateless, so one model serves every task; ``bind_tools`` returns itself."""

    steps: int

    @property
    def _llm_type(self) -> str:
        return "bench-loop"

    def bind_tools(self, tools: Any, **kwargs: Any) -> LoopModel:
        return self

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        done = sum(isinstance(message, ToolMessage) for message in messages)
        if done < self.steps:
            call = tool_call(name="lookup", args={"key": f"k{done}"}, id=f"c{done}")
            message = AIMessage("", tool_calls=[call])
        else:
            message = AIMessage("done")
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages)


def _lookup(key: str) -> str:
    return f"value of {key}"


async def _alookup(key: str) -> str:
    return f"value of {key}"


LOOKUP: BaseTool = StructuredTool.from_function(
    func=_lookup, coroutine=_alookup, name="lookup", description="Look a key up."
)


def _start(task: Task) -> list[BaseMessage]:
    return [SystemMessage("system"), HumanMessage(f"{QUESTION}\n{task.description}")]


def direct(model: LoopModel, task: Task) -> int:
    """The baseline: the same model and tool calls in a plain loop; returns the tool calls."""
    messages, calls = _start(task), 0
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return calls
        for call in reply.tool_calls:
            messages.append(LOOKUP.invoke(call))
            calls += 1


async def adirect(model: LoopModel, task: Task) -> int:
    """The async baseline."""
    messages, calls = _start(task), 0
    while True:
        reply = await model.ainvoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return calls
        for call in reply.tool_calls:
            messages.append(await LOOKUP.ainvoke(call))
            calls += 1


@dataclass(frozen=True)
class Row:
    """One measured row: the baseline and the worker, each running one task; an async row's
    callables return awaitables, and its batches run inside one event loop each."""

    name: str
    direct: Callable[[Task], Any]
    worker: Callable[[Task], Any]
    is_async: bool = False


def rows(steps: int) -> list[Row]:
    """The sync, sync-with-timeout and async rows for ``steps`` tool calls per task."""
    model = LoopModel(steps=steps)

    def worker(timeout: float | None) -> ToolWorker:
        return ToolWorker(model, [LOOKUP], max_steps=steps + 1, tool_timeout_s=timeout)

    inline, threaded = worker(None), worker(30.0)
    return [
        Row("sync", lambda t: direct(model, t), lambda t: inline.run(t, QUESTION, CONTEXT)),
        Row(
            "sync+timeout", lambda t: direct(model, t), lambda t: threaded.run(t, QUESTION, CONTEXT)
        ),
        Row(
            "async",
            lambda t: adirect(model, t),
            lambda t: inline.arun(t, QUESTION, CONTEXT),
            is_async=True,
        ),
    ]


def _sync_chunks(row: Row, chunks: list[list[Task]]) -> tuple[float, float]:
    spent = [0.0, 0.0]
    for chunk in chunks:
        for side, run in enumerate((row.direct, row.worker)):
            start = time.perf_counter()
            for task in chunk:
                run(task)
            spent[side] += time.perf_counter() - start
    return spent[0], spent[1]


async def _async_chunks(row: Row, chunks: list[list[Task]]) -> tuple[float, float]:
    spent = [0.0, 0.0]
    for chunk in chunks:
        for side, run in enumerate((row.direct, row.worker)):
            start = time.perf_counter()
            for task in chunk:
                await run(task)
            spent[side] += time.perf_counter() - start
    return spent[0], spent[1]


def paired_batch_us(row: Row, tasks: list[Task], chunk: int) -> tuple[float, float]:
    """Microseconds per task of the baseline and of the worker over one batch, run in
    alternating chunks of ``chunk`` tasks (so a burst of load on the machine hits both
    alike), the garbage collector paused; an async batch runs in one event loop, started and
    closed outside the clock."""
    chunks = [tasks[at : at + chunk] for at in range(0, len(tasks), chunk)]
    gc.collect()
    gc.disable()
    try:
        if row.is_async:
            direct, worker = asyncio.run(_async_chunks(row, chunks))
        else:
            direct, worker = _sync_chunks(row, chunks)
    finally:
        gc.enable()
    return direct * 1e6 / len(tasks), worker * 1e6 / len(tasks)


def check(row: Row, steps: int) -> None:
    """Fail loudly if a variant does not do the work it is timed for."""
    task = Task(id="check", description="check")
    calls, result = row.direct(task), row.worker(task)
    if row.is_async:
        calls, result = asyncio.run(calls), asyncio.run(result)
    if calls != steps or result.output != "done" or len(result.evidence) != steps:
        raise SystemExit(f"{row.name}: direct made {calls} calls, worker gave {result!r}")


def measure(tasks: int, steps: int, repeats: int, chunk: int) -> dict[str, dict[str, list[float]]]:
    """Per row, per variant: µs per tool call of each batch."""
    measured = rows(steps)
    for row in measured:
        check(row, steps)
    work = [Task(id=f"t{n}", description=f"task {n}") for n in range(tasks)]
    samples: dict[str, dict[str, list[float]]] = {
        row.name: {"direct": [], "worker": []} for row in measured
    }
    for row in measured:  # warm-up
        paired_batch_us(row, work[:20], chunk)
    for _ in range(repeats):
        for row in measured:
            direct, worker = paired_batch_us(row, work, chunk)
            samples[row.name]["direct"].append(direct / steps)
            samples[row.name]["worker"].append(worker / steps)
    return samples


def report(samples: dict[str, dict[str, list[float]]], markdown: bool) -> str:
    """A table of medians per tool call."""
    header = ("row", "direct µs/call", "worker µs/call", "overhead µs/call", "ratio")
    lines = []
    for name, variants in samples.items():
        pairs = list(zip(variants["direct"], variants["worker"], strict=True))
        lines.append(
            (
                name,
                f"{statistics.median(variants['direct']):.0f}",
                f"{statistics.median(variants['worker']):.0f}",
                f"{statistics.median(worker - direct for direct, worker in pairs):.0f}",
                f"{statistics.median(worker / direct for direct, worker in pairs):.3f}",
            )
        )
    if markdown:
        table = ["| " + " | ".join(header) + " |", "|---|---:|---:|---:|---:|"]
        return "\n".join([*table, *("| " + " | ".join(line) + " |" for line in lines)])
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *lines]
    )


def main() -> int:
    """Parse the options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 tasks, 3 repeats")
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--steps", type=int, default=4, help="tool calls per task")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--chunk", type=int, default=10, help="tasks run in a row before switching variant"
    )
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    tasks, repeats = (50, 3) if args.quick else (args.tasks, args.repeats)
    samples = measure(tasks, args.steps, repeats, args.chunk)
    versions = ", ".join(f"{p} {metadata.version(p)}" for p in ("langchain-core", "pydantic"))
    print(
        f"Python {platform.python_version()}, {versions}; {tasks} tasks x {args.steps} tool "
        f"calls, median of {repeats} batches\n"
    )
    print(report(samples, args.markdown))
    if args.json is not None:
        args.json.write_text(json.dumps(samples, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
