"""Plain-text views of review requests, a thread's state and its history for the terminal."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from framework.cli._teams import shown_team
from framework.cli.common import REVIEWER_VARIABLE
from framework.engine.nesting import namespace_nodes
from framework.engine.records import Plan, Task
from framework.policy.records import PolicyEntry, usage_totals
from framework.retention.pruning import ThreadStatus
from framework.review import (
    AnswerReview,
    AnyReviewRequest,
    AuditEntry,
    CheckpointSummary,
    PlanReview,
    TaskReview,
    pending_revision,
)
from framework.review.records import PolicyReview, QuestionReview
from framework.runs.spec import RunSpec

if TYPE_CHECKING:
    from framework.retention.tree import NestedRun
    from framework.runs.runner import RunResult

__all__ = [
    "history_lines",
    "kind_label",
    "namespace_path",
    "next_commands",
    "report_outcome",
    "request_lines",
    "thread_lines",
]

_PREVIEW = 160
"""Characters of an answer shown in a request; ``cadre show`` prints all of it."""


def _short(text: str, limit: int = _PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _task_line(task: Task, reason: str | None = None) -> str:
    retry = f" [retry {task.attempt}]" if task.attempt else ""
    why = f" ({reason})" if reason else ""
    return (
        f"{task.id}  {task.kind:<8}  {task.status:<8}  {_short(task.description, 100)}{retry}{why}"
    )


def _subject(request: AnyReviewRequest) -> list[str]:
    """What a request asks the reviewer to look at."""
    if isinstance(request, PlanReview):
        return [f"goal: {_short(request.plan.goal)}"] + [_task_line(task) for task in request.tasks]
    if isinstance(request, TaskReview):
        inputs = json.dumps(request.task.inputs, ensure_ascii=False)
        return [_task_line(request.task), f"inputs: {_short(inputs)}"]
    if isinstance(request, AnswerReview):
        return [f"draft: {_short(request.draft or request.consolidated)}"]
    if isinstance(request, PolicyReview):
        task = f" (task {request.task_id})" if request.task_id else ""
        return [
            f"policy {request.policy} asks at {request.hook} on {request.target}{task}: "
            f"{_short(request.question)}",
            f"call: {_short(request.summary)}",
        ]
    if isinstance(request, QuestionReview):
        return [f"{request.remote} asks (task {request.task_id}): {_short(request.question)}"]
    return [f"input: {_short(request.summary)}"]  # a NodeReview


def kind_label(kind: str) -> str:
    """A request kind as the reviewer reads it: ``plan review``, ``task review``."""
    return f"{'task' if kind == 'tasks' else kind} review"


def request_lines(request: AnyReviewRequest, *, subject: bool = True) -> list[str]:
    """A request: its id, kind and team path, what to review (unless ``subject`` is False),
    and the decisions it allows."""
    lines = [f"{request.id}  {kind_label(request.kind)}  at {request.place} (node {request.node})"]
    lines += [f"    {line}" for line in _subject(request)] if subject else []
    lines.append(f"    allowed: {', '.join(request.allowed)}")
    return lines


_COMMANDS: Mapping[str, str] = {
    "edit_plan": "cadre edit {thread} --plan FILE",
    "edit_tasks": "cadre edit {thread} --tasks FILE",
    "reject_tasks": "cadre reject {thread} TASK_ID... --reason TEXT",
    "edit_answer": "cadre edit {thread} --answer FILE",
    "reject": "cadre reject {thread} --reason TEXT",
    "respond": "cadre respond {thread} TEXT",
}


def next_commands(
    thread_id: str, requests: Sequence[AnyReviewRequest], home: Path | None
) -> list[str]:
    """The commands that continue a paused thread, for the decisions its requests allow; each
    names the revision of the pending requests, so it is refused once they changed."""
    thread = shlex.quote(thread_id)
    revision = f" --revision {pending_revision(requests)}"
    commands = [f"cadre approve {thread}{revision}"]
    if len(requests) > 1:
        commands.append(f"cadre approve {thread} REQUEST_ID{revision}")
    allowed = {kind for request in requests for kind in request.allowed}
    commands += [
        template.format(thread=thread) + revision
        for kind, template in _COMMANDS.items()
        if kind in allowed
    ]
    commands.insert(0, f"cadre show {thread}")
    suffix = f" --home {shlex.quote(str(home))}" if home is not None else ""
    return [command + suffix for command in commands]


def _plan_lines(plan: Plan | None, *, below: bool = False) -> list[str]:
    """The team's plan; ``below``: the team ran teams, whose plans are under its tasks."""
    if plan is None:
        return [
            "plan: none at the top (its teams' plans are under their tasks)"
            if below
            else "plan: none yet"
        ]
    lines = [f"plan: {plan.goal}"]
    if plan.rationale:
        lines.append(f"  rationale: {plan.rationale}")
    if plan.direct_answer is not None:
        lines.append(f"  direct answer: {_short(plan.direct_answer)}")
    return lines


