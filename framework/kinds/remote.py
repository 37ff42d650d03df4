"""RemoteWorker: a worker kind whose tasks another service answers (a LangGraph-API graph, an
A2A agent), governed like a tool named by its kind; RemoteKind: the kind type of such kinds.

Each task is one call: the task's description goes to the remote as a question. The call is a
tool call to the active policies (``before_tool`` sees ``{"question": ...}`` with the kind's
name as the tool's, so a tool-authorization rule naming the kind allows, denies or asks about
it; a budget counts it; ``after_tool`` sees the answer and each cited passage), it runs as a
LangChain tool (so it has an ``execute_tool KIND`` span), and it fails within the kind's
timeout, its attempts retried by the model gateway's policy (only those the remote never ran).
Every failure is one :class:`~framework.errors.RemoteAgentError` line naming the kind, its
protocol and URL and the cause (connection refused, a refused token, a timeout, the remote's
own error), never the token. A pause of the remote (a review it waits for) is raised as
LangGraph's interrupt by the subclass that can resume it; it is never turned into a failure.
``cadre tools list`` shows the kind as one row (:meth:`RemoteWorker.tool_rows`).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Coroutine, Generator, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar

import httpx
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.errors import GraphBubbleUp
from langgraph.types import Interrupt
from opentelemetry.propagate import inject
from pydantic import BaseModel, Field

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.engine.team_worker import TeamResult
from framework.errors import PolicyDenied, RemoteAgentError, brief
from framework.kinds._remote_pause import decided_here, paused_with
from framework.kinds._remote_time import TaskClock
from framework.kinds.base import KindFile, KindType, Loaded, Route
from framework.kinds.remote_specs import RemoteSpec
from framework.models.gateway import CallLimits, Gateway, ProviderGaveUpError
from framework.models.heartbeats import run_teller
from framework.models.provider_limiter import limiter_for
from framework.policy.wrappers import governed_tool_args, governed_tool_output
from framework.review.records import AuditEntry
from framework.tools.listing import ToolRow, tool_row
from telemetry.propagation import in_tool_call

__all__ = [
    "RemoteKind",
    "RemoteQuestion",
    "RemoteReply",
    "RemoteWorker",
    "http_client",
    "run_sync",
]

T = TypeVar("T")
K = TypeVar("K", bound=BaseModel)

_CLOCK = TaskClock()
"""What the failed attempts of this process's remote tasks spent."""


class RemoteQuestion(BaseModel):
    """The arguments of a remote call, as policies see them."""

    question: str = Field(description="The task, asked of the remote.")


@dataclass(frozen=True, slots=True)
class RemoteReply:
    """What a remote answered: its text, the passages it cited (sources as it gave them), and
    how sure it was."""

    answer: str
    evidence: list[Evidence] = field(default_factory=list)
    confidence: float = 1.0
    audit: list[AuditEntry] = field(default_factory=list)
    """The decisions made in this run on the remote's review pauses before it answered."""
    usage: dict[str, int] = field(default_factory=dict)
    """What the remote reported it used (``model_calls``, ``input_tokens``, ...): counted in
    this run's usage and charged to its budget."""

    def __str__(self) -> str:
        return self.answer


