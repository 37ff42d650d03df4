"""Every endpoint ``langgraph-sdk`` calls, driven by its own client (unmodified) over a real
``cadre serve``: each is served or answers 501 saying why; ``/info`` and ``/openapi.json``;
assistants counted, versioned, with typed schemas and nested teams; threads updated,
counted, searched by their values, expiring after their TTL and pruned; a run's input
checked before anything is recorded."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import langgraph_sdk
import pytest

from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints written?"
PLAN_REVIEW = {"configurable": {"review": ["plan"]}}
TOKENS = {
    "ada": ("acme", "run,review"),
    "bob": ("globex", "run,review"),
    "root": ("acme", "admin"),
    "gus": ("globex", "admin"),
    "rita": ("acme", "review"),
}

SDK_ENDPOINTS = [
    ("GET", "/assistants/{a}"),
    ("GET", "/assistants/{a}/graph"),
    ("GET", "/assistants/{a}/schemas"),
    ("GET", "/assistants/{a}/subgraphs"),
    ("GET", "/assistants/{a}/subgraphs/{ns}"),
    ("POST", "/assistants"),
    ("PATCH", "/assistants/{a}"),
    ("DELETE", "/assistants/{a}"),
    ("POST", "/assistants/search"),
    ("POST", "/assistants/count"),
    ("POST", "/assistants/{a}/versions"),
    ("POST", "/assistants/{a}/latest"),
    ("POST", "/threads"),
    ("GET", "/threads/{t}"),
    ("PATCH", "/threads/{t}"),
    ("DELETE", "/threads/{t}"),
    ("POST", "/threads/search"),
    ("POST", "/threads/count"),
    ("POST", "/threads/prune"),
    ("POST", "/threads/{t}/copy"),
    ("GET", "/threads/{t}/state"),
    ("POST", "/threads/{t}/state"),
    ("POST", "/threads/{t}/state/checkpoint"),
    ("GET", "/threads/{t}/state/{c}"),
    ("POST", "/threads/{t}/history"),
    ("GET", "/threads/{t}/stream"),
    ("POST", "/threads/{t}/commands"),
    ("GET", "/threads/{t}/stream/events"),
    ("POST", "/threads/{t}/runs"),
    ("GET", "/threads/{t}/runs"),
    ("POST", "/threads/{t}/runs/wait"),
    ("POST", "/threads/{t}/runs/stream"),
    ("GET", "/threads/{t}/runs/{r}"),
    ("DELETE", "/threads/{t}/runs/{r}"),
    ("GET", "/threads/{t}/runs/{r}/join"),
    ("GET", "/threads/{t}/runs/{r}/stream"),
    ("POST", "/threads/{t}/runs/{r}/cancel"),
    ("POST", "/runs"),
    ("POST", "/runs/wait"),
    ("POST", "/runs/stream"),
    ("POST", "/runs/batch"),
    ("POST", "/runs/cancel"),
    ("POST", "/threads/{t}/runs/crons"),
    ("POST", "/runs/crons"),
    ("PATCH", "/runs/crons/{c}"),
    ("DELETE", "/runs/crons/{c}"),
    ("POST", "/runs/crons/search"),
    ("POST", "/runs/crons/count"),
    ("PUT", "/store/items"),
    ("GET", "/store/items"),
    ("DELETE", "/store/items"),
    ("POST", "/store/items/search"),
    ("POST", "/store/namespaces"),
]
"""Every (method, path) of LangGraph's server API that ``langgraph-sdk`` calls."""

