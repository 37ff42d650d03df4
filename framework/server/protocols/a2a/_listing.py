"""``ListTasks`` as A2A 1.0 defines it, over tasks already read: the filters (context, state,
status time), the order (the most recently updated first, then by id) and cursor paging (a page
token names the last task of the page before, so a token stays valid when that task changes);
an answer's ``pageSize`` is how many tasks it holds, as the A2A TCK reads it."""

from __future__ import annotations

from collections.abc import Iterable

from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task, TaskState
from a2a.utils.constants import DEFAULT_LIST_TASKS_PAGE_SIZE
from a2a.utils.errors import InvalidParamsError
from a2a.utils.task import ListTasksCursor, decode_list_tasks_cursor, encode_list_tasks_cursor

__all__ = ["listed", "matches"]


def matches(a2a_task: Task, params: ListTasksRequest) -> bool:
    """Whether ``a2a_task`` passes the request's filters: its context, its state, and a status
    timestamp at or after the one asked for."""
    if params.context_id and a2a_task.context_id != params.context_id:
        return False
    if params.status not in (TaskState.TASK_STATE_UNSPECIFIED, a2a_task.status.state):
        return False
    if params.HasField("status_timestamp_after"):
        after: int = params.status_timestamp_after.ToNanoseconds()
        stamped = a2a_task.status.HasField("timestamp")
        return stamped and int(a2a_task.status.timestamp.ToNanoseconds()) >= after
    return True


def listed(found: Iterable[Task], params: ListTasksRequest) -> ListTasksResponse:
    """The page of ``found`` (the tasks that passed the filters) the request asks for.

    Raises:
        InvalidParamsError: The page token is not one a listing gave.
    """
    ordered = sorted(found, key=_order, reverse=True)
    start = 0
    if params.page_token:
        cursor = decode_list_tasks_cursor(params.page_token)
        if cursor is None:
            raise InvalidParamsError(
                "pageToken is not a token a ListTasks answer gave: send its nextPageToken"
            )
        after = cursor.sort_key()
        start = next((i for i, task in enumerate(ordered) if _order(task) < after), len(ordered))
    size = params.page_size if params.HasField("page_size") else DEFAULT_LIST_TASKS_PAGE_SIZE
    page = ordered[start : start + size]
    more = start + size < len(ordered)
    return ListTasksResponse(
        tasks=page,
        next_page_token=encode_list_tasks_cursor(_cursor(page[-1])) if more else "",
        page_size=len(page),
        total_size=len(ordered),
    )


def _order(a2a_task: Task) -> tuple[bool, int, str]:
    """A task's place in the listing, as the SDK's cursors read it: (has a status timestamp,
    that timestamp, id)."""
    stamped = a2a_task.status.HasField("timestamp")
    return stamped, a2a_task.status.timestamp.ToNanoseconds() if stamped else 0, a2a_task.id


def _cursor(a2a_task: Task) -> ListTasksCursor:
    stamped, nanoseconds, task_id = _order(a2a_task)
    return ListTasksCursor(timestamp_ns=nanoseconds if stamped else None, task_id=task_id)
