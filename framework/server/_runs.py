"""Runs started over the API, executed in the server process: one at a time per thread, each
on a worker thread, its events relayed to a :class:`RunLog`; their rows say how they ended, so
a server killed mid-run resumes them from their checkpoints when it starts again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.types import Command, Interrupt

from framework.errors import CadreError, ReviewError, ThreadBusyError, brief
from framework.home import DataHome
from framework.launch import LaunchRequest
from framework.observe import ObserverOptions
from framework.persistence.saver import CadreSaver
from framework.review.api import thread_config
from framework.runner import StreamOptions, arun_team, to_jsonable
from framework.server._apps import TeamApps
from framework.server._caller import Caller
from framework.server._requests import RunBody
from framework.server._resume import resume_from
from framework.server._runlog import RunLog
from framework.server._shapes import interrupt_json
from framework.server._tables import RunRow, ServerTables
from framework.threads import ThreadInfo, thread_info

__all__ = ["Runs"]

logger = logging.getLogger("cadre.server")

LOG_KEPT_S = 600.0
"""How long an ended run's events stay in memory for streams that reattach."""

STOP_TIMEOUT_S = 10.0
"""How long a stopping server waits for its runs to reach a step boundary."""


class _Cancelled(Exception):  # noqa: N818 - a signal raised through the graph's stream
    """Raised from the stream when a run was cancelled: the graph stops at once."""


@dataclass(frozen=True, kw_only=True)
class _Job:
    """A run to execute: its row, who asked, the team, the body, and what it starts with."""

    row: RunRow
    caller: Caller
    team: str
    body: RunBody
    command: Command[Any] | None
    continuing: bool = False
    """Resumed after a restart, past its first checkpoint: go on from the thread's state."""

    @property
    def inputs(self) -> Any:
        """What the graph is run with (None continues the thread)."""
        if self.continuing:
            return None
        return self.command if self.command is not None else self.body.input


