"""A2A 1.0 against a real ``cadre serve``, with a2a-sdk's own client over real HTTP: each served
team is an agent at ``/a2a/{name}`` whose card is public; a question is answered with the cited
answer (an artifact), streamed as working updates per node, the answer's words, then the answer;
``ListTasks`` lists the caller's tenant's tasks of the agent, filtered and paged; the host's root
card is the default team's and names every team's card; the protocol version is read from the
``A2A-Version`` request parameter when no header gives it; a plan review is the task's
``input-required`` state carrying the typed request, answered over A2A and audited under the
token's name in ``cadre show``; tokens, tenants and scopes hold as over LangGraph's API (no
token refused, another tenant's task not found, a ``run``-only token may not answer a review),
each refusal one A2A error that leaves the thread as it was."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, A2AClientError, Client, ClientConfig, create_client
from a2a.helpers import get_data_parts, get_message_text, new_data_part, new_message
from a2a.helpers import new_text_message as _new_text_message
from a2a.server.events import EventQueueLegacy
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskState,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from framework.server.protocols.a2a import TEAM_CARDS
from framework.server.protocols.a2a._handler import RunFollower
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve, start

SUPPORT = "name: support\nreview: [plan]\nkinds:\n  - {name: docs, builtin: search}\n"
LOOKUP = "name: lookup\nkinds:\n  - {name: docs, builtin: search}\n"
QUESTION = "How do workers retry transient errors?"
CITED = (
    "Workers retry transient errors such as timeouts up to three times, with exponential "
    "backoff between attempts. (`docs/retries.md:3`)"
)
CARD = "/.well-known/agent-card.json"


def _team_files(root: Path) -> list[str]:
    """The options serving the support and lookup team files (written under ``root``)."""
    options = []
    for name, text in (("support", SUPPORT), ("lookup", LOOKUP)):
        (root / f"{name}.yaml").write_text(text, encoding="utf-8")
        options += ["--team-config", str(root / f"{name}.yaml")]
    return options


@pytest.fixture(scope="module")
def stack() -> Iterator[ExitStack]:
    """What the module's servers are stopped by."""
    with ExitStack() as servers:
        yield servers


