"""``cadre serve`` driven by LangGraph's own client (``langgraph-sdk``, unmodified) over a real
uvicorn server: a run with plan review pauses, an invalid edit is refused (422, thread as it
was), a valid one resumes, the run streams to its end; history, a fork from a checkpoint and the
store; on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from framework.database.home import DataHome
from framework.memory import MiniLMEmbedder
from framework.runs.threads import read_thread_spec
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints written?"
PLAN_REVIEW = {"configurable": {"review": ["plan"]}}


@pytest.fixture
def served(tmp_path: Path, database: str | None, embedder: MiniLMEmbedder) -> Iterator[Served]:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    tokens = {"ada": ("acme", "run,review"), "bob": ("globex", "run,review")}
    with serve(tmp_path / "home", database, corpus=corpus, tokens=tokens) as server:
        yield server


def _paused(served: Served) -> tuple[str, dict[str, Any]]:
    """A new thread of ada's paused at its plan review; the thread id and the interrupt."""
    client = served.client("ada")
    thread_id = client.threads.create(metadata={"case": "review"})["thread_id"]
    waited = client.runs.wait(thread_id, "meta", input={"question": QUESTION}, config=PLAN_REVIEW)
    [shown] = waited["__interrupt__"]
    state = client.threads.get_state(thread_id)
    assert state["next"] == ["research_team"]
    [interrupt] = state["interrupts"]
    assert interrupt == shown and interrupt["value"]["kind"] == "plan"
    assert interrupt["value"]["config"]["allow_accept"]  # the shape Agent Inbox reads
    assert client.threads.get(thread_id)["status"] == "interrupted"
    return thread_id, interrupt


def test_a_client_reviews_edits_streams_forks_and_reads_the_store(served: Served) -> None:
    client = served.client("ada")
    thread_id, interrupt = _paused(served)
    plan = interrupt["value"]["plan"]

    bad = copy.deepcopy(plan)
    bad["tasks"][0]["description"] = ""
    before = client.threads.get_state(thread_id)
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.wait(thread_id, "meta", command={"resume": {"kind": "edit_plan", "plan": bad}})
    assert refused.value.response.status_code == 422
    assert "plan.tasks.0.description" in refused.value.response.json()["detail"]
    assert client.threads.get_state(thread_id) == before  # nothing ran, nothing was written

    edited = copy.deepcopy(plan)
    edited["tasks"] = edited["tasks"][:1]
    decision = {interrupt["id"]: {"kind": "edit_plan", "plan": edited}}
    parts = list(
        client.runs.stream(
            thread_id,
            "meta",
            command={"resume": decision},
            stream_mode=["values", "updates", "custom"],
        )
    )
    names = [part.event for part in parts]
    assert names[0] == "metadata" and names[-1] == "end"
    assert {"values", "updates", "custom"} <= set(names)
    final = client.threads.get_state(thread_id)
    assert final["next"] == [] and final["values"]["final_answer"]
    [entry] = [e for e in final["values"]["audit"] if e["decision_kind"] == "edit_plan"]
    assert entry["reviewer"] == "ada"  # the token's name, whatever the client said
    assert len(final["values"]["plan"]["tasks"]) == 1

    history = client.threads.get_history(thread_id, limit=100)
    assert history[0]["checkpoint"] == final["checkpoint"]
    [paused_at] = [h for h in history if h["next"] == ["research_team"]]
    fork = client.threads.copy(thread_id)
    forked = client.runs.wait(
        fork["thread_id"],
        "meta",
        command={"resume": "approve"},
        checkpoint_id=paused_at["checkpoint"]["checkpoint_id"],
    )
    assert forked["final_answer"] and len(forked["plan"]["tasks"]) == len(plan["tasks"])
    assert client.threads.get_state(thread_id) == final  # the fork left the original alone

    client.store.put_item(["prefs", "ada"], key="tone", value={"tone": "terse"})
    item = client.store.get_item(["prefs", "ada"], key="tone")
    assert item is not None and item["value"] == {"tone": "terse"}
    found = client.store.search_items(["prefs"], filter={"tone": "terse"})
    assert [i["key"] for i in found["items"]] == ["tone"]
    assert client.store.list_namespaces(prefix=["prefs"])["namespaces"] == [["prefs", "ada"]]
    client.store.delete_item(["prefs", "ada"], key="tone")
    assert [r["status"] for r in client.runs.list(thread_id)] == ["success", "success"]