class RemoteWorker(ABC):
    """Runs each task of kind ``kind`` on the remote ``spec`` names (see the module).

    Args:
        kind: The kind's name: the tool name policies match.
        spec: Where the remote is, its token's variable and its timeout.
        description: What the kind does (the planner and ``cadre tools list`` show it).
    """

    protocol: ClassVar[str]
    """``remote_graph`` or ``a2a``: how the kind is declared and listed."""
    token_header: ClassVar[tuple[str, str]]
    """The header a token is sent in, and what precedes the token there."""

    def __init__(self, kind: str, spec: RemoteSpec, description: str) -> None:
        self.kind = kind
        self.spec = spec
        self.description = description

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.kind}: {self.spec.url})"

    @property
    def source(self) -> str:
        """``PROTOCOL:URL``, as ``cadre tools list`` shows it."""
        return f"{self.protocol}:{self.spec.url}"

    def where(self) -> str:
        """How failures name the remote: ``PROTOCOL URL`` (and more, in subclasses)."""
        return f"{self.protocol} {self.spec.url}"

    @abstractmethod
    async def ask(
        self, question: str, task: Task, context: NodeContext, paused: list[Interrupt]
    ) -> RemoteReply:
        """Ask the remote ``question`` for ``task`` (``paused``: the pauses the task left when
        it ran before, empty on a first run); raise what went wrong (any error becomes one line
        naming the kind), or LangGraph's interrupt for a pause this run can answer."""

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task on the remote (sync graphs)."""
        tool, args, call_id = self._governed(task, context)
        reply = tool.invoke(args)
        return self._result(task, tool, args, call_id, reply)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task on the remote (async graphs)."""
        tool, args, call_id = self._governed(task, context)
        reply = await tool.ainvoke(args)
        return self._result(task, tool, args, call_id, reply)

    def tool(self, task: Task | None = None, context: NodeContext | None = None) -> BaseTool:
        """The kind as a tool (``question`` -> :class:`RemoteReply`): for one task, or, without
        one, to describe the kind."""

        async def call(question: str) -> RemoteReply:
            if task is None or context is None:
                raise RemoteAgentError(f"kind {self.kind!r} was called without a task")
            with in_tool_call():  # the remote's spans join this call's execute_tool span
                return await self._ask(question, task, context)

        return StructuredTool(
            name=self.kind,
            description=self.description,
            args_schema=RemoteQuestion,
            func=lambda question: run_sync(call(question)),
            coroutine=call,
            metadata={"remote": self.source},
        )

    def tool_rows(self, *, team: str, kind: str) -> list[ToolRow]:
        """Its one row for ``cadre tools list``: the kind as a tool, its source
        ``PROTOCOL:URL``."""
        return [replace(tool_row(self.tool(), team, kind), source=self.source)]

    def _governed(self, task: Task, context: NodeContext) -> tuple[BaseTool, Any, int]:
        """The task's tool, the arguments the policies let through, and the call's id (a
        denial raises :class:`~framework.errors.PolicyDenied`: the task fails with it)."""
        tool = self.tool(task, context)
        args, call_id = governed_tool_args(tool, {"question": task.description})
        return tool, args, call_id

    async def _ask(self, question: str, task: Task, context: NodeContext) -> RemoteReply:
        """:meth:`ask` within what is left of the task's timeout (see :mod:`._remote_time`),
        every failure one line naming the kind and the time it took."""
        paused = await paused_with(context)
        timed = self._timed(task, context)
        spent, last = _CLOCK.spent(timed)
        left = self.spec.timeout_s - spent
        if left <= 0:
            raise self.failed(
                f"{last}; its earlier attempts used the whole timeout_s ({self.spec.timeout_s:g}"
                " s), so it is not called again for this task: raise timeout_s or check the remote"
            )
        started = time.monotonic()
        ends = started + left

        async def attempt() -> RemoteReply:
            async with asyncio.timeout(max(0.0, ends - time.monotonic())):
                return await self.ask(question, task, context, paused)

        try:
            reply = await self._gateway(left).acall(attempt)
        except (_AttemptError, ProviderGaveUpError) as failed:  # gave up: says how often
            took = time.monotonic() - started
            _CLOCK.add(timed, took, str(failed))
            tried = "" if isinstance(failed, ProviderGaveUpError) else f", after {took:.1f} s"
            raise self.failed(f"{failed}{tried}") from None
        audit = decided_here(paused, context, task, self.where())
        return replace(reply, audit=audit) if audit else reply

    def _gateway(self, left: float) -> Gateway:
        """The model gateway's policy for a call to this remote that may take ``left`` seconds
        across its attempts: an attempt the remote never ran (no connection; HTTP 429 or 503)
        is tried again after a backoff or the ``Retry-After`` it asked for, held for every
        call of this process to the remote; any other failure fails the task at once. No
        circuit opens: a task that gave up fails, and its reviewer may retry it in what is
        left of ``timeout_s``."""
        spec = self.spec.model_copy(update={"timeout_s": left})

        def translated(error: Exception) -> Exception | None:
            if isinstance(error, GraphBubbleUp | RemoteAgentError | PolicyDenied):
                return None  # a pause, this kind's own line or a refusal: raised as it is
            return _AttemptError(problem(error, spec), nothing_ran=_nothing_ran(error))

        return Gateway(
            label=f"kind {self.kind!r} ({self.where()})",
            limiter=limiter_for(f"remote@{self.spec.url}"),
            limits=CallLimits(deadline_s=left, circuit_after=0),
            translate=translated,
            transient=lambda error: isinstance(error, _AttemptError) and error.nothing_ran,
            teller=run_teller,
        )

    def failed(self, problem: str) -> RemoteAgentError:
        """The error of this kind failing with ``problem`` (one line)."""
        text = f"kind {self.kind!r} ({self.where()}): {problem}"
        return RemoteAgentError(" ".join(text.split()))

    def _result(
        self, task: Task, tool: BaseTool, args: Any, call_id: int, reply: RemoteReply
    ) -> WorkerResult:
        """The task's result: the reply after the policies saw its answer and each passage."""
        answer, evidence = reply.answer, reply.evidence
        if call_id:

            def governed(text: str) -> str:
                return governed_tool_output(tool, args, text, call_id)

            answer = governed_tool_output(tool, args, answer, call_id, reply.usage)
            evidence = [item.model_copy(update={"text": governed(item.text)}) for item in evidence]
        return TeamResult(
            task_id=task.id,
            status="ok",
            output=answer,
            evidence=evidence,
            confidence=reply.confidence,
            attempt=task.attempt,
            audit=reply.audit,
        )

    def headers(self) -> dict[str, str]:
        """The headers of every request: the token from ``token_env``, if any.

        Raises:
            RemoteAgentError: ``token_env`` is not set now.
        """
        if self.spec.token_env is None:
            return {}
        token = self.spec.token()
        if not token:
            raise self.failed(f"environment variable {self.spec.token_env} is not set")
        name, prefix = self.token_header
        return {name: prefix + token}

    def _timed(self, task: Task, context: NodeContext) -> str | None:
        """The key of the task's attempts on this remote (None: the run has no thread)."""
        if context.thread_id is None:
            return None
        return f"{context.thread_id}:{context.checkpoint_ns}:{task.id}:{self.kind}"

    def task_thread(self, task: Task, context: NodeContext) -> str | None:
        """A remote thread id for ``task``, the same when the task runs again after a pause or
        a stopped process (the step's checkpoint names this thread's step: a thread id used
        again in another home is another thread); None: the run has no thread."""
        if context.thread_id is None:
            return None
        step = f"{context.thread_id}:{context.checkpoint_ns}:{context.checkpoint_id or ''}"
        key = f"cadre:{step}:{task.id}:{task.attempt}"
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{key}:{self.kind}"))


