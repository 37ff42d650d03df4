"""TeamWorker: a whole team behind one worker kind, each task run as a nested team.

Each task runs the compiled team with the task's description as its question. The team is
invoked from inside the worker node, so it runs as a subgraph of the run: LangGraph hands it the
node's config (thread, checkpointer and a checkpoint namespace of its own under the task's,
callbacks, store), a pause inside it pauses the run, and the policies of its nodes see the same
thread as the parent's (a budget counts both). Its nodes know where it runs (the task and kind,
and the path down to it: :class:`~framework.engine.nesting.Nesting`), so a review it pauses for
names its place in the tree. Its answer and the evidence its workers cited
(sources ``path:line`` as they were) come back as the task's result, with what its nodes used
under policies, so the parent's state keeps the usage of the whole tree, and the decisions made
in it (human reviews, policies), which go to the parent's audit trails: one trail for the tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from framework.engine.nesting import NESTING_KEY
from framework.engine.records import Evidence, ReviewVerdict, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.policy.records import PolicyEntry
from framework.review.records import AuditEntry

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph

__all__ = ["TeamResult", "TeamWorker", "team_result"]


class TeamResult(WorkerResult):
    """A nested team's result with the decisions made in it: the worker node writes them to
    its team's ``audit`` and ``policy_audit`` and keeps the result without them."""

    audit: list[AuditEntry] = Field(default_factory=list)
    policy_audit: list[PolicyEntry] = Field(default_factory=list)

    def carried(self) -> tuple[WorkerResult, dict[str, Any]]:
        """The result as a plain :class:`WorkerResult`, and the trails that are not empty."""
        fields = {name: getattr(self, name) for name in WorkerResult.model_fields}
        trails = {"audit": self.audit, "policy_audit": self.policy_audit}
        return WorkerResult(**fields), {key: value for key, value in trails.items() if value}


class TeamWorker:
    """Runs each task as a nested run of ``team``.

    Args:
        team: The compiled team (no checkpointer of its own: it takes the run's).
        name: What to call the team in results and errors.
    """

    def __init__(self, team: CompiledStateGraph[Any, Any, Any, Any], name: str) -> None:
        self.team = team
        self.name = name

    def __repr__(self) -> str:
        return f"TeamWorker({self.name})"

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task as a nested team (sync graphs)."""
        final = self.team.invoke({"question": task.description}, self._config(task, context))
        return self._result(task, final)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task as a nested team (async graphs)."""
        config = self._config(task, context)
        return self._result(task, await self.team.ainvoke({"question": task.description}, config))

    def _config(self, task: Task, context: NodeContext) -> RunnableConfig:
        """What the nested run adds to the node's config (LangGraph merges it over the node's,
        so the thread, namespace, checkpointer and callbacks stay the node's): where it runs."""
        return {"metadata": {NESTING_KEY: context.nested(task, self.name).dumps()}}

    def _result(self, task: Task, final: Mapping[str, Any]) -> TeamResult:
        """The task's result from the team's final state, with the decisions made in it."""
        result = team_result(task, self.name, final)
        trails = {key: final.get(key) or [] for key in ("audit", "policy_audit")}
        return TeamResult(**dict(result), **trails)


def team_result(task: Task, name: str, final: Mapping[str, Any]) -> WorkerResult:
    """The result of ``task`` from the final state of the team ``name`` that ran it: its answer,
    its workers' evidence and its usage; failed when it answered nothing, or every task it ran
    failed (with the first failure); refused, so not retried, when a person or a policy refused
    every task it ran."""
    results = [WorkerResult.model_validate(r) for r in (final.get("worker_results") or {}).values()]
    done = [result for result in results if result.status == "ok"]
    evidence = _evidence([*(e for r in done for e in r.evidence), *final.get("evidence", [])])
    usage = {key: record for result in results for key, record in result.usage.items()}
    usage.update(final.get("usage") or {})
    answer = str(final.get("final_answer") or "")
    refusal = None if done else _refusal(final, results)
    error = None
    if refusal is not None:  # a person or a policy refused every task: not to be retried
        error = f"every task of team {name} was refused; first: {refusal}"
    elif not answer:
        error = f"team {name} gave no answer"
    elif results and not done:
        error = f"every task of team {name} failed; first: {results[0].error}"
    reflection = final.get("reflection")
    return WorkerResult(
        task_id=task.id,
        status="failed" if error else "ok",
        output=answer,
        evidence=evidence,
        confidence=_confidence(reflection, done),
        error=error,
        attempt=task.attempt,
        usage=usage,
        refused=refusal is not None,
    )


def _refusal(final: Mapping[str, Any], results: list[WorkerResult]) -> str | None:
    """Why every task of a nested team was refused (a reviewer rejected it, or a policy or a
    person refused its run), the first reason; None when one was not."""
    tasks = [Task.model_validate(task) for task in (final.get("tasks") or {}).values()]
    refused = {result.task_id: result for result in results if result.refused}
    if not tasks or not all(t.status == "rejected" or t.id in refused for t in tasks):
        return None
    rejections = final.get("rejections") or {}
    first = tasks[0]
    if first.id in refused:
        return refused[first.id].error or "refused"
    return f"task {first.id} rejected: {rejections.get(first.id, 'no reason given')}"


def _evidence(found: list[Any]) -> list[Evidence]:
    """``found`` as records, each passage once."""
    unique: dict[tuple[str, str], Evidence] = {}
    for item in found:
        evidence = Evidence.model_validate(item)
        unique.setdefault((evidence.source, evidence.text), evidence)
    return list(unique.values())


def _confidence(reflection: Any, done: list[WorkerResult]) -> float:
    """The team reviewer's confidence, else its workers' mean (0 without either)."""
    if reflection is not None:
        return ReviewVerdict.model_validate(reflection).confidence
    return sum(result.confidence for result in done) / len(done) if done else 0.0