def test_another_tenants_threads_runs_and_store_are_not_there(
    served: Served, database: str | None
) -> None:
    if database is not None:
        pytest.skip("tenancy is the server's, whatever the database: SQLite shows it")
    thread_id, _ = _paused(served)
    ada, bob = served.client("ada"), served.client("bob")
    ada.store.put_item(["notes"], key="k", value={"secret": "acme plans"})
    [run] = ada.runs.list(thread_id)
    with served.http("bob") as http:
        for method, path in [
            ("GET", f"/threads/{thread_id}"),
            ("GET", f"/threads/{thread_id}/state?subgraphs=false"),
            ("GET", f"/threads/{thread_id}/runs"),
            ("GET", f"/threads/{thread_id}/runs/{run['run_id']}"),
            ("POST", f"/threads/{thread_id}/copy"),
        ]:
            answer = http.request(method, path)
            assert answer.status_code == 404, (path, answer.text)
        resumed = http.post(
            f"/threads/{thread_id}/runs/wait",
            json={"assistant_id": "meta", "command": {"resume": "approve"}},
        )
        assert resumed.status_code == 404
    assert bob.threads.search() == []
    assert bob.store.search_items(["notes"])["items"] == []
    assert bob.store.list_namespaces()["namespaces"] == []
    with served.http() as anonymous:
        assert anonymous.get(f"/threads/{thread_id}").status_code == 401
    with httpx.Client(base_url=served.url, headers={"x-api-key": "cadre_0_x"}) as forged:
        assert forged.post("/threads/search", json={}).status_code == 401
    with httpx.Client(
        base_url=served.url, headers={"Authorization": f"Bearer {served.tokens['ada']}"}
    ) as bearer:
        assert bearer.get(f"/threads/{thread_id}").status_code == 200


def test_unknown_endpoints_and_unsupported_parameters_answer_json_errors(
    served: Served, database: str | None
) -> None:
    if database is not None:
        pytest.skip("request checks are the server's, whatever the database")
    thread_id = served.client("ada").threads.create()["thread_id"]
    with served.http("ada") as http:
        missing = http.get("/no/such/endpoint")
        assert missing.status_code == 404 and missing.json() == {"detail": "Not Found"}
        for body, field in [
            ({"assistant_id": "meta", "webhook": "http://example.com/hook"}, "webhook"),
            ({"assistant_id": "meta", "stream_mode": "everything"}, "stream_mode"),
            ({"assistant_id": "meta", "surprise": 1}, "surprise"),
            ({"assistant_id": "meta", "command": {"goto": "planner"}}, "goto"),
        ]:
            answer = http.post(f"/threads/{thread_id}/runs", json=body)
            assert answer.status_code == 422 and field in answer.json()["detail"], answer.text
        unknown = http.post(f"/threads/{thread_id}/runs", json={"assistant_id": "nobody"})
        assert unknown.status_code == 404
        huge = http.post("/threads", content=b"{" + b" " * 2_000_000 + b"}")
        assert huge.status_code == 413
        not_json = http.post("/threads", content=b"{nope")
        assert not_json.status_code == 422


def test_a_client_that_disconnects_leaves_its_run_going_and_join_reattaches(
    served: Served, database: str | None
) -> None:
    if database is not None:
        pytest.skip("streams are the server's, whatever the database")
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    stream = client.runs.stream(
        thread_id, "meta", input={"question": QUESTION}, stream_mode=["custom"]
    )
    first = next(iter(stream))
    assert first.event == "metadata"
    run_id = first.data["run_id"]
    stream.close()  # the client goes away after the first event
    joined = client.runs.join(thread_id, run_id)
    assert joined["final_answer"]
    parts = list(client.runs.join_stream(thread_id, run_id))
    replayed = [part.event for part in parts]
    assert replayed[0] == "metadata" and replayed[-1] == "end" and "custom" in replayed
    third = parts[2].id
    after = [p.event for p in client.runs.join_stream(thread_id, run_id, last_event_id=third)]
    assert after == replayed[3:]  # from the event after the one seen
    foreign = client.runs.join_stream(thread_id, run_id, last_event_id="0-2")
    assert [p.event for p in foreign] == replayed  # another process's id: from the start
    assert client.runs.get(thread_id, run_id)["status"] == "success"


POLICY = """\
pii:
  rules: {email: redact}
  apply_to: [answer]
"""


def test_runs_over_the_api_act_for_the_token_under_the_servers_policy(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    tokens = {"ada": ("acme", "run,review")}
    options = ["--policy", str(policy)]
    with serve(tmp_path / "home", None, corpus=corpus, tokens=tokens, options=options) as served:
        client = served.client("ada")
        thread_id = client.threads.create()["thread_id"]
        client.runs.wait(thread_id, "meta", input={"question": QUESTION})
    info = read_thread_spec(DataHome(root=tmp_path / "home"), thread_id)
    assert info.principal is not None
    assert (info.principal.user, info.principal.tenant) == ("ada", "acme")
    assert info.policy == POLICY and info.memory_scope == ("tenant", "acme")