class RemoteKind(KindType[K]):
    """The kind type of kinds a remote answers: a token variable that is not set is refused
    when the file is read (at ``KEY.token_env``), and the offline planner sends such a kind
    text questions whatever the corpus holds."""

    @abstractmethod
    def remote(self, spec: K) -> RemoteSpec:
        """Where the kind's remote is."""

    def load(self, spec: K, file: KindFile) -> Loaded:
        """The problem of a ``token_env`` that is not set, if any."""
        missing = self.remote(spec).missing_token()
        return Loaded(problems=[((self.key, "token_env"), missing)] if missing else [])

    def route(self, spec: K) -> Route | None:
        """``remote``."""
        return "remote"


def http_client(spec: RemoteSpec, headers: Mapping[str, str]) -> httpx.AsyncClient:
    """An HTTP client for ``spec``'s remote: its timeout, no retries of its own (the model
    gateway's policy retries a call, see :meth:`RemoteWorker._gateway`), ``headers`` (the
    token) sent to the remote's own origin only, never to another host the remote names (an
    agent card's URL), and the current trace's context on every request."""
    return httpx.AsyncClient(
        base_url=spec.url,
        auth=_OriginHeaders(spec.url, headers),
        timeout=spec.timeout_s,
        event_hooks={"request": [_traced]},
    )


