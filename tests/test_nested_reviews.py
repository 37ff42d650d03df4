"""Review points inside nested teams (``team:`` kinds) surface at the top with their place in the
tree (``team top > kind deep (task q0) > team middle > kind inner (task q0) > team leaf``), keep
their ids, and are decided from every door through the same checks: the Python API (parallel
subteams resumed by id, one at a time and together, sync and async), ``cadre reviews``,
``cadre approve`` and ``cadre edit``, LangGraph's API over real HTTP with ``langgraph-sdk``, and
the console. Each decision lands in the top team's audit trail with its reviewer and place, and
``cadre show`` prints the nested teams' tasks under the task that ran them."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.engine.nodes.planner import plan_signal, without_rejected
from framework.engine.records import Plan, Task
from framework.memory import Corpus
from framework.review import AnyReviewRequest, adecide, decide, decisions_in, pending
from framework.runs.runner import arun_team, run_team
from framework.runs.teams import TeamSetup
from teams.configured.app import team_from_file
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve
from tests.test_console_seams import _console, _decide, _element, _joined, _review_id, _words
from tests.test_nested_teams import LEAF, PORTS, QUESTION, _cli, _files

REVIEWED_LEAF = "name: leaf\nreview: [plan]\n" + LEAF.split("\n", 1)[1]
FAN = "name: fan\nkinds:\n  - name: deep\n    team: teams/leaf.yaml\n"
"""Two levels: each task of the top team runs the reviewed leaf."""
WHERE = "team top > kind deep (task q0) > team middle > kind inner (task q0) > team leaf"
COMPOUND = "How are checkpoints encrypted and how do workers retry transient errors?"
"""Planned as three tasks offline (the whole question and its two parts): three pauses."""


def _conf(root: Path) -> tuple[Path, Path]:
    """top.yaml (three levels) and fan.yaml (two levels) over the reviewed leaf."""
    top = _files(root, REVIEWED_LEAF)
    fan = root / "fan.yaml"
    fan.write_text(FAN)
    return top, fan


def _approve(requests: list[AnyReviewRequest]) -> list[dict[str, str]]:
    return [{"request_id": r.id, "kind": "approve", "reviewer": "dana"} for r in requests]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_parallel_nested_pauses_are_resumed_by_id_one_at_a_time_and_together(
    tmp_path: Path, small_corpus: Corpus, mode: str
) -> None:
    _, fan = _conf(tmp_path / "conf")
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store)
    app = compile_team(team_from_file(fan)(setup), checkpointer=InMemorySaver())

    def resume(requests: list[AnyReviewRequest]) -> dict[str, Any]:
        if mode == "sync":
            return decide(app, "p", _approve(requests)).state
        return asyncio.run(adecide(app, "p", _approve(requests))).state

    if mode == "sync":
        run_team(app, {"question": COMPOUND}, "p")
    else:
        asyncio.run(arun_team(app, {"question": COMPOUND}, "p"))
    requests = pending(app, "p")
    assert sorted(r.where for r in requests) == [
        f"team fan > kind deep (task q{n}) > team leaf" for n in range(3)
    ]
    assert {(r.kind, tuple(r.path), r.node) for r in requests} == {
        ("plan", ("deep", "leaf"), "plan_review")
    }
    first, *others = requests
    paused = resume([first])
    assert "final_answer" not in paused
    assert {r.id: r for r in pending(app, "p")} == {r.id: r for r in others}  # ids kept
    snapshot = app.get_state({"configurable": {"thread_id": "p"}}, subgraphs=True)
    assert [e.request_id for e in decisions_in(snapshot)] == [first.id]  # visible at once
    final = resume(others)
    assert pending(app, "p") == []
    sources = {e.source for r in final["worker_results"].values() for e in r.evidence}
    assert {"docs/checkpoints.md:3", "docs/retries.md:3"} <= sources
    trail = {entry.request_id: entry for entry in final["audit"]}
    assert set(trail) == {r.id for r in requests}
    assert {(e.reviewer, e.decision_kind) for e in trail.values()} == {("dana", "approve")}
    assert {r.id: r.where for r in requests} == {i: e.where for i, e in trail.items()}


def test_a_review_two_levels_down_is_listed_shown_and_approved_from_the_cli(
    tmp_path: Path,
) -> None:
    top, _ = _conf(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    home = ["--home", str(tmp_path / "home")]
    ran = _cli("run", QUESTION, "--team-config", str(top), "--corpus", str(corpus), "--thread",
               "t1", *home)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    [line] = [line for line in ran.stdout.splitlines() if "plan review" in line]
    request_id = line.split()[0]
    assert line == f"  {request_id}  plan review  at {WHERE} (node plan_review)"
    listed = _cli("reviews", *home)
    assert f"{request_id}  plan review  at {WHERE} (node plan_review)" in listed.stdout
    shown = _cli("show", "t1", *home).stdout
    assert _tree(shown) == [
        f"  q0  deep      running   {QUESTION}",
        f"      team middle: 1 task(s), plan: {QUESTION}",
        f"        q0  inner     running   {QUESTION}",
        f"            team leaf: 1 task(s), plan: {QUESTION}",
        f"              q0  docs      pending   {QUESTION}",
    ]
    approved = _cli("approve", "t1", "--reviewer", "dana", *home)
    assert approved.exit_code == 0, approved.output
    assert "thread t1 finished; its answer:" in approved.stdout
    assert "The gateway listens on port 8443 for TLS traffic. (`corpus/ports.md:3`)" in (
        approved.stdout
    )
    shown = _cli("show", "t1", *home).stdout
    assert _tree(shown) == [
        f"  q0  deep      done      {QUESTION}",
        f"      team middle: 1 task(s), plan: {QUESTION}",
        f"        q0  inner     done      {QUESTION}",
        f"            team leaf: 1 task(s), plan: {QUESTION}",
        f"              q0  docs      done      {QUESTION}",
    ]
    assert f"  dana  approve on plan review {request_id} at {WHERE}\n" in shown


def _tree(shown: str) -> list[str]:
    """The task lines of ``cadre show``'s output."""
    return (
        shown.split("\ntasks: 1 (2 in the teams below)\n", 1)[1]
        .split("\npending:", 1)[0]
        .splitlines()
    )