NOT_SUPPORTED = {
    ("POST", "/assistants"),
    ("PATCH", "/assistants/{a}"),
    ("DELETE", "/assistants/{a}"),
    ("GET", "/threads/{t}/stream"),
    ("POST", "/threads/{t}/commands"),
    ("GET", "/threads/{t}/stream/events"),
    ("POST", "/threads/{t}/runs/crons"),
    ("POST", "/runs/crons"),
    ("PATCH", "/runs/crons/{c}"),
    ("DELETE", "/runs/crons/{c}"),
    ("POST", "/runs/crons/search"),
    ("POST", "/runs/crons/count"),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("endpoints")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    with serve(root / "home", None, corpus=corpus, tokens=TOKENS) as server:
        yield server


@pytest.fixture(scope="module")
def paused(served: Served) -> str:
    """A thread of ada's paused at its plan review (its state holds the question)."""
    client = served.client("ada")
    thread_id: str = client.threads.create(metadata={"case": "paused"})["thread_id"]
    waited = client.runs.wait(thread_id, "meta", input={"question": QUESTION}, config=PLAN_REVIEW)
    assert waited["__interrupt__"]
    return thread_id


def _refused(call: Callable[[], Any]) -> tuple[int, str]:
    """The status and detail of a call the server refuses."""
    with pytest.raises(httpx.HTTPStatusError) as refused:
        call()
    response = refused.value.response
    return response.status_code, response.json()["detail"]


def _sdk_paths() -> set[str]:
    """The paths in ``langgraph-sdk``'s sync client, parameters as ``{}``."""
    root = Path(langgraph_sdk.__file__).parent
    sources = [*sorted((root / "_sync").glob("*.py")), root / "stream/transport/sync_http.py"]
    literal = re.compile(r'"(/(?:assistants|threads|runs|store)[^"\s]*)"')
    found = set()
    for source in sources:
        for path in literal.findall(source.read_text()):
            named = re.sub(r"\{[^}]*\}", "{}", path)
            found.add(re.sub(r"/[0-9a-f]{4}(?:-[0-9a-f]{4})+", "/{}", named))
    return found


# -- every endpoint served or 501 ---------------------------------------------------------------


def test_every_sdk_endpoint_is_served_or_answers_501_saying_why(served: Served) -> None:
    table = {re.sub(r"\{[^}]*\}", "{}", path) for _, path in SDK_ENDPOINTS}
    assert _sdk_paths() <= table, sorted(_sdk_paths() - table)
    thread_id = served.client("ada").threads.create()["thread_id"]
    ids = {"a": "meta", "t": thread_id, "r": "no-run", "c": "no-cron", "ns": "research_team"}
    with served.http("ada") as http, served.http() as anonymous:
        for method, template in SDK_ENDPOINTS:
            path = template.format(**ids)
            body = {} if method in ("POST", "PUT", "PATCH") else None
            answer = http.request(method, path, json=body)
            data = answer.json() if answer.content else None
            detail = data.get("detail") if isinstance(data, dict) else None
            assert answer.status_code != 405 and detail != "Not Found", (method, path, detail)
            if (method, template) in NOT_SUPPORTED:
                assert answer.status_code == 501, (method, path, answer.text)
                assert "not supported" in detail or "not created, changed" in detail, detail
                assert detail.startswith(f"{method} "), detail
                assert anonymous.request(method, path, json=body).status_code == 401


def test_the_sdks_own_calls_to_what_is_not_supported_say_why(served: Served) -> None:
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    for call, said in [
        (lambda: client.assistants.create("meta"), "installed teams"),
        (lambda: client.assistants.update("meta", name="renamed"), "installed teams"),
        (lambda: client.assistants.delete("meta"), "installed teams"),
        (lambda: client.crons.create("meta", schedule="0 * * * *"), "cadre submit"),
        (lambda: client.crons.create_for_thread(thread_id, "meta", schedule="0 * * * *"), "cron"),
        (lambda: client.crons.update("c", schedule="0 * * * *"), "crons are not supported"),
        (lambda: client.crons.delete("c"), "crons are not supported"),
        (client.crons.search, "crons are not supported"),
        (client.crons.count, "crons are not supported"),
        (lambda: next(iter(client.threads.join_stream(thread_id))), "thread-level stream"),
        (lambda: _thread_stream(client), "streaming protocol (v3)"),
    ]:
        status, detail = _refused(call)
        assert status == 501 and said in detail, detail


def _thread_stream(client: Any) -> None:
    """Start a run through LangGraph's thread-centric streaming (``threads.stream``)."""
    with client.threads.stream(assistant_id="meta") as stream:
        stream.run.start(input={"question": QUESTION})


# -- /info and /openapi.json --------------------------------------------------------------------


def test_info_says_the_versions_and_what_is_supported(served: Served) -> None:
    with served.http("ada") as http, served.http() as anonymous:
        info = http.get("/info").json()
        assert anonymous.get("/info").status_code == 401
    assert info["version"] and info["langgraph_py_version"]
    assert info["flags"]["assistants"] is True and info["flags"]["crons"] is False
    assert info["flags"]["thread_ttl"] is True and info["flags"]["auth"] is True


def test_the_openapi_document_lists_the_served_routes_with_their_bodies(served: Served) -> None:
    with served.http("ada") as http:
        document = http.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    paths = document["paths"]
    assert set(paths["/threads/{thread_id}"]) == {"get", "patch", "delete"}
    assert "/assistants/{assistant_id}/subgraphs" in paths and "/threads/count" in paths
    assert not any(path.startswith(("/runs/crons", "/console", "/mcp", "/a2a")) for path in paths)
    assert "/threads/{thread_id}/stream" not in paths  # 501: not served
    wait = paths["/threads/{thread_id}/runs/wait"]["post"]
    assert wait["summary"] == "runs.wait"
    assert wait["parameters"][0]["name"] == "thread_id"
    reference = wait["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = {"$ref": reference, "components": document["components"]}
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate({"assistant_id": "meta", "input": {"question": QUESTION}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"input": {}}, schema)  # no assistant_id


# -- assistants ----------------------------------------------------------------------------------


def test_assistants_are_counted_searched_and_have_one_version(served: Served) -> None:
    client = served.client("ada")
    everyone = client.assistants.search(limit=100)
    assert client.assistants.count() == len(everyone) >= 3
    metas = [a["name"] for a in everyone if "meta" in a["name"]]
    assert client.assistants.count(name="META") == len(metas)
    assert len(client.assistants.search(metadata={"created_by": "system"}, limit=100)) == len(
        everyone
    )
    assert client.assistants.search(metadata={"created_by": "someone"}) == []
    names = [a["name"] for a in client.assistants.search(sort_by="name", sort_order="desc")]
    assert names == sorted((a["name"] for a in everyone), reverse=True)[:10]
    assert client.assistants.search(select=["name"], limit=1) == [{"name": names[-1]}]
    page = client.assistants.search(limit=1, response_format="object")
    assert page["next"] == "1" and len(page["assistants"]) == 1

    [version] = client.assistants.get_versions("meta")
    assert version["version"] == 1 and version["graph_id"] == "meta"
    assert client.assistants.set_latest("meta", 1)["assistant_id"] == version["assistant_id"]
    status, detail = _refused(lambda: client.assistants.set_latest("meta", 2))
    assert status == 404 and "version 2" in detail


def test_an_assistants_graph_and_nested_teams_are_read(served: Served) -> None:
    client = served.client("ada")
    assistant = client.assistants.get("meta")
    assert client.assistants.get(assistant["assistant_id"]) == assistant
    graph = client.assistants.get_graph("meta")
    assert "research_team" in {node["id"] for node in graph["nodes"]}
    deep = client.assistants.get_graph("meta", xray=1)
    assert any(node["id"].startswith("research_team:") for node in deep["nodes"])
    subgraphs = client.assistants.get_subgraphs("meta")
    assert list(subgraphs) == ["research_team"]
    research = subgraphs["research_team"]["input_schema"]
    assert research["properties"]["question"]["type"] == "string"
    nested = client.assistants.get_subgraphs("meta-knowledge", recurse=True)
    assert "extraction_team|document" in nested
    assert list(client.assistants.get_subgraphs("meta-knowledge", "extraction_team")) == [
        "extraction_team"
    ]
    status, detail = _refused(lambda: client.assistants.get_subgraphs("meta", "nowhere"))
    assert status == 404 and "nowhere" in detail


def test_the_input_schema_is_typed_and_requires_the_question(served: Served) -> None:
    schemas = served.client("ada").assistants.get_schemas("meta")
    inputs = schemas["input_schema"]
    assert inputs["required"] == ["question"]
    assert inputs["properties"]["question"] == {"type": "string", "minLength": 1}
    assert inputs["properties"]["iteration"] == {"type": "integer"}
    assert "Plan" in inputs["$defs"]
    jsonschema.Draft202012Validator.check_schema(inputs)
    jsonschema.validate({"question": QUESTION}, inputs)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({}, inputs)
    assert schemas["output_schema"]["required"] == []


# -- a run's input ------------------------------------------------------------------------------


def test_a_run_without_its_question_is_refused_before_anything_is_recorded(
    served: Served,
) -> None:
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    for run, said in [
        (lambda: client.runs.wait(thread_id, "meta", input={}), "input.question is missing"),
        (lambda: client.runs.create(thread_id, "meta"), "input.question is missing"),
        (lambda: client.runs.wait(thread_id, "meta", input={"question": ""}), "is empty"),
        (lambda: client.runs.wait(thread_id, "meta", input={"question": 3}), "valid string"),
        (
            lambda: client.runs.wait(thread_id, "meta", input={"question": "q", "nope": 1}),
            "input.nope is not a key",
        ),
    ]:
        status, detail = _refused(run)
        assert status == 422 and said in detail, detail
    assert client.runs.list(thread_id) == []
    assert client.threads.get_state(thread_id)["values"] == {}


def test_a_run_with_no_input_or_a_state_update_goes_on_from_the_threads_state(
    served: Served, paused: str
) -> None:
    client = served.client("ada")
    status, detail = _refused(lambda: client.threads.update_state(paused, {"final_answer": "x"}))
    assert status == 422 and "decide them" in detail  # a review waits: decide it instead
    copy = client.threads.copy(paused)["thread_id"]
    done = client.runs.wait(copy, "meta", command={"resume": "approve"})
    assert done["final_answer"]
    again = client.runs.wait(copy, "meta")  # nothing left to run: the state as it is
    assert again["final_answer"] == done["final_answer"]
    status, _ = _refused(lambda: served.client("bob").runs.wait(copy, "meta"))
    assert status == 422  # another tenant's thread: as for an id nobody has
    client.threads.update_state(copy, {"final_answer": "edited"})
    assert client.threads.get_state(copy)["values"]["final_answer"] == "edited"


# -- threads ------------------------------------------------------------------------------------


def test_a_threads_metadata_is_updated_by_its_tenant_only(served: Served) -> None:
    client = served.client("ada")
    thread_id = client.threads.create(metadata={"team": "x", "n": 1})["thread_id"]
    updated = client.threads.update(thread_id, metadata={"n": 2, "tag": "new"})
    assert updated["metadata"] == {"team": "x", "n": 2, "tag": "new"}
    assert client.threads.get(thread_id)["metadata"] == updated["metadata"]
    assert client.threads.update(thread_id, metadata={"k": 1}, return_minimal=True) is None
    status, _ = _refused(lambda: served.client("bob").threads.update(thread_id, metadata={}))
    assert status == 404
    status, detail = _refused(lambda: served.client("rita").threads.update(thread_id, metadata={}))
    assert status == 403 and "'run'" in detail
    assert client.threads.get(thread_id)["metadata"]["k"] == 1


def test_threads_are_counted_and_searched_by_their_values(served: Served, paused: str) -> None:
    client = served.client("ada")
    other = client.threads.create(metadata={"batch": "counted", "n": 1})["thread_id"]
    client.threads.create(metadata={"batch": "counted", "n": 2})
    assert client.threads.count(metadata={"batch": "counted"}) == 2
    assert client.threads.count(metadata={"batch": "counted", "n": 2}) == 1
    assert served.client("bob").threads.count(metadata={"batch": "counted"}) == 0
    assert client.threads.count(status="interrupted") >= 1
    found = client.threads.search(values={"question": QUESTION}, limit=100)
    assert paused in [t["thread_id"] for t in found] and other not in found
    assert client.threads.count(values={"question": QUESTION}) == len(found)
    assert client.threads.search(values={"question": "another question"}) == []
    nested = {"findings": {"intake": [{"phase": "intake"}]}}  # held, as PostgreSQL's @>
    assert [t["thread_id"] for t in client.threads.search(values=nested, ids=[paused])] == [paused]
    [picked] = client.threads.search(
        ids=[paused], select=["thread_id", "status"], extract={"q": "values.question"}
    )
    assert picked == {"thread_id": paused, "status": "interrupted", "extracted": {"q": QUESTION}}
    status, detail = _refused(lambda: client.threads.search(extract={"bad": "values..x"}))
    assert status == 422 and "values..x" in detail


def test_a_threads_state_and_history_give_only_the_fields_selected(
    served: Served, paused: str
) -> None:
    client = served.client("ada")
    state = client.threads.get_state(paused, select=["values.question", "next"])
    assert state == {"values": {"question": QUESTION}, "next": ["research_team"]}
    history = client.threads.get_history(paused, limit=2, select=["checkpoint"])
    assert [set(entry) for entry in history] == [{"checkpoint"}, {"checkpoint"}]
    status, detail = _refused(lambda: client.threads.get_history(paused, select=["nope"]))
    assert status == 422 and "nope" in detail


def test_a_thread_is_deleted_once_its_ttl_passes(served: Served) -> None:
    client = served.client("ada")
    brief = client.threads.create(ttl=0.02)["thread_id"]  # 1.2 s after its last update
    kept = client.threads.create()["thread_id"]
    later = client.threads.create()["thread_id"]
    client.threads.update(later, metadata={}, ttl=0.02)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        gone = {t["thread_id"] for t in client.threads.search(limit=1000)}
        if brief not in gone and later not in gone:
            break
        time.sleep(0.5)
    else:
        pytest.fail("threads with a TTL were not deleted")
    assert client.threads.get(kept)["thread_id"] == kept
    status, _ = _refused(lambda: client.threads.get(brief))
    assert status == 404
    for ttl in ({"ttl": 5, "strategy": "keep_latest"}, {"ttl": -1}):
        status, detail = _refused(lambda ttl=ttl: client.threads.create(ttl=ttl))
        assert status == 422 and "ttl" in detail, detail


def test_threads_are_pruned_by_an_admin(served: Served, paused: str) -> None:
    ada, root = served.client("ada"), served.client("root")
    doomed = [ada.threads.create()["thread_id"] for _ in range(2)]
    status, detail = _refused(lambda: ada.threads.prune(doomed))
    assert status == 403 and "'admin'" in detail
    assert served.client("gus").threads.prune(doomed) == {"pruned_count": 0}  # not theirs
    assert root.threads.prune([*doomed, "nobodys"]) == {"pruned_count": 2}
    for thread_id in doomed:
        assert _refused(lambda thread_id=thread_id: ada.threads.get(thread_id))[0] == 404
    deleted = ada.threads.create()["thread_id"]
    root.threads.delete(deleted)
    assert _refused(lambda: ada.threads.get(deleted))[0] == 404

    copy = ada.threads.copy(paused)["thread_id"]
    before = ada.threads.get_state(copy)
    assert len(ada.threads.get_history(copy, limit=100)) > 1
    assert root.threads.prune([copy], strategy="keep_latest") == {"pruned_count": 1}
    assert len(ada.threads.get_history(copy, limit=100)) == 1
    assert ada.threads.get_state(copy) == before


def test_thread_rows_count_expire_and_prune_on_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    tokens = {"ada": ("acme", "run,review"), "root": ("acme", "admin")}
    with serve(tmp_path / "home", postgres_url, tokens=tokens) as server:
        ada = server.client("ada")
        brief = ada.threads.create(metadata={"kind": "brief"}, ttl=0.02)["thread_id"]
        kept = ada.threads.update(ada.threads.create()["thread_id"], metadata={"kind": "kept"})
        assert ada.threads.count(metadata={"kind": "brief"}) == 1
        deadline = time.monotonic() + 30
        while ada.threads.count(metadata={"kind": "brief"}) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _refused(lambda: ada.threads.get(brief))[0] == 404
        assert server.client("root").threads.prune([kept["thread_id"]]) == {"pruned_count": 1}
        assert ada.threads.count() == 0
