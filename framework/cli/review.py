"""The thread commands: list, show, approve, edit, reject, history, fork and resume threads.

Each command rebuilds the thread's app from what ``cadre run`` recorded (see
:mod:`framework.threads`) and calls the review API (:mod:`framework.review`) on it. Bad input
(an unknown thread, request or checkpoint, an invalid edit, nothing pending, no reviewer) exits
2 with one line on stderr and leaves the thread as it was.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, ParamSpec

import typer
from langchain_core.runnables import RunnableConfig
from langgraph.types import StateSnapshot
from rich.console import Console

from framework.cli._common import HomeOption, ReviewerOption, fail, report_outcome, reviewer_name
from framework.cli._edits import read_answer, read_plan, read_tasks
from framework.cli._render import history_lines, namespace_path, request_lines, thread_lines
from framework.cli._targets import (
    approvals,
    describe,
    plan_edit,
    task_decisions,
    text_edit,
)
from framework.cli.progress import ProgressPrinter
from framework.errors import CadreError, ReviewError
from framework.home import DataHome, resolve_home
from framework.launch import Launched
from framework.observe import ObserverOptions
from framework.review import (
    AnyReviewRequest,
    Decision,
    adecide,
    fork,
    history,
    pending,
    thread_ids,
)
from framework.runner import RunResult, arun_team
from framework.threads import ThreadInfo, open_checkpointer, relaunch, thread_info

__all__ = ["approve", "edit", "fork_thread", "history_of", "reject", "resume", "reviews", "show"]

P = ParamSpec("P")

ThreadArgument = Annotated[str, typer.Argument(metavar="THREAD", help="The thread id.")]
RequestOption = Annotated[
    str | None, typer.Option("--request", help="The request to decide (an id or its prefix).")
]


def _one_line(command: Callable[P, None]) -> Callable[P, None]:
    """Turn every cadre error of ``command`` into a one-line failure."""

    @functools.wraps(command)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except CadreError as error:
            fail(error)

    return wrapped


@contextmanager
def _opened(
    home: Path | None, thread_id: str, *, observe: bool = False
) -> Iterator[tuple[Launched, ThreadInfo]]:
    """The thread's app, observed (spans of the run part it resumes) when ``observe``."""
    options = ObserverOptions() if observe else None
    launched, info = relaunch(resolve_home(home), thread_id, observe=options)
    with launched:
        yield launched, info


def _decide(
    home: Path | None,
    thread_id: str,
    reviewer: str | None,
    choose: Callable[[Sequence[AnyReviewRequest], str], list[Decision]],
) -> None:
    """Decide what ``choose`` picks among the pending requests, then report how the run went on."""
    name = reviewer_name(reviewer)
    with _opened(home, thread_id, observe=True) as (launched, _):
        requests = pending(launched.app, thread_id)
        # with nothing pending, decide() refuses: the thread is finished, or waits for no review
        decisions = choose(requests, name) if requests else []
        result = asyncio.run(
            adecide(
                launched.app,
                thread_id,
                decisions,
                on_event=ProgressPrinter(Console(stderr=True)),
                observer=launched.observer,
            )
        )
        typer.echo("\n".join(describe(decision, requests) for decision in decisions))
        after = pending(launched.app, thread_id)
    report_outcome(result, after, home, announce=True)


def _infos(data_home: DataHome, thread: str | None) -> dict[ThreadInfo, list[str]]:
    """The threads to list, grouped by what they were run with (one app per group).

    A thread given by name must be known; when listing every thread, one that ``cadre run``
    did not start is skipped with a note on stderr.
    """
    groups: dict[ThreadInfo, list[str]] = {}
    where = str(data_home.root)
    with open_checkpointer(data_home) as checkpointer:
        for tid in [thread] if thread is not None else thread_ids(checkpointer):
            try:
                info = thread_info(checkpointer, tid, where=where)
            except ReviewError as error:
                if thread is not None:
                    raise
                typer.echo(f"skipped: {error}", err=True)
                continue
            groups.setdefault(info, []).append(tid)
    return groups