def test_a_task_id_pending_in_several_subteams_is_refused_naming_each_request(
    tmp_path: Path,
) -> None:
    """Every nested subteam numbers its tasks from q0: ``cadre reject t1 q0`` must not pick one
    of the three pending plan reviews that hold a q0, but name them all."""
    _, fan = _conf(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", SMALL_CORPUS)
    home = ["--home", str(tmp_path / "home")]
    ran = _cli("run", COMPOUND, "--team-config", str(fan), "--corpus", str(corpus), "--thread",
               "t1", *home)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    ids = [line.split()[0] for line in ran.stdout.splitlines() if "plan review" in line]
    assert len(ids) == 3
    refused = _cli("reject", "t1", "q0", "--reason", "no", "--reviewer", "dana", *home)
    assert refused.exit_code == 2
    [line] = refused.stderr.strip().splitlines()
    assert "task 'q0' is in 3 pending requests of thread 't1': pass --request with one of" in line
    assert all(f"{request_id} (plan review at team fan > kind deep" in line for request_id in ids)
    assert len(_cli("reviews", *home).stdout.strip().splitlines()) >= 3  # nothing was decided
    chosen = _cli("reject", "t1", "q0", "--reason", "no", "--reviewer", "dana", "--request",
                  ids[0], *home)  # fmt: skip
    assert chosen.exit_code == 0, chosen.output


def test_a_nested_task_rejected_once_is_not_asked_again(tmp_path: Path) -> None:
    """The leaf's only task rejected at its plan review: each team above sees its task refused
    (not failed), so none retries it, and the run ends without another review."""
    top, _ = _conf(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    home = ["--home", str(tmp_path / "home")]
    ran = _cli("run", QUESTION, "--team-config", str(top), "--corpus", str(corpus), "--thread",
               "t1", *home)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    rejected = _cli("reject", "t1", "q0", "--reason", "not this port", "--reviewer", "dana", *home)
    assert rejected.exit_code == 0, rejected.output
    assert "paused for review" not in rejected.stdout  # no new review of the same task
    assert "thread t1 finished" in rejected.stdout
    assert _cli("reviews", *home).stdout.strip() == "no pending reviews in " + home[1]
    shown = _cli("show", "t1", *home).stdout
    assert "dana  reject_tasks on plan review" in shown and "not this port" in shown
    listed = _cli("threads", *home).stdout
    assert any(line.startswith("t1 ") and " done " in f"{line} " for line in listed.splitlines())


def test_a_replan_does_not_ask_again_for_a_task_a_reviewer_rejected() -> None:
    """A reviewer rejected q0; the team's reviewer then asks for a new plan and the planner
    plans the same task again (as an offline planner does): it is dropped, a new one kept."""
    rejected = Task(id="q0", description="How are checkpoints  ENCRYPTED?", status="rejected")
    state: Any = {"tasks": {"q0": rejected}}
    again = Task(id="q0", description="How are checkpoints encrypted?")
    other = Task(id="q1", description="How are checkpoints written?")
    plan, dropped = without_rejected(Plan(goal="g", tasks=[again, other]), state)
    assert [task.id for task in plan.tasks] == ["q1"] and dropped == ["q0"]
    only, dropped = without_rejected(Plan(goal="g", tasks=[again]), state)
    assert only.tasks == [] and dropped == ["q0"] and plan_signal(only) == "answer"
    other_kind = again.model_copy(update={"kind": "tables"})
    assert without_rejected(Plan(goal="g", tasks=[other_kind]), state)[1] == []


def test_a_nested_plan_is_edited_from_the_cli_through_the_same_checks(tmp_path: Path) -> None:
    top, _ = _conf(tmp_path / "conf")
    corpus = write_corpus(tmp_path / "corpus", {"ports.md": PORTS})
    home = ["--home", str(tmp_path / "home"), "--reviewer", "dana"]
    ran = _cli("run", QUESTION, "--team-config", str(top), "--corpus", str(corpus), "--thread",
               "e1", *home[:2])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    task = {"id": "q0", "description": "What listens for TLS traffic?", "kind": "docs",
            "inputs": {"query": "TLS traffic"}}  # fmt: skip
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"goal": "TLS", "tasks": [{**task, "kind": "table"}]}))
    refused = _cli("edit", "e1", "--plan", str(plan), *home)
    assert refused.exit_code == 2 and "table" in refused.stderr, refused.output
    assert "plan review  at " + WHERE in _cli("reviews", *home[:2]).stdout  # still pending
    plan.write_text(json.dumps({"goal": "TLS", "tasks": [task]}))
    edited = _cli("edit", "e1", "--plan", str(plan), *home)
    assert edited.exit_code == 0, edited.output
    assert "`corpus/ports.md:3`" in edited.stdout
    shown = _cli("show", "e1", *home[:2]).stdout
    assert "              q0  docs      done      What listens for TLS traffic?" in shown
    assert re.search(rf"  dana  edit_plan on plan review \w+ at {re.escape(WHERE)}\n", shown)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``cadre serve --team-config top.yaml --team-config fan.yaml``, ada's token."""
    root = tmp_path_factory.mktemp("nested-serve")
    top, fan = _conf(root / "conf")
    corpus = write_corpus(root / "docs", {**SMALL_CORPUS, "ports.md": PORTS})
    options = ["--team-config", str(top), "--team-config", str(fan)]
    tokens = {"ada": ("acme", "run,review")}
    with serve(root / "home", None, corpus=corpus, tokens=tokens, options=options) as server:
        yield server


