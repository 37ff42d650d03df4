"""The ``fleety`` team of the scale bench and the fleet tests: each task calls a scripted model
that answers after a fixed delay (a stand-in for a provider's latency), through cadre's policy
chain, so rate limits apply to it as to any model.

The planner makes ``$CADRE_FLEET_TASKS`` tasks (default 8); each worker calls the model
(``scripted:slow``, ``$CADRE_FLEET_DELAY`` seconds, default 0.2) and appends one line
``THREAD TASK PID STARTED ENDED`` to ``$CADRE_FLEET_EFFECTS`` (one ``write``, fsynced) before
it returns an ok result. :func:`write_fleet_team` installs it for subprocesses, as
:func:`bench.crash_team.write_crash_team` does the crashy team.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import StateGraph

try:  # run from the repository (bench.crash_team) or as an installed copy beside crashy_team
    from bench import crash_team as crashy
except ImportError:  # pragma: no cover - the installed copy
    import crashy_team as crashy  # type: ignore[import-not-found,no-redef]
from framework.engine.builder import TeamSettings, build_team
from framework.engine.records import Task, WorkerResult
from framework.engine.roles import Roles
from framework.engine.runtime import NodeContext
from framework.policy import governed
from framework.runs.teams import TeamSetup

__all__ = [
    "DELAY_VARIABLE",
    "EFFECTS_VARIABLE",
    "MODEL",
    "TASKS_VARIABLE",
    "TEAM",
    "Call",
    "read_calls",
    "team",
    "write_fleet_team",
]

TEAM = "fleety"
MODULE = "fleety_team"
MODEL = "scripted:slow"
"""The scripted model's name: rate limits target it as ``model:scripted:slow``."""
TASKS_VARIABLE = "CADRE_FLEET_TASKS"
DELAY_VARIABLE = "CADRE_FLEET_DELAY"
EFFECTS_VARIABLE = "CADRE_FLEET_EFFECTS"


class SlowModel(BaseChatModel):
    """Answers ``ok`` ``delay`` seconds after the policy chain let the call go (that moment is
    in the reply's ``additional_kwargs["started"]``); async only, as the fleet runs graphs."""

    delay: float = 0.2
    model_name: str = MODEL

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise NotImplementedError("the fleet team's model is called asynchronously")

    async def _agenerate(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> ChatResult:
        started = f"{time.time():.6f}"
        await asyncio.sleep(self.delay)
        message = AIMessage("ok", additional_kwargs={"started": started})
        return ChatResult(generations=[ChatGeneration(message=message)])


@dataclass(frozen=True)
class Call:
    """One line of the effects file: a task's model call, done."""

    thread_id: str
    task_id: str
    pid: int
    started: float
    ended: float


def read_calls(path: Path) -> list[Call]:
    """The calls recorded in ``path`` (none when it does not exist)."""
    if not path.exists():
        return []
    calls = []
    for line in path.read_text(encoding="utf-8").splitlines():
        thread_id, task_id, pid, started, ended = line.split()
        calls.append(Call(thread_id, task_id, int(pid), float(started), float(ended)))
    return calls


@dataclass(frozen=True)
class ModelWorker:
    """Calls the model once per task, records the call, returns an ok result."""

    effects: Path
    model: BaseChatModel

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Sync graphs: refused (the fleet executes async graphs)."""
        raise NotImplementedError("the fleet team runs in async graphs")

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Call the model, then record the call."""
        reply = await self.model.ainvoke([HumanMessage(f"{question}: {task.description}")])
        started = reply.additional_kwargs.get("started", f"{time.time():.6f}")
        line = f"{context.thread_id} {task.id} {os.getpid()} {started} {time.time():.6f}\n"
        crashy.append_line(self.effects, line)
        return WorkerResult(task_id=task.id, status="ok", output=f"done {task.id}", attempt=1)


def team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The fleety team (a ``cadre.teams`` factory), configured by the environment."""
    delay = float(os.environ.get(DELAY_VARIABLE, "0.2"))
    roles = Roles(
        planner=crashy.CountPlanner(int(os.environ.get(TASKS_VARIABLE, "8"))),
        worker=ModelWorker(Path(os.environ[EFFECTS_VARIABLE]), governed(SlowModel(delay=delay))),
        aggregator=crashy.LineAggregator(),
        reviewer=crashy.FinishingReviewer(),
        curator=crashy.NoCurator(),
        formatter=crashy.AnswerFormatter(),
    )
    settings = TeamSettings(
        name=TEAM, max_parallel=setup.max_parallel, middleware=setup.middleware, max_iterations=1
    )
    return build_team(roles, settings)


def write_fleet_team(
    folder: Path,
    effects: Path,
    *,
    tasks: int = 8,
    delay: float = 0.2,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Install the fleety team (beside the crashy team it borrows roles from) into ``folder``
    for subprocesses; their environment."""
    env = crashy.write_crash_team(folder, base=base)
    crashy.install_module(folder, Path(__file__), MODULE, TEAM)
    env.update({TASKS_VARIABLE: str(tasks), DELAY_VARIABLE: str(delay)})
    env[EFFECTS_VARIABLE] = str(effects)
    return env