class Runs:
    """The runs of one server.

    Args:
        home: The data home.
        tables: The server's thread and run rows.
        apps: The compiled teams.
        saver: The home's checkpointer, for what the server reads of threads between runs.
        workers: How many runs execute at once (each on a thread of its own).
        observe: How runs are observed (telemetry); None observes nothing.
        policy: The policy file's text governing new threads' runs (None: no policies).
    """

    def __init__(
        self,
        home: DataHome,
        tables: ServerTables,
        apps: TeamApps,
        saver: CadreSaver,
        *,
        workers: int = 8,
        observe: ObserverOptions | None = None,
        policy: str | None = None,
    ) -> None:
        self.home = home
        self.policy = policy
        self.tables = tables
        self.apps = apps
        self.saver = saver
        self.observe = observe
        self.workers = workers
        self._slots: asyncio.Semaphore | None = None
        self._threads: set[threading.Thread] = set()
        self.logs: dict[str, RunLog] = {}
        self._cancelled: dict[str, threading.Event] = {}
        self._thread_locks: dict[str, asyncio.Lock] = {}
        self._active: dict[str, str] = {}
        """Thread -> the run executing on it."""
        self._queued: dict[str, list[str]] = {}
        """Thread -> its runs started and not ended (executing, or waiting their turn)."""
        self._closing = False
        self._infos: dict[str, ThreadInfo] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- starting ------------------------------------------------------------------------------

    async def start(self, caller: Caller, thread_id: str, team: str, body: RunBody) -> RunRow:
        """Record a run and start it (after the thread's current run, with ``enqueue``).

        Raises:
            ThreadBusyError: The thread runs already and ``multitask_strategy`` is ``reject``.
            ReviewError: A resume value is not a valid decision (nothing ran).
        """
        strategy = body.multitask_strategy or "reject"
        started = list(self._queued.get(thread_id) or ())
        if started:
            if strategy == "reject":
                raise ThreadBusyError(
                    f"thread {thread_id} is busy with run {started[0]}: wait for it (join), or "
                    "send multitask_strategy enqueue or interrupt"
                )
            if strategy in ("interrupt", "rollback"):
                for run_id in started:
                    self.cancel(run_id)
        command = await asyncio.to_thread(self._command, caller, thread_id, team, body)
        now = time.time()
        row = RunRow(
            run_id=str(uuid.uuid4()),
            thread_id=thread_id,
            tenant=caller.tenant,
            assistant_id=body.assistant_id,
            status="pending",
            created_at=now,
            updated_at=now,
            arguments={
                **body.model_dump(mode="json", exclude_none=True),
                "team": team,
                "caller": caller.to_json(),
            },
        )
        self.tables.add_run(row)
        self._launch(_Job(row=row, caller=caller, team=team, body=body, command=command))
        return row

    async def recover(self) -> int:
        """Start again the runs a stopped server left pending or running: from the thread's
        checkpoints when they wrote some, else as asked; how many."""
        rows = self.tables.unfinished_runs()
        for row in rows:
            arguments = dict(row.arguments)
            caller = Caller.from_json(arguments.pop("caller"))
            team = arguments.pop("team")
            body = RunBody.model_validate(arguments)
            continuing = await asyncio.to_thread(self._has_written, row)
            try:
                command = (
                    None
                    if continuing
                    else await asyncio.to_thread(self._command, caller, row.thread_id, team, body)
                )
            except CadreError as error:
                logger.warning("run %s cannot be resumed: %s", row.run_id, brief(error))
                self.tables.set_run_status(row.run_id, "error")
                continue
            job = _Job(
                row=row, caller=caller, team=team, body=body, command=command, continuing=continuing
            )
            self._launch(job)
        return len(rows)

    def _launch(self, job: _Job) -> None:
        self._queued.setdefault(job.row.thread_id, []).append(job.row.run_id)
        log = self.logs[job.row.run_id] = RunLog(asyncio.get_running_loop())
        log.add("metadata", {"run_id": job.row.run_id, "attempt": 1})
        self._cancelled[job.row.run_id] = threading.Event()
        task = asyncio.create_task(self._drive(job, log))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _command(
        self, caller: Caller, thread_id: str, team: str, body: RunBody
    ) -> Command[Any] | None:
        """The command of a resume or state update, its decisions checked (ReviewError)."""
        if body.command is None:
            return None
        resume = body.command.get("resume")
        update = body.command.get("update")
        if resume is None:
            return Command(update=update)
        with self.apps.use(self._request(caller, thread_id, team, body, read_only=True)) as app:
            config = thread_config(thread_id)
            if body.start_checkpoint() is not None:  # a fork: the review pending there
                config["configurable"]["checkpoint_id"] = body.start_checkpoint()
            snapshot = app.app.get_state(config, subgraphs=True)
            checked = resume_from(snapshot, thread_id, resume, caller.name)
        return Command(resume=checked.resume, update=update)

    def _request(
        self, caller: Caller, thread_id: str, team: str, body: RunBody, *, read_only: bool = False
    ) -> LaunchRequest:
        """How to launch the thread's team: as it was first run, or anew from the body."""
        info = self.thread_info(thread_id)
        if info is not None:
            return LaunchRequest.for_thread(info, self.home, self.observe, read_only=read_only)
        configurable = dict((body.config or {}).get("configurable") or {})
        review = configurable.get("review") or ()
        return LaunchRequest(
            team=team,
            home=self.home,
            model=configurable.get("model"),
            max_parallel=configurable.get("max_parallel"),
            memory_scope=("tenant", caller.tenant),
            review=frozenset([review] if isinstance(review, str) else review),
            observe=self.observe,
            policy=self.policy,
            principal=caller.principal(),
            read_only=read_only,
        )

    # -- executing -----------------------------------------------------------------------------

    async def _drive(self, job: _Job, log: RunLog) -> None:
        row = job.row
        lock = self._thread_locks.setdefault(row.thread_id, asyncio.Lock())
        try:
            self._slots = self._slots or asyncio.Semaphore(self.workers)
            async with lock, self._slots:
                self._active[row.thread_id] = row.run_id
                self.tables.set_run_status(row.run_id, "running")
                self.tables.update_thread(row.thread_id, status="busy")
                status, thread_status = await self._on_thread(job, log)
                if not self._closing:  # a stopping server leaves it running: resumed at start
                    self.tables.set_run_status(row.run_id, status)
                    self.tables.update_thread(row.thread_id, status=thread_status)
        finally:
            if self._active.get(row.thread_id) == row.run_id:
                del self._active[row.thread_id]
            queued = self._queued.get(row.thread_id) or []
            if row.run_id in queued:
                queued.remove(row.run_id)
            if not queued:
                self._queued.pop(row.thread_id, None)
            log.finish()
            asyncio.get_running_loop().call_later(LOG_KEPT_S, self._forget_run, row.run_id)

    def _forget_run(self, run_id: str) -> None:
        """Drop an ended run's events (``join`` and reattached streams then read the thread)."""
        self.logs.pop(run_id, None)
        self._cancelled.pop(run_id, None)

    async def _on_thread(self, job: _Job, log: RunLog) -> tuple[str, str]:
        """:meth:`_execute` on a daemon thread of its own: a stopping server does not wait
        for a run stuck in a tool or model call (its checkpoints resume it at the next start)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[tuple[str, str]] = loop.create_future()

        def work() -> None:
            outcome = ("error", "error")
            try:
                outcome = self._execute(job, log)
            finally:
                self._threads.discard(threading.current_thread())
                with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                    loop.call_soon_threadsafe(_settle, done, outcome)

        thread = threading.Thread(target=work, name=f"cadre-run-{job.row.run_id}", daemon=True)
        self._threads.add(thread)
        thread.start()
        return await done

    def _execute(self, job: _Job, log: RunLog) -> tuple[str, str]:
        """Run the thread to its next pause or its end; (run status, thread status)."""
        row, body = job.row, job.body
        cancelled = self._cancelled[row.run_id]
        try:
            request = self._request(job.caller, row.thread_id, job.team, body)
            with self.apps.use(request) as launched:
                info = ThreadInfo.of(request, launched.roles.used())
                options = StreamOptions(
                    modes=("updates",),
                    on_chunk=_Relay(log, cancelled, body.stream_subgraphs),
                    interrupt_before=body.interrupt_before,
                    interrupt_after=body.interrupt_after,
                    checkpoint_id=None if job.continuing else body.start_checkpoint(),
                    run_id=row.run_id,
                )
                # async, as `cadre run`: each task's result is saved as it finishes, so a
                # stopped server redoes only the tasks that were running
                result = asyncio.run(
                    arun_team(
                        launched.app,
                        job.inputs,
                        row.thread_id,
                        observer=launched.observer,
                        metadata=info.metadata(),
                        options=options,
                    )
                )
        except _Cancelled:
            log.add("error", {"error": "Cancelled", "message": f"run {row.run_id} was cancelled"})
            return "interrupted", "idle"
        except CadreError as error:
            log.add("error", {"error": type(error).__name__, "message": brief(error)})
            return "error", "error"
        except Exception as error:
            logger.exception("run %s of thread %s failed", row.run_id, row.thread_id)
            log.add("error", {"error": type(error).__name__, "message": "the run failed"})
            return "error", "error"
        return "success", "interrupted" if result.paused_before else "idle"

    # -- asking about runs ---------------------------------------------------------------------

    def thread_info(self, thread_id: str) -> ThreadInfo | None:
        """What the thread's first run recorded (its team, review points, principal...); None
        before it has one. Kept once read: it does not change."""
        known = self._infos.get(thread_id)
        if known is None:
            try:
                known = self._infos[thread_id] = thread_info(self.saver, thread_id)
            except ReviewError:
                return None
        return known

    def _has_written(self, row: RunRow) -> bool:
        """Whether the run ``row`` wrote a checkpoint of its thread."""
        found = self.saver.list(
            thread_config(row.thread_id), filter={"run_id": row.run_id}, limit=1
        )
        return next(iter(found), None) is not None

    def forget_thread(self, thread_id: str) -> None:
        """Drop what is kept of a deleted thread."""
        self._infos.pop(thread_id, None)
        self._thread_locks.pop(thread_id, None)

    def active_run(self, thread_id: str) -> str | None:
        """The run executing on ``thread_id`` now, or the first waiting its turn, if any."""
        return self._active.get(thread_id) or next(iter(self._queued.get(thread_id) or ()), None)

    def cancel(self, run_id: str) -> bool:
        """Ask a run to stop at its next step; whether it was running here."""
        flag = self._cancelled.get(run_id)
        log = self.logs.get(run_id)
        if flag is None or log is None or log.finished:
            return False
        flag.set()
        return True

    def close(self) -> None:
        """Stop: runs going on stop at their next step (waited for up to
        :data:`STOP_TIMEOUT_S`) and stay recorded as running, so the next start resumes them
        from their checkpoints."""
        self._closing = True
        for flag in self._cancelled.values():
            flag.set()
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))


def _settle(done: asyncio.Future[tuple[str, str]], outcome: tuple[str, str]) -> None:
    if not done.done():
        done.set_result(outcome)


class _Relay:
    """Passes a run's chunks to its log as API events (``mode`` or ``mode|ns...``)."""

    def __init__(self, log: RunLog, cancelled: threading.Event, subgraphs: bool) -> None:
        self.log = log
        self.cancelled = cancelled
        self.subgraphs = subgraphs

    def __call__(self, namespace: tuple[str, ...], mode: str, payload: Any) -> None:
        if self.cancelled.is_set():
            raise _Cancelled
        if namespace and not self.subgraphs:
            return
        name = "|".join((mode, *namespace))
        self.log.add(name, _event_data(mode, payload))


def _event_data(mode: str, payload: Any) -> Any:
    if mode == "updates" and isinstance(payload, Mapping) and "__interrupt__" in payload:
        interrupts = payload["__interrupt__"]
        return {
            **to_jsonable({k: v for k, v in payload.items() if k != "__interrupt__"}),
            "__interrupt__": [interrupt_json(i) for i in interrupts if isinstance(i, Interrupt)],
        }
    return to_jsonable(payload)
