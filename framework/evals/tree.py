"""A finished case's tree: the team asked, and each nested team under it, read from the thread's
checkpoints (each nested team's latest state in its own namespace), with the texts branches
grade: a task's output, a nested team's answer, a phase's findings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from framework.engine.nesting import Nesting, nesting_at
from framework.engine.records import Finding, Task, WorkerResult
from framework.evals.cases import Branch
from framework.evals.results import BranchResult
from framework.kinds.team_phases import ASSESSORS

__all__ = ["Node", "branch_texts", "read_tree"]

App = CompiledStateGraph[Any, Any, Any, Any]


@dataclass(kw_only=True)
class Node:
    """One team of the tree: where it ran, its tasks, their results, its answer."""

    team: str
    nesting: Nesting | None
    tasks: Mapping[str, Task]
    results: Mapping[str, WorkerResult]
    findings: Mapping[str, list[Finding]]
    answer: str
    created_at: str = ""
    children: list[Node] = field(default_factory=list)

    @property
    def where(self) -> str:
        """The place in words (``team top > kind legal (task q0)``); empty for the top team."""
        return self.nesting.where if self.nesting is not None else ""

    def walk(self) -> Iterable[Node]:
        """This team, then every team under it."""
        yield self
        for child in self.children:
            yield from child.walk()

    def result(self) -> BranchResult:
        """The tree as an eval result keeps it."""
        return BranchResult(
            place=self.where or "top",
            team=self.team,
            text=self.answer,
            children=[child.result() for child in self.children],
        )


def _node(
    team: str, nesting: Nesting | None, values: Mapping[str, Any], created_at: str = ""
) -> Node:
    return Node(
        team=team,
        nesting=nesting,
        tasks=dict(values.get("tasks") or {}),
        results=dict(values.get("worker_results") or {}),
        findings=dict(values.get("findings") or {}),
        answer=str(values.get("final_answer") or ""),
        created_at=created_at,
    )


def _config(thread_id: str, namespace: str | None = None) -> RunnableConfig:
    configurable = {"thread_id": thread_id}
    if namespace is not None:
        configurable["checkpoint_ns"] = namespace
    return {"configurable": configurable}


def read_tree(app: App, thread_id: str, team: str) -> Node:
    """The thread's tree: the top team, each nested team under the task it answered (its
    latest run of that task)."""
    top = _node(team, None, app.get_state(_config(thread_id)).values)
    nested: dict[tuple[str, ...], Node] = {}
    saver = app.checkpointer
    if not isinstance(saver, BaseCheckpointSaver):
        return top
    namespaces = dict.fromkeys(
        str(saved.config["configurable"].get("checkpoint_ns", ""))
        for saved in saver.list(_config(thread_id))
    )
    for namespace in namespaces:
        if not namespace:
            continue
        latest = next(iter(app.get_state_history(_config(thread_id, namespace))), None)
        if latest is None:
            continue
        nesting = nesting_at(namespace, latest.metadata)
        if nesting is None:
            continue
        key, created = nesting.tasks, latest.created_at or ""
        if key not in nested or created > nested[key].created_at:
            nested[key] = _node(nesting.team, nesting, latest.values, created)
    for key in sorted(nested, key=len):
        parent = nested.get(key[:-1], top) if len(key) > 1 else top
        parent.children.append(nested[key])
    return top


def branch_texts(tree: Node, branches: Sequence[Branch]) -> dict[str, list[str]]:
    """Each branch's label -> the texts of the places it names (empty: it never ran)."""
    found: dict[str, list[str]] = {}
    for branch in branches:
        texts: list[str] = []
        for node in tree.walk():
            if branch.task is not None and node is tree:
                result = node.results.get(branch.task)
                texts += [result.output] if result is not None else []
            if branch.kind is not None:
                texts += [
                    node.results[task_id].output
                    for task_id, task in node.tasks.items()
                    if task.kind == branch.kind and task_id in node.results
                ]
            if branch.team is not None and node is not tree and node.team == branch.team:
                texts.append(node.answer)
            if branch.where is not None and node is not tree and branch.where in node.where:
                texts.append(node.answer)
            if branch.phase is not None:
                texts += [
                    "\n".join(f"- {f.severity}: {f.message}" for f in found)
                    for phase, found in node.findings.items()
                    if phase in (branch.phase, ASSESSORS.get(branch.phase))
                ]
        found[branch.label] = texts
    return found
