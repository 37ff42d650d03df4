"""The ``crashy`` team of the crash test, and the files that make ``cadre run --team crashy``
find it in a subprocess.

The team is built with :func:`framework.engine.builder.build_team` from small offline roles: the
planner makes ``$CADRE_CRASH_TASKS`` tasks (default 30), each worker sleeps a random 50-200 ms
and then appends one line ``TASK_ID ATTEMPT PID TIME`` to the side-effects file
``$CADRE_CRASH_EFFECTS`` (written with one ``write``, then fsynced) before it returns an ok
result; the reviewer finishes at once and the formatter answers with one line per result.

:func:`write_crash_team` copies this module into a folder as ``crashy_team.py``, next to a
``crashy_team-0.dist-info/`` whose ``entry_points.txt`` declares ``crashy = crashy_team:team``
in the ``cadre.teams`` group: with that folder on ``PYTHONPATH``, ``importlib.metadata`` finds
the team and ``cadre run --team crashy`` / ``cadre resume`` load it. The module imports only
``framework``, so the copy runs anywhere cadre is installed.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.graph import StateGraph

from framework.engine.builder import TeamSettings, build_team
from framework.engine.records import MemoryFact, Plan, ReviewVerdict, Task, WorkerResult
from framework.engine.roles import Roles
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.runs.teams import TeamSetup

__all__ = [
    "BATCH_VARIABLE",
    "DEFAULT_DELAY",
    "DEFAULT_TASKS",
    "DELAY_VARIABLE",
    "EFFECTS_VARIABLE",
    "MODULE",
    "TASKS_VARIABLE",
    "TEAM",
    "Effect",
    "append_line",
    "batch_setting",
    "install_module",
    "output_of",
    "read_effects",
    "task_ids",
    "team",
    "write_crash_team",
]

TEAM = "crashy"
"""The team's name for ``cadre run --team``."""
MODULE = "crashy_team"
"""The module name the team is copied under."""
TASKS_VARIABLE = "CADRE_CRASH_TASKS"
"""How many tasks the planner makes (default :data:`DEFAULT_TASKS`)."""
EFFECTS_VARIABLE = "CADRE_CRASH_EFFECTS"
"""The side-effects file each worker execution appends one line to (required)."""
DELAY_VARIABLE = "CADRE_CRASH_DELAY"
"""A worker's sleep range in seconds, ``MIN,MAX`` (default :data:`DEFAULT_DELAY`)."""
BATCH_VARIABLE = "CADRE_CRASH_BATCH"
"""The team's ``dispatch_batch``: the most tasks one worker execution runs (default: the
team default)."""
DEFAULT_TASKS = 30
DEFAULT_DELAY = (0.05, 0.2)


def task_ids(count: int) -> list[str]:
    """The ids of the tasks the planner makes for ``count`` tasks, in order."""
    return [f"t{index:03d}" for index in range(count)]


def output_of(task_id: str) -> str:
    """What the worker returns for ``task_id`` (one line of the final answer)."""
    return f"done {task_id}"


@dataclass(frozen=True)
class Effect:
    """One line of the side-effects file: a worker execution.

    Attributes:
        task_id: The task it ran.
        attempt: The task's attempt number.
        pid: The process that ran it.
        at: When it finished (``time.time()``, just before its line was written).
    """

    task_id: str
    attempt: int
    pid: int
    at: float


def read_effects(path: Path) -> list[Effect]:
    """The executions recorded in ``path``, in order; a missing file records none.

    Raises:
        ValueError: A line is not ``TASK_ID ATTEMPT PID TIME`` (a torn or foreign write).
    """
    if not path.exists():
        return []
    effects = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            task_id, attempt, pid, at = line.split()
            effects.append(Effect(task_id, int(attempt), int(pid), float(at)))
        except ValueError as error:
            raise ValueError(
                f"{path}:{number}: not 'TASK_ID ATTEMPT PID TIME': {line!r}"
            ) from error
    return effects


