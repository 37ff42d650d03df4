"""TeamWorker: a whole team behind one worker kind, each task run as a nested team.

Each task runs the compiled team with the task's description as its question. The team is
invoked from inside the worker node, so it runs as a subgraph of the run: LangGraph hands it the
node's config (thread, checkpointer and a checkpoint namespace of its own under the task's,
callbacks, store), a pause inside it pauses the run, and the policies of its nodes see the same
thread as the parent's (a budget counts both). Its answer and the evidence its workers cited
(sources ``path:line`` as they were) come back as the task's result, with what its nodes used
under policies, so the parent's state keeps the usage of the whole tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from framework.engine.records import Evidence, ReviewVerdict, Task, WorkerResult
from framework.engine.runtime import NodeContext

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

__all__ = ["TeamWorker", "team_result"]


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
        return team_result(task, self.name, self.team.invoke({"question": task.description}))

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task as a nested team (async graphs)."""
        final = await self.team.ainvoke({"question": task.description})
        return team_result(task, self.name, final)


def team_result(task: Task, name: str, final: Mapping[str, Any]) -> WorkerResult:
    """The result of ``task`` from the final state of the team ``name`` that ran it: its answer,
    its workers' evidence and its usage; failed when it answered nothing, or every task it ran
    failed (with the first failure)."""
    results = [WorkerResult.model_validate(r) for r in (final.get("worker_results") or {}).values()]
    done = [result for result in results if result.status == "ok"]
    evidence = _evidence([*(e for r in done for e in r.evidence), *final.get("evidence", [])])
    usage = {key: record for result in results for key, record in result.usage.items()}
    usage.update(final.get("usage") or {})
    answer = str(final.get("final_answer") or "")
    error = None
    if not answer:
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
    )


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
