"""The steps of a coordinator (:func:`teams.meta.graph.build_coordinator`), run in order.

- :class:`Intake`: normalizes the question (refused when empty).
- :class:`Subteam`: a team as a compiled subgraph node: the keys its state shares with the
  coordinator's flow both ways (the MetaCoordinator's research phase).
- :class:`NestedTeam`: a team run by a :class:`~framework.engine.team_worker.TeamWorker` on the
  question, as one task named by the step (a team file's ``team:`` phase): its result is filed
  under that name in ``worker_results`` (answer, cited evidence) and its usage in ``usage``
  (so a budget counts the whole tree, a resume included), and the answer so far
  is every such team's answer in step order, so teams that share state keys never mix.
- :class:`Assess`: an assessor's findings, under the step's name.
- :class:`Notes`: the assessors' findings appended to the answer (a note section).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from framework.engine.builder import compile_team
from framework.engine.middleware import Middleware
from framework.engine.nodes.team_node import TeamNode
from framework.engine.nodes.worker import WorkerBodies
from framework.engine.records import Finding, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.engine.team_worker import TeamWorker
from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.errors import ConfigError
from framework.policy import inherit_policies
from teams.language.answer_layout import note_section
from teams.meta.assessors import Assessor

__all__ = [
    "TEAM",
    "Assess",
    "Intake",
    "NestedTeam",
    "Notes",
    "Phase",
    "Step",
    "Subteam",
    "combined_answer",
    "intake",
]

TEAM = "meta"

Phase = StateGraph[Any, Any, Any, Any] | CompiledStateGraph[Any, Any, Any, Any]
"""A team run as one node of the coordinator: any graph whose state has ``question`` and
``final_answer``."""

State = Mapping[str, Any]


def intake(state: State, context: NodeContext) -> dict[str, Any]:
    """Normalize the question (refused when empty) and note its length."""
    question = _question(state)
    finding = Finding(
        phase="intake", severity="info", message=f"question of {len(question.split())} words"
    )
    context.emit("intake", question=question)
    return {"question": question, "findings": {"intake": [finding]}}


def _question(state: State) -> str:
    question = " ".join(str(state.get("question") or "").split())
    if not question:
        raise ConfigError("the question is empty: pass the question to research")
    return question


@dataclass(frozen=True)
class Intake:
    """The intake step."""

    name: str = "intake"

    def node(self, team: str, middleware: Sequence[Middleware], teams: Sequence[str]) -> Any:
        """Its node in coordinator ``team``."""
        return TeamNode(self.name, team, intake, middleware=middleware)


@dataclass(frozen=True)
class Subteam:
    """A team as a subgraph node named ``name``; the coordinator's policies govern it."""

    name: str
    team: Phase

    def node(self, team: str, middleware: Sequence[Middleware], teams: Sequence[str]) -> Any:
        """The compiled team."""
        inherit_policies(self.team, middleware)
        graph = self.team
        return compile_team(graph, name=self.name) if isinstance(graph, StateGraph) else graph


@dataclass(frozen=True)
class Assess:
    """An assessor's step: its findings under ``name``."""

    name: str
    assessor: Assessor

    def node(self, team: str, middleware: Sequence[Middleware], teams: Sequence[str]) -> Any:
        """Its node in coordinator ``team``."""

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            found = self.assessor.assess(state, context)
            findings = [Finding.model_validate(f) for f in found]
            context.emit(self.name, findings=[f.model_dump() for f in findings])
            return {"findings": {self.name: findings}}

        return TeamNode(self.name, team, body, middleware=middleware)


@dataclass(frozen=True)
class NestedTeam:
    """A team run nested on the question, as the one task ``name`` (its kind too), by
    ``worker``: a pause inside it pauses the run, its usage and decisions come up with its
    result, and a failure is a failed result, as for a ``team:`` kind."""

    name: str
    worker: TeamWorker
    description: str = field(default="")

    def node(self, team: str, middleware: Sequence[Middleware], teams: Sequence[str]) -> Any:
        """Its worker node in coordinator ``team``: one kind, the step's."""
        kinds = WorkerKinds([WorkerKind(name=self.name, worker=self.worker)])
        bodies = WorkerBodies(kinds)
        before = list(teams[: teams.index(self.name)])

        def payload(state: State) -> Any:
            question = _question(state)
            task = Task(id=self.name, description=question, kind=self.name)
            return {"task": task, "question": question, "dispatch_id": self.name}

        def update(state: State, done: dict[str, Any]) -> dict[str, Any]:
            result: WorkerResult = done["worker_results"][self.name]
            status = "done" if result.status == "ok" else "failed"
            results = state.get("worker_results") or {}
            answers = [(name, results[name]) for name in before if name in results]
            task = Task(id=self.name, description=_question(state), kind=self.name, status=status)
            answer = combined_answer(_question(state), [*answers, (self.name, result)])
            filed = {"usage": dict(result.usage)} if result.usage else {}  # as an aggregator
            return {**done, **filed, "tasks": {self.name: task}, "final_answer": answer}

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            return update(state, bodies.run(payload(state), context))

        async def abody(state: State, context: NodeContext) -> dict[str, Any]:
            return update(state, await bodies.arun(payload(state), context))

        def refused(state: State, reason: str) -> dict[str, Any]:
            return update(state, WorkerBodies.refused(payload(state), reason))

        return TeamNode(
            self.name, team, body, abody, middleware=middleware, refusal=refused, role=kinds
        )


@dataclass(frozen=True)
class Notes:
    """The assessors' findings appended to the answer, in an ``Assessment`` note section."""

    name: str = "notes"

    def node(self, team: str, middleware: Sequence[Middleware], teams: Sequence[str]) -> Any:
        """Its node in coordinator ``team``."""

        def body(state: State, context: NodeContext) -> dict[str, Any]:
            found: Mapping[str, list[Finding]] = state.get("findings") or {}
            lines = [
                f"- {phase}: {finding.severity}: {finding.message}"
                for phase, findings in found.items()
                if phase != "intake"
                for finding in findings
            ]
            if not lines:
                return {}
            answer = str(state.get("final_answer") or "").rstrip("\n")
            return {"final_answer": "\n".join([answer, "", *note_section("Assessment", lines)])}

        return TeamNode(self.name, team, body, middleware=middleware)


Step = Intake | Subteam | NestedTeam | Assess | Notes
"""One step of a coordinator."""


def combined_answer(question: str, answers: Sequence[tuple[str, WorkerResult]]) -> str:
    """The answer of a coordinator of nested teams: each team's answer under its step's name
    (its own title left out), in order, then the teams that failed (``Unresolved``)."""
    lines = [f"# {question}", ""]
    failed = []
    for name, result in answers:
        if result.status != "ok":
            failed.append(f"- {name}: {result.error}")
            continue
        body = result.output.strip("\n").splitlines()
        if body and body[0].startswith("# "):
            body = body[1:]
        lines += [f"## {name}", *body, ""]
    if failed:
        lines += note_section("Unresolved", failed)
    return "\n".join(lines).rstrip("\n") + "\n"