@pytest.fixture(scope="module")
def served(
    stack: ExitStack, tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Served:
    root = tmp_path_factory.mktemp("a2a")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    tokens = {
        "ada": ("acme", "run,review"),
        "bob": ("globex", "run,review"),
        "runner": ("acme", "run"),
    }
    started = serve(root / "home", None, corpus=corpus, tokens=tokens, options=_team_files(root))
    return stack.enter_context(started)


def _restart(served: Served, stack: ExitStack) -> None:
    """Stop the server and start a new process over its home (nothing of it left in memory)."""
    assert served.process is not None
    served.process.terminate()
    served.process.wait(timeout=60)
    stack.enter_context(start(served, options=_team_files(served.home.parent)))


@asynccontextmanager
async def _agent(
    served: Served, agent: str, token: str | None = "ada", *, streaming: bool = False
) -> AsyncIterator[Client]:
    """a2a-sdk's client for agent ``agent``, sending ``token`` (``ada``'s as a bearer token,
    any other as ``x-api-key``; None: none)."""
    headers = {}
    if token == "ada":
        headers["Authorization"] = f"Bearer {served.tokens[token]}"
    elif token is not None:
        headers["x-api-key"] = served.tokens[token]
    async with httpx.AsyncClient(headers=headers, timeout=120) as http:
        config = ClientConfig(httpx_client=http, streaming=streaming)
        client = await create_client(f"{served.url}/a2a/{agent}", config)
        try:
            yield client
        finally:
            await client.close()


def _text(text: str, task_id: str = "", *, context_id: str = "") -> Message:
    return _new_text_message(
        text, task_id=task_id or None, context_id=context_id or None, role=Role.ROLE_USER
    )


def _decision(task_id: str, decision: Any) -> Message:
    return new_message([new_data_part(decision)], task_id=task_id, role=Role.ROLE_USER)


async def _sent(client: Client, message: Message) -> list[StreamResponse]:
    return [event async for event in client.send_message(SendMessageRequest(message=message))]


async def _task(client: Client, task_id: str) -> Task:
    return await client.get_task(GetTaskRequest(id=task_id))


def _answer(task: Task) -> tuple[str, dict[str, Any]]:
    """The text and the ids of a task's ``answer`` artifact."""
    [artifact] = [a for a in task.artifacts if a.name == "answer"]
    [text, ids] = artifact.parts
    return text.text, get_data_parts([ids])[0]


def _state(served: Served, thread_id: str) -> dict[str, Any]:
    """The thread's state, read with LangGraph's SDK."""
    return dict(served.client("ada").threads.get_state(thread_id))


async def _paused(served: Served) -> Task:
    """A new task of the support team, waiting for its plan review."""
    async with _agent(served, "support") as client:
        [event] = await _sent(client, _text(QUESTION))
    assert event.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    return event.task


def _refused(error: type[Exception], raised: pytest.ExceptionInfo[Exception]) -> str:
    assert isinstance(raised.value, error), repr(raised.value)
    message = str(raised.value)
    assert "\n" not in message and "Traceback" not in message
    return message


async def test_the_card_is_public_and_a_call_needs_a_token(served: Served) -> None:
    async with httpx.AsyncClient(timeout=30) as http:  # no token at all
        card = await A2ACardResolver(http, f"{served.url}/a2a/support").get_agent_card()
        assert (await http.get(f"{served.url}/a2a/lookup{CARD}")).status_code == 200
        assert (await http.post(f"{served.url}/a2a/support", json={})).status_code == 401
    assert card.name == "support"
    [interface] = card.supported_interfaces
    assert (interface.url, interface.protocol_binding) == (f"{served.url}/a2a/support", "JSONRPC")
    assert card.capabilities.streaming and not card.capabilities.push_notifications
    [skill] = card.skills
    assert skill.id == "support" and "docs" in skill.tags and "docs" in skill.description
    assert card.security_schemes["apiKey"].api_key_security_scheme.name == "x-api-key"

    async with _agent(served, "lookup", None) as client:
        with pytest.raises(A2AClientError) as refused:
            await _sent(client, _text(QUESTION))
    assert "401" in str(refused.value)


async def test_a_question_is_answered_with_the_cited_answer_on_a_thread(served: Served) -> None:
    async with _agent(served, "lookup") as client:
        [event] = await _sent(client, _text(QUESTION))
        task = event.task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        answer, ids = _answer(task)
        assert CITED in answer
        assert ids["threadId"] == task.id and ids["runId"]
        values = _state(served, task.id)["values"]  # its sources and confidence, as data
        cited = [item["source"] for item in ids["evidence"]]
        assert cited and all(f"`{source}`" in answer for source in cited[:1])
        assert ids["confidence"] == values["reflection"]["confidence"]
        assert _answer(await _task(client, task.id)) == (answer, ids)
        assert get_message_text(task.history[0]) == QUESTION

        with pytest.raises(UnsupportedOperationError) as ended:
            await _sent(client, _text("And how are checkpoints written?", task.id))
        assert "is completed: only a task waiting for review takes a message" in _refused(
            UnsupportedOperationError, ended
        )
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=task.id))
    with served.http("ada") as http:  # another binding than JSON-RPC: 501, naming it
        rest = http.post("/a2a/lookup/message:send", json={"message": {}})
    assert rest.status_code == 501 and "HTTP+JSON" in rest.json()["detail"]

    metadata = dict(served.client("ada").threads.get(task.id)["metadata"] or {})
    assert metadata["a2a_context_id"] == task.context_id  # the task is a cadre thread
    assert metadata["graph_id"] == "lookup"
    assert _state(served, task.id)["values"]["final_answer"] == answer


