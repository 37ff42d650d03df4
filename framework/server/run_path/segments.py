"""A run segment: advance one thread from a recorded run until it finishes, pauses for review,
or fails, its events passed to a sink. The server executes segments in its process; a fleet
worker executes the segments of queued runs (``framework.fleet``) the same way."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from langgraph.types import Command

from framework.database import database_gone
from framework.database.home import DataHome
from framework.errors import CadreError, ReviewError, RunStopped, brief
from framework.persistence.saver import CadreSaver
from framework.review.api import requests_in, resolvable, resolve, thread_config
from framework.runs.gate import Caller, acting_spec, caller_model, checked_update
from framework.runs.launch import LaunchRequest
from framework.runs.observe import ObserverOptions
from framework.runs.runner import StreamOptions, arun_team, hold_thread
from framework.runs.spec import RunSpec
from framework.runs.threads import thread_spec
from framework.server._requests import RESOLVE_GOTO, RunBody
from framework.server._tables import RunRow
from framework.server._trace_context import incoming
from framework.server.run_path._resume import resume_from
from framework.server.run_path.apps import TeamApps
from framework.server.run_path.outage import SEGMENT_ATTEMPTS, until_written, wait_for
from framework.server.run_path.stream_modes import ApiEvents, graph_modes
from telemetry.propagation import continued

__all__ = ["STOPPED", "EventSink", "Job", "Segments"]

logger = logging.getLogger("cadre.server")

STOPPED = ("running", "busy")
"""The outcome of a segment its process stopped (:class:`RunStopped`): the run is still
running, to be resumed from its checkpoints by the next start (or a peer worker)."""

SPECS_KEPT = 4096
"""How many threads' run specs a server keeps read (each is read again from its checkpoints)."""


class EventSink(Protocol):
    """Where a segment's events go (a run log in memory, or the run's event rows)."""

    def add(self, name: str, data: Any) -> None:
        """Append one event (from the segment's thread)."""
        ...


class _Cancelled(Exception):  # noqa: N818 - a signal raised through the graph's stream
    """Raised from the stream when a run was cancelled: the graph stops at once."""


@dataclass(frozen=True, kw_only=True)
class Job:
    """A run to execute: its row, who asked, the team, the body, and what it starts with."""

    row: RunRow
    caller: Caller
    team: str
    body: RunBody
    command: Command[Any] | None
    policy: str | None = None
    """The policy file's text governing a new thread's runs."""
    continuing: bool = False
    trace: dict[str, str] | None = None
    """The W3C trace context of the request that started the run (None: none came)."""
    """Resumed after a restart, past its first checkpoint: go on from the thread's state."""

    @property
    def inputs(self) -> Any:
        """What the graph is run with (None continues the thread)."""
        if self.continuing:
            return None
        return self.command if self.command is not None else self.body.input


def run_arguments(body: RunBody, team: str, caller: Caller, policy: str | None) -> dict[str, Any]:
    """What a run's row keeps of its request (sealed), so any process can execute it."""
    arguments = {
        **body.model_dump(mode="json", exclude_none=True),
        "team": team,
        "caller": caller.to_json(),
    }
    if policy is not None:
        arguments["policy"] = policy
    if (trace := incoming()) is not None:  # the caller's trace, continued wherever it runs
        arguments["trace"] = trace
    return arguments