def _audit_line(entry: AuditEntry) -> str:
    where = f" at {entry.where}" if entry.where else ""
    said = _short(entry.response) if entry.response else entry.reason
    reason = f": {said}" if said else ""
    return (
        f"{entry.at}  {entry.reviewer}  {entry.decision_kind} on "
        f"{kind_label(entry.request_kind)} {entry.request_id}{where}{reason}"
    )


def _status_line(status: ThreadStatus, requests: Sequence[AnyReviewRequest]) -> str:
    """``paused at review (2 pending, revision ...)``, ``failed: ...``: the words of
    ``cadre threads``."""
    if status.status == "paused":
        return f"{status.label} ({len(requests)} pending, revision {pending_revision(requests)})"
    if status.status == "failed" and status.error:
        return f"{status.label}: {_short(status.error)}"
    if status.status == "interrupted":
        return f"{status.label} (continue with `cadre resume {shlex.quote(status.thread_id)}`)"
    return status.label


def thread_lines(
    info: RunSpec,
    status: ThreadStatus,
    values: Mapping[str, Any],
    requests: Sequence[AnyReviewRequest],
    review_points: Iterable[str] = (),
    nested: Mapping[str, NestedRun] | None = None,
    nested_points: Sequence[tuple[str, Iterable[str]]] = (),
) -> list[str]:
    """``cadre show``: the thread's settings, status (as ``cadre threads`` names it), plan,
    tasks with status (under each, the plan and tasks of the team it ran, from ``nested``),
    requests, audit trail and answer; ``review_points`` are those its team pauses at besides
    the recorded ``--review`` (a team file's), ``nested_points`` those of the teams it nests
    (team name, points)."""
    thread_id = status.thread_id
    review = _review_points({*info.review, *review_points}, nested_points)
    versions = ", ".join(f"{name} v{version}" for name, version in info.prompt_versions)
    lines = [
        f"thread {thread_id}: team {shown_team(info.team)}, model {info.model or 'offline'}, "
        f"review {review}",
        f"corpus: {info.corpus}",
        f"prompts: {versions or 'none'}",
        f"status: {_status_line(status, requests)}",
        f"question: {values.get('question', '')}",
        *_plan_lines(values.get("plan"), below=bool(nested)),
    ]
    rows = _task_lines(values, nested or {}, "  ")
    lines.append(f"tasks: {_task_count(values, nested or {})}")
    lines += rows
    lines.append(f"pending: {len(requests)}")
    lines += [
        f"  {line}"
        for request in requests
        for line in request_lines(request, subject=not isinstance(request, PlanReview))
    ]
    audit: Sequence[AuditEntry] = values.get("audit") or []
    lines.append(f"audit: {len(audit)} decision(s)")
    lines += [f"  {_audit_line(entry)}" for entry in sorted(audit, key=lambda entry: entry.at)]
    lines += policy_lines(info, values)
    answer = values.get("final_answer") or values.get("consolidated") or ""
    label = "answer" if status.status == "done" else "draft answer"
    lines += [f"{label}:", answer] if answer else [f"{label}: none yet"]
    return lines


def _review_points(top: Iterable[str], nested: Sequence[tuple[str, Iterable[str]]]) -> str:
    """``plan``, ``tasks; plan in team legal``: the top team's points, then each nested
    team's; ``none`` when no level pauses."""
    parts = [",".join(sorted(top))] if top else []
    parts += [f"{','.join(sorted(points))} in team {team}" for team, points in nested]
    return "; ".join(part for part in parts if part) or "none"


def _running(values: Mapping[str, Any], nested: Mapping[str, NestedRun]) -> list[NestedRun]:
    """The nested runs of tasks the team has not filed yet (a coordinator's step whose team
    is still running files its task when it ends)."""
    tasks: Mapping[str, Task] = values.get("tasks") or {}
    return [run for task_id, run in nested.items() if task_id not in tasks]


def _task_count(values: Mapping[str, Any], nested: Mapping[str, NestedRun]) -> str:
    """``3``, or ``1 (4 in the teams below)`` for a team that ran teams."""
    own = len(values.get("tasks") or {}) + len(_running(values, nested))
    below = sum(_below(run) for run in nested.values())
    return f"{own} ({below} in the teams below)" if nested else str(own)


def _below(run: NestedRun) -> int:
    """The tasks of a nested run and of the runs under it."""
    return len(run.values.get("tasks") or {}) + sum(_below(inner) for inner in run.below.values())


def _task_lines(
    values: Mapping[str, Any], nested: Mapping[str, NestedRun], indent: str
) -> list[str]:
    """A team's tasks, each followed by the plan and tasks of the team it ran (indented); a
    task not filed yet whose team runs (a coordinator's step) is listed as running."""
    rejections: Mapping[str, str] = values.get("rejections") or {}
    lines = []
    for task in (values.get("tasks") or {}).values():
        reason = rejections.get(task.id) if task.status == "rejected" else None
        lines.append(f"{indent}{_task_line(task, reason)}")
        run = nested.get(task.id)
        lines += _nested_lines(run, indent) if run is not None else []
    for run in _running(values, nested):
        question = _short(str(run.values.get("question") or ""), 100)
        lines.append(
            f"{indent}{run.nesting.task}  {run.nesting.kind:<8}  {'running':<8}  {question}"
        )
        lines += _nested_lines(run, indent)
    return lines