async def test_a_stream_reports_each_node_at_work_the_answers_words_then_the_answer(
    served: Served,
) -> None:
    async with _agent(served, "lookup", "ada", streaming=True) as client:
        events = await _sent(client, _text(QUESTION))
    first, *updates = events
    assert first.task.status.state == TaskState.TASK_STATE_WORKING
    assert get_message_text(first.task.history[0]) == QUESTION
    kinds = [event.WhichOneof("payload") for event in updates]
    assert kinds[-2:] == ["artifact_update", "status_update"]
    working = [e.status_update.status for e in updates[:-2] if e.HasField("status_update")]
    assert {status.state for status in working} == {TaskState.TASK_STATE_WORKING}
    nodes = [status.message.metadata["node"] for status in working[1:]]
    assert nodes[0] == "planner" and {"worker", "formatter"} <= set(nodes)
    assert get_message_text(working[1].message) == "running planner"
    spoken = [e.artifact_update for e in updates[:-2] if e.HasField("artifact_update")]
    assert len(spoken) > 3  # the answer's words as the formatter spoke them, appended
    assert [u.append for u in spoken] == [False] + [True] * (len(spoken) - 1)
    words = "".join(u.artifact.parts[0].text for u in spoken)
    whole = updates[-2].artifact_update
    assert whole.last_chunk and not whole.append  # then the whole answer replaces them
    assert words == whole.artifact.parts[0].text and CITED in words
    assert updates[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED


async def test_a_plan_review_is_answered_over_a2a_and_audited(served: Served) -> None:
    async with _agent(served, "support", streaming=True) as client:
        events = await _sent(client, _text(QUESTION))
    paused = events[-1].status_update.status
    assert paused.state == TaskState.TASK_STATE_INPUT_REQUIRED
    task_id = events[-1].status_update.task_id
    [how, request] = paused.message.parts
    assert 'the text "approve"' in how.text and "plan at team support" in how.text
    [review] = get_data_parts([request])
    assert review["value"]["kind"] == "plan"
    assert review["value"]["plan"]["goal"] == QUESTION
    assert {"approve", "edit_plan"} <= set(review["value"]["allowed"])

    async with _agent(served, "support") as client:
        with pytest.raises(InvalidParamsError) as invalid:
            await _sent(client, _decision(task_id, {"kind": "edit_plan"}))
        assert "edit_plan needs the edited plan" in _refused(InvalidParamsError, invalid)
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=task_id))
        assert (await _task(client, task_id)).status.state == TaskState.TASK_STATE_INPUT_REQUIRED

        [event] = await _sent(client, _decision(task_id, {"kind": "approve"}))
    assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert CITED in _answer(event.task)[0]

    shown = CliRunner().invoke(app, ["show", task_id, "--home", str(served.home)])
    assert shown.exit_code == 0, shown.output
    [decision] = [line for line in shown.stdout.splitlines() if "on plan review" in line]
    assert f"  ada  approve on plan review {review['id']} at team support" in decision


async def test_the_text_approve_answers_a_review(served: Served) -> None:
    task = await _paused(served)
    async with _agent(served, "support") as client:
        with pytest.raises(InvalidParamsError) as unclear:
            await _sent(client, _text("looks fine", task.id))
        assert "or the text 'approve'" in _refused(InvalidParamsError, unclear)
        [event] = await _sent(client, _text("approve", task.id))
    assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
    audit = _state(served, task.id)["values"]["audit"]
    assert [(e["decision_kind"], e["reviewer"]) for e in audit] == [("approve", "ada")]


async def test_tenants_and_scopes_hold_as_over_the_api(served: Served) -> None:
    task = await _paused(served)
    approve = _decision(task.id, {"kind": "approve"})

    async with _agent(served, "support", "bob") as other_tenant:
        for call in (_task(other_tenant, task.id), _sent(other_tenant, approve)):
            with pytest.raises(TaskNotFoundError):
                await call

    async with _agent(served, "support", "runner") as run_only:  # acme, scope run
        assert (await _task(run_only, task.id)).status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        with pytest.raises(UnsupportedOperationError) as refused:
            await _sent(run_only, approve)
    assert "'runner' lacks the 'review' scope" in _refused(UnsupportedOperationError, refused)

    state = _state(served, task.id)
    assert state["interrupts"] and not state["values"].get("audit")  # still paused, nothing decided
    async with _agent(served, "lookup") as another_team:
        with pytest.raises(TaskNotFoundError):
            await _task(another_team, task.id)


async def test_a_paused_task_is_rebuilt_from_its_thread_after_a_restart(
    served: Served, stack: ExitStack
) -> None:
    task = await _paused(served)
    _restart(served, stack)
    async with _agent(served, "support") as client:
        rebuilt = await _task(client, task.id)
        assert rebuilt.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert rebuilt.context_id == task.context_id
        assert rebuilt.status.message.parts == task.status.message.parts
        [event] = await _sent(client, _decision(task.id, {"kind": "approve"}))
    assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert CITED in _answer(event.task)[0]


async def _listed(client: Client, **request: Any) -> list[Task]:
    """Every task ``ListTasks`` gives for ``request``, page by page (two a page)."""
    tasks: list[Task] = []
    token = ""
    while True:
        page = await client.list_tasks(ListTasksRequest(page_size=2, page_token=token, **request))
        assert page.page_size == len(page.tasks) <= 2
        tasks += page.tasks
        token = page.next_page_token
        if not token:
            assert page.total_size == len(tasks)
            return tasks


