"""Checkpoints written before cadre's modules moved into layers still load as records."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple
from pydantic import BaseModel

from framework.engine import compile_team
from framework.engine.builder import build_team
from framework.engine.records import MemoryFact, Plan, ReviewVerdict, Task, WorkerResult
from framework.engine.state import TaskReplacement
from framework.persistence.saver import CadreSaver
from tests.roles import CountingPlanner, make_roles

FIXTURE = Path(__file__).parent / "fixtures" / "checkpoints-before-layers.sqlite"
THREAD = {"configurable": {"thread_id": "before-layers"}}


def _values(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _values(item)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _values(getattr(value, name))


def _stored(saved: CheckpointTuple) -> Iterator[Any]:
    yield from _values(saved.checkpoint["channel_values"])
    for _task, _channel, value in saved.pending_writes or ():
        yield from _values(value)


def test_old_checkpoints_revive_their_records(tmp_path: Path) -> None:
    database = tmp_path / "checkpoints.sqlite"
    shutil.copyfile(FIXTURE, database)
    with CadreSaver(database) as saver:
        stored = [value for saved in saver.list(THREAD) for value in _stored(saved)]
    # a record whose class could not be found comes back as its fields, schema version included
    assert not [value for value in stored if isinstance(value, dict) and "schema_version" in value]
    revived = {type(value) for value in stored}
    assert {Plan, Task, WorkerResult, MemoryFact, ReviewVerdict, TaskReplacement} <= revived


def test_an_old_thread_reads_and_runs_on(tmp_path: Path) -> None:
    database = tmp_path / "checkpoints.sqlite"
    shutil.copyfile(FIXTURE, database)
    with CadreSaver(database) as saver:
        app = compile_team(build_team(make_roles(planner=CountingPlanner(n=1))), checkpointer=saver)
        state = app.get_state(THREAD)
        assert isinstance(state.values["plan"], Plan)
        assert all(isinstance(task, Task) for task in state.values["tasks"].values())
        assert state.values["final_answer"] == "ANSWER\nr2-0:task 0"
        app.invoke({"question": "and now?"}, THREAD)
        assert app.get_state(THREAD).values["final_answer"].startswith("ANSWER")