def _nested_lines(run: NestedRun, indent: str) -> list[str]:
    """The team a task ran: its name, task count and plan, then its tasks."""
    count = len(run.values.get("tasks") or {})
    plan: Plan | None = run.values.get("plan")
    planned = f"plan: {_short(plan.goal, 100)}" if plan is not None else "plan: none yet"
    return [
        f"{indent}    team {run.nesting.team}: {count} task(s), {planned}",
        *_task_lines(run.values, run.below, indent + "      "),
    ]


def _policy_line(entry: PolicyEntry) -> str:
    task = f" task {entry.task_id}" if entry.task_id else ""
    by = f" by {entry.by}" if entry.by != "policy" else ""
    return (
        f"{entry.at}  {entry.policy}  {entry.action}{by} at {entry.hook} on {entry.target} "
        f"({entry.place}, node {entry.node}{task}): {_short(entry.reason)}"
    )


def policy_lines(info: RunSpec, values: Mapping[str, Any]) -> list[str]:
    """The policies a thread runs under, what it used, and the policy audit trail."""
    if info.policy is None and not values.get("policy_audit"):
        return ["policies: none"]
    principal = info.principal
    who = f", for {principal.user}@{principal.tenant}" if principal is not None else ""
    lines = [f"policies: version {info.policy_version or 'none'}{who}"]
    totals = usage_totals(values)
    estimated = totals.pop("estimated_model_calls", 0)
    if totals:
        used = ", ".join(f"{key} {amount:g}" for key, amount in sorted(totals.items()))
        lines.append(f"usage: {used}")
    if estimated:
        lines.append(
            f"  {estimated:g} model call(s) reported no usage: their tokens are estimated "
            "(about 4 characters per token)"
        )
    trail: Sequence[PolicyEntry] = values.get("policy_audit") or []
    lines.append(f"policy audit: {len(trail)} decision(s)")
    lines += [f"  {_policy_line(entry)}" for entry in sorted(trail, key=lambda e: e.at)]
    return lines


def namespace_path(checkpoint_ns: str) -> str:
    """A checkpoint namespace as the path of nodes it is under (``research_team``), or
    ``top`` for the top-level graph."""
    return "/".join(namespace_nodes(checkpoint_ns)) or "top"


def history_lines(entries: Iterable[CheckpointSummary]) -> list[str]:
    """``cadre history``: a header, then one line per checkpoint, newest first, its place last
    (in words, as reviews and audits write it)."""
    rows = [("checkpoint", "step", "written by", "state", "place")] + [
        (
            entry.checkpoint_id,
            str(entry.step),
            entry.node or "-",
            entry.summary,
            entry.place or namespace_path(entry.checkpoint_ns),
        )
        for entry in entries
    ]
    node = max(16, *(len(row[2]) for row in rows))
    state = max(5, *(len(row[3]) for row in rows))
    return [
        f"{checkpoint:<36}  {step:>4}  {writer:<{node}}  {summary:<{state}}  {where}".rstrip()
        for checkpoint, step, writer, summary, where in rows
    ]


def report_outcome(
    result: RunResult,
    requests: Sequence[AnyReviewRequest],
    home: Path | None,
    *,
    announce: bool = False,
    shown: str = "",
) -> None:
    """Print on stdout how a run part ended: the pending requests and how to continue, or the
    final answer (the rest of it, when its start was ``shown`` as it was written).

    Args:
        result: The run part's result.
        requests: The review requests it paused at (empty when it finished).
        home: The ``--home`` the command was given, repeated in the commands it suggests.
        shown: What of the answer was printed already, as it was written.
        announce: Say that the thread finished before its answer (the review commands do;
            ``cadre run`` prints the bare answer).

    Raises:
        WorkerError: The run finished with every task failed (see :meth:`RunResult.failure`).
    """
    thread = result.thread_id
    if not requests:
        if (failure := result.failure()) is not None:
            raise failure
        if announce:
            typer.echo(f"thread {thread} finished; its answer:\n")
        answer = str(result.state.get("final_answer", ""))
        typer.echo(answer.removeprefix(shown) if answer.startswith(shown) else f"\n{answer}")
        return
    typer.echo(
        f"paused for review: thread {thread} has {len(requests)} pending request(s) "
        f"(revision {pending_revision(requests)})"
    )
    for request in requests:
        typer.echo("\n".join(f"  {line}" for line in request_lines(request)))
    typer.echo(f"continue with (the reviewer comes from --reviewer or ${REVIEWER_VARIABLE}):")
    typer.echo("\n".join(f"  {command}" for command in next_commands(thread, requests, home)))