def append_line(path: Path, line: str) -> None:
    """Append ``line`` to ``path`` with one ``write`` call, then fsync it."""
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(descriptor, line.encode("utf-8"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@dataclass(frozen=True)
class CountPlanner:
    """Plans ``count`` tasks."""

    count: int

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """Return the plan: :func:`task_ids` tasks."""
        tasks = [
            Task(id=task_id, description=f"task {task_id}") for task_id in task_ids(self.count)
        ]
        return Plan(goal=state["question"], tasks=tasks)


@dataclass(frozen=True)
class EffectWorker:
    """Sleeps, records its execution in the side-effects file, returns an ok result."""

    effects: Path
    delay: tuple[float, float]

    def may_pause(self, task: Task) -> bool:
        """Never: its tasks may run in batches."""
        return False

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task in a sync graph (``cadre run`` runs sync graphs)."""
        time.sleep(random.uniform(*self.delay))
        return self._record(task)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task in an async graph."""
        await asyncio.sleep(random.uniform(*self.delay))
        return self._record(task)

    def _record(self, task: Task) -> WorkerResult:
        append_line(self.effects, f"{task.id} {task.attempt} {os.getpid()} {time.time():.6f}\n")
        return WorkerResult(
            task_id=task.id, status="ok", output=output_of(task.id), attempt=task.attempt
        )


class LineAggregator:
    """Consolidates the ok outputs, sorted, one per line."""

    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        """Return the outputs of the ok results."""
        results = state.get("worker_results") or {}
        return "\n".join(sorted(r.output for r in results.values() if r.status == "ok"))


class FinishingReviewer:
    """Finishes after the first round."""

    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        """Return a finish verdict."""
        return ReviewVerdict(decision="finish", confidence=1.0)


class NoCurator:
    """Remembers nothing."""

    def curate(self, state: TeamState, context: NodeContext) -> Sequence[MemoryFact]:
        """Return no facts."""
        return []


class AnswerFormatter:
    """Answers with the consolidated text under an ``ANSWER`` line."""

    def format(self, state: TeamState, context: NodeContext) -> str:
        """Return the answer."""
        return f"ANSWER\n{state.get('consolidated', '')}"


def _delay(raw: str | None) -> tuple[float, float]:
    if not raw:
        return DEFAULT_DELAY
    low, _, high = raw.partition(",")
    return float(low), float(high or low)


def batch_setting() -> dict[str, int]:
    """The ``dispatch_batch`` team setting :data:`BATCH_VARIABLE` asks for (none: the default)."""
    batch = os.environ.get(BATCH_VARIABLE)
    return {"dispatch_batch": int(batch)} if batch else {}


def team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The crashy team (a ``cadre.teams`` factory), configured by the environment.

    Raises:
        KeyError: ``$CADRE_CRASH_EFFECTS`` is not set.
    """
    roles = Roles(
        planner=CountPlanner(int(os.environ.get(TASKS_VARIABLE, DEFAULT_TASKS))),
        worker=EffectWorker(Path(os.environ[EFFECTS_VARIABLE]), _delay(os.getenv(DELAY_VARIABLE))),
        aggregator=LineAggregator(),
        reviewer=FinishingReviewer(),
        curator=NoCurator(),
        formatter=AnswerFormatter(),
    )
    settings = TeamSettings(
        name=TEAM,
        max_parallel=setup.max_parallel,
        middleware=setup.middleware,
        max_iterations=1,
        **batch_setting(),
    )
    return build_team(roles, settings)


def install_module(folder: Path, source: Path, module: str, team_name: str) -> None:
    """Copy ``source`` into ``folder`` as ``module``, with the ``dist-info`` that declares its
    ``team`` function as the ``cadre.teams`` entry ``team_name``."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / f"{module}.py")
    info = folder / f"{module}-0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: 0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[cadre.teams]\n{team_name} = {module}:team\n", encoding="utf-8"
    )


def write_crash_team(
    folder: Path,
    *,
    tasks: int = DEFAULT_TASKS,
    delay: tuple[float, float] = DEFAULT_DELAY,
    batch: int | None = None,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Install the crashy team into ``folder`` for subprocesses; return their environment.

    Args:
        folder: Where to write ``crashy_team.py`` and ``crashy_team-0.dist-info/`` (created).
        tasks: How many tasks the planner makes.
        delay: A worker's sleep range in seconds.
        batch: The team's ``dispatch_batch`` (None: the team default).
        base: The environment to extend (default: this process's).

    Returns:
        ``base`` with ``folder`` first on ``PYTHONPATH``, the team's settings, and the offline
        switches (``HF_HUB_OFFLINE=1``). Set :data:`EFFECTS_VARIABLE` per run before use.
    """
    install_module(folder, Path(__file__), MODULE, TEAM)
    env = dict(os.environ if base is None else base)
    path = [str(folder), *filter(None, [env.get("PYTHONPATH")])]
    env.update(
        PYTHONPATH=os.pathsep.join(path),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        **{TASKS_VARIABLE: str(tasks), DELAY_VARIABLE: f"{delay[0]},{delay[1]}"},
    )
    if batch is not None:
        env[BATCH_VARIABLE] = str(batch)
    return env
