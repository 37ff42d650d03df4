"""A finished case's tree: the team asked, and each nested team under it, read from the thread's
checkpoints (:func:`framework.retention.tree.nested_runs`, as ``cadre show`` reads them), with
the texts branches grade: a task's output, a nested team's answer, a phase's findings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.engine.nesting import Nesting
from framework.engine.records import Finding, Task, WorkerResult
from framework.evals.cases import Branch
from framework.evals.results import BranchResult
from framework.kinds.team_phases import ASSESSORS
from framework.retention.snapshot import thread_snapshot
from framework.retention.tree import NestedRun, nested_runs

if TYPE_CHECKING:
    from framework.persistence.reader import CheckpointReader

__all__ = ["Node", "branch_texts", "read_tree"]


@dataclass(kw_only=True)
class Node:
    """One team of the tree: where it ran, its tasks, their results, its answer."""

    team: str
    nesting: Nesting | None
    tasks: Mapping[str, Task]
    results: Mapping[str, WorkerResult]
    findings: Mapping[str, list[Finding]]
    answer: str
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


def _node(team: str, nesting: Nesting | None, values: Mapping[str, Any]) -> Node:
    return Node(
        team=team,
        nesting=nesting,
        tasks=dict(values.get("tasks") or {}),
        results=dict(values.get("worker_results") or {}),
        findings=dict(values.get("findings") or {}),
        answer=str(values.get("final_answer") or ""),
    )


def _nested(run: NestedRun) -> Node:
    node = _node(run.nesting.team, run.nesting, run.values)
    node.children = [_nested(below) for _, below in sorted(run.below.items())]
    return node


def read_tree(saver: CheckpointReader, thread_id: str, team: str) -> Node:
    """The thread's tree: the top team, each nested team under the task it answered (its
    latest run of that task).

    Raises:
        CryptoError: A blob cannot be opened with the saver's keys.
    """
    top = _node(team, None, thread_snapshot(saver, thread_id).values)
    top.children = [_nested(run) for _, run in sorted(nested_runs(saver, thread_id).items())]
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