async def _traced(request: httpx.Request) -> None:
    """Send the current trace along (W3C ``traceparent``), so the remote's run joins it."""
    inject(request.headers)


class _OriginHeaders(httpx.Auth):
    """Adds headers to the requests that go to one origin (scheme, host and port)."""

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        self.origin = _origin(httpx.URL(url))
        self.headers = dict(headers)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self.headers and _origin(request.url) == self.origin:
            request.headers.update(self.headers)
        yield request


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


_TRANSPORT: tuple[tuple[tuple[type[BaseException], ...], str], ...] = (
    ((httpx.ConnectError,), "connect: cannot connect ({cause})"),
    (
        (httpx.ConnectTimeout, httpx.PoolTimeout),
        "connect: no connection within the client's timeout ({cause})",
    ),
    (
        (httpx.WriteError, httpx.WriteTimeout),
        "send: lost the connection sending the question ({cause})",
    ),
    ((httpx.RemoteProtocolError, httpx.ReadError), "wait: lost the connection mid-call ({cause})"),
    ((httpx.TimeoutException, TimeoutError), "wait: no answer within {timeout_s:g} s (timeout_s)"),
)
"""Transport failures, first match first, each in words led by the phase of the call it
happened in: ``connect``, ``send`` (the question) or ``wait`` (for the answer; a connection
made, then closed or broken before the answer came: the remote stopped or was killed)."""


class _AttemptError(RemoteAgentError):
    """One attempt of a remote call failed: what happened, in words (see :func:`problem`)."""

    def __init__(self, said: str, *, nothing_ran: bool) -> None:
        super().__init__(said)
        self.nothing_ran = nothing_ran
        """Whether the remote never ran the task: no connection was made, or it refused the
        request before running it (HTTP 429, 503), so another attempt cannot run it twice."""


_NOT_RUN_STATUSES = frozenset({429, 503})
"""HTTP statuses of a request the remote refused before running it."""


def _nothing_ran(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) says the remote never ran the request."""
    for cause in _causes(error):
        if isinstance(cause, httpx.HTTPStatusError):
            return cause.response.status_code in _NOT_RUN_STATUSES
        if isinstance(cause, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
            return True
    return False


def problem(error: BaseException, spec: RemoteSpec) -> str:
    """What went wrong, in words, from ``error`` and its causes (see :data:`_TRANSPORT`)."""
    for cause in _causes(error):
        if isinstance(cause, httpx.HTTPStatusError):
            return _status_problem(cause, spec)
        for kinds, words in _TRANSPORT:
            if isinstance(cause, kinds):
                detail = str(cause) or type(cause).__name__
                return words.format(cause=detail, timeout_s=spec.timeout_s)
    return brief(error)


def _status_problem(error: httpx.HTTPStatusError, spec: RemoteSpec) -> str:
    status = error.response.status_code
    if status in (401, 403):
        hint = (
            f"check the token in {spec.token_env}"
            if spec.token_env
            else "it wants a token: name its environment variable in token_env"
        )
        return f"HTTP {status}: the remote refused the call ({hint})"
    detail = getattr(error, "message", "") or error.response.reason_phrase
    return f"HTTP {status}: {detail}" if detail else f"HTTP {status}"


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what caused it, outermost first (each once)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end from sync code: on a new event loop, or on a thread of its
    own where this thread runs a loop already; in a copy of the caller's context."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(context.run, asyncio.run, coroutine).result()