class Segments:
    """Executes run segments against one home.

    Args:
        home: The data home.
        apps: The compiled teams.
        saver: The home's checkpointer, for what is read of threads between runs.
        observe: How runs are observed (telemetry); None observes nothing.
    """

    def __init__(
        self,
        home: DataHome,
        apps: TeamApps,
        saver: CadreSaver,
        observe: ObserverOptions | None,
    ) -> None:
        self.home = home
        self.apps = apps
        self.saver = saver
        self.observe = observe
        self._specs: OrderedDict[str, RunSpec] = OrderedDict()
        self._specs_lock = threading.Lock()

    def thread_spec(self, thread_id: str) -> RunSpec | None:
        """What the thread's first run recorded (its team, review points, principal...); None
        before it has one. Kept once read (it does not change), for the latest
        :data:`SPECS_KEPT` threads."""
        with self._specs_lock:
            kept = self._specs.get(thread_id)
            if kept is not None:
                self._specs.move_to_end(thread_id)
                return kept
        try:
            read = thread_spec(self.saver, thread_id)
        except ReviewError:
            return None
        return self._keep_spec(thread_id, read)

    def _keep_spec(self, thread_id: str, spec: RunSpec) -> RunSpec:
        """Keep ``spec`` as the thread's, unless one is kept already (which is returned)."""
        with self._specs_lock:
            kept = self._specs.setdefault(thread_id, spec)
            self._specs.move_to_end(thread_id)
            while len(self._specs) > SPECS_KEPT:
                self._specs.popitem(last=False)
        return kept

    def _keep_recorded(self, thread_id: str, info: RunSpec) -> None:
        """Keep the spec a thread's first segment recorded in its checkpoints' metadata, as
        :meth:`thread_spec` would read it back."""
        recorded = RunSpec.from_metadata(info.metadata())
        if recorded is not None:
            self._keep_spec(thread_id, recorded)

    def forget_thread(self, thread_id: str) -> None:
        """Drop what is kept of a deleted thread."""
        with self._specs_lock:
            self._specs.pop(thread_id, None)

    def command(
        self, caller: Caller, thread_id: str, team: str, body: RunBody
    ) -> Command[Any] | None:
        """The command of a resume or state update, checked as the review decision it is: the
        resume's decisions by the review's rules (ReviewError), an update by the gate's
        (InvalidUpdate: never beside a pending review, only the state's keys and types)."""
        if body.command is None:
            return None
        if body.command.get("goto") == RESOLVE_GOTO:
            return self._resolving(caller, thread_id, team, body)
        resume = body.command.get("resume")
        update = body.command.get("update")
        request = self._request(caller, thread_id, team, body, None, read_only=True)
        with self.apps.use(request) as launched:
            app = launched.app
            config = thread_config(thread_id)
            if body.start_checkpoint() is not None:  # a fork: the review pending there
                config["configurable"]["checkpoint_id"] = body.start_checkpoint()
            snapshot = app.get_state(config, subgraphs=True)
            if update is not None:
                pending = len(requests_in(snapshot, thread_id))
                update = checked_update(
                    update, app.channels, app.builder.state_schema, pending=pending
                )
            if resume is None:
                return Command(update=update)
            checked = resume_from(snapshot, thread_id, resume, caller.name)
        return Command(resume=checked.resume, update=update)

    def _resolving(self, caller: Caller, thread_id: str, team: str, body: RunBody) -> Command[Any]:
        """The command of a run that marks the thread's reviews resolved, once it is known the
        thread has reviews and each may be rejected (ReviewError, nothing recorded)."""
        request = self._request(caller, thread_id, team, body, None, read_only=True)
        with self.apps.use(request) as launched:
            resolvable(launched.app, thread_id)
        return Command(goto=RESOLVE_GOTO)

    def admit(self, caller: Caller, thread_id: str, body: RunBody) -> None:
        """Refuse before a run is recorded what its execution would refuse the caller: the
        model a thread's first run names (the gate's :func:`caller_model`).

        Raises:
            AccessDenied: The caller may not name that model (answered 403).
        """
        if self.thread_spec(thread_id) is None:
            caller_model(caller, _configurable(body).get("model"))

    def job_of(self, row: RunRow) -> Job:
        """The job of a recorded run: from the thread's checkpoints when the run wrote some
        (a process stopped or died while executing it), else as it was asked.

        Raises:
            CadreError: Its resume no longer applies to the thread.
        """
        arguments = dict(row.arguments)
        caller = Caller.from_json(arguments.pop("caller"))
        team = arguments.pop("team")
        policy = arguments.pop("policy", None)
        trace = arguments.pop("trace", None)
        body = RunBody.model_validate(arguments)
        continuing = self.has_written(row)
        command = None if continuing else self.command(caller, row.thread_id, team, body)
        return Job(
            row=row,
            caller=caller,
            team=team,
            body=body,
            command=command,
            policy=policy,
            continuing=continuing,
            trace=trace,
        )

    def has_written(self, row: RunRow) -> bool:
        """Whether the run ``row`` wrote a checkpoint of its thread."""
        found = self.saver.list(
            thread_config(row.thread_id), filter={"run_id": row.run_id}, limit=1
        )
        return next(iter(found), None) is not None

    def _request(
        self,
        caller: Caller,
        thread_id: str,
        team: str,
        body: RunBody,
        policy: str | None,
        *,
        read_only: bool = False,
    ) -> LaunchRequest:
        """How to launch the thread's team: as it was first run, or anew from the body; a run
        acts for the caller either way (the gate's rule, not the thread's first caller). An app
        compiled only to read the thread keeps the recorded spec, so every reader shares it."""
        info = self.thread_spec(thread_id)
        if info is not None:
            spec = info if read_only else acting_spec(info, caller)
            return LaunchRequest.for_thread(spec, self.home, self.observe, read_only=read_only)
        configurable = _configurable(body)
        review = configurable.get("review") or ()
        spec = RunSpec(
            team=team,
            model=caller_model(caller, configurable.get("model")),
            max_parallel=configurable.get("max_parallel"),
            memory_scope=("tenant", caller.tenant),
            review=[review] if isinstance(review, str) else review,
            observe=self.observe,
            policy=policy,
            principal=caller.principal(),
        )
        return LaunchRequest(spec=spec, home=self.home, read_only=read_only)

    def execute(self, job: Job, sink: EventSink, cancelled: threading.Event) -> tuple[str, str]:
        """Run the thread to its next pause or its end; (run status, thread status). Failures
        are events of the sink, never raised; a segment the database went away under runs
        again from the thread's checkpoints once it answers (see :mod:`.outage`)."""
        database = self.saver.db
        what = f"run {job.row.run_id} of thread {job.row.thread_id}"
        for attempt in range(1, SEGMENT_ATTEMPTS + 1):
            try:
                return self._segment(job if attempt == 1 else self.job_of(job.row), sink, cancelled)
            except Exception as error:
                if not database_gone(error):  # the job, asked again, no longer applies
                    return self._failed(sink, error)
                logger.warning(
                    "%s: the database went away (%s): attempt %d of %d failed",
                    what,
                    brief(error),
                    attempt,
                    SEGMENT_ATTEMPTS,
                )
                wait_for(database, what)
        message = (
            f"the database went away under every one of {SEGMENT_ATTEMPTS} attempts: the thread "
            "keeps what they committed; start a run on it again to go on"
        )
        until_written(
            lambda: sink.add("error", {"error": "DatabaseUnavailable", "message": message}),
            database,
            what,
        )
        return "error", "error"

    def _segment(self, job: Job, sink: EventSink, cancelled: threading.Event) -> tuple[str, str]:
        """One try of :meth:`execute`: a failure of the database's going away is raised."""
        row, body = job.row, job.body
        try:
            starts_thread = (
                isinstance(job.inputs, Mapping) and self.thread_spec(row.thread_id) is None
            )
            request = self._request(job.caller, row.thread_id, job.team, body, job.policy)
            with self.apps.use(request) as launched:
                if isinstance(job.command, Command) and job.command.goto == RESOLVE_GOTO:
                    with hold_thread(launched.app, row.thread_id):
                        resolve(launched.app, row.thread_id, job.caller.name)
                    return "success", "idle"
                info = request.spec.recorded(launched.prompts.used())
                relay = _Relay(sink, cancelled, ApiEvents(body.modes(), body.stream_subgraphs))
                options = StreamOptions(
                    modes=("updates", *graph_modes(body.modes())),
                    on_chunk=relay,
                    on_graph_event=relay.graph_event if "events" in body.modes() else None,
                    interrupt_before=body.interrupt_before,
                    interrupt_after=body.interrupt_after,
                    checkpoint_id=None if job.continuing else body.start_checkpoint(),
                    run_id=row.run_id,
                )
                # async, as `cadre run`: each task's result is saved as it finishes, so a
                # stopped process redoes only the tasks that were running
                try:
                    with continued(job.trace):
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
                finally:  # the app outlives the run: what it counted is in the thread's state
                    launched.run_ended(row.thread_id)
                relay.ended()
                if starts_thread:  # its checkpoints record the spec: kept, not read back
                    self._keep_recorded(row.thread_id, info)
        except _Cancelled:
            sink.add("error", {"error": "Cancelled", "message": f"run {row.run_id} was cancelled"})
            return "interrupted", "idle"
        except RunStopped as stopped:
            message = f"{brief(stopped)}; it goes on from there when the server starts again"
            sink.add("error", {"error": "ServerStopping", "message": message})
            return STOPPED
        except Exception as error:
            if database_gone(error):
                raise
            if not isinstance(error, CadreError):
                logger.exception("run %s of thread %s failed", row.run_id, row.thread_id)
            return self._failed(sink, error)
        if (failure := result.failure()) is not None:  # every task failed: as `cadre run`
            return self._failed(sink, failure)
        return "success", "interrupted" if result.paused_before else "idle"

    @staticmethod
    def _failed(sink: EventSink, error: Exception) -> tuple[str, str]:
        """The run's error event: cadre's own errors say what happened, others only that the
        run failed (the log has the traceback)."""
        message = brief(error) if isinstance(error, CadreError) else "the run failed"
        sink.add("error", {"error": type(error).__name__, "message": message})
        return "error", "error"


def _configurable(body: RunBody) -> dict[str, Any]:
    """The ``config.configurable`` a run's body sends (empty when it sends none)."""
    return dict((body.config or {}).get("configurable") or {})


class _Relay:
    """Passes a run's chunks and graph events to its sink as API events (see
    :mod:`.stream_modes`); a cancelled run stops at the next one."""

    def __init__(self, sink: EventSink, cancelled: threading.Event, events: ApiEvents) -> None:
        self.sink = sink
        self.cancelled = cancelled
        self.events = events

    def __call__(self, namespace: tuple[str, ...], mode: str, payload: Any) -> None:
        self._add(self.events.of_chunk(namespace, mode, payload))

    def graph_event(self, event: Mapping[str, Any]) -> None:
        """An ``astream_events`` event of the run."""
        self._add(self.events.of_graph_event(event))

    def ended(self) -> None:
        """The run's graph stopped (finished or paused)."""
        self._add(self.events.ended())

    def _add(self, events: list[tuple[str, Any]]) -> None:
        if self.cancelled.is_set():
            raise _Cancelled
        for name, data in events:
            self.sink.add(name, data)