def test_a_pause_two_levels_down_is_shown_and_resumed_by_id_over_http(served: Served) -> None:
    client = served.client("ada")
    thread = client.threads.create()["thread_id"]
    paused = client.runs.wait(thread, "top", input={"question": QUESTION})
    assert isinstance(paused, dict), paused
    [interrupt] = paused["__interrupt__"]
    request = interrupt["value"]
    assert (request["kind"], request["where"]) == ("plan", WHERE)
    assert request["path"] == ["deep", "inner", "leaf"]
    assert f"at {WHERE}" in request["description"]  # what Agent Inbox shows
    assert client.threads.get_state(thread)["interrupts"] == [interrupt]
    with pytest.raises(httpx.HTTPStatusError) as refused:  # keyed by an id nothing pending has
        client.runs.wait(thread, "top", command={"resume": {"q0-plan": "approve"}})
    assert refused.value.response.status_code == 422
    assert "has the id q0-plan: key the decisions by the ids pending" in refused.value.response.text
    assert client.threads.get_state(thread)["interrupts"] == [interrupt]  # still paused
    final = client.runs.wait(thread, "top", command={"resume": {interrupt["id"]: "approve"}})
    assert isinstance(final, dict), final
    assert (
        "The gateway listens on port 8443 for TLS traffic. (`docs/ports.md:3`)"
        in (final["final_answer"])
    )
    [entry] = final["audit"]
    assert (entry["request_id"], entry["reviewer"], entry["where"]) == (
        interrupt["id"], "ada", WHERE,
    )  # fmt: skip


