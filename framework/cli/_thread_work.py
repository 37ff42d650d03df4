"""The work of the thread commands (:mod:`framework.cli.review`), imported when one runs.

Each command rebuilds the thread's app from what ``cadre run`` recorded (see
:mod:`framework.runs.threads`) and calls the review API (:mod:`framework.review`) on it.
``cadre show``, ``cadre reviews`` and ``cadre history`` compile nothing: their work is in
:mod:`framework.cli._thread_view`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from langchain_core.runnables import RunnableConfig
from rich.console import Console

from framework.cli._edits import read_answer, read_plan, read_tasks
from framework.cli._render import namespace_path, report_outcome
from framework.cli._targets import (
    approvals,
    describe,
    plan_edit,
    question_response,
    task_decisions,
    text_edit,
)
from framework.cli.common import announce_thread, reviewer_name
from framework.cli.progress import ProgressPrinter
from framework.cli.stopping import stoppable
from framework.database.home import resolve_home
from framework.errors import ReviewError
from framework.review import (
    AnyReviewRequest,
    Decision,
    adecide,
    fork,
    history,
    pending,
    pending_revision,
)
from framework.runs.launch import Launched, relaunch
from framework.runs.observe import ObserverOptions
from framework.runs.runner import RunResult, arun_team
from framework.runs.spec import RunSpec
from framework.runs.threads import read_thread_spec

__all__ = [
    "approve_requests",
    "edit_requests",
    "fork_and_run",
    "reject_tasks",
    "respond_to_question",
    "resume_thread",
]


@contextmanager
def _opened(
    home: Path | None, thread_id: str, *, observe: bool = False, policy: str | None = None
) -> Iterator[tuple[Launched, RunSpec]]:
    """The thread's app: observed (spans of the run part it resumes) when ``observe``, else
    compiled only to read the thread (no corpus indexed, no chat model built); under
    ``policy`` (a policy file's text) instead of the thread's when given."""
    options = ObserverOptions() if observe else None
    data_home = resolve_home(home)
    info = None
    if policy is not None:
        info = read_thread_spec(data_home, thread_id).model_copy(update={"policy": policy})
    launched, info = relaunch(
        data_home, thread_id, observe=options, spec=info, read_only=not observe
    )
    with launched:
        yield launched, info


def _decide(
    home: Path | None,
    thread_id: str,
    reviewer: str | None,
    choose: Callable[[Sequence[AnyReviewRequest], str], list[Decision]],
    revision: str | None,
    *,
    policy: str | None = None,
) -> None:
    """Decide what ``choose`` picks among the pending requests, then report how the run went
    on. With ``revision``, the pending set must still be the one the reviewer saw (a request
    decided meanwhile, or a new one, refuses the decision; the review API checks the ids again
    under the thread's hold). With ``policy`` (a policy file's text), the run goes on under it
    instead of the thread's, and records it."""
    name = reviewer_name(reviewer)
    announce_thread(thread_id, home)
    with _opened(home, thread_id, observe=True, policy=policy) as (launched, info):
        requests = pending(launched.app, thread_id)
        if revision is not None and (now := pending_revision(requests)) != revision:
            ids = ", ".join(request.id for request in requests) or "none"
            raise ReviewError(
                f"thread {thread_id!r} changed since revision {revision}: its pending requests "
                f"are now {ids} (revision {now}); look at them with `cadre show {thread_id}` "
                "before deciding"
            )
        # with nothing pending, _decide() refuses: the thread is finished, or waits for no review
        decisions = choose(requests, name) if requests else []
        with stoppable():
            result = asyncio.run(
                adecide(
                    launched.app,
                    thread_id,
                    decisions,
                    on_event=ProgressPrinter(Console(stderr=True)),
                    observer=launched.observer,
                    metadata=info.metadata() if policy is not None else None,
                )
            )
        typer.echo("\n".join(describe(decision, requests) for decision in decisions))
        after = pending(launched.app, thread_id)
    report_outcome(result, after, home, announce=True)


def _edit_decisions(
    plan: Path | None, tasks: Path | None, answer: Path | None, request_id: str | None, thread: str
) -> Callable[[Sequence[AnyReviewRequest], str], list[Decision]]:
    """Read and validate the one edit file given; return how to turn it into decisions."""
    one = "give exactly one of --plan FILE, --tasks FILE or --answer FILE"
    if sum(path is not None for path in (plan, tasks, answer)) > 1:
        raise ReviewError(one)
    if plan is not None:
        new_plan = read_plan(plan)
        return lambda requests, name: plan_edit(requests, new_plan, request_id, name, thread)
    if tasks is not None:
        new_tasks = read_tasks(tasks)
        return lambda requests, name: task_decisions(
            requests,
            kind="edit_tasks",
            reviewer=name,
            thread=thread,
            tasks=new_tasks,
            request_id=request_id,
        )
    if answer is not None:
        text = read_answer(answer)
        return lambda requests, name: text_edit(requests, text, request_id, name, thread)
    raise ReviewError(one)


def _checkpoint_namespace(app: Any, thread: str, checkpoint_id: str) -> str:
    """The namespace of a checkpoint of ``thread``, from its history."""
    for entry in history(app, thread):
        if entry.checkpoint_id == checkpoint_id:
            return entry.checkpoint_ns
    raise ReviewError(
        f"unknown checkpoint {checkpoint_id!r} in thread {thread!r}: see `cadre history {thread}`"
    )


def _run_on(launched: Launched, thread: str, metadata: dict[str, str] | None = None) -> RunResult:
    """Run ``thread`` on from its last checkpoint, async (each result saved as its task ends),
    printing progress on stderr."""
    with stoppable():
        return asyncio.run(
            arun_team(
                launched.app,
                None,
                thread,
                on_event=ProgressPrinter(Console(stderr=True)),
                observer=launched.observer,
                metadata=metadata,
            )
        )


def approve_requests(
    thread: str,
    request_id: str | None,
    reviewer: str | None,
    home: Path | None,
    revision: str | None,
    policy: str | None = None,
) -> None:
    """``cadre approve``: approve one pending request, or all, and let the run go on."""
    _decide(
        home,
        thread,
        reviewer,
        lambda requests, name: approvals(requests, request_id, name, thread),
        revision,
        policy=policy,
    )


def edit_requests(
    thread: str,
    edits: tuple[Path | None, Path | None, Path | None],
    request_id: str | None,
    reviewer: str | None,
    home: Path | None,
    revision: str | None,
    policy: str | None = None,
) -> None:
    """``cadre edit``: replace the plan, tasks or answer under review (``edits``), go on."""
    reviewer_name(reviewer)
    plan, tasks, answer = edits
    choose = _edit_decisions(plan, tasks, answer, request_id, thread)
    _decide(home, thread, reviewer, choose, revision, policy=policy)


def reject_tasks(
    thread: str,
    task_ids: Sequence[str],
    why: str,
    request_id: str | None,
    reviewer: str | None,
    home: Path | None,
    revision: str | None,
    policy: str | None = None,
) -> None:
    """``cadre reject``: reject tasks under review (never dispatched), and go on; without
    tasks, reject what policies and remote agents asked (the calls are refused, the remotes'
    tasks fail, with the reason)."""
    if not task_ids:
        _decide(
            home,
            thread,
            reviewer,
            lambda requests, name: ask_rejections(requests, name, why, request_id),
            revision,
            policy=policy,
        )
        return
    _decide(
        home,
        thread,
        reviewer,
        lambda requests, name: task_decisions(
            requests,
            kind="reject_tasks",
            reviewer=name,
            thread=thread,
            task_ids=task_ids,
            reason=why,
            request_id=request_id,
        ),
        revision,
        policy=policy,
    )


def respond_to_question(
    thread: str,
    response: str,
    request_id: str | None,
    reviewer: str | None,
    home: Path | None,
    revision: str | None,
    policy: str | None = None,
) -> None:
    """``cadre respond``: send ``response`` to the remote agent whose question is under
    review, and go on."""
    _decide(
        home,
        thread,
        reviewer,
        lambda requests, name: question_response(requests, response, request_id, name, thread),
        revision,
        policy=policy,
    )


def ask_rejections(
    requests: Sequence[AnyReviewRequest], reviewer: str, why: str, request_id: str | None
) -> list[Decision]:
    """Reject decisions for the pending policy and question requests (the one ``request_id``
    starts)."""
    chosen = [
        request
        for request in requests
        if request.kind in ("policy", "question")
        and (request_id is None or request.id.startswith(request_id))
    ]
    if not chosen:
        raise ReviewError(
            "no policy or question request is pending"
            + (f" with id {request_id!r}" if request_id else "")
            + ": name the tasks to reject (cadre reject THREAD TASK_ID... --reason TEXT)"
        )
    return [Decision(request_id=r.id, kind="reject", reviewer=reviewer, reason=why) for r in chosen]


def fork_and_run(
    thread: str,
    checkpoint_id: str,
    plan: Path | None,
    ns: str | None,
    reviewer: str | None,
    home: Path | None,
    policy: str | None = None,
) -> None:
    """``cadre fork``: fork the thread at a checkpoint into a new one and run that on (under
    ``policy``, a policy file's text, instead of the thread's when given)."""
    name = reviewer_name(reviewer) if plan is not None else (reviewer or "")
    edited = read_plan(plan) if plan is not None else None
    with _opened(home, thread, observe=True, policy=policy) as (launched, info):
        namespace = (
            ns if ns is not None else _checkpoint_namespace(launched.app, thread, checkpoint_id)
        )
        new_thread = fork(
            launched.app, thread, checkpoint_id, checkpoint_ns=namespace, plan=edited, reviewer=name
        )
        where = f" in {namespace_path(namespace)}" if namespace else ""
        change = " with the edited plan" if edited is not None else ""
        typer.echo(
            f"forked thread {thread} at checkpoint {checkpoint_id}{where} into thread "
            f"{new_thread}{change}"
        )
        announce_thread(new_thread, home)
        result = _run_on(launched, new_thread, info.metadata())
        requests = pending(launched.app, new_thread)
    report_outcome(result, requests, home, announce=True)


def resume_thread(thread: str, home: Path | None, policy: str | None = None) -> None:
    """``cadre resume``: continue the thread from its last checkpoint in this process, under
    ``policy`` (a policy file's text) instead of its own when given (then recorded)."""
    announce_thread(thread, home)
    with _opened(home, thread, observe=True, policy=policy) as (launched, info):
        config: RunnableConfig = {"configurable": {"thread_id": thread}}
        if pending(launched.app, thread):
            raise ReviewError(
                f"thread {thread!r} is paused for review: decide with cadre approve, edit or reject"
            )
        state = launched.app.get_state(config)
        if not state.next and not state.tasks:  # killed after a step's writes: tasks remain
            raise ReviewError(f"thread {thread!r} has finished: there is nothing to resume")
        result = _run_on(launched, thread, info.metadata() if policy is not None else None)
        after = pending(launched.app, thread)
    report_outcome(result, after, home, announce=True)
