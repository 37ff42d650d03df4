"""The analyst team as a runnable team (``cadre run --team analyst``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.graph import StateGraph

from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.memory import ResearchMemory
from framework.runs.teams import TeamSetup
from teams.analyst.planning import KINDS, KindChoosingPlanner
from teams.analyst.tables import TableIndex, TableWorker
from teams.research.graph import build_research_team, model_roles, offline_roles
from teams.research.prompts import ResearchPrompts

__all__ = ["analyst_team"]


def analyst_team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The research team with two kinds of worker: ``search`` over the corpus's text (the
    research worker, model-backed when a model is given) and ``table`` over its CSV files.

    The offline planner gives each part of the question the kind whose sources match it; a
    model-backed planner is told both kinds and chooses.
    """
    memory = ResearchMemory(setup.store, scope=setup.memory_scope)
    tables = TableIndex.from_folder(setup.corpus_dir)
    if setup.model is not None:
        prompts = ResearchPrompts.from_registry(setup.prompts)
        roles = model_roles(setup.model, setup.corpus, setup.store, memory, prompts, kinds=KINDS)
    else:
        roles = offline_roles(setup.corpus, setup.store, memory)
        roles = replace(roles, planner=KindChoosingPlanner(setup.corpus, tables))
    worker = WorkerKinds(
        [
            WorkerKind(name="search", worker=roles.worker, description=KINDS["search"]),
            WorkerKind(name="table", worker=TableWorker(tables), description=KINDS["table"]),
        ]
    )
    overrides: dict[str, Any] = {"middleware": setup.middleware, "review": setup.review}
    if setup.max_parallel is not None:
        overrides["max_parallel"] = setup.max_parallel
    return build_research_team(replace(roles, worker=worker), **overrides)
