"""The thread commands: list, show, approve, edit, reject, respond, history, fork and resume
threads.

Their work is in :mod:`framework.cli._thread_work` (:mod:`framework.cli._thread_view` for
``show`` and ``reviews``, which only read checkpoints), imported when a command runs. Bad input
(an unknown thread, request or checkpoint, an invalid edit, nothing pending, no reviewer) exits
2 with one line on stderr and leaves the thread as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from framework.cli.common import HomeOption, ReviewerOption, one_line, reviewer_name
from framework.cli.policies import PolicyOption, read_policy
from framework.errors import ReviewError

__all__ = [
    "approve",
    "edit",
    "fork_thread",
    "history_of",
    "reject",
    "respond",
    "resume",
    "reviews",
    "show",
]

ThreadArgument = Annotated[str, typer.Argument(metavar="THREAD", help="The thread id.")]
RequestOption = Annotated[
    str | None, typer.Option("--request", help="The request to decide (an id or its prefix).")
]
RevisionOption = Annotated[
    str | None,
    typer.Option(
        help="The revision of the pending requests you reviewed (printed with them): refused "
        "if they changed since."
    ),
]


@one_line
def reviews(
    thread: Annotated[
        str | None, typer.Option(help="Only this thread (default: every thread).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """List the pending review requests of every thread, or of one."""
    from framework.cli._thread_view import list_reviews

    list_reviews(thread, home)


@one_line
def show(thread: ThreadArgument, home: HomeOption = None) -> None:
    """Show a thread: its status, plan, tasks, pending requests, audit trail and answer."""
    from framework.cli._thread_view import show_thread

    show_thread(thread, home)


@one_line
def approve(
    thread: ThreadArgument,
    request_id: Annotated[
        str | None,
        typer.Argument(
            metavar="REQUEST_ID", help="The request to approve (default: every pending one)."
        ),
    ] = None,
    reviewer: ReviewerOption = None,
    revision: RevisionOption = None,
    home: HomeOption = None,
    policy: PolicyOption = None,
) -> None:
    """Approve one pending request of THREAD, or all of them, and let the run go on (under
    --policy instead of the thread's policies, when given)."""
    from framework.cli._thread_work import approve_requests

    approve_requests(thread, request_id, reviewer, home, revision, _policy_text(policy))


@one_line
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
    revision: RevisionOption = None,
    home: HomeOption = None,
    policy: PolicyOption = None,
) -> None:
    """Edit the plan, tasks or answer under review in THREAD, and let the run go on."""
    from framework.cli._thread_work import edit_requests

    edits = (plan, tasks, answer)
    edit_requests(thread, edits, request_id, reviewer, home, revision, _policy_text(policy))


@one_line
def reject(
    thread: ThreadArgument,
    task_ids: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[TASK_ID...]",
            help="The tasks to reject; none rejects what a policy or a remote agent asked.",
        ),
    ] = None,
    reason: Annotated[str | None, typer.Option(help="Why (the team's reviewer sees it).")] = None,
    request_id: RequestOption = None,
    reviewer: ReviewerOption = None,
    revision: RevisionOption = None,
    home: HomeOption = None,
    policy: PolicyOption = None,
) -> None:
    """Reject tasks of THREAD under review (they are never dispatched), or, with no task, the
    calls a policy asked about (they are refused with the reason) and the questions remote
    agents asked (their tasks fail with the reason)."""
    reviewer_name(reviewer)
    why = " ".join((reason or "").split())
    if not why:
        raise ReviewError("no reason: pass --reason TEXT to say why the tasks are rejected")
    from framework.cli._thread_work import reject_tasks

    text = _policy_text(policy)
    reject_tasks(thread, task_ids or [], why, request_id, reviewer, home, revision, text)


@one_line
def respond(
    thread: ThreadArgument,
    text: Annotated[
        str, typer.Argument(metavar="TEXT", help="What the remote agent that asked is sent.")
    ],
    request_id: RequestOption = None,
    reviewer: ReviewerOption = None,
    revision: RevisionOption = None,
    home: HomeOption = None,
    policy: PolicyOption = None,
) -> None:
    """Respond to the question a remote agent asks in THREAD with TEXT (sent to the agent on
    its task), and let the run go on."""
    reviewer_name(reviewer)
    if not text.strip():
        raise ReviewError(
            "no response: pass the text the agent is sent (cadre respond THREAD TEXT)"
        )
    from framework.cli._thread_work import respond_to_question

    respond_to_question(thread, text, request_id, reviewer, home, revision, _policy_text(policy))


@one_line
def history_of(thread: ThreadArgument, home: HomeOption = None) -> None:
    """List THREAD's checkpoints, nested ones too, newest first (ids to fork from)."""
    from framework.cli._thread_view import show_history

    show_history(thread, home)


@one_line
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
    policy: PolicyOption = None,
) -> None:
    """Fork THREAD at a checkpoint into a new thread and run it on; THREAD is unchanged.

    An edited plan (--plan) is recorded in the new thread's audit trail under --reviewer;
    tasks it leaves unchanged keep their results. The fork runs under THREAD's policies, or
    under --policy.
    """
    from framework.cli._thread_work import fork_and_run

    fork_and_run(thread, checkpoint_id, plan, ns, reviewer, home, _policy_text(policy))


@one_line
def resume(thread: ThreadArgument, home: HomeOption = None, policy: PolicyOption = None) -> None:
    """Continue THREAD from its last checkpoint in this process: after a crash, a kill or a
    fork. A thread paused for review goes on with approve, edit or reject instead. It keeps the
    policies it ran under unless --policy names others."""
    from framework.cli._thread_work import resume_thread

    resume_thread(thread, home, _policy_text(policy))


def _policy_text(policy: Path | None) -> str | None:
    """The text of the ``--policy`` file, checked; None without one."""
    return read_policy(policy) if policy is not None else None