@_one_line
def reviews(
    thread: Annotated[
        str | None, typer.Option(help="Only this thread (default: every thread).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """List the pending review requests of every thread, or of one."""
    data_home = resolve_home(home)
    found = 0
    for info, members in _infos(data_home, thread).items():
        launched, _ = relaunch(data_home, members[0], info=info)
        with launched:
            for tid in members:
                requests = pending(launched.app, tid)
                found += len(requests)
                if requests:
                    typer.echo(f"thread {tid} (team {info.team}): {len(requests)} pending")
                    typer.echo(
                        "\n".join(f"  {line}" for r in requests for line in request_lines(r))
                    )
    if not found:
        scope = f"thread {thread}" if thread is not None else str(data_home.root)
        typer.echo(f"no pending reviews in {scope}")


def _merged_values(snapshot: StateSnapshot) -> dict[str, Any]:
    """A thread's values with those of the subgraphs it is paused in laid over them."""
    values = dict(snapshot.values)
    for task in snapshot.tasks:
        if isinstance(task.state, StateSnapshot):
            values.update(_merged_values(task.state))
    return values


@_one_line
def show(thread: ThreadArgument, home: HomeOption = None) -> None:
    """Show a thread: its plan, tasks with status, pending requests, audit trail and answer."""
    with _opened(home, thread) as (launched, info):
        config: RunnableConfig = {"configurable": {"thread_id": thread}}
        values = _merged_values(launched.app.get_state(config, subgraphs=True))
        requests = pending(launched.app, thread)
    typer.echo("\n".join(thread_lines(thread, info, values, requests)))


@_one_line
def approve(
    thread: ThreadArgument,
    request_id: Annotated[
        str | None,
        typer.Argument(
            metavar="REQUEST_ID", help="The request to approve (default: every pending one)."
        ),
    ] = None,
    reviewer: ReviewerOption = None,
    home: HomeOption = None,
) -> None:
    """Approve one pending request of THREAD, or all of them, and let the run go on."""
    _decide(
        home, thread, reviewer, lambda requests, name: approvals(requests, request_id, name, thread)
    )


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


@_one_line
def edit(
    thread: ThreadArgument,
    plan: Annotated[Path | None, typer.Option(help="A new plan (JSON or YAML).")] = None,
    tasks: Annotated[
        Path | None, typer.Option(help="Changed tasks, a list (JSON or YAML).")
    ] = None,
    answer: Annotated[
        Path | None, typer.Option(help="A new answer (text, or JSON/YAML with 'answer').")
    ] = None,
    request_id: RequestOption = None,
    reviewer: ReviewerOption = None,
    home: HomeOption = None,
) -> None:
    """Edit the plan, tasks or answer under review in THREAD, and let the run go on."""
    reviewer_name(reviewer)
    choose = _edit_decisions(plan, tasks, answer, request_id, thread)
    _decide(home, thread, reviewer, choose)


@_one_line
def reject(
    thread: ThreadArgument,
    task_ids: Annotated[
        list[str], typer.Argument(metavar="TASK_ID...", help="The tasks to reject.")
    ],
    reason: Annotated[str | None, typer.Option(help="Why (the team's reviewer sees it).")] = None,
    request_id: RequestOption = None,
    reviewer: ReviewerOption = None,
    home: HomeOption = None,
) -> None:
    """Reject tasks of THREAD under review: they are never dispatched."""
    reviewer_name(reviewer)
    why = " ".join((reason or "").split())
    if not why:
        raise ReviewError("no reason: pass --reason TEXT to say why the tasks are rejected")
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
    )


@_one_line
def history_of(thread: ThreadArgument, home: HomeOption = None) -> None:
    """List THREAD's checkpoints, nested ones too, newest first (ids to fork from)."""
    with _opened(home, thread) as (launched, _):
        entries = history(launched.app, thread)
    typer.echo("\n".join(history_lines(entries)))


def _namespace(app: Any, thread: str, checkpoint_id: str) -> str:
    """The namespace of a checkpoint of ``thread``, from its history."""
    for entry in history(app, thread):
        if entry.checkpoint_id == checkpoint_id:
            return entry.checkpoint_ns
    raise ReviewError(
        f"unknown checkpoint {checkpoint_id!r} in thread {thread!r}: see `cadre history {thread}`"
    )


@_one_line
def fork_thread(
    thread: ThreadArgument,
    checkpoint_id: Annotated[
        str,
        typer.Argument(metavar="CHECKPOINT_ID", help="The checkpoint to fork from (see history)."),
    ],
    plan: Annotated[
        Path | None, typer.Option(help="An edited plan for the fork (JSON or YAML).")
    ] = None,
    ns: Annotated[
        str | None,
        typer.Option(help="The checkpoint's namespace (default: found in the history)."),
    ] = None,
    reviewer: ReviewerOption = None,
    home: HomeOption = None,
) -> None:
    """Fork THREAD at a checkpoint into a new thread and run it on; THREAD is unchanged.

    An edited plan (--plan) is recorded in the new thread's audit trail under --reviewer;
    tasks it leaves unchanged keep their results.
    """
    name = reviewer_name(reviewer) if plan is not None else (reviewer or "")
    edited = read_plan(plan) if plan is not None else None
    with _opened(home, thread, observe=True) as (launched, info):
        namespace = ns if ns is not None else _namespace(launched.app, thread, checkpoint_id)
        new_thread = fork(
            launched.app, thread, checkpoint_id, checkpoint_ns=namespace, plan=edited, reviewer=name
        )
        where = f" in {namespace_path(namespace)}" if namespace else ""
        change = " with the edited plan" if edited is not None else ""
        typer.echo(
            f"forked thread {thread} at checkpoint {checkpoint_id}{where} into thread "
            f"{new_thread}{change}"
        )
        result = _run_on(launched, new_thread, info.metadata())
        requests = pending(launched.app, new_thread)
    report_outcome(result, requests, home, announce=True)


def _run_on(launched: Launched, thread: str, metadata: dict[str, str] | None = None) -> RunResult:
    """Run ``thread`` on from its last checkpoint, async (each result saved as its task ends),
    printing progress on stderr."""
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


@_one_line
def resume(thread: ThreadArgument, home: HomeOption = None) -> None:
    """Continue THREAD from its last checkpoint in this process: after a crash, a kill or a
    fork. A thread paused for review goes on with approve, edit or reject instead."""
    with _opened(home, thread, observe=True) as (launched, _):
        config: RunnableConfig = {"configurable": {"thread_id": thread}}
        if pending(launched.app, thread):
            raise ReviewError(
                f"thread {thread!r} is paused for review: decide with cadre approve, edit or reject"
            )
        state = launched.app.get_state(config)
        if not state.next and not state.tasks:  # killed after a step's writes: tasks remain
            raise ReviewError(f"thread {thread!r} has finished: there is nothing to resume")
        result = _run_on(launched, thread)
        after = pending(launched.app, thread)
    report_outcome(result, after, home, announce=True)