async def test_list_tasks_pages_filters_and_lists_only_the_callers_tenants_tasks(
    served: Served,
) -> None:
    context = str(uuid.uuid4())  # one context id, used by both tenants
    async with _agent(served, "lookup") as acme, _agent(served, "lookup", "bob") as globex:
        asked = []
        for number in range(3):
            [event] = await _sent(acme, _text(f"{QUESTION} ({number})", context_id=context))
            asked.append(event.task)
        [theirs] = await _sent(globex, _text(QUESTION, context_id=context))

        listed = await _listed(acme, context_id=context)
        assert [task.id for task in listed] == [task.id for task in reversed(asked)]  # newest first
        stamps = [task.status.timestamp.ToNanoseconds() for task in listed]
        assert stamps == sorted(stamps, reverse=True)
        assert all(not task.artifacts for task in listed)  # artifacts only when asked
        whole = ListTasksRequest(context_id=context, include_artifacts=True, history_length=0)
        first = (await acme.list_tasks(whole)).tasks[0]
        assert CITED in _answer(first)[0] and not first.history

        done = await _listed(acme, context_id=context, status=TaskState.TASK_STATE_COMPLETED)
        assert len(done) == 3
        assert not await _listed(acme, context_id=context, status=TaskState.TASK_STATE_WORKING)
        since = listed[1].status.timestamp
        recent = await _listed(acme, context_id=context, status_timestamp_after=since)
        assert [task.id for task in recent] == [task.id for task in listed[:2]]

        assert [task.id for task in await _listed(globex, context_id=context)] == [theirs.task.id]
        everything_of_globex = {task.id for task in await _listed(globex)}
        assert theirs.task.id in everything_of_globex
        assert not everything_of_globex & {task.id for task in asked}
        with pytest.raises(InvalidParamsError):
            await acme.list_tasks(ListTasksRequest(page_token="not a token"))
    async with _agent(served, "support") as another_team:
        assert not await _listed(another_team, context_id=context)


async def test_the_hosts_card_is_the_default_teams_and_names_every_teams_card(
    served: Served,
) -> None:
    async with httpx.AsyncClient(timeout=30) as http:  # no token: the card is public
        card = await A2ACardResolver(http, served.url).get_agent_card()
        [interface] = card.supported_interfaces
        assert (card.name, interface.url) == ("meta", f"{served.url}/a2a/meta")
        [listing] = [e for e in card.capabilities.extensions if e.uri == TEAM_CARDS]
        cards = dict(listing.params)
        assert {"meta", "research", "support", "lookup"} <= set(cards)
        assert cards["support"] == f"{served.url}/a2a/support{CARD}"
        team_card = (await http.get(cards["support"])).json()
        assert team_card["name"] == "support"
    async with _agent(served, "meta") as client:  # where the host's card points: an agent
        assert not (await client.list_tasks(ListTasksRequest(context_id=str(uuid.uuid4())))).tasks


def _rpc(served: Served, path: str, headers: dict[str, str]) -> dict[str, Any]:
    """A raw JSON-RPC ``GetTask`` of an unknown task at ``path``, with ``headers``."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "no-such-task"}}
    with served.http("ada") as http:
        answer: dict[str, Any] = http.post(path, json=call, headers=headers).json()
    return answer


def test_the_version_may_be_a_request_parameter_and_the_endpoint_end_in_a_slash(
    served: Served,
) -> None:
    not_found, unsupported = -32001, -32009
    assert _rpc(served, "/a2a/lookup", {})["error"]["code"] == unsupported  # none: 0.3
    assert _rpc(served, "/a2a/lookup?A2A-Version=1.0", {})["error"]["code"] == not_found
    assert _rpc(served, "/a2a/lookup?A2A-Version=0.3", {})["error"]["code"] == unsupported
    header = {"A2A-Version": "1.0"}  # a header wins over the parameter
    assert _rpc(served, "/a2a/lookup?A2A-Version=0.3", header)["error"]["code"] == not_found
    assert _rpc(served, "/a2a/lookup/", header)["error"]["code"] == not_found  # a final slash


async def test_a_file_instead_of_a_question_is_an_unsupported_content_type(served: Served) -> None:
    file = Part(raw=b"tck", media_type="application/x-unknown")
    async with _agent(served, "lookup") as client:
        with pytest.raises(ContentTypeNotSupportedError) as refused:
            await _sent(client, new_message([file], role=Role.ROLE_USER))
    assert "application/x-unknown is not read" in _refused(ContentTypeNotSupportedError, refused)


async def test_a_failure_of_cadres_own_fails_the_task_with_one_line_not_its_text() -> None:
    queue = EventQueueLegacy()
    broken = SimpleNamespace(task_id="t1", context_id="c1", call_context=SimpleNamespace(state={}))
    await RunFollower().execute(broken, queue)  # type: ignore[arg-type]  # no caller, no run
    event = await asyncio.wait_for(queue.dequeue_event(), 30)
    assert isinstance(event, TaskStatusUpdateEvent)
    assert event.status.state == TaskState.TASK_STATE_FAILED
    said = get_message_text(event.status.message)
    assert said == "the server failed to follow the run; its log says why"
    assert "KeyError" not in said and "cadre.caller" not in said