def test_parallel_subteam_pauses_are_resumed_by_id_over_http(served: Served) -> None:
    client = served.client("ada")
    thread = client.threads.create()["thread_id"]
    paused = client.runs.wait(thread, "fan", input={"question": COMPOUND})
    assert isinstance(paused, dict), paused
    first, *others = paused["__interrupt__"]
    assert sorted(i["value"]["where"] for i in [first, *others]) == [
        f"team fan > kind deep (task q{n}) > team leaf" for n in range(3)
    ]
    again = client.runs.wait(thread, "fan", command={"resume": {first["id"]: "approve"}})
    assert isinstance(again, dict), again
    waiting = {i["id"] for i in others}
    assert {i["id"] for i in again["__interrupt__"]} == waiting  # the others, ids kept
    state = client.threads.get_state(thread)
    assert {i["id"] for i in state["interrupts"]} == waiting
    [decided] = state["values"]["audit"]  # the decision shows at once, the others still pending
    assert (decided["request_id"], decided["reviewer"]) == (first["id"], "ada")
    final = client.runs.wait(thread, "fan", command={"resume": dict.fromkeys(waiting, "approve")})
    assert isinstance(final, dict) and "__interrupt__" not in final, final
    assert "(`docs/retries.md:3`)" in final["final_answer"]
    assert {(e["request_id"], e["reviewer"]) for e in final["audit"]} == {
        (i, "ada") for i in {first["id"], *waiting}
    }


def test_the_console_shows_a_nested_review_in_place_and_approves_it(served: Served) -> None:
    client = served.client("ada")
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "top", input={"question": QUESTION})
    with _console(served) as console:
        page = console.get(f"/console/threads/{thread}").text
        review = _words(_element(page, f"review-{_review_id(page)}"))
        assert f"at {WHERE} · node plan_review" in review
        assert f"plan review at {WHERE}" in _words(_element(console.get("/console").text,
                                                           "threads"))  # fmt: skip
        _decide(console, thread, kind="approve")
        _joined(served, thread)
        page = console.get(f"/console/threads/{thread}").text
        assert _element(page, "thread-status") == "done"
        assert "approve of the plan review by ada" in _words(_element(page, "audit"))
        assert f"in {WHERE}" in _words(_element(page, "audit"))
